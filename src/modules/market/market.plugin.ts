import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { ResolvedConfig } from '../../config.js';
import type { DB } from '../../db/schema.js';
import type { Clock } from '../../platform/clock.js';
import type { AppDeps } from '../../app-deps.js';
import { modulePlugin, routeLimits, sessionScope } from '../../platform/http/module-plugin.js';
import type { InvalidationBus } from '../../platform/invalidation.js';
import { ContractImportService } from './contract-import.service.js';
import { ContractImportsRepository } from './contract-imports.repository.js';
import { ContractsService } from './contracts.service.js';
import { brokerIds, getFormat } from './importers/index.js';
import { InstrumentsRepository } from './instruments.repository.js';
import { InstrumentsExport } from './instruments-export.js';
import { LiveContractRepository } from './live-contract.repository.js';
import { marketApiRoutes } from './market-api.routes.js';
import { masterContractUploadRoute } from './master-contract-upload.routes.js';
import { masterContractRoutes } from './master-contract.routes.js';
import { publicSearchRoutes, sessionSearchRoutes } from './search.routes.js';
import { SearchService } from './search.service.js';

/** The master contract and its search. */
export interface MarketServices {
  /** The live contract: lookups for orders and strategies, index or database. */
  contracts: ContractsService;
  imports: ContractImportService;
  search: SearchService;
}

export function buildMarketServices(deps: {
  db: Kysely<DB>;
  config: Pick<ResolvedConfig, 'instrumentIndex'>;
  clock: Clock;
  bus: InvalidationBus;
  logger: Logger;
  freezeQty: (exchange: string, underlying: string) => number | null;
  /** The freeze table in use (a new value after every change): see {@link SearchService}. */
  freezeVersion?: () => unknown;
}): MarketServices {
  const repo = new InstrumentsRepository(deps.db);
  const contracts = new ContractsService(
    repo,
    new LiveContractRepository(deps.db),
    deps.bus,
    deps.clock,
    deps.logger,
    deps.config.instrumentIndex,
  );
  return {
    contracts,
    imports: new ContractImportService(
      repo,
      new ContractImportsRepository(deps.db, repo),
      contracts,
      deps.clock,
      deps.logger,
    ),
    search: new SearchService(contracts, deps.freezeQty, deps.freezeVersion),
  };
}

declare module 'fastify' {
  interface FastifyInstance {
    market: MarketServices;
  }
}

/**
 * The market as a plugin: the master contract (imports, the instrument index) and symbol search,
 * on the browser and on `/api/v1`. At start interrupted imports are cleaned up, then the index
 * loads without holding up start-up (lookups answer from the database until it is ready).
 */
export const marketPlugin = modulePlugin<AppDeps>('market', ['auth', 'market-admin'], async (app, deps) => {
  const { config, logger } = deps;
  const marketAdmin = app.marketAdmin;
  const market = buildMarketServices({
    db: deps.database.db,
    config,
    clock: deps.clock,
    bus: deps.bus,
    logger,
    freezeQty: (exchange, underlying) => marketAdmin.freezeQty(exchange, underlying),
    freezeVersion: () => marketAdmin.freeze.table,
  });
  app.decorate('market', market);
  const limits = routeLimits(deps);
  const guard = app.auth.guard;
  await sessionScope(app, async (web) => {
    sessionSearchRoutes(web, { search: market.search, guard, webShell: () => app.webShell });
    masterContractRoutes(web, {
      imports: market.imports,
      contracts: market.contracts,
      getFormat,
      brokerIds,
      defaultBroker: config.masterContractBroker,
      baseUrl: config.masterContractBaseUrl,
      guard,
      rateLimit: limits.admin,
      logger,
    });
    // Its own scope (the multipart parser) and its own window: an upload is a heavy request.
    await masterContractUploadRoute(web, {
      imports: market.imports,
      getFormat,
      brokerIds,
      guard,
      rateLimit: limits.limit('contract-upload', limits.rules.heavy),
    });
  });
  publicSearchRoutes(app, {
    search: market.search,
    apiKeyGuard: app.auth.apiKeyGuard,
    rateLimit: limits.api,
  });
  marketApiRoutes(app, {
    search: market.search,
    contracts: market.contracts,
    exporter: new InstrumentsExport(deps.database.db),
    holidays: marketAdmin.holidays,
    sessionsOn: (date) => marketAdmin.sessionsOn(date),
    brokerName: config.broker.name,
    apiKeyGuard: app.auth.apiKeyGuard,
    rateLimit: limits.api,
  });
  app.addHook('onReady', async () => market.contracts.start(() => market.imports.purge()));
  app.addHook('onClose', async () => {
    market.contracts.stop();
    await market.contracts.whenIdle();
  });
});

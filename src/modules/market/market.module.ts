import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { ResolvedConfig } from '../../config.js';
import type { DB } from '../../db/schema.js';
import type { Clock } from '../../platform/clock.js';
import type { App } from '../../platform/http/types.js';
import type { RateLimitHook } from '../../platform/http/rate-limit.js';
import type { InvalidationBus } from '../../platform/invalidation.js';
import type { ApiKeyGuard } from '../api/api-key.guard.js';
import type { SessionGuard } from '../auth/session.guard.js';
import { ContractImportService } from './contract-import.service.js';
import { ContractImportsRepository } from './contract-imports.repository.js';
import { ContractsService } from './contracts.service.js';
import { getFormat } from './importers/index.js';
import { InstrumentsRepository } from './instruments.repository.js';
import { masterContractRoutes } from './master-contract.routes.js';
import { publicSearchRoutes, sessionSearchRoutes } from './search.routes.js';
import { SearchService } from './search.service.js';

/** The master contract and its search (market data issue). */
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
}): MarketServices {
  const repo = new InstrumentsRepository(deps.db);
  const contracts = new ContractsService(
    repo,
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
    search: new SearchService(contracts, deps.freezeQty),
  };
}

/**
 * Starts the market services without waiting for the index (the service answers from the
 * database until it is ready): interrupted imports are cleaned up first, then the index loads.
 */
export function startMarketServices(m: MarketServices): void {
  m.contracts.start(() => m.imports.purge());
}

export function marketSessionRoutes(
  web: App,
  deps: {
    market: MarketServices;
    config: Pick<ResolvedConfig, 'masterContractBroker' | 'masterContractBaseUrl'>;
    guard: SessionGuard;
    rateLimit: RateLimitHook;
    logger: Logger;
  },
): void {
  sessionSearchRoutes(web, { search: deps.market.search, guard: deps.guard });
  masterContractRoutes(web, {
    imports: deps.market.imports,
    contracts: deps.market.contracts,
    getFormat,
    defaultBroker: deps.config.masterContractBroker,
    baseUrl: deps.config.masterContractBaseUrl,
    guard: deps.guard,
    rateLimit: deps.rateLimit,
    logger: deps.logger,
  });
}

export function marketApiRoutes(
  api: App,
  deps: { market: MarketServices; apiKeyGuard: ApiKeyGuard; rateLimit: RateLimitHook },
): void {
  publicSearchRoutes(api, {
    search: deps.market.search,
    apiKeyGuard: deps.apiKeyGuard,
    rateLimit: deps.rateLimit,
  });
}

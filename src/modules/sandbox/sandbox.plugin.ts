/**
 * Analyzer mode as a plugin: the sandbox (paper-trading account, books, jobs and the matching
 * engine over one repository), the analyzer/live switch that starts and stops the engine on every
 * instance, and the switch's and the account reset's routes. The switch lives here, not with the
 * orders: what it turns on and off is this module's engine; orders only read `mode.analyze`.
 * The `/api/v1` books (orders/books.routes.ts) answer in both modes, so the orders plugin registers them.
 */
import { inSession } from './core/sessions.js';
import { readFileSync } from 'node:fs';
import type { Kysely } from 'kysely';
import type { AppDeps } from '../../app-deps.js';
import { modulePlugin, routeLimits, sessionScope } from '../../platform/http/module-plugin.js';
import { analyzeModeRoutes } from './http/analyze-mode.routes.js';
import { sandboxAccountRoutes, sandboxSessionRoutes } from './http/account.routes.js';
import { sandboxRecordRoutes } from './http/records.routes.js';
import { sandboxUtilityRoutes } from './http/utilities.routes.js';
import type { Logger } from 'pino';
import type { ResolvedConfig } from '../../config.js';
import type { DB } from '../../db/schema.js';
import type { Clock } from '../../platform/clock.js';
import { transactionRunner } from '../../platform/db/group-commit.js';
import type { InvalidationBus } from '../../platform/invalidation.js';
import type { ExchangeSession } from '../market/timings.service.js';
import { AnalyzeModeRepository } from './store/analyze-mode.repository.js';
import { AnalyzerLogRepository } from './store/analyzer-log.repository.js';
import { AnalyzeModeService } from './service/analyze-mode.service.js';
import type { InstrumentLookup } from './service/sandbox.service.js';
import { SandboxService } from './service/sandbox.service.js';
import { SandboxBooks } from './service/books.js';
import { SandboxJobs } from './jobs/day-jobs.js';
import { EquityDays } from './jobs/equity-days.js';
import { SandboxEngine } from './service/engine.js';
import { SandboxRepository } from './store/sandbox.repository.js';
import type { QuoteClient } from '../brokers/quotes/quote-client.js';
import { BrokerPriceSource } from './prices/broker-price-source.js';
import { ScriptedFeed, type PriceSource, type ScriptedTick } from './prices/price-source.js';
import { referenceLookup, SimulatedPriceSource } from './prices/simulated-price-source.js';
import { CONTRACT_TOPIC } from '../market/contracts.service.js';
import { effectivePriceSource } from '../../config-sandbox.js';
import { moneyToRupees } from './core/money.js';
import { LedgerCheck } from './jobs/ledger-check.service.js';
import { LedgerCheckRepository } from './store/ledger-check.repository.js';

export interface SandboxServices {
  service: SandboxService;
  books: SandboxBooks;
  jobs: SandboxJobs;
  engine: SandboxEngine;
  mode: AnalyzeModeService;
  /** The ledger check (docs/rules/sandbox.md#ledger-check): on demand, and on its own timer once started. */
  verify: LedgerCheck;
  /** The price source in use. */
  prices(): PriceSource;
  /** Replaces the price source (tests and demos); a running engine restarts on the new one. */
  usePriceSource(source: PriceSource): Promise<void>;
  /** Told the new price source whenever it is replaced (the live feed follows its watched set). */
  onPriceSource(listener: (source: PriceSource) => void): void;
}

export interface SandboxDeps {
  db: Kysely<DB>;
  config: ResolvedConfig;
  clock: Clock;
  logger: Logger;
  bus: InvalidationBus;
  instruments: InstrumentLookup;
  /**
   * The price the live instrument file states for an instrument (rupees), undefined when none:
   * the simulated prices' first choice of reference.
   */
  fileReferencePrice?: (symbol: string, exchange: string) => Promise<number | undefined>;
  sessionOn: (exchange: string, date: string) => ExchangeSession | undefined;
  /**
   * The quote client of the current broker session (the brokers module's broker login provides
   * it); undefined while there is none, and then nothing fills.
   */
  quoteClient?: () => QuoteClient | undefined;
}

/** Reads a scripted feed (`SANDBOX_SCRIPT_FILE`: JSON `[{at, quotes: {"NSE:SBIN": {ltp, bid?, ask?, high, low, timestamp}}}]`). */
export function scriptedSource(file: string | undefined): ScriptedFeed {
  if (!file) return new ScriptedFeed();
  let ticks: unknown;
  try {
    ticks = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`SANDBOX_SCRIPT_FILE ${file}: ${(err as Error).message}`);
  }
  const ok =
    Array.isArray(ticks) &&
    ticks.every(
      (t: unknown) =>
        typeof t === 'object' &&
        t !== null &&
        Number.isFinite((t as ScriptedTick).at) &&
        typeof (t as ScriptedTick).quotes === 'object' &&
        (t as ScriptedTick).quotes !== null &&
        Object.values((t as ScriptedTick).quotes).every(
          (q) =>
            Number.isFinite(q.ltp) &&
            Number.isFinite(q.high) &&
            Number.isFinite(q.low) &&
            Number.isFinite(q.timestamp),
        ),
    );
  if (!ok)
    throw new Error(
      `SANDBOX_SCRIPT_FILE ${file}: expected a JSON array of {at, quotes} with numeric ltp, high, low and timestamp`,
    );
  return new ScriptedFeed(ticks as ScriptedTick[]);
}

export function buildSandboxServices(deps: SandboxDeps): SandboxServices {
  const { config, clock, logger, bus } = deps;
  const sc = config.sandbox;
  const log = logger.child({ module: 'sandbox' });
  const repo = new SandboxRepository(deps.db, transactionRunner(deps.db));
  const scripted = sc.priceSource === 'scripted' ? scriptedSource(sc.scriptFile) : new ScriptedFeed();
  const broker = new BrokerPriceSource({
    client: deps.quoteClient ?? (() => undefined),
    pollMs: sc.quotePollMs,
    freshMs: Math.min(5_000, sc.maxQuoteAgeMs),
    clock,
    logger: log,
  });
  const simulated = new SimulatedPriceSource({
    clock,
    logger: log,
    pollMs: sc.quotePollMs,
    ...(sc.sessions === 'enforce'
      ? {
          session: (exchange: string, date: string) => {
            const s = deps.sessionOn(exchange, date);
            if (!s) return undefined;
            return s.open ? { startMs: s.start_ms!, endMs: s.end_ms! } : null;
          },
        }
      : {}),
    reference: referenceLookup(
      async (i) => deps.fileReferencePrice?.(i.symbol, i.exchange),
      (i) => repo.firstLimitPrice(i.symbol, i.exchange),
    ),
  });
  // A new instrument file may state other prices: every instance looks its references up again.
  bus.subscribe(CONTRACT_TOPIC, () => simulated.forgetReferences());
  const configured = { broker, scripted, simulated }[effectivePriceSource(config)];
  let override: PriceSource | undefined;
  const sourceListeners: ((source: PriceSource) => void)[] = [];
  const prices = (): PriceSource => override ?? configured;
  // docs/rules/sandbox.md#sessions-and-holidays: the calendar decides when orders are taken and fill.
  const enforce = sc.sessions === 'enforce';
  const service = new SandboxService({
    repo,
    instruments: deps.instruments,
    prices,
    clock,
    config: sc,
    logger: log,
    ...(enforce ? { sessionOn: deps.sessionOn } : {}),
  });
  const books = new SandboxBooks({ repo, prices, clock, config: sc });
  const jobs = new SandboxJobs({
    service,
    repo,
    sessionOn: deps.sessionOn,
    clock,
    config: sc,
    logger: log,
    latestQuoteAt: (key) => prices().latest(key)?.timestamp,
    equity: new EquityDays({ repo, books, logger: log }),
  });
  const engine = new SandboxEngine({
    service,
    repo,
    prices,
    clock,
    logger: log,
    bus,
    maxQuoteAgeMs: sc.maxQuoteAgeMs,
    ...(enforce
      ? { inSession: (exchange: string, now: number) => inSession(deps.sessionOn, exchange, now) }
      : {}),
    instrument: (symbol, exchange) => deps.instruments.get(symbol, exchange),
    // docs/rules/sandbox.md#gtt-orders: GTTs fire on the quotes that reach them, their instruments priced.
    onQuotes: async (keys) => void (await service.runGtts(keys)),
    extraInstruments: () => repo.activeGtts(),
    onTick: async () => {
      const p = prices();
      if (p instanceof ScriptedFeed) p.advanceTo(clock.now());
      if (p instanceof SimulatedPriceSource) await p.poll();
      await jobs.run();
    },
  });
  service.onGttPlaced((symbol, exchange) => engine.watch(symbol, exchange));
  // Nobody is to take a simulated fill for a market price (docs/rules/sandbox.md#simulated-prices).
  service.onOrderChange((o) => {
    if (o.status === 'complete' && prices().demo)
      log.info(
        {
          orderId: o.id,
          instrument: `${o.exchange}:${o.symbol}`,
          side: o.side,
          quantity: o.quantity,
          price: moneyToRupees(o.average_price),
        },
        'sandbox fill at a simulated price (demo prices, not market data)',
      );
  });
  const mode = new AnalyzeModeService(new AnalyzeModeRepository(deps.db), bus, logger);
  mode.follow(engine);
  const verify = new LedgerCheck(new LedgerCheckRepository(deps.db), clock, log, sc.ledgerCheckMinutes);
  return {
    service,
    books,
    jobs,
    engine,
    mode,
    verify,
    prices,
    async usePriceSource(source) {
      const running = engine.isRunning;
      if (running) await engine.stop();
      override = source;
      for (const l of sourceListeners) l(source);
      if (running) await engine.start();
    },
    onPriceSource(listener) {
      sourceListeners.push(listener);
    },
  };
}

declare module 'fastify' {
  interface FastifyInstance {
    sandbox: SandboxServices;
  }
}

export const sandboxPlugin = modulePlugin<AppDeps>(
  'sandbox',
  ['auth', 'market-admin', 'market', 'brokers'],
  async (app, deps) => {
    const { marketAdmin, brokers } = app;
    const sandbox = buildSandboxServices({
      db: deps.database.db,
      config: deps.config,
      clock: deps.clock,
      logger: deps.logger,
      bus: deps.bus,
      instruments: app.market.contracts,
      fileReferencePrice: (symbol, exchange) => app.market.contracts.referencePrice(symbol, exchange),
      sessionOn: (exchange, date) => marketAdmin.sessionOn(exchange, date),
      // Priced by the live broker's quotes, under the newest broker session.
      quoteClient: () => brokers.quoteClient(),
    });
    app.decorate('sandbox', sandbox);
    // Without BROKER_NAME the sandbox prices (and the feed streams) with the broker whose
    // instrument file is live (docs/rules/brokers.md#broker-apps); a new one re-picks the session.
    brokers.useContractBroker(() => app.market.contracts.liveBrokerNow ?? undefined);
    app.market.contracts.onLiveBroker(() => void brokers.sessions.refreshPrimary().catch(() => undefined));
    // A deleted user's paper account goes with it (docs/rules/auth.md#account-management).
    app.auth.accounts.onAccountGone(async (userId, why) => {
      if (why === 'deleted') await sandbox.service.forgetUser(userId);
    });
    const limits = routeLimits(deps);
    sandboxUtilityRoutes(app, {
      sandbox,
      contracts: app.market.contracts,
      freezeQty: (exchange, underlying) => marketAdmin.freezeQty(exchange, underlying),
      apiKeyGuard: app.auth.apiKeyGuard,
      rateLimit: limits.api,
    });
    await sessionScope(app, (web) => {
      analyzeModeRoutes(web, { mode: sandbox.mode, guard: app.auth.guard, rateLimit: limits.admin });
      sandboxSessionRoutes(web, { service: sandbox.service, guard: app.auth.guard, rateLimit: limits.admin });
      sandboxAccountRoutes(web, {
        analyzerLog: new AnalyzerLogRepository(deps.database.db),
        books: sandbox.books,
        prices: sandbox.prices,
        config: deps.config,
        guard: app.auth.guard,
        rateLimit: limits.admin,
      });
      sandboxRecordRoutes(web, {
        books: sandbox.books,
        guard: app.auth.guard,
        rateLimit: limits.admin,
        clock: deps.clock,
      });
    });
    // The stored mode is read at start (the engine starts in analyzer mode) and followed after.
    app.addHook('onReady', async () => {
      await sandbox.mode.reload();
      sandbox.verify.start();
    });
    app.addHook('onClose', async () => {
      await sandbox.verify.stop();
      await sandbox.mode.shutdown();
    });
  },
);

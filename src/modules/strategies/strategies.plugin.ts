/**
 * Strategies as a plugin: batch and signal strategies, their webhook (its own scope: the raw body
 * parser), event trail and API (strategy-api.routes.ts), built from the market, sandbox and orders services. Routes:
 * strategies.routes.ts. Every piece of run work holds the strategy's lock (strategy-lock.ts). At
 * start-up the leases this instance's previous life held are released and a reconcile pass runs;
 * the pass then runs every 10 s: it settles order intents a crash left unsettled and confirms
 * stop-pending runs once their exits have filled.
 */
import type { Kysely } from 'kysely';
import type { AppDeps } from '../../app-deps.js';
import { modulePlugin, routeLimits, sessionScope } from '../../platform/http/module-plugin.js';
import { strategyEventsApiRoute, strategyRoutes, strategyWebhookRoutes } from './strategies.routes.js';
import { strategyApiRoutes } from './strategy-api.routes.js';
import type { Logger } from 'pino';
import type { DB } from '../../db/schema.js';
import type { Clock } from '../../platform/clock.js';
import type { InvalidationBus } from '../../platform/invalidation.js';
import type { MarketServices } from '../market/market.plugin.js';
import type { OrderServices } from '../orders/orders.plugin.js';
import type { SandboxServices } from '../sandbox/sandbox.plugin.js';
import type { DerivativeContract } from '../market/derivative-leg.js';
import { StrategiesRepository } from './strategies.repository.js';
import { StrategiesService } from './strategies.service.js';
import { RunStopper } from './run-stop.js';
import { StrategyLocks } from './strategy-lock.js';
import { StrategyRunner } from './strategy-runner.js';
import { type FoundOrder, type OrderFate, type StrategySeam } from './strategy-runner.types.js';
import type { RunMode } from './strategy.types.js';
import { strategyWebhook, type WebhookService } from './webhook.service.js';
import { WebhooksRepository } from '../webhooks/webhooks.repository.js';
import { UNDERLYING_EXCHANGES } from '../../domain/exchanges.js';

export interface StrategyServices {
  strategies: StrategiesService;
  runner: StrategyRunner;
  /** Stops batch runs and drives stop-pending runs to flat (run-stop.ts). */
  stopper: RunStopper;
  webhook: WebhookService;
  /** The per-strategy lock of all run work. */
  locks: StrategyLocks;
  /**
   * Releases the previous life's leases, then starts the reconcile pass (at once, then every
   * 10 s: unsettled intents, stop-pending runs, old de-duplication rows).
   */
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface StrategyDeps {
  db: Kysely<DB>;
  market: MarketServices;
  sandbox: SandboxServices;
  orders: OrderServices;
  bus: InvalidationBus;
  clock: Clock;
  logger: Logger;
  /** Public base URL of webhook URLs (tunnel URL when up, else HOST_SERVER). */
  publicBase: () => string;
  /** This instance's name (`INSTANCE_ID`): the holder named on the leases it takes. */
  instanceId: string;
  /** Called between a strategy order's writes (tests kill a process there). */
  seam?: (name: StrategySeam) => Promise<void> | void;
}

export function buildStrategyServices(deps: StrategyDeps): StrategyServices {
  const contracts = deps.market.contracts;
  const contract: DerivativeContract & { hasExchange(e: string): Promise<boolean> } = {
    get: (symbol, exchange) => contracts.get(symbol, exchange),
    hasExchange: (exchange) => contracts.hasExchange(exchange),
    expiries: (f) => contracts.expiries(f),
    async chain(f) {
      const r = await contracts.searchFno(
        [],
        {
          exchanges: [f.exchange],
          instrumentTypes: [f.instrumentType],
          expiryDate: f.expiryDate,
          underlying: f.underlying,
          strikeMin: null,
          strikeMax: null,
        },
        5_000,
      );
      return r.rows;
    },
    async underlyingLtp(underlying, exchange, live) {
      const source = deps.sandbox.prices();
      // Simulated prices are the sandbox's demo prices: they never pick a live order's strike.
      if (live && source.demo) return undefined;
      for (const ex of UNDERLYING_EXCHANGES[exchange] ?? []) {
        const inst = await contracts.get(underlying, ex);
        if (!inst) continue;
        const q = await source.quote(inst);
        if (q && q.ltp > 0) return q.ltp;
      }
      return undefined;
    },
  };
  const repo = new StrategiesRepository(deps.db);
  const locks = new StrategyLocks(repo, deps.instanceId, deps.clock, deps.logger);
  const webhooks = new WebhooksRepository(deps.db);
  const strategies = new StrategiesService(repo, contract, deps.clock, deps.bus, deps.publicBase, webhooks);
  const runner = new StrategyRunner({
    strategies,
    repo,
    pipeline: deps.orders.pipeline,
    contract,
    analyze: () => deps.sandbox.mode.analyze,
    orderFate: (userId, mode, orderId) => orderFate(deps, userId, mode, orderId),
    async cancel(userId, mode, orderId) {
      if (mode === 'sandbox') await deps.sandbox.service.cancelOrder(userId, Number(orderId));
      else await deps.orders.live.cancel(userId, orderId);
    },
    findByTag: (userId, mode, tag) => findByTag(deps, userId, mode, tag),
    locks,
    ...(deps.seam ? { seam: deps.seam } : {}),
    clock: deps.clock,
    logger: deps.logger,
  });
  const stopper = new RunStopper(runner, deps.clock, deps.logger);
  const webhook = strategyWebhook({
    strategies,
    repo,
    webhooks,
    runner,
    stopper,
    contract,
    analyze: () => deps.sandbox.mode.analyze,
    clock: deps.clock,
    logger: deps.logger,
  });
  let timer: NodeJS.Timeout | undefined;
  return {
    strategies,
    runner,
    stopper,
    webhook,
    locks,
    async start() {
      const released = await locks.releaseOwn();
      if (released > 0)
        deps.logger.warn(
          { leases: released, instance: deps.instanceId },
          'strategy leases of this instance’s previous run released',
        );
      stopper.reconcileSoon();
      timer = setInterval(() => {
        stopper.reconcile().catch((err: unknown) => deps.logger.warn({ err }, 'strategy reconcile failed'));
      }, 10_000);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      await stopper.whenIdle();
    },
  };
}

/**
 * The orders placed with reference `tag`: the sandbox's own rows (a refused one keeps its reason),
 * or the user's broker's order book (every order there was acknowledged; its fate is read later).
 */
async function findByTag(
  deps: StrategyDeps,
  userId: number,
  mode: RunMode,
  tag: string,
): Promise<FoundOrder[]> {
  if (mode === 'sandbox')
    return (await deps.sandbox.service.ordersByTag(userId, tag)).map((o) => ({
      orderId: o.orderId,
      quantity: o.quantity,
      refused: o.status === 'rejected',
      ...(o.reason ? { message: o.reason } : {}),
    }));
  return (await deps.orders.live.ordersByTag(userId, tag)).map((o) => ({
    orderId: String(o.orderid),
    quantity: Number(o.quantity) || 0,
    refused: false,
  }));
}

/** Live order statuses that end an order without (more) fills. */
const DEAD_STATUSES: ReadonlySet<string> = new Set([
  'rejected',
  'cancelled',
  'canceled',
  'expired',
  'lapsed',
]);

/**
 * An order's fate: the sandbox's own record for a sandbox run, the broker's orderstatus for a live
 * one (Kite and Upstox answer `complete`, `rejected`, `cancelled`; anything else is working). A
 * status that cannot be read throws, and the order stays working.
 */
async function orderFate(
  deps: StrategyDeps,
  userId: number,
  mode: RunMode,
  orderId: string,
): Promise<OrderFate> {
  if (mode === 'sandbox') {
    const o = await deps.sandbox.service.order(userId, Number(orderId));
    if (o.status === 'complete') return { state: 'filled', filled: o.filledQuantity };
    if (o.status === 'open' || o.status === 'trigger pending') return { state: 'working', filled: 0 };
    return { state: 'dead', filled: o.filledQuantity };
  }
  const a = await deps.orders.live.status(userId, orderId);
  if (a.body.status !== 'success') throw new Error(`order status answered ${a.status}`);
  const data = (a.body.data ?? {}) as { order_status?: unknown; filled_quantity?: unknown };
  const status = String(data.order_status ?? '').toLowerCase();
  const filled = Number(data.filled_quantity) || 0;
  if (status === 'complete') return { state: 'filled', filled };
  if (DEAD_STATUSES.has(status)) return { state: 'dead', filled };
  return { state: 'working', filled };
}

declare module 'fastify' {
  interface FastifyInstance {
    strategies: StrategyServices;
  }
}

export const strategiesPlugin = modulePlugin<AppDeps>(
  'strategies',
  ['auth', 'market', 'sandbox', 'orders', 'tunnel'],
  async (app, deps) => {
    const { config, logger } = deps;
    const { tunnel, auth } = app;
    // Webhook URLs are shown on the tunnel's public URL while it is up, else on HOST_SERVER.
    const publicBase = deps.publicBaseUrl ?? (() => tunnel.publicUrl() ?? undefined);
    const strategies = buildStrategyServices({
      db: deps.database.db,
      market: app.market,
      sandbox: app.sandbox,
      orders: app.orders,
      bus: deps.bus,
      clock: deps.clock,
      logger,
      publicBase: () => publicBase() ?? config.hostServer,
      instanceId: config.instanceId,
      ...(deps.strategySeam ? { seam: deps.strategySeam } : {}),
    });
    app.decorate('strategies', strategies);
    const limits = routeLimits(deps);
    await sessionScope(app, (web) =>
      strategyRoutes(web, {
        strategies: strategies.strategies,
        runner: strategies.runner,
        stopper: strategies.stopper,
        guard: auth.guard,
        rateLimit: limits.admin,
      }),
    );
    strategyEventsApiRoute(app, {
      strategies: strategies.strategies,
      apiKeyGuard: auth.apiKeyGuard,
      rateLimit: limits.api,
    });
    strategyApiRoutes(app, {
      strategies: strategies.strategies,
      runner: strategies.runner,
      stopper: strategies.stopper,
      apiKeyGuard: auth.apiKeyGuard,
      rateLimit: limits.api,
    });
    await strategyWebhookRoutes(app, {
      webhook: strategies.webhook,
      limiter: deps.rateLimiter,
      rules: config.webhookRateLimit,
      logger,
    });
    app.addHook('onReady', async () => strategies.start());
    app.addHook('onClose', async () => strategies.stop());
  },
);

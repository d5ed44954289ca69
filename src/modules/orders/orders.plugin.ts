/**
 * Orders as a plugin: the pipeline every order passes (live broker, sandbox or the Action Center
 * queue), the order events with the log writer that records them, latency, the Action Center,
 * live order calls, and the browser's live order socket. Its routes are the `/api/v1` order
 * calls and books (both modes), the Action Center, latency and log views, and the socket.
 */
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { AppDeps } from '../../app-deps.js';
import type { DB } from '../../db/schema.js';
import type { Clock } from '../../platform/clock.js';
import type { SqliteWriterThread } from '../../platform/db/sqlite-writer-thread.js';
import { modulePlugin, routeLimits, sessionScope } from '../../platform/http/module-plugin.js';
import type { InvalidationBus } from '../../platform/invalidation.js';
import type { BrokerAdapter, BrokerChoice } from '../brokers/broker-adapter.js';
import type { BrokerSessionsService } from '../brokers/broker-sessions.service.js';
import { CONTRACT_TOPIC } from '../market/contracts.service.js';
import type { Instrument } from '../market/instrument.js';
import type { AnalyzeModeService } from '../sandbox/service/analyze-mode.service.js';
import { bookRoutes } from './books.routes.js';
import type { SandboxService } from '../sandbox/service/sandbox.service.js';
import { ActionCenterService } from './action-center.service.js';
import { LatencyService } from './latency.service.js';
import { createLiveSocketHub, type LiveSocketHub } from './live-socket.js';
import { liveSocketRoutes } from './live-socket.routes.js';
import { LiveOrdersService } from './live-orders.service.js';
import { OrderEventBus } from './order-events.js';
import { OrderLogWriter } from './order-log.writer.js';
import { OrderPipeline } from './order-pipeline.js';
import { orderSessionRoutes } from './orders-session.routes.js';
import { LOG_THREAD_STATEMENTS, OrdersRepository } from './orders.repository.js';
import { orderRoutes } from './orders.routes.js';
import { optionsOrderRoutes } from './options-orders.routes.js';
import { smartOrderRoutes } from './smart-orders.routes.js';
import { marginRoutes } from './margin.routes.js';
import { gttRoutes } from './gtt.routes.js';
import { optionSymbolResolver } from '../sandbox/service/option-symbols.js';
import type { LiveMarginLeg } from './live-margin.js';

export interface OrderServices {
  events: OrderEventBus;
  /** Writes the order and analyzer logs in batches (its `dropped` counts lost rows). */
  logWriter: OrderLogWriter;
  latency: LatencyService;
  pipeline: OrderPipeline;
  actionCenter: ActionCenterService;
  /** orderstatus, cancelorder, modifyorder in live mode. */
  live: LiveOrdersService;
  /** Order events to each user's open browser sockets, on every instance (Redis fan-out). */
  liveSocket: LiveSocketHub;
  /** How many analyzer log rows the user has (`/api/v1/analyzer`'s `total_logs`). */
  analyzerLogCount(userId: number): Promise<number>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface OrderDeps {
  db: Kysely<DB>;
  clock: Clock;
  logger: Logger;
  bus: InvalidationBus;
  /** The instrument by symbol: of `broker`'s instrument file when given and not the live contract's. */
  instrument(symbol: string, exchange: string, broker?: string): Promise<Instrument | undefined>;
  /** The master contract's instruments with a broker token (live books map rows back by it). */
  instrumentsByToken?(token: string, exchange?: string, broker?: string): Promise<Instrument[]>;
  instrumentByBrSymbol?(
    brsymbol: string,
    brexchange: string,
    broker?: string,
  ): Promise<Instrument | undefined>;
  /** Whose instrument file the live master contract is; null when none is loaded. */
  contractBroker(): Promise<string | null>;
  freezeQty(exchange: string, underlying: string): number | null;
  sandbox: SandboxService;
  mode: AnalyzeModeService;
  adapter: (session: BrokerChoice) => BrokerAdapter | undefined;
  brokerSessions: BrokerSessionsService;
  /**
   * SQLite only: the writer thread an order's log row is written through when it is not part of
   * a sandbox order's transaction (docs/rules/orders.md#record-of-an-order).
   */
  writerThread?: SqliteWriterThread;
}

/** How long the live contract's broker is remembered when no change is announced (CLI imports). */
const CONTRACT_BROKER_TTL_MS = 30_000;

/**
 * The live contract's broker, cached: dropped when a generation goes live (the contract bus
 * topic, here and on other instances), else re-read after {@link CONTRACT_BROKER_TTL_MS}.
 */
function liveContractBroker(deps: OrderDeps): () => Promise<string | null> {
  let cached: { broker: string | null; at: number } | undefined;
  deps.bus.subscribe(CONTRACT_TOPIC, () => (cached = undefined));
  return async () => {
    const now = deps.clock.now();
    if (cached && now - cached.at < CONTRACT_BROKER_TTL_MS) return cached.broker;
    const broker = await deps.contractBroker();
    cached = { broker, at: now };
    return broker;
  };
}

export function buildOrderServices(deps: OrderDeps): OrderServices {
  const log = deps.logger.child({ module: 'orders' });
  deps.writerThread?.define(LOG_THREAD_STATEMENTS);
  const repo = new OrdersRepository(deps.db, deps.writerThread);
  const events = new OrderEventBus({ logger: log });
  const logWriter = new OrderLogWriter({ repo, clock: deps.clock, logger: log });
  events.subscribe('log-writer', logWriter.consume, { flush: () => logWriter.flush(), last: true });
  const latency = new LatencyService(repo, deps.clock, log);
  const { brokerSessions } = deps;
  const pipeline = new OrderPipeline({
    instrument: deps.instrument,
    contractBroker: liveContractBroker(deps),
    freezeQty: deps.freezeQty,
    sandbox: deps.sandbox,
    analyze: () => deps.mode.analyze,
    adapter: deps.adapter,
    brokerSession: (userId) => brokerSessions.get(userId),
    events,
    log: logWriter,
    latency,
    clock: deps.clock,
    logger: log,
  });
  const liveSocket = createLiveSocketHub({
    bus: deps.bus,
    logger: deps.logger.child({ module: 'live-socket' }),
    clock: deps.clock,
  });
  events.subscribe('live-socket', liveSocket.consumer());
  const actionCenter = new ActionCenterService(repo, pipeline, deps.clock, log);
  // The queue's changes reach the user's open pages (docs/rules/orders.md#live-socket).
  actionCenter.listeners.push((event, userId, id) => liveSocket.actionCenter(userId, event, id));
  return {
    events,
    logWriter,
    latency,
    pipeline,
    liveSocket,
    actionCenter,
    analyzerLogCount: (userId) => repo.analyzerLogCount(userId),
    live: new LiveOrdersService({
      brokerSession: (userId) => brokerSessions.get(userId),
      adapter: deps.adapter,
      instrument: deps.instrument,
      ...(deps.instrumentsByToken ? { instrumentsByToken: deps.instrumentsByToken } : {}),
      ...(deps.instrumentByBrSymbol ? { instrumentByBrSymbol: deps.instrumentByBrSymbol } : {}),
      // closeposition's closing orders: placed like placeorder (or queued for a semi-automatic key).
      place: async (userId, order, semiAuto) => {
        const apiType = 'closeposition';
        if (!semiAuto) return pipeline.run(userId, order, { apiType });
        try {
          const id = await actionCenter.queue(userId, apiType, order);
          return { status: 200, body: { status: 'success', orderid: String(id) } };
        } catch (err) {
          return pipeline.failure(userId, order, { apiType }, err, 'order not queued for approval');
        }
      },
    }),
    async start() {
      latency.start();
      logWriter.start((e) => events.publish(e));
    },
    async stop() {
      await events.whenIdle();
      await logWriter.stop();
      await latency.stop();
    },
  };
}

declare module 'fastify' {
  interface FastifyInstance {
    orders: OrderServices;
  }
}

export const ordersPlugin = modulePlugin<AppDeps>(
  'orders',
  ['sqlite-writer', 'auth', 'market-admin', 'market', 'brokers', 'sandbox', 'feed'],
  async (app, deps) => {
    const { config } = deps;
    const { market, marketAdmin, brokers, sandbox, auth } = app;
    const orders = buildOrderServices({
      db: deps.database.db,
      clock: deps.clock,
      logger: deps.logger,
      bus: deps.bus,
      instrument: (symbol, exchange, broker) => market.contracts.getFor(symbol, exchange, broker),
      instrumentsByToken: (token, exchange, broker) =>
        market.contracts.getByTokenFor(token, exchange, broker),
      instrumentByBrSymbol: (brsymbol, brexchange, broker) =>
        market.contracts.getByBrSymbolFor(brsymbol, brexchange, broker),
      contractBroker: () => market.imports.liveBroker(),
      freezeQty: (exchange, underlying) => marketAdmin.freezeQty(exchange, underlying),
      sandbox: sandbox.service,
      mode: sandbox.mode,
      adapter: (s) => brokers.adapterFor({ broker: s.broker, appId: s.appId ?? 0 }),
      brokerSessions: brokers.sessions,
      ...(app.sqliteWriter ? { writerThread: app.sqliteWriter } : {}),
    });
    app.decorate('orders', orders);
    sandbox.service.useBrokerMargin((userId, leg) =>
      orders.live.orderMargin(userId, {
        ...leg,
        price: String(leg.price),
        trigger_price: String(leg.trigger_price),
        product: leg.product as LiveMarginLeg['product'],
        pricetype: leg.pricetype as LiveMarginLeg['pricetype'],
      }),
    );
    const limits = routeLimits(deps);
    await sessionScope(app, async (web) => {
      await liveSocketRoutes(web, {
        hub: orders.liveSocket,
        sessions: auth.sessions,
        rateLimit: limits.admin,
        allowedOrigins: [new URL(config.hostServer).origin],
        feed: app.feed.server,
      });
      orderSessionRoutes(web, {
        actionCenter: orders.actionCenter,
        latency: orders.latency,
        logs: orders.logWriter,
        guard: auth.guard,
        rateLimit: limits.admin,
      });
    });
    orderRoutes(app, {
      pipeline: orders.pipeline,
      actionCenter: orders.actionCenter,
      mode: sandbox.mode,
      apiKeyGuard: auth.apiKeyGuard,
      orderRateLimit: limits.limit('order', limits.rules.order),
      apiRateLimit: limits.api,
      analyzerLogCount: orders.analyzerLogCount,
    });
    smartOrderRoutes(app, {
      pipeline: orders.pipeline,
      actionCenter: orders.actionCenter,
      mode: sandbox.mode,
      apiKeyGuard: auth.apiKeyGuard,
      smartOrderRateLimit: limits.limit('smartorder', limits.rules.smartOrder),
      orderRateLimit: limits.limit('order', limits.rules.order),
      sandboxPosition: (userId, q) => sandbox.books.netQuantity(userId, q),
      live: orders.live,
    });
    optionsOrderRoutes(app, {
      pipeline: orders.pipeline,
      actionCenter: orders.actionCenter,
      mode: sandbox.mode,
      apiKeyGuard: auth.apiKeyGuard,
      orderRateLimit: limits.limit('order', limits.rules.order),
      resolveOption: optionSymbolResolver({
        sandbox,
        contracts: market.contracts,
        freezeQty: (exchange, underlying) => marketAdmin.freezeQty(exchange, underlying),
      }),
    });
    gttRoutes(app, {
      mode: sandbox.mode,
      apiKeyGuard: auth.apiKeyGuard,
      orderRateLimit: limits.limit('order', limits.rules.order),
      apiRateLimit: limits.api,
      sandbox: sandbox.service,
      live: orders.live,
    });
    marginRoutes(app, {
      mode: sandbox.mode,
      apiKeyGuard: auth.apiKeyGuard,
      apiRateLimit: limits.api,
      sandbox: sandbox.service,
      live: orders.live,
    });
    bookRoutes(app, {
      service: sandbox.service,
      books: sandbox.books,
      analyze: () => sandbox.mode.analyze,
      apiKeyGuard: auth.apiKeyGuard,
      rateLimit: limits.api,
      live: orders.live,
    });
    app.addHook('onReady', async () => orders.start());
    app.addHook('onClose', async () => orders.stop());
  },
);

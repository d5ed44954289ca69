/**
 * Wiring of the orders module: repository, event bus with the log writer, latency, broker
 * sessions, the pipeline and the Action Center.
 */
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { DB } from '../../db/schema.js';
import type { Clock } from '../../platform/clock.js';
import type { SqliteWriterThread } from '../../platform/db/sqlite-writer-thread.js';
import type { InvalidationBus } from '../../platform/invalidation.js';
import type { BrokerAdapter } from '../brokers/broker-adapter.js';
import type { QuoteClient } from '../brokers/quotes/quote-client.js';
import { CONTRACT_TOPIC } from '../market/contracts.service.js';
import type { Instrument } from '../market/instrument.js';
import type { SandboxService } from '../sandbox/sandbox.service.js';
import type { AnalyzeModeService } from '../settings/analyze-mode.service.js';
import { ActionCenterService } from './action-center.service.js';
import { BrokerSessionsService } from './broker-sessions.service.js';
import { LatencyService } from './latency.service.js';
import { LiveOrdersService } from './live-orders.service.js';
import { OrderEventBus } from './order-events.js';
import { OrderLogWriter } from './order-log.writer.js';
import { OrderPipeline } from './order-pipeline.js';
import { OrdersRepository } from './orders.repository.js';

export interface OrderServices {
  repo: OrdersRepository;
  events: OrderEventBus;
  /** Writes the order and analyzer logs in batches (its `dropped` counts lost rows). */
  logWriter: OrderLogWriter;
  latency: LatencyService;
  brokerSessions: BrokerSessionsService;
  pipeline: OrderPipeline;
  actionCenter: ActionCenterService;
  /** orderstatus, cancelorder, modifyorder in live mode. */
  live: LiveOrdersService;
  /** The quote client of the configured broker under the newest broker session (sandbox prices). */
  sandboxQuoteClient(): QuoteClient | undefined;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface OrderDeps {
  db: Kysely<DB>;
  appKey: string;
  clock: Clock;
  logger: Logger;
  bus: InvalidationBus;
  instrument(symbol: string, exchange: string): Promise<Instrument | undefined>;
  /** Whose instrument file the live master contract is; null when none is loaded. */
  contractBroker(): Promise<string | null>;
  freezeQty(exchange: string, underlying: string): number | null;
  sandbox: SandboxService;
  mode: AnalyzeModeService;
  adapter: (broker: string) => BrokerAdapter | undefined;
  /** `BROKER_NAME`: whose quotes price the sandbox. */
  brokerName: string | undefined;
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
  const repo = new OrdersRepository(deps.db, deps.writerThread);
  const events = new OrderEventBus({ logger: log });
  const logWriter = new OrderLogWriter({ repo, clock: deps.clock, logger: log });
  events.subscribe('log-writer', logWriter.consume, { flush: () => logWriter.flush(), last: true });
  const latency = new LatencyService(repo, deps.clock, log);
  const brokerSessions = new BrokerSessionsService(repo, deps.appKey, deps.clock, deps.bus);
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
  let quoteClient: QuoteClient | undefined;
  return {
    repo,
    events,
    logWriter,
    latency,
    brokerSessions,
    pipeline,
    actionCenter: new ActionCenterService(repo, pipeline, deps.clock, log),
    live: new LiveOrdersService({
      brokerSession: (userId) => brokerSessions.get(userId),
      adapter: deps.adapter,
      instrument: deps.instrument,
    }),
    sandboxQuoteClient() {
      const primary = brokerSessions.primarySession();
      if (!deps.brokerName || !primary || primary.broker !== deps.brokerName) return undefined;
      quoteClient ??= deps
        .adapter(deps.brokerName)
        ?.quoteClient(() => brokerSessions.primarySession()?.session);
      return quoteClient;
    },
    async start() {
      latency.start();
      logWriter.start((e) => events.publish(e));
      await brokerSessions.refreshPrimary();
    },
    async stop() {
      await events.whenIdle();
      await logWriter.stop();
      await latency.stop();
    },
  };
}

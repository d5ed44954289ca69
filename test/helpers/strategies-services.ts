/**
 * The strategies module in the middle tier: the real services (built and started as the app
 * does, test-services.ts) on a database of their own, without HTTP. The same world as the app
 * tier's `startStrategies`: an administrator (user 1), the mini master contract, analyzer mode on,
 * a scripted price feed, the clock at 10:00 IST on a trading day with fresh quotes. Strategies are
 * created through the service; deliveries go to the webhook service as the route hands them over.
 */
import type { PipelineAnswer } from '../../src/modules/orders/order-pipeline.js';
import { ScriptedFeed } from '../../src/modules/sandbox/prices/price-source.js';
import type { Quote } from '../../src/modules/sandbox/core/types.js';
import type { StrategyInput } from '../../src/modules/strategies/strategies.service.js';
import type { RunnerOutcome } from '../../src/modules/strategies/strategy-runner.types.js';
import type { RunMode } from '../../src/modules/strategies/strategy.types.js';
import type { WebhookAnswer } from '../../src/modules/strategies/webhook.service.js';
import type { Dialect } from '../../src/platform/db/database.js';
import { importContract } from './contracts.js';
import { ist, miniKiteContract } from './sandbox.js';
import { HOST_SERVER, TRADING_DAY } from './strategies.js';
import { createTestServices, type TestServices } from './test-services.js';
import { legacyRows } from './webhook-rows.js';

export { BATCH_PAIR, SIGNAL_SBIN, TRADING_DAY } from './strategies.js';

/** The strategy tables a test reads back. */
export type StrategyTable = 'strategy_events' | 'webhook_deliveries' | 'strategy_orders' | 'strategy_runs';

/** What the webhook route hands the service: the delivery's address when none is given. */
export const SENDER_IP = '127.0.0.1';

export interface StrategyWorld extends TestServices {
  userId: number;
  feed: ScriptedFeed;
  /** Imports a Kite master contract (a new one goes live) and waits for the index rebuild. */
  importContract(bytes: Buffer): Promise<void>;
  /** Creates a strategy for user 1 (the body as the management route takes it). */
  create(body: object): Promise<{ id: number; token: string }>;
  /** A webhook delivery: the body as JSON text (a string as is), from {@link SENDER_IP}. */
  deliver(token: string, body: unknown, ip?: string): Promise<WebhookAnswer>;
  /** The strategy page's start and stop (the same runner and stopper the routes call). */
  start(id: number, mode: RunMode): Promise<RunnerOutcome>;
  stop(id: number): Promise<RunnerOutcome>;
  /** Rows of a table in insertion order. */
  rows(table: StrategyTable): Promise<Record<string, unknown>[]>;
  /** `kind:severity` of every event of the trail, in order. */
  kinds(): Promise<string[]>;
  /** Run statuses in order. */
  runStatus(): Promise<string[]>;
  /** The sandbox positions of user 1: net quantity by symbol. */
  positions(): Promise<Record<string, number>>;
  /** A quote stamped now: bid/ask at ltp ∓ 0.05, the day's range ±5 %. */
  quote(ltp: number): Quote;
  /** Pushes quotes (keyed `EXCHANGE:SYMBOL`) and waits for the sandbox engine. */
  tick(quotes: Record<string, Quote>): Promise<void>;
  /** Waits for the stop confirmations started off the request path. */
  idle(): Promise<void>;
  /**
   * Puts a fake broker in front of the runner's order pipeline: the orders `refuse` picks are
   * answered 400 `refused <action> <symbol>`, the others go through (after `delayMs` real time).
   */
  refuseOrders(refuse: (o: { action: string; symbol: string }) => boolean, delayMs?: number): void;
}

export async function startStrategyServices(
  dialect: Dialect,
  env: Record<string, string> = {},
): Promise<StrategyWorld> {
  const t = await createTestServices(dialect, {
    env: {
      HOST_SERVER,
      API_RATE_LIMIT: '100000 per second',
      ORDER_RATE_LIMIT: '100000 per second',
      ...env,
    },
  });
  const s = t.services;
  const user = await s.auth.users.create({
    username: 'admin',
    password: 'correct horse battery',
    email: 'admin@example.com',
  });
  const importKite = async (bytes: Buffer) => {
    await importContract(t, 'zerodha', bytes);
  };
  await importKite(miniKiteContract());
  const feed = new ScriptedFeed();
  await s.sandbox.usePriceSource(feed);
  await s.sandbox.mode.set(true);
  t.clock.set(ist(TRADING_DAY, '10:00'));
  await s.sandbox.engine.tick();

  const quote = (ltp: number): Quote => ({
    ltp,
    bid: Math.round((ltp - 0.05) * 100) / 100,
    ask: Math.round((ltp + 0.05) * 100) / 100,
    high: Math.round(ltp * 105) / 100,
    low: Math.round(ltp * 95) / 100,
    timestamp: t.clock.now(),
  });
  const tick = async (quotes: Record<string, Quote>) => {
    feed.push(quotes);
    await s.sandbox.engine.whenIdle();
  };
  await tick({
    'NSE:SBIN': quote(800),
    'NSE:INFY': quote(1500),
    'NSE:RELIANCE': quote(1400),
    'NSE_INDEX:NIFTY': quote(25980),
    'NFO:NIFTY25AUG26FUT': quote(26010),
    'NFO:NIFTY18AUG2626000CE': quote(120),
  });

  const st = s.strategies;
  const rows = async (table: StrategyTable) =>
    table === 'webhook_deliveries'
      ? legacyRows(t.db.database.db, table)
      : ((await t.db.database.db.selectFrom(table).selectAll().orderBy('id').execute()) as Record<
          string,
          unknown
        >[]);
  return Object.assign(t, {
    userId: user.id,
    feed,
    importContract: importKite,
    async create(body: object) {
      const created = await st.strategies.create(user.id, body as StrategyInput);
      return { id: created.id, token: created.webhook_token };
    },
    deliver: (token: string, body: unknown, ip = SENDER_IP) =>
      st.webhook.deliver(token, typeof body === 'string' ? body : JSON.stringify(body), ip),
    async start(id: number, mode: RunMode) {
      const row = await st.strategies.owned(user.id, id);
      return st.runner.start(row, await st.strategies.repo.legs(id), mode);
    },
    async stop(id: number) {
      return st.stopper.stop(await st.strategies.owned(user.id, id));
    },
    rows,
    async kinds() {
      return (await rows('strategy_events')).map((e) => `${String(e.kind)}:${String(e.severity)}`);
    },
    async runStatus() {
      return (await rows('strategy_runs')).map((r) => String(r.status));
    },
    async positions() {
      return Object.fromEntries(
        (await s.sandbox.books.positions(user.id)).map((p) => [p.symbol, Number(p.quantity)]),
      );
    },
    quote,
    tick,
    idle: () => st.stopper.whenIdle(),
    refuseOrders(refuse: (o: { action: string; symbol: string }) => boolean, delayMs = 0) {
      const real = s.orders.pipeline;
      const runner = st.runner as unknown as { deps: { pipeline: unknown } };
      runner.deps.pipeline = {
        async run(userId: number, order: { action: string; symbol: string }, opts: object) {
          if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
          if (refuse(order)) {
            return {
              status: 400,
              body: { status: 'error', message: `refused ${order.action} ${order.symbol}` },
            } satisfies PipelineAnswer;
          }
          return real.run(userId, order as never, opts as never);
        },
      };
    },
  });
}

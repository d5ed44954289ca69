/**
 * The middle tier of sandbox placement and the order pipeline: the real services on a database of
 * their own (test-services.ts), no HTTP. The mini master contract of sandbox.ts is imported,
 * analyzer mode is switched on through the mode service (as the administrator's route does), and
 * the sandbox is priced by a scripted feed whose quotes are stamped with the fake clock.
 * Amounts the services hand out are Money (ten-thousandths of a rupee); the readers here give
 * rupees, so the figures in the tests are the ones worked out by hand in their comments.
 */
import type { OrderInput } from '../../src/modules/orders/order-rules.js';
import type { PipelineAnswer, RunOptions } from '../../src/modules/orders/order-pipeline.js';
import { moneyToRupees } from '../../src/domain/money.js';
import { ScriptedFeed } from '../../src/modules/sandbox/prices/price-source.js';
import type { OrderRecord } from '../../src/modules/sandbox/core/records.js';
import type { PlaceOutcome, PlaceRequest } from '../../src/modules/sandbox/service/sandbox.service.js';
import type { Quote } from '../../src/modules/sandbox/core/types.js';
import type { Dialect } from '../../src/platform/db/database.js';
import { importContract } from './contracts.js';
import { expectBooksAgree } from './ledger.js';
import { ist, MINI, miniKiteContract } from './sandbox.js';
import type { TestAppOptions } from './test-app.js';
import { createTestServices, type TestServices } from './test-services.js';

/** `EXCHANGE:SYMBOL`, the key quotes are pushed under. */
export const key = (i: { exchange: string; symbol: string }): string => `${i.exchange}:${i.symbol}`;

/** ₹1,00,00,000: what a sandbox account starts with. */
export const START = 10_000_000;

/** Money → rupees. */
export const rupees = moneyToRupees;

/** The rupee figures of an account (books.funds). */
export interface FundsView {
  available: number;
  usedMargin: number;
  realisedPnl: number;
  unrealisedPnl: number;
}

/** The tables the sandbox and the pipeline write that the tests read back. */
type Table =
  | 'sandbox_orders'
  | 'sandbox_order_events'
  | 'sandbox_trades'
  | 'sandbox_positions'
  | 'sandbox_holdings'
  | 'order_logs'
  | 'analyzer_logs';

export interface Trading {
  s: TestServices;
  feed: ScriptedFeed;
  /** The account every order here is placed for. */
  userId: number;
  /** A quote stamped now: bid/ask ltp ∓ 0.05, the day's range ±5 %, unless given. */
  quote(ltp: number, extra?: Partial<Quote>): Quote;
  /** Pushes quotes (keyed `EXCHANGE:SYMBOL`) and waits for the engine to match on them. */
  tick(quotes: Record<string, Quote>): Promise<void>;
  /** Moves the clock to `hhmm` IST on `date` and runs the engine's day-boundary jobs. */
  at(date: string, hhmm: string): Promise<void>;
  /**
   * 10:00 IST on Monday 2026-01-05 with fresh quotes: SBIN 800 (799.95 / 800.05), the NIFTY
   * 26000 CE 120 (119.95 / 120.50), the BANKNIFTY future 52,000 (51,999.80 / 52,000.20).
   */
  marketOpen(): Promise<void>;
  /** Places a sandbox order for the user (MARKET, MIS unless given). */
  place(
    req: Partial<PlaceRequest> & { symbol: string; exchange: string; side: 'BUY' | 'SELL' },
  ): Promise<PlaceOutcome>;
  /** Runs an order through the pipeline from step 3 (what placeorder does after the key). */
  run(order: Partial<OrderInput>, opts?: Partial<RunOptions>): Promise<PipelineAnswer>;
  /** The order as the service hands it out. */
  order(id: string): Promise<OrderRecord>;
  /** The account's funds, in rupees. */
  funds(): Promise<FundsView>;
  /** Rows of a table, oldest first (log tables once every published event is written). */
  rows(table: Table): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

/** A pipeline order: 10 SBIN bought at market, MIS, tagged `test` (the route's defaults applied). */
export const pipelineOrder = (extra: Partial<OrderInput> = {}): OrderInput => ({
  strategy: 'test',
  symbol: 'SBIN',
  exchange: 'NSE',
  action: 'BUY',
  quantity: 10,
  pricetype: 'MARKET',
  product: 'MIS',
  price: '0',
  trigger_price: '0',
  disclosed_quantity: '0',
  ...extra,
});

/** The services with the mini contract, a scripted feed and analyzer mode on. */
export async function startTrading(dialect: Dialect, opts: TestAppOptions = {}): Promise<Trading> {
  const s = await createTestServices(dialect, opts);
  const { sandbox, orders } = s.services;
  await importContract(s, 'zerodha', miniKiteContract());
  const feed = new ScriptedFeed();
  await sandbox.usePriceSource(feed);
  await sandbox.mode.set(true);
  const userId = 1;
  const db = s.db.database.db;
  const r = (x: number) => Math.round(x * 100) / 100;
  const t: Trading = {
    s,
    feed,
    userId,
    quote: (ltp, extra = {}) => ({
      ltp,
      bid: r(ltp - 0.05),
      ask: r(ltp + 0.05),
      high: r(ltp * 1.05),
      low: r(ltp * 0.95),
      timestamp: s.clock.now(),
      ...extra,
    }),
    async tick(quotes) {
      feed.push(quotes);
      await sandbox.engine.whenIdle();
    },
    async at(date, hhmm) {
      s.clock.set(ist(date, hhmm));
      await sandbox.engine.tick();
    },
    async marketOpen() {
      s.clock.set(ist('2026-01-05', '10:00'));
      await t.tick({
        [key(MINI.SBIN)]: t.quote(800, { bid: 799.95, ask: 800.05, high: 805, low: 795 }),
        [key(MINI.NIFTY_CE)]: t.quote(120, { bid: 119.95, ask: 120.5, high: 140, low: 95 }),
        [key(MINI.BANKNIFTY_FUT)]: t.quote(52_000, {
          bid: 51_999.8,
          ask: 52_000.2,
          high: 52_500,
          low: 51_500,
        }),
      });
    },
    place: (req) =>
      sandbox.service.placeOrder(userId, { priceType: 'MARKET', product: 'MIS', quantity: 1, ...req }),
    run: (order, opts = {}) =>
      orders.pipeline.run(userId, pipelineOrder(order), { apiType: 'placeorder', ...opts }),
    order: (id) => sandbox.service.order(userId, Number(id)),
    async funds() {
      const f = await sandbox.books.funds(userId);
      return {
        available: rupees(f.available),
        usedMargin: rupees(f.usedMargin),
        realisedPnl: rupees(f.realisedPnl),
        unrealisedPnl: rupees(f.unrealisedPnl),
      };
    },
    async rows(table) {
      if (table === 'order_logs' || table === 'analyzer_logs') await orders.events.whenIdle();
      return (await db.selectFrom(table).selectAll().orderBy('id').execute()) as Record<string, unknown>[];
    },
    async close() {
      try {
        await expectBooksAgree(s.services);
      } finally {
        await s.close();
      }
    },
  };
  return t;
}

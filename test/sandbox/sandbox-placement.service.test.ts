/**
 * The middle tier of sandbox placement (issue 5, "Orders", "Margin", "Positions", "Cancel and
 * modify"): the real sandbox service and engine on a real database, no HTTP. Each describe is one
 * rule; each case asserts what the service decided and the rows it wrote (orders, order events,
 * trades, positions, the account). The HTTP contract of the same routes is sandbox-api*.test.ts.
 * Figures are worked out by hand in the comments (₹; margins: equity MIS 5×, CNC 1×, futures 10×,
 * option buy 1×). Quotes at 10:00 IST (see `marketOpen`): SBIN 800 (bid 799.95 / ask 800.05), the
 * NIFTY 26000 CE 120 (119.95 / 120.50), the BANKNIFTY future 52,000 (51,999.80 / 52,000.20).
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { AppError } from '../../src/platform/errors.js';
import { MINI } from '../helpers/sandbox.js';
import { describeEachDb } from '../helpers/test-app.js';
import { key, rupees, START, startTrading, type Trading } from '../helpers/trading-services.js';

type Row = Record<string, unknown>;

/** The service's 4xx for a request it refuses. */
async function refusal(p: Promise<unknown>): Promise<AppError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

describeEachDb('sandbox placement (service tier)', (dialect) => {
  let t: Trading;
  beforeEach(async () => {
    t = await startTrading(dialect);
    await t.marketOpen();
  });
  afterEach(() => t?.close());

  const optionLimit = (price = 100, quantity = 65) =>
    t.place({ ...MINI.NIFTY_CE, side: 'BUY', quantity, priceType: 'LIMIT', product: 'NRML', price });
  /** The order's status transitions, oldest first, as `from→to` (detail appended when there is one). */
  const events = async (orderId: string) =>
    (await t.rows('sandbox_order_events'))
      .filter((e) => String(e.order_id) === orderId)
      .map(
        (e) => `${String(e.from_status)}→${String(e.to_status)}${e.detail ? ` (${String(e.detail)})` : ''}`,
      );
  const position = async (symbol: string, product = 'MIS') =>
    (await t.rows('sandbox_positions')).find((p) => p.symbol === symbol && p.product === product);

  describe('a MARKET order fills at once at the touch: a BUY at the ask, a SELL at the bid', () => {
    it('one complete order, one trade at the touch and the events placed → complete', async () => {
      const buy = await t.place({ ...MINI.SBIN, side: 'BUY', quantity: 100, strategy: 'a' });
      const sell = await t.place({ ...MINI.BANKNIFTY_FUT, side: 'SELL', quantity: 30 });
      expect([buy.ok, sell.ok]).toEqual([true, true]);
      expect(buy.order).toMatchObject({ status: 'complete', filledQuantity: 100, strategy: 'a' });
      expect(rupees(buy.order.averagePrice)).toBe(800.05);
      expect(rupees(sell.order.averagePrice)).toBe(51_999.8);
      const trades = await t.rows('sandbox_trades');
      expect(trades.map((r) => [String(r.order_id), r.side, r.quantity, rupees(Number(r.price))])).toEqual([
        [buy.order.orderId, 'BUY', 100, 800.05],
        [sell.order.orderId, 'SELL', 30, 51_999.8],
      ]);
      expect(await events(buy.order.orderId)).toEqual(['null→open', 'open→complete']);
    });
  });

  describe('a burst of placements commits in groups, each placement atomic on its own', () => {
    it("one user's 20 concurrent orders share transactions (one account lock, one commit per group); a refused one writes nothing; another user's run beside them", async () => {
      const db = t.s.db.database.db;
      const other = { id: t.userId + 1 }; // another user's sandbox account
      const started = vi.spyOn(db, 'startTransaction');
      const plain = vi.spyOn(db, 'transaction');
      const burst = Array.from({ length: 20 }, () => t.place({ ...MINI.SBIN, side: 'BUY', quantity: 1 }));
      const refused = refusal(t.place({ ...MINI.SBIN, side: 'BUY', quantity: 0 }));
      const poor = t.place({ ...MINI.BANKNIFTY_FUT, side: 'BUY', quantity: 30_000 });
      const theirs = Array.from({ length: 5 }, () =>
        t.s.services.sandbox.service.placeOrder(other.id, {
          ...MINI.SBIN,
          side: 'SELL',
          quantity: 2,
          priceType: 'MARKET',
          product: 'MIS',
        }),
      );
      const placed = await Promise.all(burst);
      expect(placed.every((p) => p.ok && p.order.status === 'complete')).toBe(true);
      expect((await refused).statusCode).toBe(400);
      expect(await poor).toMatchObject({ ok: false, order: { status: 'rejected' } });
      expect((await Promise.all(theirs)).every((p) => p.ok)).toBe(true);
      // 27 placements, far fewer transactions: grouped by turn on SQLite, by user on PostgreSQL
      // (so at least one group per user there).
      const transactions = started.mock.calls.length + plain.mock.calls.length;
      expect(transactions).toBeLessThan(10);
      if (dialect === 'postgres') expect(transactions).toBeGreaterThanOrEqual(2);
      started.mockRestore();
      plain.mockRestore();
      // Each placement's rows, once: 20 + 1 rejected for user 1, 5 for the other; the refused
      // request wrote nothing. 20 × 800.05 ÷ 5 = 3,200.20 blocked.
      const orders = await t.rows('sandbox_orders');
      expect(
        orders
          .filter((o) => o.user_id === t.userId)
          .map((o) => o.status)
          .sort(),
      ).toEqual([...Array<string>(20).fill('complete'), 'rejected']);
      expect(orders.filter((o) => o.user_id === other.id)).toHaveLength(5);
      expect(await t.funds()).toMatchObject({ usedMargin: 3_200.2, available: START - 3_200.2 });
      const sbin = (await t.rows('sandbox_positions')).filter((p) => p.symbol === 'SBIN');
      expect(sbin.find((p) => p.user_id === t.userId)).toMatchObject({ quantity: 20 });
      expect(sbin.find((p) => p.user_id === other.id)).toMatchObject({ quantity: -10 });
    });
  });

  describe('margin is blocked at placement as trade value ÷ leverage by instrument kind and product', () => {
    it('equity MIS 5×, equity CNC 1×, futures 10×, option buy 1×; held by each position', async () => {
      await t.place({ ...MINI.SBIN, side: 'BUY', quantity: 100 }); // 80,005 ÷ 5 = 16,001
      await t.place({ ...MINI.SBIN, side: 'BUY', quantity: 10, product: 'CNC' }); // 8,000.50
      await t.place({ ...MINI.BANKNIFTY_FUT, side: 'SELL', quantity: 30 }); // 1,559,994 ÷ 10 = 155,999.40
      await t.place({ ...MINI.NIFTY_CE, side: 'BUY', quantity: 65, product: 'NRML' }); // 65 × 120.50 = 7,832.50
      const margins = Object.fromEntries(
        (await t.rows('sandbox_positions')).map((p) => [
          `${String(p.symbol)}/${String(p.product)}`,
          rupees(Number(p.margin)),
        ]),
      );
      expect(margins).toEqual({
        'SBIN/MIS': 16_001,
        'SBIN/CNC': 8_000.5,
        'BANKNIFTY25AUG26FUT/MIS': 155_999.4,
        'NIFTY18AUG2626000CE/NRML': 7_832.5,
      });
      // Used 187,833.40. Marked at the LTPs: −5 − 0.50 − 6 − 32.50 = −44.
      expect(await t.funds()).toEqual({
        available: START - 187_833.4,
        usedMargin: 187_833.4,
        realisedPnl: 0,
        unrealisedPnl: -44,
      });
    });
  });

  describe('insufficient funds rejects the order with its reason and blocks nothing', () => {
    it('the rejected order is kept with one event; no trade, no position, funds untouched', async () => {
      // 20,000 × 800.05 = 16,001,000 > ₹1 crore (CNC, 1×).
      const r = await t.place({ ...MINI.SBIN, side: 'BUY', quantity: 20_000, product: 'CNC' });
      expect(r.ok).toBe(false);
      if (!r.ok)
        expect(r.message).toBe('Insufficient funds: required margin ₹16001000.00, available ₹10000000.00');
      expect(r.order).toMatchObject({
        status: 'rejected',
        filledQuantity: 0,
        reason: expect.stringMatching(/^Insufficient funds/),
      });
      expect(await events(r.order.orderId)).toEqual([`null→rejected (${r.order.reason})`]);
      expect(await t.rows('sandbox_trades')).toEqual([]);
      expect(await t.rows('sandbox_positions')).toEqual([]);
      expect(await t.funds()).toMatchObject({ available: START, usedMargin: 0 });
    });
  });

  describe('a MARKET order needs a price', () => {
    it('a MARKET order without a quote is rejected for lack of a price and blocks nothing', async () => {
      const r = await t.place({ ...MINI.NIFTY_FUT, side: 'BUY', quantity: 65 });
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.message).toMatch(/No price is available for NFO:NIFTY25AUG26FUT/);
      expect((await t.order(r.order.orderId)).status).toBe('rejected');
      expect(await t.funds()).toMatchObject({ available: START, usedMargin: 0 });
    });

    it('on a stale quote it is margined at the last LTP, rests open, and fills on the next fresh quote', async () => {
      t.s.clock.advance(61_000); // older than SANDBOX_MAX_QUOTE_AGE_SECONDS (60)
      const r = await t.place({ ...MINI.SBIN, side: 'BUY', quantity: 100 });
      expect(r.order.status).toBe('open');
      expect(await t.funds()).toMatchObject({ usedMargin: 16_000 }); // 100 × 800 ÷ 5
      await t.tick({ [key(MINI.SBIN)]: t.quote(801, { bid: 800.95, ask: 801.05, high: 805, low: 795 }) });
      const o = await t.order(r.order.orderId);
      expect([o.status, rupees(o.averagePrice)]).toEqual(['complete', 801.05]);
      // The margin blocked at placement moves to the position as it was: not recomputed at the fill.
      expect(rupees(Number((await position('SBIN'))!.margin))).toBe(16_000);
      expect(await t.funds()).toMatchObject({ usedMargin: 16_000, available: START - 16_000 });
    });
  });

  describe('a LIMIT order fills only when marketable, at the touch, never worse than its limit', () => {
    it('a LIMIT below the market rests open and blocks its own value', async () => {
      const r = await optionLimit(100);
      expect(r.order.status).toBe('open');
      expect(await events(r.order.orderId)).toEqual(['null→open']);
      expect(await t.funds()).toMatchObject({ usedMargin: 6_500, available: START - 6_500 }); // 65 × 100
      expect(await t.rows('sandbox_trades')).toEqual([]);
    });

    it('a LIMIT above the ask fills at once at the ask', async () => {
      const r = await t.place({ ...MINI.SBIN, side: 'BUY', quantity: 10, priceType: 'LIMIT', price: 805 });
      expect([r.order.status, rupees(r.order.averagePrice), rupees(r.order.price)]).toEqual([
        'complete',
        800.05,
        805,
      ]);
      // Margined at the limit (10 × 805 ÷ 5 = 1,610); the position keeps that block.
      expect(await t.funds()).toMatchObject({ usedMargin: 1_610 });
    });

    it('a resting LIMIT fills on the tick whose ask reaches it, at that ask', async () => {
      const id = (await optionLimit(100)).order.orderId;
      await t.tick({
        [key(MINI.NIFTY_CE)]: t.quote(100.5, { bid: 100.45, ask: 100.55, high: 140, low: 95 }),
      });
      expect((await t.order(id)).status).toBe('open');
      await t.tick({ [key(MINI.NIFTY_CE)]: t.quote(99.9, { bid: 99.85, ask: 99.95, high: 140, low: 95 }) });
      const o = await t.order(id);
      expect([o.status, rupees(o.averagePrice)]).toEqual(['complete', 99.95]);
      expect(await events(id)).toEqual(['null→open', 'open→complete']);
      expect(await position('NIFTY18AUG2626000CE', 'NRML')).toMatchObject({ quantity: 65, cost: 64_967_500 }); // 65 × 99.95
    });
  });

  describe('stop orders wait as trigger pending until the LTP reaches the trigger', () => {
    it('an SL-M blocks at its trigger, triggers on the LTP and fills at the ask', async () => {
      const stop = { ...MINI.BANKNIFTY_FUT, side: 'BUY' as const, quantity: 30, priceType: 'SL-M' as const };
      const r = await t.place({ ...stop, triggerPrice: 52_100.2 });
      expect(r.order.status).toBe('trigger pending');
      expect(await t.funds()).toMatchObject({ usedMargin: 156_300.6 }); // 30 × 52,100.20 ÷ 10
      await t.tick({
        [key(MINI.BANKNIFTY_FUT)]: t.quote(52_100, {
          bid: 52_099.8,
          ask: 52_100.2,
          high: 52_500,
          low: 51_500,
        }),
      });
      expect((await t.order(r.order.orderId)).status).toBe('trigger pending'); // 52,100 < 52,100.20
      await t.tick({
        [key(MINI.BANKNIFTY_FUT)]: t.quote(52_150, {
          bid: 52_149.8,
          ask: 52_150.4,
          high: 52_500,
          low: 51_500,
        }),
      });
      const o = await t.order(r.order.orderId);
      expect([o.status, rupees(o.averagePrice)]).toEqual(['complete', 52_150.4]);
      expect(await events(r.order.orderId)).toEqual([
        'null→trigger pending',
        'trigger pending→open (triggered)',
        'open→complete',
      ]);
    });

    it('an SL whose limit the triggering quote does not reach becomes open and rests as a LIMIT', async () => {
      const r = await t.place({
        ...MINI.SBIN,
        side: 'BUY',
        quantity: 10,
        priceType: 'SL',
        price: 801,
        triggerPrice: 800.5,
      });
      expect(r.order.status).toBe('trigger pending');
      await t.tick({ [key(MINI.SBIN)]: t.quote(800.5, { bid: 800.45, ask: 801.5, high: 805, low: 795 }) });
      expect((await t.order(r.order.orderId)).status).toBe('open');
      await t.tick({ [key(MINI.SBIN)]: t.quote(800.85, { bid: 800.8, ask: 800.9, high: 805, low: 795 }) });
      const o = await t.order(r.order.orderId);
      expect([o.status, rupees(o.averagePrice)]).toEqual(['complete', 800.9]);
      expect(await events(r.order.orderId)).toEqual([
        'null→trigger pending',
        'trigger pending→open (triggered)',
        'open→complete',
      ]);
    });
  });

  describe('a stale quote, or one outside its own day range, fills nothing', () => {
    it('the resting LIMIT waits through both and fills on the next good quote', async () => {
      const id = (await optionLimit(100)).order.orderId;
      const low = { bid: 98.95, ask: 99.05 };
      // Stamped 61 s ago: stale.
      await t.tick({
        [key(MINI.NIFTY_CE)]: t.quote(99, {
          ...low,
          high: 140,
          low: 95,
          timestamp: t.s.clock.now() - 61_000,
        }),
      });
      // LTP 99 below the day's low 100: a bad print.
      await t.tick({ [key(MINI.NIFTY_CE)]: t.quote(99, { ...low, high: 140, low: 100 }) });
      expect((await t.order(id)).status).toBe('open');
      await t.tick({ [key(MINI.NIFTY_CE)]: t.quote(99, { ...low, high: 140, low: 95 }) });
      expect((await t.order(id)).status).toBe('complete');
      expect((await t.rows('sandbox_trades')).map((r) => rupees(Number(r.price)))).toEqual([99.05]);
    });
  });

  describe('a CNC SELL needs the shares: holdings or a long CNC position', () => {
    it('with none it is rejected with its reason; after a CNC buy of 10 a sell of 5 fills', async () => {
      const none = await t.place({ ...MINI.SBIN, side: 'SELL', quantity: 5, product: 'CNC' });
      expect(none.order).toMatchObject({
        status: 'rejected',
        reason: 'CNC SELL of 5 exceeds the 0 shares held',
      });
      await t.place({ ...MINI.SBIN, side: 'BUY', quantity: 10, product: 'CNC' });
      const sell = await t.place({ ...MINI.SBIN, side: 'SELL', quantity: 5, product: 'CNC' });
      expect(sell.order.status).toBe('complete');
      const over = await t.place({ ...MINI.SBIN, side: 'SELL', quantity: 6, product: 'CNC' });
      expect(over.order).toMatchObject({
        status: 'rejected',
        reason: 'CNC SELL of 6 exceeds the 5 shares held',
      });
      expect(await position('SBIN', 'CNC')).toMatchObject({ quantity: 5 });
    });
  });

  describe('after the MIS square-off time (NSE 15:15) only MIS orders reducing a position are accepted', () => {
    afterEach(() => {
      vi.useRealTimers();
    });
    it('a new MIS exposure is rejected, a reduction fills, CNC is not affected', async () => {
      await t.place({ ...MINI.SBIN, side: 'BUY', quantity: 100 });
      // 15:16 without running the day's jobs (they would square the position off): the engine
      // is restarted with its 5 s job timer faked, so it cannot fire while the case runs.
      const { engine } = t.s.services.sandbox;
      await engine.stop();
      vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
      await engine.start();
      t.s.clock.set(Date.parse('2026-01-05T15:16:00+05:30'));
      await t.tick({ [key(MINI.SBIN)]: t.quote(800, { bid: 799.95, ask: 800.05, high: 805, low: 795 }) });
      const reason = 'after the MIS square-off time only orders reducing a position are accepted';
      expect((await t.place({ ...MINI.SBIN, side: 'BUY', quantity: 10 })).order).toMatchObject({
        status: 'rejected',
        reason,
      });
      expect((await t.place({ ...MINI.SBIN, side: 'SELL', quantity: 40 })).order.status).toBe('complete');
      expect((await t.place({ ...MINI.SBIN, side: 'SELL', quantity: 61 })).order).toMatchObject({
        status: 'rejected',
        reason,
      });
      expect((await t.place({ ...MINI.SBIN, side: 'BUY', quantity: 10, product: 'CNC' })).order.status).toBe(
        'complete',
      );
      expect(await position('SBIN')).toMatchObject({ quantity: 60 });
    });
  });

  describe('positions net per symbol and product; closing realises P&L and releases margin', () => {
    it('a partial close realises its share of the P&L and releases its share of the margin', async () => {
      await t.place({ ...MINI.SBIN, side: 'BUY', quantity: 100 }); // @ 800.05, margin 16,001
      await t.place({ ...MINI.SBIN, side: 'SELL', quantity: 40 }); // @ 799.95
      // Realised (799.95 − 800.05) × 40 = −4; released 16,001 × 40 ÷ 100 = 6,400.40.
      const p = await position('SBIN');
      expect([p!.quantity, rupees(Number(p!.margin)), rupees(Number(p!.realised_pnl))]).toEqual([
        60, 9_600.6, -4,
      ]);
      expect(await t.funds()).toMatchObject({
        usedMargin: 9_600.6,
        realisedPnl: -4,
        available: START - 9_600.6 - 4,
      });
    });

    it('a reversal closes the long at the bid, realises its P&L and margins only the new short', async () => {
      await t.place({ ...MINI.SBIN, side: 'BUY', quantity: 100 }); // @ 800.05, margin 16,001
      const r = await t.place({ ...MINI.SBIN, side: 'SELL', quantity: 150 }); // @ 799.95
      expect(r.order.status).toBe('complete');
      // Closes 100: (799.95 − 800.05) × 100 = −10. Opens 50 short: 50 × 799.95 ÷ 5 = 7,999.50.
      const p = await position('SBIN');
      expect([p!.quantity, rupees(Number(p!.cost)), rupees(Number(p!.margin))]).toEqual([
        -50, 39_997.5, 7_999.5,
      ]);
      expect(await t.funds()).toMatchObject({
        usedMargin: 7_999.5,
        realisedPnl: -10,
        available: START - 10 - 7_999.5,
      });
    });

    it('closeposition closes every open position at market and credits the realised P&L', async () => {
      await t.place({ ...MINI.SBIN, side: 'BUY', quantity: 100 }); // long @ 800.05
      await t.place({ ...MINI.BANKNIFTY_FUT, side: 'SELL', quantity: 30 }); // short @ 51,999.80
      await t.place({ ...MINI.NIFTY_CE, side: 'BUY', quantity: 65, product: 'NRML' }); // long @ 120.50
      await t.tick({
        [key(MINI.SBIN)]: t.quote(805, { bid: 804.95, ask: 805.05, high: 810, low: 795 }),
        [key(MINI.BANKNIFTY_FUT)]: t.quote(51_900, {
          bid: 51_899.8,
          ask: 51_900.4,
          high: 52_500,
          low: 51_500,
        }),
        [key(MINI.NIFTY_CE)]: t.quote(130, { bid: 129.95, ask: 130.1, high: 140, low: 95 }),
      });
      const closed = await t.s.services.sandbox.service.closePositions(t.userId);
      expect(closed.map((c) => [c.ok, c.order.side, c.order.quantity, c.order.status])).toEqual([
        [true, 'SELL', 100, 'complete'],
        [true, 'BUY', 30, 'complete'],
        [true, 'SELL', 65, 'complete'],
      ]);
      const rows = await t.rows('sandbox_positions');
      expect(rows.map((p) => p.quantity)).toEqual([0, 0, 0]);
      // SBIN (804.95 − 800.05) × 100 = 490; BANKNIFTY (51,999.8 − 51,900.4) × 30 = 2,982;
      // option (129.95 − 120.50) × 65 = 614.25. Total 4,086.25.
      const pnl = Object.fromEntries(rows.map((p) => [p.symbol, rupees(Number(p.realised_pnl))]));
      expect(pnl).toEqual({ SBIN: 490, BANKNIFTY25AUG26FUT: 2_982, NIFTY18AUG2626000CE: 614.25 });
      const f = await t.funds();
      expect([f.realisedPnl, f.usedMargin, f.available]).toEqual([4_086.25, 0, START + 4_086.25]);
      expect(await t.s.services.sandbox.service.closePositions(t.userId)).toEqual([]);
    });
  });

  describe('cancel ends a working order and releases its block', () => {
    it('cancelorder cancels a resting LIMIT and releases its margin', async () => {
      const id = (await optionLimit()).order.orderId;
      expect((await t.funds()).usedMargin).toBe(6_500); // 65 × 100
      const o = await t.s.services.sandbox.service.cancelOrder(t.userId, Number(id));
      expect(o.status).toBe('cancelled');
      expect((await t.order(id)).status).toBe('cancelled');
      expect(await events(id)).toEqual(['null→open', 'open→cancelled']);
      expect(await t.funds()).toMatchObject({ available: START, usedMargin: 0 });
    });
  });

  describe('modify re-validates and re-margins a working order as if placed now; a failure changes nothing', () => {
    const modify = (id: string, change: Row) =>
      t.s.services.sandbox.service.modifyOrder(t.userId, Number(id), {
        ...MINI.NIFTY_CE,
        side: 'BUY',
        product: 'NRML',
        priceType: 'LIMIT',
        price: 100,
        quantity: 65,
        ...change,
      } as never);

    it('a new price and quantity replace the block and are recorded as an event', async () => {
      const id = (await optionLimit()).order.orderId;
      const o = await modify(id, { quantity: 130, price: '95.50' });
      expect([o.status, o.quantity, rupees(o.price)]).toEqual(['open', 130, 95.5]);
      // 130 × 95.50 = 12,415 replaces the 6,500.
      expect(await t.funds()).toMatchObject({ usedMargin: 12_415, available: START - 12_415 });
      expect((await events(id)).at(-1)).toBe('open→open (modified: LIMIT 130 @ 95.5 trigger 0)');
    });

    it('a limit moved through the ask fills at once at the ask', async () => {
      const id = (await optionLimit()).order.orderId;
      const o = await modify(id, { price: 125 });
      expect([o.status, rupees(o.averagePrice)]).toEqual(['complete', 120.5]);
      expect(await position('NIFTY18AUG2626000CE', 'NRML')).toMatchObject({ quantity: 65 });
      expect(await t.funds()).toMatchObject({ usedMargin: 8_125 }); // 65 × 125, blocked at the new limit
    });

    it('a modify needing more than the available funds is a 400 and leaves the order as it was', async () => {
      const id = (await optionLimit()).order.orderId;
      const before = { order: await t.order(id), funds: await t.funds() };
      // 65 × 2,000 lots × ₹100 = ₹1.3 crore > ₹1 crore.
      const err = await refusal(modify(id, { quantity: 130_000 }));
      expect(err.statusCode).toBe(400);
      expect(err.message).toMatch(/^Insufficient funds/);
      expect({ order: await t.order(id), funds: await t.funds() }).toEqual(before);
    });

    it('a modify cannot change symbol, exchange, action or product: 400 naming the field', async () => {
      const id = (await optionLimit()).order.orderId;
      const before = await t.order(id);
      for (const [field, change] of [
        ['symbol', { symbol: MINI.NIFTY_FUT.symbol }],
        ['exchange', { exchange: 'BFO' }],
        ['action', { side: 'SELL' }],
        ['product', { product: 'MIS' }],
      ] as const) {
        const err = await refusal(modify(id, { price: 99, ...change }));
        expect(err.statusCode, field).toBe(400);
        expect(err.message, field).toMatch(new RegExp(`^${field} cannot be modified`));
      }
      expect(await t.order(id)).toEqual(before);
      expect(await events(id)).toEqual(['null→open']);
    });
  });
});

// Refusals write nothing, so these cases share one set of services: each still proves its own
// order left every table empty.
describeEachDb('sandbox placement refusals (service tier)', (dialect) => {
  let t: Trading;
  beforeAll(async () => {
    t = await startTrading(dialect);
    await t.marketOpen();
  });
  afterAll(() => t?.close());

  describe('lot size, tick size and price rules: the order is refused (400) and nothing is written', () => {
    it.each([
      [
        'F&O quantity off the lot size',
        { ...MINI.NIFTY_CE, side: 'BUY', quantity: 10, product: 'NRML' },
        'quantity must be a multiple of the lot size 65',
      ],
      [
        'a LIMIT price off the tick (0.05)',
        { ...MINI.SBIN, side: 'BUY', quantity: 10, priceType: 'LIMIT', price: 800.03 },
        'price must be a multiple of the tick size 0.05',
      ],
      [
        'a trigger off the tick (0.20)',
        { ...MINI.BANKNIFTY_FUT, side: 'BUY', quantity: 30, priceType: 'SL-M', triggerPrice: 52_100.1 },
        'trigger_price must be a multiple of the tick size 0.2',
      ],
      [
        'a LIMIT without a price',
        { ...MINI.SBIN, side: 'BUY', quantity: 10, priceType: 'LIMIT' },
        'price must be greater than 0',
      ],
      [
        'an SL BUY whose limit is below its trigger',
        { ...MINI.SBIN, side: 'BUY', quantity: 10, priceType: 'SL', price: 800, triggerPrice: 801 },
        'price of an SL BUY must be at or above its trigger_price',
      ],
      [
        'an index',
        { ...MINI.NIFTY_INDEX, side: 'BUY', quantity: 1 },
        'NIFTY is an index and cannot be traded',
      ],
      [
        'CNC on a future',
        { ...MINI.NIFTY_FUT, side: 'BUY', quantity: 65, product: 'CNC' },
        'CNC is for cash equity; use NRML or MIS for futures and options',
      ],
      [
        'a symbol not in the master contract',
        { symbol: 'NOSUCH', exchange: 'NSE', side: 'BUY', quantity: 1 },
        "Symbol 'NOSUCH' not found on exchange NSE in the master contract",
      ],
    ] as const)('%s', async (_name, req, message) => {
      const err = await refusal(t.place(req as Parameters<Trading['place']>[0]));
      expect([err.statusCode, err.message]).toEqual([400, message]);
      expect(await t.rows('sandbox_orders')).toEqual([]);
      expect(await t.rows('sandbox_order_events')).toEqual([]);
      expect(await t.funds()).toMatchObject({ available: START, usedMargin: 0 });
    });
  });
});

/**
 * The middle tier of sandbox placement, margin and the account rules
 * (docs/rules/sandbox.md#margin-at-placement, docs/rules/sandbox.md#order-validation): margin
 * blocked by instrument kind and product, insufficient funds, a CNC SELL needing the shares, MIS
 * after the square-off time, and a burst of placements, each atomic on its own. The real sandbox
 * service and engine on a real database, no HTTP (helpers/sandbox-placement-world.ts); each case
 * asserts what the service decided and the rows it wrote. How orders fill:
 * sandbox-placement-fills.service.test.ts.
 * Figures are worked out by hand in the comments (₹; margins: equity MIS 5×, CNC 1×, futures 10×,
 * option buy 1×). Quotes at 10:00 IST (see `marketOpen`): SBIN 800 (bid 799.95 / ask 800.05), the
 * NIFTY 26000 CE 120 (119.95 / 120.50), the BANKNIFTY future 52,000 (51,999.80 / 52,000.20).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MINI } from '../helpers/sandbox.js';
import { placementWorld, refusal } from '../helpers/sandbox-placement-world.js';
import { describeEachDb } from '../helpers/test-app.js';
import { key, rupees, START, type Trading } from '../helpers/trading-services.js';

describeEachDb('sandbox placement (service tier)', (dialect) => {
  let t: Trading;
  const { events, position } = placementWorld(dialect, (current) => (t = current));

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

  describe('margin is blocked at placement by instrument kind and product', () => {
    it('equity MIS 5×, equity CNC 1×, futures SPAN + exposure, option buy 1×; held by each position', async () => {
      await t.place({ ...MINI.SBIN, side: 'BUY', quantity: 100 }); // 80,005 ÷ 5 = 16,001
      await t.place({ ...MINI.SBIN, side: 'BUY', quantity: 10, product: 'CNC' }); // 8,000.50
      // 5.5 % + 2 % of 30 × 52,000 (the future's LTP: BANKNIFTY itself is unquoted) = 117,000.
      await t.place({ ...MINI.BANKNIFTY_FUT, side: 'SELL', quantity: 30 });
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
        'BANKNIFTY25AUG26FUT/MIS': 117_000,
        'NIFTY18AUG2626000CE/NRML': 7_832.5,
      });
      // Used 148,834. Marked at the LTPs: −5 − 0.50 − 6 − 32.50 = −44.
      expect(await t.funds()).toEqual({
        available: START - 148_834,
        usedMargin: 148_834,
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

  describe('a CNC BUY that buys back shares sold from holdings the same day opens nothing', () => {
    it('it blocks no margin, realises the round trip, and leaves used margin equal to what positions hold', async () => {
      await t.place({ ...MINI.SBIN, side: 'BUY', quantity: 10, product: 'CNC' }); // @ 800.05
      await t.at('2026-01-06', '09:30'); // T+1: 10 SBIN held at ₹8,000.50
      await t.tick({ [key(MINI.SBIN)]: t.quote(800) });
      await t.place({ ...MINI.SBIN, side: 'SELL', quantity: 6, product: 'CNC' }); // from holdings @ 799.95
      const back = await t.place({ ...MINI.SBIN, side: 'BUY', quantity: 2, product: 'CNC' }); // @ 800.05
      expect(back.order.status).toBe('complete');
      // The BUY covers 2 of the 6 sold today: no new shares, so nothing to pay for or block.
      const p = await position('SBIN', 'CNC');
      // −6 + 2 = −4 sold from holdings; (799.95 − 800.05) × 2 = −0.20 realised on the round trip.
      expect([p!.quantity, rupees(Number(p!.margin)), rupees(Number(p!.realised_pnl))]).toEqual([
        -4, 0, -0.2,
      ]);
      // Paid ₹8,000.50 for the 10 held; the round trip lost ₹0.20; the sale is credited at T+1.
      expect(await t.funds()).toMatchObject({
        usedMargin: 0,
        realisedPnl: -0.2,
        available: START - 8_000.5 - 0.2,
      });
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
});

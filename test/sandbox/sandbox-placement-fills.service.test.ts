/**
 * The middle tier of sandbox placement, how an order fills (docs/rules/sandbox.md#fills,
 * docs/rules/sandbox.md#order-states, docs/rules/sandbox.md#stale-quotes): MARKET, LIMIT and stop
 * orders, and quotes that fill nothing. The real sandbox service and engine on a real database, no
 * HTTP (helpers/sandbox-placement-world.ts). Each describe is one rule; each case asserts what the
 * service decided and the rows it wrote (orders, order events, trades, positions, the account).
 * Margin and the account rules: sandbox-placement-margin.service.test.ts; positions, cancel and
 * modify: sandbox-placement-positions.service.test.ts; refused input:
 * sandbox-placement-refusals.service.test.ts. The HTTP contract of the same routes is
 * sandbox-api*.test.ts.
 * Figures are worked out by hand in the comments (₹; margins: equity MIS 5×, CNC 1×, futures 10×,
 * option buy 1×). Quotes at 10:00 IST (see `marketOpen`): SBIN 800 (bid 799.95 / ask 800.05), the
 * NIFTY 26000 CE 120 (119.95 / 120.50), the BANKNIFTY future 52,000 (51,999.80 / 52,000.20).
 */
import { describe, expect, it } from 'vitest';
import { MINI } from '../helpers/sandbox.js';
import { placementWorld } from '../helpers/sandbox-placement-world.js';
import { describeEachDb } from '../helpers/test-app.js';
import { key, rupees, START, type Trading } from '../helpers/trading-services.js';

describeEachDb('sandbox placement (service tier)', (dialect) => {
  let t: Trading;
  const { optionLimit, events, position } = placementWorld(dialect, (current) => (t = current));

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
      // A future: SPAN + exposure, 5.5 % + 2 % of 30 × the future's LTP 52,000 (BANKNIFTY itself unquoted).
      expect(await t.funds()).toMatchObject({ usedMargin: 117_000 });
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
});

/**
 * The middle tier of sandbox placement, positions, cancel and modify
 * (docs/rules/sandbox.md#positions-and-holdings, docs/rules/sandbox.md#cancel-and-modify): netting
 * per symbol and product, closing (in part, by reversal, by closeposition), and cancel and modify
 * of a working order. The real sandbox service and engine on a real database, no HTTP
 * (helpers/sandbox-placement-world.ts); each case asserts what the service decided and the rows it
 * wrote. How orders fill: sandbox-placement-fills.service.test.ts.
 * Figures are worked out by hand in the comments (₹; margins: equity MIS 5×, CNC 1×, futures 10×,
 * option buy 1×). Quotes at 10:00 IST (see `marketOpen`): SBIN 800 (bid 799.95 / ask 800.05), the
 * NIFTY 26000 CE 120 (119.95 / 120.50), the BANKNIFTY future 52,000 (51,999.80 / 52,000.20).
 */
import { describe, expect, it } from 'vitest';
import { MINI } from '../helpers/sandbox.js';
import { placementWorld, refusal } from '../helpers/sandbox-placement-world.js';
import { describeEachDb } from '../helpers/test-app.js';
import { key, rupees, START, type Trading } from '../helpers/trading-services.js';

type Row = Record<string, unknown>;

describeEachDb('sandbox placement (service tier)', (dialect) => {
  let t: Trading;
  const { optionLimit, events, position } = placementWorld(dialect, (current) => (t = current));

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

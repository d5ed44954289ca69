/**
 * Issue 5, "Engine": the day-boundary work — MIS square-off per exchange at its cut-off, the
 * catch-up after a restart that missed it, T+1 settlement of CNC buys and sells of held shares,
 * and the scheduled account reset — each exactly once however often the engine ticks.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Dialect } from '../../src/platform/db/database.js';
import { describeEachDb } from '../helpers/test-app.js';
import { MINI, ist, startSandbox, type SandboxHarness } from '../helpers/sandbox.js';

const MON = '2026-01-05';
const TUE = '2026-01-06';
const k = (i: { exchange: string; symbol: string }) => `${i.exchange}:${i.symbol}`;
type Row = Record<string, unknown>;

describeEachDb('sandbox day-boundary jobs', (dialect: Dialect) => {
  let h: SandboxHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });
  const open = async (s: SandboxHarness, env: Record<string, string> = {}) => {
    h = await startSandbox(dialect, { env });
    s = h;
    return s;
  };
  const positions = async (s: SandboxHarness) => (await s.ok<{ data: Row[] }>('positionbook')).data;
  const qty = async (s: SandboxHarness, symbol: string, product: string) =>
    (await positions(s)).find((p) => p.symbol === symbol && p.product === product)?.quantity;
  const prices = (s: SandboxHarness) => ({
    [k(MINI.SBIN)]: s.quote(800),
    [k(MINI.NIFTY_FUT)]: s.quote(26_000),
    [k(MINI.INFY)]: s.quote(1_500),
  });

  describe('MIS square-off runs per exchange at its own cut-off', () => {
    it('NSE closes at 15:15 while NFO (configured 15:20) waits for its own time', async () => {
      const s = await open(undefined as never, { SANDBOX_SQUARE_OFF: 'NFO=15:20' });
      await s.at(MON, '10:00');
      await s.tick(prices(s));
      expect((await s.place({ ...MINI.SBIN, side: 'BUY', quantity: 10 })).ok).toBe(true);
      expect((await s.place({ ...MINI.NIFTY_FUT, side: 'SELL', quantity: 65 })).ok).toBe(true);
      const resting = await s.place({
        ...MINI.INFY,
        side: 'BUY',
        quantity: 1,
        priceType: 'LIMIT',
        price: 1_400,
      });
      await s.at(MON, '15:15');
      await s.tick(prices(s));
      await s.t.services.sandbox.engine.tick();
      expect(await qty(s, 'SBIN', 'MIS')).toBe(0);
      expect(await qty(s, 'NIFTY25AUG26FUT', 'MIS')).toBe(-65);
      const o = await s.t.services.sandbox.service.order(1, Number(resting.order.orderId));
      expect([o.status, o.reason]).toEqual(['cancelled', 'cancelled at the MIS square-off']);
      await s.at(MON, '15:20');
      await s.tick(prices(s));
      await s.t.services.sandbox.engine.tick();
      expect(await qty(s, 'NIFTY25AUG26FUT', 'MIS')).toBe(0);
      // Ticking again changes nothing: one closing order each.
      const trades = (await s.ok<{ data: Row[] }>('tradebook')).data.length;
      await s.at(MON, '15:25');
      expect((await s.ok<{ data: Row[] }>('tradebook')).data).toHaveLength(trades);
    });

    it('on a stale quote the closing order waits for the next good one; no second close is sent', async () => {
      const s = await open(undefined as never);
      await s.at(MON, '10:00');
      await s.tick(prices(s));
      await s.place({ ...MINI.SBIN, side: 'BUY', quantity: 10 });
      s.t.clock.set(ist(MON, '15:16'));
      await s.t.services.sandbox.engine.tick(); // the 10:00 quote is stale by now
      await s.t.services.sandbox.engine.tick();
      expect(await qty(s, 'SBIN', 'MIS')).toBe(10);
      const closes = (await s.ok<{ data: { orders: Row[] } }>('orderbook')).data.orders.filter(
        (o) => o.action === 'SELL',
      );
      expect(closes).toMatchObject([{ order_status: 'open', pricetype: 'MARKET', quantity: 10 }]);
      await s.tick({ [k(MINI.SBIN)]: s.quote(801, { bid: 801 }) });
      expect(await qty(s, 'SBIN', 'MIS')).toBe(0);
      expect((await s.ok<{ data: Row[] }>('tradebook')).data).toHaveLength(2);
    });

    it('with no price at all the close is refused once, logged, and sent again only once a new quote arrives', async () => {
      let s = await open(undefined as never);
      await s.at(MON, '10:00');
      await s.tick(prices(s));
      await s.place({ ...MINI.SBIN, side: 'BUY', quantity: 10 });
      await s.t.app.close();
      s.t.clock.set(ist(MON, '15:30'));
      s = h = await startSandbox(dialect, { restartOf: s }); // a new feed: no quote yet
      expect(await qty(s, 'SBIN', 'MIS')).toBe(10);
      expect(s.t.logs.some((l) => l.includes('MIS square-off could not close a position'))).toBe(true);
      // Ticks without a new quote send no second close: one refused order, not one per tick.
      for (let i = 0; i < 3; i++) await s.t.services.sandbox.engine.tick();
      const refusedCloses = (await s.ok<{ data: { orders: Row[] } }>('orderbook')).data.orders.filter(
        (o) => o.action === 'SELL' && o.order_status === 'rejected',
      );
      expect(refusedCloses).toHaveLength(1);
      await s.tick({ [k(MINI.SBIN)]: s.quote(801) });
      await s.t.services.sandbox.engine.tick();
      expect(await qty(s, 'SBIN', 'MIS')).toBe(0);
    });
  });

  describe('a restart catches up what it missed', () => {
    it('a process down at 15:15 squares off when it comes back the same evening', async () => {
      let s = await open(undefined as never);
      await s.at(MON, '10:00');
      await s.tick(prices(s));
      await s.place({ ...MINI.SBIN, side: 'BUY', quantity: 10 });
      await s.t.app.close();
      s.t.clock.set(ist(MON, '18:00'));
      s = h = await startSandbox(dialect, { restartOf: s });
      await s.tick({ [k(MINI.SBIN)]: s.quote(805) });
      await s.t.services.sandbox.engine.tick();
      expect(await qty(s, 'SBIN', 'MIS')).toBe(0);
    });

    it('a process down overnight expires yesterday’s orders, closes its MIS and settles its CNC', async () => {
      let s = await open(undefined as never);
      await s.at(MON, '10:00');
      await s.tick(prices(s));
      await s.place({ ...MINI.SBIN, side: 'BUY', quantity: 10, product: 'CNC' });
      const limit = await s.place({
        ...MINI.INFY,
        side: 'BUY',
        quantity: 2,
        priceType: 'LIMIT',
        price: 1_400,
        product: 'CNC',
      });
      await s.t.app.close();
      s.t.clock.set(ist(TUE, '09:20'));
      s = h = await startSandbox(dialect, { restartOf: s });
      const infy = (await s.ok<{ data: Row }>('orderstatus', { orderid: limit.order.orderId })).data;
      expect(infy.order_status).toBe('cancelled');
      // Expired overnight, it is not in today's book.
      expect((await s.ok<{ data: { orders: Row[] } }>('orderbook')).data.orders).toEqual([]);
      const holdings = (await s.ok<{ data: { holdings: Row[] } }>('holdings')).data.holdings;
      expect(holdings).toMatchObject([{ symbol: 'SBIN', quantity: 10 }]);
      expect(await positions(s)).toEqual([]);
    });
  });

  describe('T+1: selling held shares', () => {
    it('a CNC sell of held shares blocks nothing and realises against the holding cost at settlement', async () => {
      const s = await open(undefined as never);
      await s.at(MON, '10:00');
      await s.tick({ [k(MINI.SBIN)]: s.quote(800, { ask: 800, bid: 799.9 }) });
      await s.place({ ...MINI.SBIN, side: 'BUY', quantity: 10, product: 'CNC' }); // cost 8,000
      await s.at(TUE, '10:00');
      const before = (await s.ok<{ data: Row }>('funds')).data;
      await s.tick({ [k(MINI.SBIN)]: s.quote(820, { bid: 820, ask: 820.1 }) });
      const tooMany = await s.place({ ...MINI.SBIN, side: 'SELL', quantity: 11, product: 'CNC' });
      expect(tooMany.ok).toBe(false);
      if (!tooMany.ok) expect(tooMany.message).toMatch(/exceeds the 10 shares held/);
      const sell = await s.place({ ...MINI.SBIN, side: 'SELL', quantity: 4, product: 'CNC' });
      expect(sell.ok).toBe(true);
      expect((await s.ok<{ data: Row }>('funds')).data.utiliseddebits).toBe(before.utiliseddebits);
      await s.at('2026-01-07', '09:00');
      const holdings = (await s.ok<{ data: { holdings: Row[] } }>('holdings')).data.holdings;
      expect(holdings).toMatchObject([{ symbol: 'SBIN', quantity: 6 }]);
      const after = (await s.ok<{ data: Row }>('funds')).data;
      // Sold 4 @ 820 = 3,280 against 4 × 800 = 3,200: realised +80; the proceeds are cash.
      expect(after.m2mrealized).toBe(80);
      expect(after.availablecash).toBe((before.availablecash as number) + 3_280);
    });
  });

  describe('scheduled reset (SANDBOX_RESET_DAY / SANDBOX_RESET_TIME)', () => {
    it('daily at 08:00: accounts last reset before the slot start again, once', async () => {
      const s = await open(undefined as never, { SANDBOX_RESET_DAY: 'daily', SANDBOX_RESET_TIME: '08:00' });
      await s.at(MON, '10:00');
      await s.tick(prices(s));
      const mon = await s.place({ ...MINI.SBIN, side: 'BUY', quantity: 10, product: 'CNC' });
      await s.at(MON, '23:00');
      expect((await s.ok<{ data: { orders: Row[] } }>('orderbook')).data.orders).toHaveLength(1);
      await s.at(TUE, '08:00');
      // The reset deleted Monday's order: it no longer answers (the book would be empty anyway).
      expect((await s.api('orderstatus', { orderid: mon.order.orderId })).statusCode).toBe(404);
      expect((await s.ok<{ data: Row }>('funds')).data.availablecash).toBe(10_000_000);
      await s.tick(prices(s));
      await s.place({ ...MINI.SBIN, side: 'BUY', quantity: 1 });
      await s.at(TUE, '09:00');
      expect((await s.ok<{ data: { orders: Row[] } }>('orderbook')).data.orders).toHaveLength(1);
    });

    it('never: nothing is reset', async () => {
      const s = await open(undefined as never, { SANDBOX_RESET_DAY: 'never' });
      await s.at(MON, '10:00');
      await s.tick(prices(s));
      const mon = await s.place({ ...MINI.SBIN, side: 'BUY', quantity: 1, product: 'CNC' });
      await s.at('2026-01-12', '10:00');
      const kept = (await s.ok<{ data: Row }>('orderstatus', { orderid: mon.order.orderId })).data;
      expect(kept.order_status).toBe('complete');
    });
  });
});

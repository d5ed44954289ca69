/**
 * Issue 5, "Done when": a scripted price feed drives a sandbox account through a trading day —
 * entries, a reversal, a stop-loss trigger, a limit that never fills, the MIS square-off at the
 * cut-off, next-day settlement — with a restart in the middle that loses nothing. Every figure
 * is computed by hand in the comments (₹; margins: equity MIS 5×, CNC 1×, futures 10×).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDb } from '../helpers/test-app.js';
import { MINI, startSandbox, type SandboxHarness } from '../helpers/sandbox.js';

const DAY1 = '2026-01-05'; // a Monday
const DAY2 = '2026-01-06';
const START = 10_000_000;
const k = (i: { exchange: string; symbol: string }) => `${i.exchange}:${i.symbol}`;

type Funds = { availablecash: number; utiliseddebits: number; m2mrealized: number; m2munrealized: number };

describeEachDb('sandbox: a scripted trading day', (dialect) => {
  let h: SandboxHarness;
  let limitId = '';
  let stopId = '';
  const funds = async () => (await h.ok<{ data: Funds }>('funds')).data;
  const position = async (symbol: string, product: string) => {
    const rows = (await h.ok<{ data: Record<string, unknown>[] }>('positionbook')).data;
    return rows.find((r) => r.symbol === symbol && r.product === product);
  };
  const status = async (orderid: string) =>
    (await h.ok<{ data: Record<string, unknown> }>('orderstatus', { orderid })).data;

  beforeAll(async () => {
    h = await startSandbox(dialect);
    h.t.clock.set(Date.parse(`${DAY1}T09:30:00+05:30`));
  });
  afterAll(async () => {
    await h?.close();
  });

  it('a MARKET BUY fills at once at the ask and blocks value ÷ 5 (MIS)', async () => {
    await h.tick({ [k(MINI.SBIN)]: h.quote(800, { bid: 799.95, ask: 800.05, high: 805, low: 795 }) });
    const r = await h.place({ ...MINI.SBIN, side: 'BUY', quantity: 100 });
    expect(r.ok).toBe(true);
    const o = await status(r.order.orderId);
    expect(o.order_status).toBe('complete');
    expect(o.average_price).toBe(800.05);
    // 100 × 800.05 = 80,005 → MIS margin 16,001.
    const f = await funds();
    expect(f.utiliseddebits).toBe(16_001);
    expect(f.availablecash).toBe(START - 16_001);
  });

  it('a LIMIT below the market rests open and blocks its own value (NRML option buy, 1×)', async () => {
    await h.tick({ [k(MINI.NIFTY_CE)]: h.quote(120, { bid: 119.95, ask: 120.5, high: 140, low: 95 }) });
    const r = await h.place({
      ...MINI.NIFTY_CE,
      side: 'BUY',
      quantity: 65,
      priceType: 'LIMIT',
      product: 'NRML',
      price: 100,
    });
    expect(r.ok).toBe(true);
    limitId = r.order.orderId;
    expect((await status(limitId)).order_status).toBe('open');
    // 65 × 100 = 6,500 blocked on top of the 16,001.
    expect((await funds()).utiliseddebits).toBe(16_001 + 6_500);
    // The market never comes down to 100 today.
    await h.tick({ [k(MINI.NIFTY_CE)]: h.quote(110, { bid: 109.9, ask: 110.2, high: 140, low: 95 }) });
    expect((await status(limitId)).order_status).toBe('open');
  });

  it('a reversal closes the long at the bid, realises its P&L and margins only the excess', async () => {
    await h.tick({ [k(MINI.SBIN)]: h.quote(802, { bid: 802, ask: 802.1, high: 805, low: 795 }) });
    const r = await h.place({ ...MINI.SBIN, side: 'SELL', quantity: 150 });
    expect(r.ok).toBe(true);
    // Close 100 at 802: realised (802 − 800.05) × 100 = 195; the 16,001 margin is released.
    // Open −50 at 802: margin 50 × 802 ÷ 5 = 8,020.
    const p = await position('SBIN', 'MIS');
    expect(p?.quantity).toBe(-50);
    expect(p?.average_price).toBe(802);
    const f = await funds();
    expect(f.m2mrealized).toBe(195);
    expect(f.utiliseddebits).toBe(8_020 + 6_500);
    expect(f.availablecash).toBe(START + 195 - 8_020 - 6_500);
  });

  it('an SL-M stop waits as trigger pending, triggers on the LTP and fills at the ask', async () => {
    const r = await h.place({
      ...MINI.SBIN,
      side: 'BUY',
      quantity: 50,
      priceType: 'SL-M',
      triggerPrice: 810,
    });
    expect(r.ok).toBe(true);
    stopId = r.order.orderId;
    // Reducing the short blocks nothing more.
    expect((await funds()).utiliseddebits).toBe(8_020 + 6_500);
    await h.tick({ [k(MINI.SBIN)]: h.quote(809.95, { high: 810, low: 795 }) });
    expect((await status(stopId)).order_status).toBe('trigger pending');
    await h.tick({ [k(MINI.SBIN)]: h.quote(810.5, { bid: 810.4, ask: 810.6, high: 811, low: 795 }) });
    const o = await status(stopId);
    expect(o.order_status).toBe('complete');
    expect(o.average_price).toBe(810.6);
    // Short 50 @ 802 bought back @ 810.6: realised −430; total 195 − 430 = −235.
    expect((await position('SBIN', 'MIS'))?.quantity).toBe(0);
    const f = await funds();
    expect(f.m2mrealized).toBe(-235);
    expect(f.utiliseddebits).toBe(6_500);
  });

  it('a stale quote or one outside its own day range fills nothing; the next good one does', async () => {
    const r = await h.place({
      ...MINI.SBIN,
      side: 'BUY',
      quantity: 10,
      priceType: 'LIMIT',
      product: 'MIS',
      price: 805,
    });
    const id = r.order.orderId;
    expect((await status(id)).order_status).toBe('open');
    const old = h.t.clock.now() - 10 * 60_000;
    await h.tick({ [k(MINI.SBIN)]: h.quote(800, { timestamp: old }) });
    expect((await status(id)).order_status).toBe('open');
    await h.tick({ [k(MINI.SBIN)]: h.quote(800, { high: 799, low: 790 }) });
    expect((await status(id)).order_status).toBe('open');
    expect(h.t.logs.some((l) => l.includes('sandbox quote not used for fills'))).toBe(true);
    await h.tick({ [k(MINI.SBIN)]: h.quote(800, { bid: 799.9, ask: 800, high: 805, low: 795 }) });
    const o = await status(id);
    expect(o.order_status).toBe('complete');
    expect(o.average_price).toBe(800); // the ask: better than the 805 limit
  });

  it('insufficient funds rejects the order with its reason and blocks nothing', async () => {
    const before = await funds();
    const r = await h.place({ ...MINI.SBIN, side: 'BUY', quantity: 20_000, product: 'CNC' });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.message).toMatch(/^Insufficient funds: required margin ₹16000000\.00, available ₹/);
    const o = await status(r.order.orderId);
    expect(o.order_status).toBe('rejected');
    expect(await funds()).toEqual(before);
  });

  it('a CNC buy and an MIS future are open when the process restarts; nothing is lost', async () => {
    const cnc = await h.place({ ...MINI.SBIN, side: 'BUY', quantity: 10, product: 'CNC' });
    expect(cnc.ok).toBe(true);
    await h.tick({
      [k(MINI.BANKNIFTY_FUT)]: h.quote(52_000, { bid: 51_999.8, ask: 52_000.2, high: 52_500, low: 51_500 }),
    });
    const fut = await h.place({ ...MINI.BANKNIFTY_FUT, side: 'BUY', quantity: 30 });
    expect(fut.ok).toBe(true);
    const before = {
      funds: await funds(),
      orders: await h.ok('orderbook'),
      positions: await h.ok('positionbook'),
      trades: await h.ok('tradebook'),
    };
    await h.t.app.close();
    h = await startSandbox(dialect, { restartOf: h });
    expect(h.t.services.sandbox.engine.isRunning).toBe(true);
    expect(h.t.services.sandbox.engine.size).toBe(1); // the option LIMIT still rests
    // The new feed has no marks yet: compare what does not depend on them.
    expect(await h.ok('orderbook')).toEqual(before.orders);
    expect(await h.ok('tradebook')).toEqual(before.trades);
    expect((await funds()).availablecash).toBe(before.funds.availablecash);
    expect((await funds()).utiliseddebits).toBe(before.funds.utiliseddebits);
  });

  it('at the 15:15 cut-off MIS positions are closed at market; NRML and CNC are left alone', async () => {
    await h.at(DAY1, '15:14');
    await h.tick({
      [k(MINI.BANKNIFTY_FUT)]: h.quote(52_100, { bid: 52_100, ask: 52_100.4, high: 52_500, low: 51_500 }),
      [k(MINI.SBIN)]: h.quote(801, { high: 811, low: 795 }),
      [k(MINI.NIFTY_CE)]: h.quote(111, { bid: 110.9, ask: 111.1, high: 140, low: 95 }),
    });
    expect((await position('BANKNIFTY25AUG26FUT', 'MIS'))?.quantity).toBe(30);
    await h.at(DAY1, '15:15');
    const p = await position('BANKNIFTY25AUG26FUT', 'MIS');
    expect(p?.quantity).toBe(0);
    // Long 30 @ 52,000.2 sold @ 52,100 (bid): realised 2,994.
    expect(p?.pnl).toBe(2_994);
    expect((await position('SBIN', 'CNC'))?.quantity).toBe(10);
    expect((await status(limitId)).order_status).toBe('open');
    // After the cut-off only reducing MIS orders are accepted.
    const late = await h.place({ ...MINI.SBIN, side: 'BUY', quantity: 1 });
    expect(late.ok).toBe(false);
    if (!late.ok) expect(late.message).toMatch(/square-off/);
  });

  it("the books are the day's: after midnight only an order still working is listed", async () => {
    type Book = { data: { orders: { orderid: string }[] } };
    const dayOne = (await h.ok<Book>('orderbook')).data.orders;
    expect(dayOne.length).toBeGreaterThan(2);
    const fills = (await h.ok<{ data: unknown[] }>('tradebook')).data;
    expect(fills.length).toBeGreaterThan(0);
    // Past midnight, before the rollover has run: yesterday's working LIMIT is still listed.
    h.t.clock.set(Date.parse(`${DAY2}T00:00:01+05:30`));
    expect((await h.ok<Book>('orderbook')).data.orders.map((o) => o.orderid)).toEqual([limitId]);
    expect((await h.ok<{ data: unknown[] }>('tradebook')).data).toEqual([]);
    // Yesterday's orders and fills are kept: each order still answers, the day's trades are its
    // contract note's.
    expect((await status(stopId)).order_status).toBe('complete');
    const note = await h.t.services.sandbox.books.contractNote(h.userId, DAY1);
    expect(note.totals.trades).toBe(fills.length);
  });

  it('the next day: the unfilled LIMIT has expired and the CNC buy is a holding (T+1)', async () => {
    const before = await funds();
    await h.at(DAY2, '09:00');
    const o = await status(limitId);
    expect(o.order_status).toBe('cancelled');
    // Expired, it was placed yesterday: today's book has nothing yet.
    expect((await h.ok<{ data: { orders: unknown[] } }>('orderbook')).data.orders).toEqual([]);
    const holdings = await h.ok<{ data: { holdings: Record<string, unknown>[] } }>('holdings');
    expect(holdings.data.holdings).toHaveLength(1);
    expect(holdings.data.holdings[0]).toMatchObject({
      symbol: 'SBIN',
      exchange: 'NSE',
      quantity: 10,
      product: 'CNC',
    });
    const rows = (await h.ok<{ data: Record<string, unknown>[] }>('positionbook')).data;
    expect(rows).toEqual([]);
    // The option's 6,500 came back; the CNC shares are paid for (their margin leaves "used").
    const f = await funds();
    expect(f.utiliseddebits).toBe(0);
    expect(f.availablecash).toBe(before.availablecash + 6_500);
  });
});

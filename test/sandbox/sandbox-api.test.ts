/**
 * Issue 5, "Read and manage APIs": the ten OpenAlgo book and order-management routes in analyzer
 * mode, their shapes (docs/openalgo-book-shapes.md) and the manage routes' HTTP answers. The
 * placement, margin, P&L, cancel and modify rules themselves are proved on the services:
 * sandbox-placement-*.service.test.ts. Isolation between users and the reset:
 * sandbox-api-users.test.ts; bad input, live mode and secrets: sandbox-api-bad-input.test.ts.
 * Figures are computed by hand in the comments (₹; margins: equity MIS 5×, CNC 1×, futures 10×,
 * option buy 1×).
 */
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { MINI, startSandbox, type SandboxHarness } from '../helpers/sandbox.js';
import { describeEachDb } from '../helpers/test-app.js';

import type { Row, Funds } from '../helpers/sandbox-api-fixtures.js';
import {
  START,
  k,
  keys,
  ORDER_KEYS,
  TRADE_KEYS,
  POSITION_KEYS,
  HOLDING_KEYS,
  HOLDING_STATS,
  STATS,
  fields,
  marketOpen,
  optionLimit,
  modifyBody,
} from '../helpers/sandbox-api-fixtures.js';

describeEachDb('sandbox API: the ten routes answer in OpenAlgo shapes', (dialect) => {
  let h: SandboxHarness;
  const ids = { market: '', limit: '', rejected: '', cnc: '' };
  const at10 = '2026-01-05 10:00:00';
  beforeAll(async () => {
    h = await startSandbox(dialect);
    await marketOpen(h);
    ids.market = (await h.place({ ...MINI.SBIN, side: 'BUY', quantity: 100, strategy: 'a' })).order.orderId;
    h.t.clock.advance(10_000); // quotes stay fresh (60 s)
    ids.limit = (await optionLimit(h)).order.orderId;
    h.t.clock.advance(10_000);
    const rej = await h.place({ ...MINI.SBIN, side: 'BUY', quantity: 20_000, product: 'CNC' });
    expect(rej.ok).toBe(false);
    ids.rejected = rej.order.orderId;
    h.t.clock.advance(10_000);
    ids.cnc = (await h.place({ ...MINI.SBIN, side: 'BUY', quantity: 10, product: 'CNC' })).order.orderId;
  });
  afterAll(() => h?.close());

  /** A 200 `{ status: 'success', data, mode: 'analyze' }`, exactly those fields. */
  const read = async (path: string, body?: Row) => {
    const res = await h.api(path, body);
    expect(res.statusCode, res.body).toBe(200);
    const json = res.json() as { status: string; mode: string; data: unknown };
    expect(json).toMatchObject({ status: 'success', mode: 'analyze' });
    expect(keys(json)).toEqual(['status', 'data', 'mode']);
    return json.data;
  };

  it('orderbook: rows newest first with exactly the documented fields, and integer statistics', async () => {
    const data = (await read('orderbook')) as { orders: Row[]; statistics: Row };
    expect(keys(data)).toEqual(['orders', 'statistics']);
    expect(data.orders.map((o) => o.orderid)).toEqual([ids.cnc, ids.rejected, ids.limit, ids.market]);
    for (const o of data.orders) expect(keys(o)).toEqual(fields(ORDER_KEYS));
    // 100 SBIN bought at the ask 800.05, placed at 10:00 IST.
    const [cnc, rejected, limit, market] = data.orders;
    expect(market).toMatchObject({ orderid: ids.market, symbol: 'SBIN', exchange: 'NSE', action: 'BUY' });
    expect(market).toMatchObject({ quantity: 100, price: 0, trigger_price: 0, pricetype: 'MARKET' });
    expect(market).toMatchObject({ product: 'MIS', order_status: 'complete', average_price: 800.05 });
    expect(market).toMatchObject({ filled_quantity: 100, pending_quantity: 0, rejection_reason: '' });
    expect(market).toMatchObject({ timestamp: at10, strategy: 'a' });
    expect(limit).toMatchObject({ order_status: 'open', price: 100, pending_quantity: 65, average_price: 0 });
    expect(limit).toMatchObject({ timestamp: '2026-01-05 10:00:10', strategy: '' });
    // 20,000 × 800.05 = 16,001,000 > ₹1 crore.
    expect(rejected).toMatchObject({ order_status: 'rejected', pending_quantity: 0, filled_quantity: 0 });
    expect(rejected!.rejection_reason).toMatch(/^Insufficient funds/);
    expect(cnc).toMatchObject({ product: 'CNC', order_status: 'complete', average_price: 800.05 });
    expect(keys(data.statistics)).toEqual(fields(STATS));
    expect(Object.values(data.statistics)).toEqual([4, 0, 2, 1, 1]);
  });

  it("orderstatus: the order's orderbook row", async () => {
    const book = (await read('orderbook')) as { orders: Row[] };
    for (const id of Object.values(ids))
      expect(await read('orderstatus', { orderid: id })).toEqual(book.orders.find((o) => o.orderid === id));
    // A JavaScript client's numeric id is the same order.
    expect(await read('orderstatus', { orderid: Number(ids.limit) })).toMatchObject({ orderid: ids.limit });
  });

  it('tradebook: one row per fill, newest first, price × quantity as trade_value', async () => {
    const rows = (await read('tradebook')) as Row[];
    expect(rows.map((t) => t.orderid)).toEqual([ids.cnc, ids.market]);
    // OpenAlgo's fields, then the fill's charges (analyzer mode, docs/rules/sandbox.md#charges-booked).
    for (const t of rows) expect(keys(t)).toEqual([...fields(TRADE_KEYS), 'timestamp', 'charges']);
    expect(typeof rows[1]!.tradeid).toBe('string');
    expect(rows[1]).toMatchObject({ orderid: ids.market, symbol: 'SBIN', exchange: 'NSE', action: 'BUY' });
    expect(rows[1]).toMatchObject({
      quantity: 100,
      average_price: 800.05,
      price: 800.05,
      trade_value: 80_005,
    });
    expect(rows[1]).toMatchObject({ product: 'MIS', strategy: 'a', timestamp: at10 });
    expect(rows[0]).toMatchObject({ quantity: 10, trade_value: 8_000.5, product: 'CNC', strategy: '' });
  });

  it('positionbook: signed quantities marked at the LTP', async () => {
    const rows = (await read('positionbook')) as Row[];
    expect(rows).toHaveLength(2);
    for (const p of rows) expect(keys(p)).toEqual([...fields(POSITION_KEYS), 'charges', 'net_pnl']);
    // (800 − 800.05) × 100 = −5 and × 10 = −0.5.
    const mis = rows.find((p) => p.product === 'MIS');
    expect(Object.values(mis!)).toEqual(['SBIN', 'NSE', 'MIS', 100, 800.05, 800, -5, 0, -5, 0, -5]);
    expect(rows.find((p) => p.product === 'CNC')).toMatchObject({ quantity: 10, pnl: -0.5 });
  });

  it('funds: cash less the margins blocked, and the unrealised P&L of open positions', async () => {
    const data = await read('funds');
    expect(keys(data)).toEqual(
      fields('availablecash collateral m2mrealized m2munrealized utiliseddebits charges netrealized'),
    );
    // Blocked: 80,005 ÷ 5 = 16,001 (MIS) + 65 × 100 = 6,500 (option LIMIT) + 8,000.50 (CNC) = 30,501.50.
    // (These suites book no charges: SANDBOX_CHARGES=off, test/helpers/test-app.ts.)
    expect(Object.values(data as Row)).toEqual([START - 30_501.5, 0, 0, -5.5, 30_501.5, 0, 0]);
  });

  it('holdings: empty on the day of the CNC buy (T+1), with zero statistics', async () => {
    const data = (await read('holdings')) as { holdings: Row[]; statistics: Row };
    expect(keys(data)).toEqual(['holdings', 'statistics']);
    expect(data.holdings).toEqual([]);
    expect(keys(data.statistics)).toEqual(HOLDING_STATS);
    expect(Object.values(data.statistics)).toEqual([0, 0, 0, 0]);
  });

  it('modifyorder, cancelorder, cancelallorder, closeposition: exactly their documented fields', async () => {
    const done = (verb: string) => ({
      status: 'success',
      orderid: ids.limit,
      message: `Order ${ids.limit} ${verb}`,
    });
    const mod = (await h.api('modifyorder', modifyBody(ids.limit, { price: 101 }))).json();
    expect(mod).toEqual({ ...done('modified'), mode: 'analyze' });
    expect((await h.api('cancelorder', { orderid: ids.limit })).json()).toEqual({
      ...done('cancelled'),
      mode: 'analyze',
    });
    const next = (await optionLimit(h)).order.orderId;
    const all = (await h.api('cancelallorder')).json();
    expect(keys(all)).toEqual(fields('status message canceled_orders failed_cancellations mode'));
    expect(all).toMatchObject({ message: 'Canceled 1 orders. Failed to cancel 0 orders.', mode: 'analyze' });
    expect(all).toMatchObject({ canceled_orders: [next], failed_cancellations: [] });
    const close = (await h.api('closeposition')).json();
    expect(keys(close)).toEqual(fields('status message closed_positions failed_closures mode'));
    expect(close).toMatchObject({ message: 'Closing orders placed for 2 positions', mode: 'analyze' });
    expect(close).toMatchObject({ status: 'success', closed_positions: 2, failed_closures: 0 });
  });

  it('holdings the next day: the settled CNC shares at cost, marked at the LTP', async () => {
    const h2 = await startSandbox(dialect);
    try {
      await marketOpen(h2);
      await h2.place({ ...MINI.SBIN, side: 'BUY', quantity: 10, product: 'CNC' });
      h2.t.clock.set(Date.parse('2026-01-06T09:30:00+05:30'));
      await h2.tick({ [k(MINI.SBIN)]: h2.quote(810, { high: 815, low: 800 }) });
      await h2.at('2026-01-06', '09:30');
      const data = (await h2.ok<{ data: { holdings: Row[]; statistics: Row } }>('holdings')).data;
      expect(data.holdings).toHaveLength(1);
      expect(keys(data.holdings[0])).toEqual(fields(HOLDING_KEYS));
      // Cost 8,000.50; worth 8,100; P&L 99.50 = 1.2437 % → 1.24.
      expect(Object.values(data.holdings[0]!)).toEqual(['SBIN', 'NSE', 'CNC', 10, 800.05, 810, 99.5, 1.24]);
      expect(Object.values(data.statistics)).toEqual([8_100, 8_000.5, 99.5, 1.24]);
    } finally {
      await h2.close();
    }
  });
});

describeEachDb('sandbox API: cancel, modify, cancel-all and close manage orders', (dialect) => {
  let h: SandboxHarness;
  beforeEach(async () => {
    h = await startSandbox(dialect);
    await marketOpen(h);
  });
  afterEach(() => h?.close());
  const funds = async () => (await h.ok<{ data: Funds }>('funds')).data;
  const status = async (orderid: string) => (await h.ok<{ data: Row }>('orderstatus', { orderid })).data;

  it('cancelling a completed or cancelled order is a 400 naming its status, in analyze mode', async () => {
    const done = (await h.place({ ...MINI.SBIN, side: 'BUY', quantity: 10 })).order.orderId;
    const before = await funds();
    const res = await h.api('cancelorder', { orderid: done });
    expect(res.statusCode).toBe(400);
    const message = `Order ${done} is complete and cannot be cancelled`;
    expect(res.json()).toMatchObject({ status: 'error', message, mode: 'analyze' });
    const gone = (await optionLimit(h)).order.orderId;
    await h.ok('cancelorder', { orderid: gone });
    const again = await h.api('cancelorder', { orderid: gone });
    expect(again.statusCode).toBe(400);
    expect(again.json().message).toMatch(/cancelled and cannot be cancelled/);
    expect(await funds()).toEqual(before);
  });

  it('modifyorder changes price and quantity of a resting LIMIT and margins it again', async () => {
    const id = (await optionLimit(h)).order.orderId;
    // OpenAlgo's wire forms: lower-case action, quantity and price as strings.
    await h.ok('modifyorder', modifyBody(id, { action: 'buy', quantity: '130', price: '95.50' }));
    expect(await status(id)).toMatchObject({ order_status: 'open', quantity: 130, price: 95.5 });
    // 130 × 95.50 = 12,415 replaces the 6,500.
    expect(await funds()).toMatchObject({ utiliseddebits: 12_415, availablecash: START - 12_415 });
  });

  it('cancelallorder cancels every working order, lists their ids and releases every block', async () => {
    await h.place({ ...MINI.SBIN, side: 'BUY', quantity: 100 }); // filled: not cancellable, not listed
    const stop = {
      ...MINI.BANKNIFTY_FUT,
      side: 'BUY',
      quantity: 30,
      priceType: 'SL-M',
      triggerPrice: 52_100.2,
    };
    const ids = [
      (await optionLimit(h)).order.orderId,
      (await h.place({ ...MINI.SBIN, side: 'BUY', quantity: 10, priceType: 'LIMIT', price: 790.5 })).order
        .orderId,
      (await h.place(stop)).order.orderId,
    ].map(String);
    type CancelAll = { canceled_orders: string[]; failed_cancellations: unknown[]; message: string };
    const r = await h.ok<CancelAll>('cancelallorder');
    expect([...r.canceled_orders].sort()).toEqual([...ids].sort());
    expect(r.failed_cancellations).toEqual([]);
    expect(r.message).toBe('Canceled 3 orders. Failed to cancel 0 orders.');
    for (const id of ids) expect((await status(id)).order_status).toBe('cancelled');
    expect((await funds()).utiliseddebits).toBe(16_001); // only the filled position's margin
    const none = await h.ok<Row>('cancelallorder');
    expect(none).toMatchObject({ canceled_orders: [], failed_cancellations: [] });
    expect(none.message).toBe('No open orders to cancel'); // docs/openalgo-book-shapes.md, cancelallorder
  });
});

/**
 * `POST /api/v1/placesmartorder` and `/api/v1/basketorder` (OpenAlgo's): the smart order brings
 * the position of (symbol, exchange, product) to `position_size` with one order through the
 * placeorder pipeline (analyzer mode from the sandbox's positions, live mode from the broker's
 * position book), and a basket places every leg, BUY legs first, reporting each.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { KiteOrderStub } from '../helpers/broker-order-stubs.js';
import { secondUser, startKiteOrders, type OrdersApp } from '../helpers/orders-app.js';
import { MINI, startSandbox, type SandboxHarness } from '../helpers/sandbox.js';
import { asBrowser, describeEachDb } from '../helpers/test-app.js';
import { MAX_BASKET_ORDERS } from '../../src/modules/orders/smart-orders.routes.js';

type Row = Record<string, unknown>;
const SBIN = `${MINI.SBIN.exchange}:${MINI.SBIN.symbol}`;
const smart = (
  action: string,
  quantity: number | string,
  position_size: number | string,
  extra: Row = {},
) => ({
  strategy: 'smart',
  symbol: 'SBIN',
  exchange: 'NSE',
  action,
  quantity,
  position_size,
  pricetype: 'MARKET',
  product: 'MIS',
  ...extra,
});
const leg = (action: string, quantity: number | string, extra: Row = {}) => ({
  symbol: 'SBIN',
  exchange: 'NSE',
  action,
  quantity,
  pricetype: 'MARKET',
  product: 'MIS',
  ...extra,
});

describeEachDb('placesmartorder and basketorder in analyzer mode', (dialect) => {
  let h: SandboxHarness;
  beforeEach(async () => {
    h = await startSandbox(dialect, { env: { SMART_ORDER_RATE_LIMIT: '100000 per second' } });
    h.t.clock.set(Date.parse('2026-01-05T10:00:00+05:30'));
    await h.tick({ [SBIN]: h.quote(800) });
  });
  afterEach(async () => {
    await h.close();
  });
  const position = async (product = 'MIS') =>
    Number(
      (
        await h.ok<{ quantity: string }>('openposition', {
          strategy: 'smart',
          symbol: 'SBIN',
          exchange: 'NSE',
          product,
        })
      ).quantity,
    );
  const sandboxOrder = (id: string) => h.t.services.sandbox.service.order(1, Number(id));
  const orderCount = async () => (await h.ok<{ data: { orders: Row[] } }>('orderbook')).data.orders.length;

  describe('placesmartorder', () => {
    it('flat → +10: BUY 10, answered like placeorder (orderid, mode analyze), logged as placesmartorder', async () => {
      const res = await h.api('placesmartorder', smart('BUY', 10, 10));
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ status: 'success', orderid: expect.any(String), mode: 'analyze' });
      const o = await sandboxOrder(res.json().orderid);
      expect([o.side, o.quantity, o.status, o.strategy]).toEqual(['BUY', 10, 'complete', 'smart']);
      expect(await position()).toBe(10);
      await h.t.services.orders.events.whenIdle();
      const rows = await h.t.db.database.db.selectFrom('analyzer_logs').selectAll().execute();
      expect(rows.map((r) => r.api_type)).toEqual(['placesmartorder']);
    });

    it('+10 → 0: position_size 0 closes the position with one SELL of the whole 10', async () => {
      await h.ok('placesmartorder', smart('BUY', 10, 10));
      const res = await h.api('placesmartorder', smart('SELL', 10, 0));
      expect(res.statusCode).toBe(200);
      const o = await sandboxOrder(res.json().orderid);
      expect([o.side, o.quantity]).toEqual(['SELL', 10]);
      expect(await position()).toBe(0);
    });

    it('+10 → 0 closes the whole position whatever quantity the call carries', async () => {
      await h.ok('placesmartorder', smart('BUY', 10, 10));
      const res = await h.api('placesmartorder', smart('SELL', 0, 0));
      const o = await sandboxOrder(res.json().orderid);
      expect([o.side, o.quantity]).toEqual(['SELL', 10]);
      expect(await position()).toBe(0);
    });

    it('+10 → -5 (a reversal): one SELL of 15, through zero', async () => {
      await h.ok('placesmartorder', smart('BUY', 10, 10));
      const before = await orderCount();
      const res = await h.api('placesmartorder', smart('SELL', 5, -5));
      expect(res.statusCode).toBe(200);
      const o = await sandboxOrder(res.json().orderid);
      expect([o.side, o.quantity]).toEqual(['SELL', 15]);
      expect(await orderCount()).toBe(before + 1);
      expect(await position()).toBe(-5);
    });

    it('+10 → +15 buys 5; a BUY signal with a smaller target sells the difference', async () => {
      await h.ok('placesmartorder', smart('BUY', 10, 10));
      const up = await sandboxOrder(
        (await h.ok<{ orderid: string }>('placesmartorder', smart('BUY', 5, 15))).orderid,
      );
      expect([up.side, up.quantity]).toEqual(['BUY', 5]);
      const down = await sandboxOrder(
        (await h.ok<{ orderid: string }>('placesmartorder', smart('BUY', 5, 4))).orderid,
      );
      expect([down.side, down.quantity]).toEqual(['SELL', 11]);
      expect(await position()).toBe(4);
    });

    it('flat with position_size 0 and a quantity: the order is placed as asked (OpenAlgo: SELL 100 from flat)', async () => {
      const o = await sandboxOrder(
        (await h.ok<{ orderid: string }>('placesmartorder', smart('SELL', 3, 0))).orderid,
      );
      expect([o.side, o.quantity]).toEqual(['SELL', 3]);
      expect(await position()).toBe(-3);
    });

    it("no change needed: OpenAlgo's success message, no orderid, nothing placed", async () => {
      await h.ok('placesmartorder', smart('BUY', 10, 10));
      const before = await orderCount();
      const same = await h.api('placesmartorder', smart('BUY', 10, 10));
      expect(same.statusCode).toBe(200);
      expect(same.json()).toEqual({
        status: 'success',
        message: 'No action needed. Position size matches current position',
        mode: 'analyze',
      });
      const exit = await h.api('placesmartorder', smart('SELL', 0, 10));
      expect(exit.json()).toEqual({
        status: 'success',
        message: 'No OpenPosition Found. Not placing Exit order.',
        mode: 'analyze',
      });
      expect(await orderCount()).toBe(before);
      expect(await position()).toBe(10);
    });

    it('the position is per product: a CNC target ignores the MIS position', async () => {
      await h.ok('placesmartorder', smart('BUY', 10, 10));
      const o = await sandboxOrder(
        (await h.ok<{ orderid: string }>('placesmartorder', smart('BUY', 2, 2, { product: 'CNC' }))).orderid,
      );
      expect([o.side, o.quantity, o.product]).toEqual(['BUY', 2, 'CNC']);
      expect([await position('MIS'), await position('CNC')]).toEqual([10, 2]);
    });

    it("OpenAlgo's documented request (every field a string) → {orderid: string, status: 'success'}", async () => {
      const res = await h.api('placesmartorder', {
        strategy: 'Test Strategy',
        exchange: 'NSE',
        symbol: 'SBIN',
        action: 'BUY',
        product: 'MIS',
        pricetype: 'MARKET',
        quantity: '1',
        position_size: '5',
        price: '0',
        trigger_price: '0',
        disclosed_quantity: '0',
      });
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(typeof body.orderid).toBe('string');
      expect(body.status).toBe('success');
      expect((await sandboxOrder(body.orderid)).quantity).toBe(5);
    });

    it('schema: position_size missing or not an integer is 400 keyed by field, before the key', async () => {
      const { position_size: _p, ...noSize } = smart('BUY', 1, 1);
      const res = await h.api('placesmartorder', noSize, 'not-a-key');
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toHaveProperty('position_size');
      const bad = await h.api('placesmartorder', smart('BUY', 1, '1.5'));
      expect(bad.statusCode).toBe(400);
      expect(bad.json().message).toHaveProperty('position_size');
      expect(await orderCount()).toBe(0);
    });

    it('a symbol not in the master contract is refused by the pipeline (400, mode analyze)', async () => {
      const res = await h.api('placesmartorder', smart('BUY', 1, 1, { symbol: 'NOSUCH' }));
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ status: 'error', mode: 'analyze' });
    });
  });

  describe('a key in semi-automatic mode', () => {
    it('placesmartorder queues the computed order (the difference to the target), placing nothing', async () => {
      await h.ok('placesmartorder', smart('BUY', 10, 10));
      await h.t.services.auth.apiKeys.setOrderMode(1, 'semi_auto');
      const res = await h.api('placesmartorder', smart('SELL', 5, -5));
      expect(res.json()).toEqual({
        status: 'success',
        message: 'Order queued for approval in the Action Center',
        mode: 'semi_auto',
        pending_order_id: expect.any(Number),
      });
      const list = await h.t.app.inject({
        method: 'GET',
        url: '/action-center/api/orders?status=pending',
        headers: asBrowser(h.admin),
      });
      const rows = list.json().data as Row[];
      expect(rows).toHaveLength(1);
      expect(JSON.stringify(rows[0])).toContain('"SELL"');
      expect(await position()).toBe(10);
    });

    it('basketorder queues each valid leg and reports a bad one', async () => {
      await h.t.services.auth.apiKeys.setOrderMode(1, 'semi_auto');
      const res = await h.api('basketorder', { strategy: 'b', orders: [leg('SELL', 1), leg('BUY', 0)] });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ status: 'success', mode: 'semi_auto' });
      expect(res.json().results.map((r: Row) => r.status)).toEqual(['error', 'success']);
      expect(res.json().results[1].pending_order_id).toEqual(expect.any(Number));
      expect(await orderCount()).toBe(0);
    });
  });

  describe('basketorder', () => {
    it('BUY legs are placed before SELL legs; every leg reported {symbol, status, orderid}', async () => {
      const res = await h.api('basketorder', {
        strategy: 'basket',
        orders: [leg('SELL', 2), leg('BUY', 5), leg('sell', 1), leg('BUY', 3, { product: 'CNC' })],
      });
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body.status).toBe('success');
      expect(body.mode).toBe('analyze');
      expect(body.results).toHaveLength(4);
      for (const r of body.results)
        expect(r).toEqual({ symbol: 'SBIN', status: 'success', orderid: expect.any(String) });
      const placed = await Promise.all(body.results.map((r: Row) => sandboxOrder(String(r.orderid))));
      expect(placed.map((o) => [o.side, o.quantity])).toEqual([
        ['BUY', 5],
        ['BUY', 3],
        ['SELL', 2],
        ['SELL', 1],
      ]);
      // Every BUY leg was placed before the first SELL leg was sent (the legs of one side go
      // concurrently, so only the sides' order is fixed): each BUY id is below each SELL id.
      const ids = body.results.map((r: Row) => Number(r.orderid));
      const buyIds = ids.filter((_: number, i: number) => placed[i]!.side === 'BUY');
      const sellIds = ids.filter((_: number, i: number) => placed[i]!.side === 'SELL');
      expect(Math.max(...buyIds)).toBeLessThan(Math.min(...sellIds));
      expect(placed.every((o) => o.strategy === 'basket')).toBe(true);
    });

    it('a bad leg is reported as an error and the other legs are still placed', async () => {
      const res = await h.api('basketorder', {
        strategy: 'basket',
        orders: [
          leg('BUY', 0),
          leg('BUY', 4),
          { symbol: 'SBIN', exchange: 'NSE', action: 'SELL' },
          leg('SELL', 1, { symbol: 'NOSUCH' }),
          leg('SELL', 2),
        ],
      });
      expect(res.statusCode).toBe(200);
      const r = res.json().results as Row[];
      expect(r.map((x) => x.status)).toEqual(['error', 'success', 'error', 'error', 'success']);
      expect(r[0]).toEqual({ symbol: 'SBIN', status: 'error', message: expect.stringContaining('quantity') });
      expect(r[2]!.message).toContain('Missing mandatory field(s): quantity');
      expect(r[3]).toMatchObject({ symbol: 'NOSUCH', status: 'error' });
      expect(String(r[3]!.message)).toContain('NOSUCH');
      expect(await orderCount()).toBe(2);
      expect(await position()).toBe(2);
    });

    it(`more than ${MAX_BASKET_ORDERS} legs is a 400 and nothing is placed`, async () => {
      const res = await h.api('basketorder', {
        strategy: 'basket',
        orders: Array.from({ length: MAX_BASKET_ORDERS + 1 }, () => leg('BUY', 1)),
      });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ status: 'error', mode: 'analyze' });
      expect(res.json().message).toHaveProperty('orders');
      expect(await orderCount()).toBe(0);
      const empty = await h.api('basketorder', { strategy: 'basket', orders: [] });
      expect(empty.statusCode).toBe(400);
    });

    it("OpenAlgo's documented request (string quantities) → {status, results:[{symbol, status, orderid}]}", async () => {
      const res = await h.api('basketorder', {
        strategy: 'your-strategy',
        orders: [
          {
            symbol: 'SBIN',
            exchange: 'NSE',
            action: 'BUY',
            quantity: '1',
            pricetype: 'MARKET',
            product: 'MIS',
          },
          {
            symbol: 'SBIN',
            exchange: 'NSE',
            action: 'SELL',
            quantity: '1',
            pricetype: 'MARKET',
            product: 'MIS',
          },
        ],
      });
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body.status).toBe('success');
      for (const r of body.results) {
        expect(typeof r.symbol).toBe('string');
        expect(r.status).toBe('success');
        expect(typeof r.orderid).toBe('string');
      }
    });
  });
});

describeEachDb('placesmartorder rate limit', (dialect) => {
  let h: SandboxHarness;
  beforeAll(async () => {
    h = await startSandbox(dialect);
  });
  afterAll(async () => {
    await h?.close();
  });

  it('SMART_ORDER_RATE_LIMIT defaults to 2 per second: the third call within the second is 429', async () => {
    const codes: number[] = [];
    for (let i = 0; i < 3; i++)
      codes.push((await h.api('placesmartorder', smart('BUY', 1, 0, { symbol: 'NOSUCH' }))).statusCode);
    expect(codes).toEqual([400, 400, 429]);
  });
});

describeEachDb('placesmartorder and basketorder in live mode (Kite stub)', (dialect) => {
  let stub: KiteOrderStub;
  let o: OrdersApp;
  beforeAll(async () => {
    ({ stub, o } = await startKiteOrders(dialect, ['SBIN'], {
      env: { SMART_ORDER_RATE_LIMIT: '100000 per second' },
    }));
    await o.setMode(false);
    stub.fillMarketOrders = true;
    stub.prices.set('SBIN', 800);
  });
  afterAll(async () => {
    await o?.close();
    await stub?.close();
  });
  const brokerOrder = (id: string) => stub.orders.get(id)![0]!;
  const position = async () => {
    const res = await o.api('openposition', {
      strategy: 's',
      symbol: 'SBIN',
      exchange: 'NSE',
      product: 'MIS',
    });
    expect(res.statusCode).toBe(200);
    return Number(res.json().quantity);
  };

  it('reads the broker position book: flat → +10, +10 → -5 (one SELL 15), then no change', async () => {
    const first = await o.api('placesmartorder', smart('BUY', 10, 10));
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({ status: 'success', orderid: expect.any(String) });
    expect(brokerOrder(first.json().orderid)).toMatchObject({ transaction_type: 'BUY', quantity: 10 });
    expect(await position()).toBe(10);

    const rev = await o.api('placesmartorder', smart('SELL', 5, -5));
    expect(rev.statusCode).toBe(200);
    expect(brokerOrder(rev.json().orderid)).toMatchObject({ transaction_type: 'SELL', quantity: 15 });
    expect(await position()).toBe(-5);

    const placed = stub.orders.size;
    const same = await o.api('placesmartorder', smart('SELL', 5, -5));
    expect(same.json()).toEqual({
      status: 'success',
      message: 'No action needed. Position size matches current position',
    });
    expect(stub.orders.size).toBe(placed);

    const close = await o.api('placesmartorder', smart('BUY', 0, 0));
    expect(brokerOrder(close.json().orderid)).toMatchObject({ transaction_type: 'BUY', quantity: 5 });
    expect(await position()).toBe(0);
    const rows = await o.logs('order_logs');
    expect(rows.filter((r) => r.api_type === 'placesmartorder')).toHaveLength(3);
  });

  it("the position book's refusal is answered as openposition answers it (no broker session: 403), nothing placed", async () => {
    const bob = await secondUser(o);
    const placed = stub.orders.size;
    const res = await o.api('placesmartorder', smart('BUY', 1, 1), { apikey: bob.apikey });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ status: 'error', message: expect.stringContaining('broker session') });
    expect(stub.orders.size).toBe(placed);
  });

  it('basketorder places BUY legs at the broker before SELL legs', async () => {
    const res = await o.api('basketorder', { strategy: 'b', orders: [leg('SELL', 1), leg('BUY', 2)] });
    expect(res.statusCode).toBe(200);
    const r = res.json().results as Row[];
    expect(r.map((x) => x.status)).toEqual(['success', 'success']);
    expect(res.json()).not.toHaveProperty('mode');
    expect(brokerOrder(String(r[0]!.orderid))).toMatchObject({ transaction_type: 'BUY', quantity: 2 });
    expect(brokerOrder(String(r[1]!.orderid))).toMatchObject({ transaction_type: 'SELL', quantity: 1 });
  });

  it('basketorder sends a group’s legs together (up to 10 at once), every BUY answered before the first SELL', async () => {
    stub.reset();
    const before = stub.connections;
    // Each placement takes 150 ms at the broker: legs sent one by one would use one connection.
    stub.delayNext(150, 16);
    const legs = [
      ...Array.from({ length: 4 }, () => leg('SELL', 1)),
      ...Array.from({ length: 12 }, () => leg('BUY', 1)),
    ];
    const res = await o.api('basketorder', { strategy: 'b', orders: legs });
    expect(res.statusCode, res.body).toBe(200);
    const r = res.json().results as Row[];
    expect(r).toHaveLength(16);
    expect(r.every((x) => x.status === 'success')).toBe(true);
    // Results in placing order: the 12 BUY legs, then the 4 SELL legs.
    expect(r.map((x) => brokerOrder(String(x.orderid)).transaction_type)).toEqual([
      ...Array(12).fill('BUY'),
      ...Array(4).fill('SELL'),
    ]);
    // The broker received every BUY before any SELL.
    const sides = stub.forms('/orders/regular').map((f) => f.transaction_type);
    expect(sides.lastIndexOf('BUY')).toBeLessThan(sides.indexOf('SELL'));
    // Concurrency shows as several keep-alive connections opened for the burst.
    expect(stub.connections - before).toBeGreaterThan(1);
  });
});

/**
 * Orders issue, part 3: the Action Center in live mode against the loopback Kite Connect stub —
 * approve-all (oldest first, each order placed once), each user's queue being their own (another
 * user's order is a 404 like a missing one), CSRF on every change, and a queue that never holds
 * the API key.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { KiteOrderStub } from '../helpers/broker-order-stubs.js';
import { secondUser, startKiteOrders, type OrdersApp } from '../helpers/orders-app.js';
import { asBrowser, describeEachDb, type Browser } from '../helpers/test-app.js';

const order = (quantity: number) => ({
  strategy: 'action-center',
  symbol: 'SBIN',
  exchange: 'NSE',
  action: 'BUY',
  quantity,
  pricetype: 'LIMIT',
  price: '800.5',
  product: 'CNC',
});

describeEachDb('the Action Center (semi-automatic mode)', (dialect) => {
  let stub: KiteOrderStub;
  let o: OrdersApp;
  let bob: Browser;
  let bobKey: string;

  beforeAll(async () => {
    ({ stub, o } = await startKiteOrders(dialect));
    await o.setMode(false);
    const b = await secondUser(o);
    bob = b.browser;
    bobKey = b.apikey;
    await o.t.services.auth.apiKeys.setOrderMode(b.id, 'semi_auto');
  });
  afterAll(async () => {
    await o?.close();
    await stub?.close();
  });
  beforeEach(async () => {
    await o.t.services.auth.apiKeys.setOrderMode(1, 'semi_auto');
  });
  afterEach(async () => {
    // Each test starts with an empty queue.
    await o.t.db.database.db.deleteFrom('pending_orders').execute();
  });

  /** Queues an order of the administrator's key; its pending id. */
  const queue = async (quantity: number, apikey = o.apikey) => {
    const res = await o.api('placeorder', order(quantity), { apikey });
    expect(res.json()).toMatchObject({ mode: 'semi_auto', pending_order_id: expect.any(Number) });
    return res.json().pending_order_id as number;
  };
  const as = (
    b: Browser,
    method: 'GET' | 'POST' | 'DELETE',
    url: string,
    payload?: Record<string, unknown>,
  ) => o.t.app.inject({ method, url, headers: asBrowser(b), ...(payload ? { payload } : {}) });
  const placedQuantities = (from: number) =>
    stub
      .forms('/orders/regular')
      .slice(from)
      .map((f) => f.quantity);
  const statusOf = async (id: number) =>
    (
      await o.t.db.database.db
        .selectFrom('pending_orders')
        .select('status')
        .where('id', '=', id)
        .executeTakeFirstOrThrow()
    ).status;

  describe('approve-all places every pending order of the user once, oldest first', () => {
    it('three queued → three placed in queue order; a second approve-all places nothing', async () => {
      const ids = [await queue(1), await queue(2), await queue(3)];
      const from = stub.forms('/orders/regular').length;
      expect(placedQuantities(from)).toEqual([]);

      const res = await o.web('POST', '/action-center/api/orders/approve-all');
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body.message).toBe('Approved 3 orders');
      expect(body.results.map((r: { id: number; status: number }) => [r.id, r.status])).toEqual(
        ids.map((id) => [id, 200]),
      );
      expect(placedQuantities(from)).toEqual(['1', '2', '3']);
      // Each approved row keeps the order id its placement answered.
      const answered = new Map(
        body.results.map((r: { id: number; body: { orderid: string } }) => [r.id, r.body.orderid]),
      );
      const approved = (await o.web('GET', '/action-center/api/orders?status=approved')).json().data;
      expect(approved).toHaveLength(3);
      for (const p of approved as { id: number; orderid: string }[])
        expect(p.orderid).toBe(answered.get(p.id));

      const again = await o.web('POST', '/action-center/api/orders/approve-all');
      expect(again.json()).toMatchObject({ message: 'Approved 0 orders', results: [] });
      expect(placedQuantities(from)).toHaveLength(3);
    });

    it('two approve-alls at once (a double click) still place each order once', async () => {
      const ids = [await queue(11), await queue(12)];
      const from = stub.forms('/orders/regular').length;
      const [a, b] = await Promise.all([
        o.web('POST', '/action-center/api/orders/approve-all'),
        o.web('POST', '/action-center/api/orders/approve-all'),
      ]);
      expect([a.statusCode, b.statusCode]).toEqual([200, 200]);
      expect([...placedQuantities(from)].sort()).toEqual(['11', '12']);
      // Every order was claimed by exactly one of the two; the other was told it is decided.
      const outcomes = [...a.json().results, ...b.json().results] as { id: number; status: number }[];
      for (const id of ids)
        expect(
          outcomes.filter((r) => r.id === id && r.status === 200),
          `order ${id}`,
        ).toHaveLength(1);
      expect(outcomes.filter((r) => r.status !== 200).every((r) => r.status === 400)).toBe(true);
    });

    it('approve-all takes only the caller’s orders: another user’s stay pending', async () => {
      const mine = await queue(4);
      const bobs = await queue(5, bobKey);
      const from = stub.forms('/orders/regular').length;
      const res = await o.web('POST', '/action-center/api/orders/approve-all');
      expect(res.json().results.map((r: { id: number }) => r.id)).toEqual([mine]);
      expect(placedQuantities(from)).toEqual(['4']);
      expect(await statusOf(bobs)).toBe('pending');
    });
  });

  describe('each user acts only on their own queue: another user’s order is a 404 like a missing one', () => {
    it('bob cannot list, approve, reject or delete the administrator’s pending order', async () => {
      const id = await queue(6);
      const bobs = await queue(7, bobKey);
      const missing = id + 1_000;
      const from = stub.forms('/orders/regular').length;

      const list = await as(bob, 'GET', '/action-center/api/orders');
      expect(list.json().data.map((p: { id: number }) => p.id)).toEqual([bobs]);
      const attempts: Array<['POST' | 'DELETE', string, Record<string, unknown>?]> = [
        ['POST', 'approve'],
        ['POST', 'reject', { reason: 'not mine' }],
        ['DELETE', ''],
      ];
      for (const [method, action, payload] of attempts) {
        const url = (n: number) => `/action-center/api/orders/${n}${action ? `/${action}` : ''}`;
        const foreign = await as(bob, method, url(id), payload);
        const absent = await as(bob, method, url(missing), payload);
        expect([foreign.statusCode, absent.statusCode], `${method} ${action}`).toEqual([404, 404]);
        // The same answer but for the id: nothing tells bob the order exists.
        expect(foreign.json()).toEqual(JSON.parse(absent.body.replaceAll(String(missing), String(id))));
      }
      expect(await statusOf(id)).toBe('pending');
      expect(placedQuantities(from)).toEqual([]);
    });
  });

  describe('every change needs the CSRF token (403 without it), and changes nothing', () => {
    it.each([
      ['approve', 'POST', (id: number) => `/action-center/api/orders/${id}/approve`, undefined],
      ['approve-all', 'POST', () => '/action-center/api/orders/approve-all', undefined],
      ['reject', 'POST', (id: number) => `/action-center/api/orders/${id}/reject`, { reason: 'no' }],
      ['delete', 'DELETE', (id: number) => `/action-center/api/orders/${id}`, undefined],
    ] as const)(
      '%s without the token → 403; the order stays pending, nothing placed',
      async (_n, method, url, payload) => {
        const id = await queue(8);
        const from = stub.forms('/orders/regular').length;
        const res = await o.t.app.inject({
          method,
          url: url(id),
          headers: { cookie: o.admin.cookie },
          ...(payload ? { payload } : {}),
        });
        expect(res.statusCode).toBe(403);
        expect(await statusOf(id)).toBe('pending');
        expect(placedQuantities(from)).toEqual([]);
      },
    );
  });

  describe('the queue never holds the API key', () => {
    it('stored rows and the listing of a queued placeorder and splitorder carry the order, not the key', async () => {
      await queue(9);
      await o.api('splitorder', { ...order(20), splitsize: 10 });
      const rows = await o.t.db.database.db.selectFrom('pending_orders').selectAll().execute();
      expect(rows).toHaveLength(2);
      for (const r of rows) {
        expect(r.request).not.toContain(o.apikey);
        expect(JSON.parse(r.request)).not.toHaveProperty('apikey');
        expect(JSON.parse(r.request)).toMatchObject({ symbol: 'SBIN', exchange: 'NSE', action: 'BUY' });
      }
      expect(JSON.parse(rows.find((r) => r.api_type === 'splitorder')!.request)).toMatchObject({
        splitsize: 10,
      });
      const list = await o.web('GET', '/action-center/api/orders?status=pending');
      expect(list.json().data).toHaveLength(2);
      expect(list.body).not.toContain(o.apikey);
    });
  });

  describe('each change of the queue is pushed to the user’s live sockets (docs/rules/orders.md#live-socket)', () => {
    it('queued, approved, rejected and deleted, with the pending id and the user', async () => {
      const hub = o.t.services.orders.liveSocket;
      const told: [number, string, number][] = [];
      const original = hub.actionCenter.bind(hub);
      hub.actionCenter = (userId, event, id) => {
        told.push([userId, event, id]);
        original(userId, event, id);
      };
      try {
        const [a, b, c] = [await queue(1), await queue(2), await queue(3)];
        expect((await as(o.admin, 'POST', `/action-center/api/orders/${a}/approve`)).statusCode).toBe(200);
        const reject = await as(o.admin, 'POST', `/action-center/api/orders/${b}/reject`, { reason: 'no' });
        expect(reject.statusCode).toBe(200);
        expect((await as(o.admin, 'DELETE', `/action-center/api/orders/${c}`)).statusCode).toBe(200);
        // Another user's id is a 404 and tells no one.
        expect((await as(bob, 'DELETE', `/action-center/api/orders/${a}`)).statusCode).toBe(404);
        expect(told).toEqual([
          [1, 'queued', a],
          [1, 'queued', b],
          [1, 'queued', c],
          [1, 'approved', a],
          [1, 'rejected', b],
          [1, 'deleted', c],
        ]);
      } finally {
        hub.actionCenter = original;
      }
    });
  });

  describe('an order that cannot be queued is an order.failed 500, never queued half-way', () => {
    it('placeorder and splitorder: generic message, the event, nothing stored', async () => {
      const ac = o.t.services.orders.actionCenter;
      const original = ac.queue.bind(ac);
      ac.queue = () => Promise.reject(new Error('disk I/O error at /var/secret/path'));
      try {
        const from = o.events.length;
        const placed = await o.api('placeorder', order(3));
        const split = await o.api('splitorder', { ...order(20), splitsize: 10 });
        for (const res of [placed, split]) {
          expect(res.statusCode).toBe(500);
          expect(res.json()).toEqual({ status: 'error', message: 'Internal error while placing the order' });
          expect(res.body).not.toContain('/var/secret');
        }
        await o.t.services.orders.events.whenIdle();
        const failed = o.events.slice(from).filter((e) => e.name === 'order.failed');
        expect(failed.map((e) => [e.apiType, e.statusCode, e.request.symbol])).toEqual([
          ['placeorder', 500, 'SBIN'],
          ['splitorder', 500, 'SBIN'],
        ]);
        expect(JSON.stringify(failed)).not.toContain(o.apikey);
        expect(await o.t.db.database.db.selectFrom('pending_orders').selectAll().execute()).toEqual([]);
      } finally {
        ac.queue = original;
      }
    });
  });
});

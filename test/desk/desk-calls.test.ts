/**
 * The console's desk calls (docs/rules/web.md#desk-calls): each `/desk/api/<call>` answers exactly
 * what `/api/v1/<call>` answers for the signed-in user — the sandbox in analyzer mode, the broker
 * (the loopback Kite Connect stub) in live mode — with the session and its CSRF token in place of
 * the key; semi-automatic mode's queue is not in the way of the person at the desk; bad input is a
 * clear 4xx; the one-call key never leaves the process.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KiteOrderStub } from '../helpers/broker-order-stubs.js';
import { secondUser, startKiteOrders, type OrdersApp } from '../helpers/orders-app.js';
import { asBrowser, describeEachDb, type Browser } from '../helpers/test-app.js';

const limit = (quantity: number, price = '801.5') => ({
  strategy: 'desk',
  symbol: 'SBIN',
  exchange: 'NSE',
  action: 'BUY',
  quantity,
  pricetype: 'LIMIT',
  price,
  product: 'CNC',
});

describeEachDb('the console’s desk calls', (dialect) => {
  let stub: KiteOrderStub;
  let o: OrdersApp;
  let bob: { id: number; apikey: string; browser: Browser };

  beforeAll(async () => {
    ({ stub, o } = await startKiteOrders(dialect));
    bob = await secondUser(o);
  });
  afterAll(async () => {
    await o?.close();
    await stub?.close();
  });

  const desk = (call: string, payload: unknown, b: Browser = o.admin, headers: Record<string, string> = {}) =>
    o.t.app.inject({
      method: 'POST',
      url: `/desk/api/${call}`,
      headers: { ...asBrowser(b), ...headers },
      payload: payload as Record<string, unknown>,
    });

  describe('in analyzer mode: the sandbox, as the API answers it', () => {
    beforeAll(() => o.setMode(true));

    it('places, lists, modifies and cancels an order with the API’s own answers', async () => {
      const placed = await desk('placeorder', limit(3));
      expect(placed.statusCode).toBe(200);
      expect(placed.json()).toMatchObject({
        status: 'success',
        orderid: expect.any(String),
        mode: 'analyze',
      });
      const orderid = placed.json().orderid as string;

      const [viaDesk, viaApi] = [await desk('orderbook', {}), await o.api('orderbook', {})];
      expect(viaDesk.statusCode).toBe(200);
      expect(viaDesk.json()).toEqual(viaApi.json());
      const row = (viaDesk.json().data.orders as { orderid: string; quantity: number }[]).find(
        (r) => r.orderid === orderid,
      );
      expect(row).toMatchObject({ quantity: 3, order_status: 'open' });

      const modified = await desk('modifyorder', { ...limit(5, '799'), orderid });
      expect(modified.json()).toMatchObject({ status: 'success', orderid });
      const status = await desk('orderstatus', { orderid });
      expect(status.json().data).toMatchObject({ quantity: 5, price: 799 });

      const cancelled = await desk('cancelorder', { orderid });
      expect(cancelled.json()).toMatchObject({ status: 'success', orderid, mode: 'analyze' });
      expect((await desk('orderstatus', { orderid })).json().data.order_status).toBe('cancelled');
    });

    it('each user sees their own books: another user’s desk does not list the order', async () => {
      const placed = await desk('placeorder', limit(1));
      const orderid = placed.json().orderid as string;
      const bobs = await desk('orderbook', {}, bob.browser);
      expect(bobs.statusCode).toBe(200);
      expect((bobs.json().data.orders as { orderid: string }[]).map((r) => r.orderid)).not.toContain(orderid);
      // Nor can Bob cancel it: the sandbox answers as it would to Bob's key.
      const refused = await desk('cancelorder', { orderid }, bob.browser);
      expect(refused.statusCode).toBe(404);
      await desk('cancelallorder', {});
    });

    it('an apikey in the body is ignored: the session names the user', async () => {
      const res = await desk('funds', { apikey: bob.apikey });
      const own = await o.api('funds', {});
      expect(res.json()).toEqual(own.json());
      const viaBobKey = await o.api('placeorder', limit(1), { apikey: bob.apikey });
      expect(viaBobKey.statusCode).toBe(200);
      const adminBook = (await desk('orderbook', { apikey: bob.apikey })).json().data.orders as {
        orderid: string;
      }[];
      expect(adminBook.map((r) => r.orderid)).not.toContain(viaBobKey.json().orderid);
    });

    it('the API’s validation answers pass through (a clear 400, nothing placed)', async () => {
      const before = ((await desk('orderbook', {})).json().data.orders as unknown[]).length;
      const res = await desk('placeorder', { ...limit(1), action: 'HOLD' });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual((await o.api('placeorder', { ...limit(1), action: 'HOLD' })).json());
      expect(JSON.stringify(res.json().message)).toMatch(/action/i);
      const bad = await desk('placeorder', { ...limit(1), quantity: 'lots' });
      expect(bad.statusCode).toBe(400);
      expect(((await desk('orderbook', {})).json().data.orders as unknown[]).length).toBe(before);
    });
  });

  describe('in live mode: the broker', () => {
    beforeAll(() => o.setMode(false));

    it('the order book is the broker’s, as /api/v1/orderbook answers it', async () => {
      const placed = await desk('placeorder', limit(2));
      expect(placed.statusCode).toBe(200);
      expect(placed.json()).toMatchObject({ status: 'success', orderid: expect.any(String) });
      expect(placed.json().mode).toBeUndefined();
      const [viaDesk, viaApi] = [await desk('orderbook', {}), await o.api('orderbook', {})];
      expect(viaDesk.json()).toEqual(viaApi.json());
      expect(JSON.stringify(viaDesk.json())).toContain(placed.json().orderid as string);
    });

    it('in semi-automatic mode the API queues but the desk places: the person decides', async () => {
      await o.t.services.auth.apiKeys.setOrderMode(1, 'semi_auto');
      try {
        const queued = await o.api('placeorder', limit(1));
        expect(queued.json()).toMatchObject({ mode: 'semi_auto', pending_order_id: expect.any(Number) });
        const from = stub.forms('/orders/regular').length;
        const placed = await desk('placeorder', limit(4));
        expect(placed.json()).toMatchObject({ status: 'success', orderid: expect.any(String) });
        expect(
          stub
            .forms('/orders/regular')
            .slice(from)
            .map((f) => f.quantity),
        ).toEqual(['4']);
      } finally {
        await o.t.services.auth.apiKeys.setOrderMode(1, 'auto');
        await o.t.db.database.db.deleteFrom('pending_orders').execute();
      }
    });
  });

  describe('refusals', () => {
    it('no session is 401; a missing or wrong CSRF token is 403; nothing is placed', async () => {
      const from = stub.forms('/orders/regular').length;
      const anon = await o.t.app.inject({ method: 'POST', url: '/desk/api/placeorder', payload: limit(1) });
      expect(anon.statusCode).toBe(401);
      const noCsrf = await o.t.app.inject({
        method: 'POST',
        url: '/desk/api/placeorder',
        headers: { cookie: o.admin.cookie },
        payload: limit(1),
      });
      expect(noCsrf.statusCode).toBe(403);
      expect(noCsrf.json().code).toBe('csrf_failed');
      const wrong = await desk('placeorder', limit(1), o.admin, { 'x-csrf-token': 'x'.repeat(43) });
      expect(wrong.statusCode).toBe(403);
      expect(stub.forms('/orders/regular').length).toBe(from);
    });

    it('a call not on the desk is the JSON 404; malformed bodies are 400', async () => {
      for (const call of ['ping', 'analyzer/toggle', 'strategy/stop', '../v1/placeorder']) {
        const res = await desk(call, {});
        expect(res.statusCode, call).toBe(404);
      }
      const malformed = await o.t.app.inject({
        method: 'POST',
        url: '/desk/api/orderbook',
        headers: { ...asBrowser(o.admin), 'content-type': 'application/json' },
        payload: '{"strategy":',
      });
      expect(malformed.statusCode).toBe(400);
      const array = await o.t.app.inject({
        method: 'POST',
        url: '/desk/api/orderbook',
        headers: { ...asBrowser(o.admin), 'content-type': 'application/json' },
        payload: '[1,2]',
      });
      expect(array.statusCode).toBe(400);
      const many = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${i}`, i]));
      expect((await desk('orderbook', many)).statusCode).toBe(400);
    });

    it('the one-call key appears in no answer and is gone after the call', async () => {
      const seen: string[] = [];
      const delegate = o.t.services.auth.apiKeys.delegate.bind(o.t.services.auth.apiKeys);
      o.t.services.auth.apiKeys.delegate = async (userId, opts) => {
        const d = await delegate(userId, opts);
        if (d) seen.push(d.key);
        return d;
      };
      try {
        const res = await desk('funds', {});
        expect(res.statusCode).toBe(200);
        expect(seen).toHaveLength(1);
        expect(res.body).not.toContain(seen[0]);
        const reused = await o.api('funds', {}, { apikey: seen[0]! });
        expect(reused.statusCode).toBe(403);
      } finally {
        o.t.services.auth.apiKeys.delegate = delegate;
      }
    });
  });
});

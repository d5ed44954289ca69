/**
 * Orders issue, part 5, end to end in the real app: a placeorder's event travels pipeline → bus
 * → live socket to its owner's `/ws` sockets only (the app listening on a loopback port, real
 * WebSocket clients, the loopback Kite stub as the broker), and the app's event bus at capacity —
 * its 10 workers held by a consumer waiting on a promise the test controls, 1000 events queued,
 * the next one dropped, counted and shown by `GET /admin/api/system`, the order itself unaffected.
 */
import { WebSocket } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDELIVER_AFTER_MS } from '../../src/modules/orders/order-log.writer.js';
import type { OrderEvent } from '../../src/modules/orders/order-events.js';
import type { KiteOrderStub } from '../helpers/broker-order-stubs.js';
import { adminGet } from '../helpers/observability.js';
import { KITE_CREDS, secondUser, startKiteOrders, type OrdersApp } from '../helpers/orders-app.js';
import { describeEachDb, type Browser } from '../helpers/test-app.js';

const order = (quantity: number, extra: Record<string, unknown> = {}) => ({
  strategy: 'events-e2e',
  symbol: 'SBIN',
  exchange: 'NSE',
  action: 'BUY',
  quantity,
  pricetype: 'LIMIT',
  price: '800.5',
  product: 'CNC',
  ...extra,
});

/** A connected socket and every frame it received (raw text and parsed). */
interface Client {
  ws: WebSocket;
  frames: string[];
  messages: Array<{ event: string; data: Record<string, unknown> } & Record<string, unknown>>;
  /** Resolves once a message about an order of `quantity` has arrived (rejects after a generous bound). */
  receivedQuantity(quantity: number): Promise<void>;
}

function connect(port: number, cookie: string): Promise<Client> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`, { headers: { cookie } });
  const frames: string[] = [];
  const waiters: Array<() => void> = [];
  ws.addEventListener('message', (e) => {
    frames.push(String(e.data));
    for (const w of waiters.splice(0)) w();
  });
  const client: Client = {
    ws,
    frames,
    get messages() {
      return frames.map((f) => JSON.parse(f) as Client['messages'][number]);
    },
    async receivedQuantity(quantity) {
      const bound = Date.now() + 10_000;
      while (!client.messages.some((m) => m.data.quantity === quantity)) {
        if (Date.now() > bound) throw new Error(`no message for quantity ${quantity}: ${frames.join(' ')}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 100);
        });
      }
    },
  };
  return new Promise((resolve, reject) => {
    ws.addEventListener('open', () => resolve(client));
    ws.addEventListener('error', () => reject(new Error('websocket refused')));
  });
}

describeEachDb('order events end to end', (dialect) => {
  let stub: KiteOrderStub;
  let o: OrdersApp;
  let bob: Browser & { apikey: string };
  let port: number;

  beforeAll(async () => {
    ({ stub, o } = await startKiteOrders(dialect));
    await o.setMode(false);
    const b = await secondUser(o);
    bob = { ...b.browser, apikey: b.apikey };
    await o.t.services.brokers.sessions.set(b.id, 'zerodha', { accessToken: KITE_CREDS.accessToken });
    await o.t.app.listen({ host: '127.0.0.1', port: 0 });
    port = (o.t.app.server.address() as { port: number }).port;
  });
  afterAll(async () => {
    await o?.close();
    await stub?.close();
  });

  describe('a placeorder’s event reaches its owner’s /ws sockets and no one else’s', () => {
    it('admin’s orders reach admin’s socket only, bob’s placed and failed orders bob’s only', async () => {
      const mine = await connect(port, o.admin.cookie);
      const his = await connect(port, bob.cookie);
      try {
        const a1 = await o.api('placeorder', order(11));
        const b1 = await o.api('placeorder', order(22), { apikey: bob.apikey });
        const bFailed = await o.api('placeorder', order(23, { price: '0' }), { apikey: bob.apikey });
        const a2 = await o.api('placeorder', order(33));
        expect([a1, b1, bFailed, a2].map((r) => r.statusCode)).toEqual([200, 200, 400, 200]);
        // Every frame of those four events is written by now; a marker written after them reaches
        // each socket after anything written to it before (one ordered stream per socket).
        await o.t.services.orders.events.whenIdle();
        await o.api('placeorder', order(44));
        await o.api('placeorder', order(55), { apikey: bob.apikey });
        await Promise.all([mine.receivedQuantity(44), his.receivedQuantity(55)]);

        const seen = (c: Client) =>
          c.messages
            .map((m) => [m.event, m.data.quantity, m.data.status_code, m.data.orderid])
            .sort((x, y) => Number(x[1]) - Number(y[1]));
        expect(seen(mine)).toEqual([
          ['order.placed', 11, 200, a1.json().orderid],
          ['order.placed', 33, 200, a2.json().orderid],
          ['order.placed', 44, 200, expect.any(String)],
        ]);
        expect(seen(his)).toEqual([
          ['order.placed', 22, 200, b1.json().orderid],
          ['order.failed', 23, 400, null],
          ['order.placed', 55, 200, expect.any(String)],
        ]);
        const of = (q: number) => his.messages.find((m) => m.data.quantity === q)!;
        expect(of(22)).toEqual({
          type: 'order_event',
          event: 'order.placed',
          mode: 'live',
          data: {
            orderid: b1.json().orderid,
            symbol: 'SBIN',
            exchange: 'NSE',
            action: 'BUY',
            quantity: 22,
            status_code: 200,
            broker: 'zerodha',
            at: new Date(o.t.clock.now()).toISOString(),
          },
        });
        expect(of(23).data.message).toMatch(/price must be greater than 0/);
        for (const f of [...mine.frames, ...his.frames]) {
          expect(f).not.toContain(o.apikey);
          expect(f).not.toContain(bob.apikey);
          expect(f).not.toContain(KITE_CREDS.accessToken);
        }
      } finally {
        mine.ws.close();
        his.ws.close();
      }
    });
  });

  describe('the bus at capacity: 10 workers busy, 1000 queued, the 1001st waiting event dropped and counted', () => {
    it('a placeorder over capacity is answered and sent, its event dropped, warned about and shown in /admin/api/system', async () => {
      const bus = o.t.services.orders.events;
      await bus.whenIdle();
      const eventBus = async () =>
        (await adminGet(o.t, o.admin, '/admin/api/system')).json().data.runtime.event_bus;
      const start = await eventBus();
      expect(start).toMatchObject({ pending: 0, running: 0, workers: 10, queue_limit: 1000 });

      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      bus.subscribe('test-blocker', () => gate);
      try {
        // Ten real orders hold the ten workers (their events wait on the gate).
        const held = [];
        for (let i = 0; i < 10; i++) held.push(await o.api('placeorder', order(100 + i)));
        expect(held.every((r) => r.statusCode === 200)).toBe(true);
        expect(await eventBus()).toMatchObject({ running: 10, pending: 0 });
        // A thousand more wait in the queue.
        const filler = (i: number): OrderEvent => ({
          name: 'order.placed',
          mode: 'live',
          userId: null,
          apiType: 'placeorder',
          broker: 'zerodha',
          orderId: `filler-${i}`,
          statusCode: 200,
          request: { symbol: 'SBIN', quantity: 1 },
          response: { status: 'success' },
          at: o.t.clock.now(),
        });
        for (let i = 0; i < 1000; i++) expect(bus.publish(filler(i))).toBe(true);
        expect(await eventBus()).toMatchObject({ running: 10, pending: 1000, dropped: start.dropped });

        // The next one: the order is placed and answered, only its event is dropped.
        const sent = stub.forms('/orders/regular').length;
        const over = await o.api('placeorder', order(999));
        expect(over.statusCode).toBe(200);
        const orderid = over.json().orderid as string;
        expect(stub.forms('/orders/regular')).toHaveLength(sent + 1);
        expect(await eventBus()).toMatchObject({ running: 10, pending: 1000, dropped: start.dropped + 1 });
        expect(o.t.logs.some((l) => l.includes('order event dropped: dispatch queue full'))).toBe(true);

        release();
        await bus.whenIdle();
        const end = await eventBus();
        expect(end).toMatchObject({ running: 0, pending: 0, dropped: start.dropped + 1 });
        expect(end.delivered).toBe(start.delivered + 1010);
        const logs = await o.logs('order_logs');
        expect(logs.filter((r) => String(r.order_id).startsWith('filler-'))).toHaveLength(1000);
        // The order's log row was committed before its answer; only its fan-out was dropped, so the
        // row stays undelivered until the outbox's next look publishes it again.
        expect(logs.filter((r) => r.order_id === orderid)).toMatchObject([{ dispatched_at: null }]);
        expect(o.events.some((e) => e.orderId === orderid)).toBe(false);
        o.t.clock.advance(REDELIVER_AFTER_MS);
        expect(await o.t.services.orders.logWriter.redeliver((e) => bus.publish(e))).toBe(1);
        await bus.whenIdle();
        expect(o.events.filter((e) => e.orderId === orderid)).toMatchObject([
          { name: 'order.placed', mode: 'live', redelivered: true },
        ]);
        const after = await o.logs('order_logs');
        expect(after.find((r) => r.order_id === orderid)?.dispatched_at).toBe(o.t.clock.now());
      } finally {
        release();
      }
    });
  });
});

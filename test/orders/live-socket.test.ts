/**
 * Orders issue, part 5: the live socket. `GET /ws` is upgraded only for a live session; each
 * user receives only their own order events, as whitelisted JSON; sockets are bounded per user
 * and in total; dead and slow sockets are dropped; an event produced on one instance reaches the
 * sockets of every instance exactly once (Redis pub/sub). The socket is served by an app of its
 * own on a loopback port, using the real app's SessionsService.
 */
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { request } from 'node:http';
import cookie from '@fastify/cookie';
import Fastify from 'fastify';
import pino from 'pino';
import { WebSocket } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createLiveSocketHub,
  type LiveSocket,
  type LiveSocketHub,
  type LiveSocketHubOptions,
} from '../../src/modules/orders/live-socket.js';
import { liveSocketRoutes } from '../../src/modules/orders/live-socket.routes.js';
import { OrderEventBus, type OrderEvent } from '../../src/modules/orders/order-events.js';
import { registerErrorHandling } from '../../src/platform/http/errors.plugin.js';
import type { App } from '../../src/platform/http/types.js';
import { LocalInvalidationBus } from '../../src/platform/invalidation.js';
import {
  appWithAdmin,
  asBrowser,
  createUser,
  describeEachDb,
  login,
  redisUrl,
  type Browser,
  type TestApp,
} from '../helpers/test-app.js';
import { redisBus } from '../helpers/redis-bus.js';

const silent = pino({ level: 'silent' });
const until = async (ok: () => boolean, ms = 3000) => {
  for (const end = Date.now() + ms; !ok() && Date.now() < end;) await new Promise((r) => setTimeout(r, 10));
  expect(ok()).toBe(true);
};

/** One instance's socket server: a hub, its OrderEventBus and `GET /ws` on a loopback port. */
type Instance = { port: number; hub: LiveSocketHub; events: OrderEventBus };

/** A connected client with every message it received. */
type Client = { ws: WebSocket; messages: Record<string, unknown>[]; closed: Promise<Closed> };
type Closed = { code: number; reason: string };

function connect(port: number, cookieHeader: string): Promise<Client> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`, { headers: { cookie: cookieHeader } });
  const messages: Record<string, unknown>[] = [];
  ws.addEventListener('message', (e) => messages.push(JSON.parse(String(e.data)) as Record<string, unknown>));
  const closed = new Promise<Closed>((resolve) =>
    ws.addEventListener('close', (e) => resolve({ code: e.code, reason: e.reason })),
  );
  return new Promise((resolve, reject) => {
    ws.addEventListener('open', () => resolve({ ws, messages, closed }));
    ws.addEventListener('error', () => reject(new Error('websocket refused')));
  });
}

/** A raw upgrade request: the HTTP status (101 when upgraded) and the JSON body of a refusal. */
function handshake(port: number, headers: Record<string, string> = {}, upgrade = true) {
  const key = randomBytes(16).toString('base64');
  const ws = { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13' };
  const all = { ...(upgrade ? { ...ws, 'sec-websocket-key': key } : {}), ...headers };
  return new Promise<{ status: number; body: unknown }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/ws', headers: all });
    req.on('upgrade', (_res, socket) => resolve({ status: 101, body: socket.destroy() && null }));
    req.on('response', (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += String(c)));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
    });
    req.on('error', reject).end();
  });
}

const refused = (r: { status: number; body: unknown }, status: number, code: string) =>
  expect(r).toMatchObject({ status, body: { status: 'error', code } });
const orderIds = (c: Client) => c.messages.map((m) => (m.data as { orderid: string | null }).orderid);

/** An order event of `userId` (a live SBIN placement unless `over` says otherwise). */
const event = (userId: number | null, over: Partial<OrderEvent> = {}): OrderEvent => ({
  name: 'order.placed',
  mode: 'live',
  userId,
  apiType: 'placeorder',
  broker: 'zerodha',
  orderId: '250106000000001',
  statusCode: 200,
  request: { strategy: 's', symbol: 'SBIN', exchange: 'NSE', action: 'BUY', quantity: 5 },
  response: { status: 'success', orderid: '250106000000001' },
  at: Date.UTC(2026, 0, 5, 4, 0, 0),
  ...over,
});

describeEachDb('live socket', (dialect) => {
  let t: TestApp;
  let admin: Browser;
  let bob: Browser;
  let ids: { admin: number; bob: number };
  const cleanup: Array<() => Promise<unknown> | unknown> = [];

  beforeEach(async () => {
    ({ t, admin } = await appWithAdmin(dialect));
    const b = await createUser(t, 'bob', 'bob horse battery staple');
    bob = await login(t, 'bob', 'bob horse battery staple');
    ids = { admin: (await t.services.auth.users.findByUsername('admin'))!.id, bob: b.id };
  });
  afterEach(async () => {
    for (const c of cleanup.reverse()) await c();
    cleanup.length = 0;
    await t.close();
  });

  async function instance(opts: Partial<LiveSocketHubOptions> = {}): Promise<Instance> {
    const bus = new LocalInvalidationBus();
    const hub = createLiveSocketHub({ bus, logger: silent, clock: t.clock, ...opts });
    const events = new OrderEventBus({ logger: silent });
    events.subscribe('live-socket', hub.consumer());
    const app = Fastify().withTypeProvider() as unknown as App;
    registerErrorHandling(app);
    await app.register(async (scope) => {
      await scope.register(cookie, { hook: false });
      await liveSocketRoutes(scope as unknown as App, { hub, sessions: t.services.auth.sessions });
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    cleanup.push(() => app.close());
    return { port: (app.server.address() as { port: number }).port, hub, events };
  }

  const open = async (i: Instance, b: Browser) => {
    const c = await connect(i.port, b.cookie);
    cleanup.push(() => c.ws.close());
    return c;
  };

  describe('GET /ws upgrades only a live session (refusals are HTTP answers before the upgrade)', () => {
    it('no cookie, an unknown cookie and a logged-out session are refused with 401', async () => {
      const i = await instance();
      for (const headers of [{}, { cookie: 'algodesk_session=' + 'f'.repeat(64) }] as Record<
        string,
        string
      >[]) {
        const r = await handshake(i.port, headers);
        expect(r).toMatchObject({ status: 401, body: { status: 'error', code: 'session_required' } });
      }
      expect((await handshake(i.port, { cookie: bob.cookie })).status).toBe(101);
      await t.app.inject({ method: 'POST', url: '/auth/logout', headers: asBrowser(bob) });
      expect((await handshake(i.port, { cookie: bob.cookie })).status).toBe(401);
      await expect(connect(i.port, bob.cookie)).rejects.toThrow('websocket refused');
      expect(i.hub.stats().sockets).toBe(0);
    });

    it('a page of another origin is refused with 403; the same origin is upgraded', async () => {
      const i = await instance();
      const evil = await handshake(i.port, { cookie: admin.cookie, origin: 'https://evil.example' });
      refused(evil, 403, 'origin_forbidden');
      const same = await handshake(i.port, { cookie: admin.cookie, origin: `http://127.0.0.1:${i.port}` });
      expect(same.status).toBe(101);
    });

    it('the traffic log keeps an upgraded socket that closed as 101, not as an error; a refused upgrade keeps its status', async () => {
      await t.app.listen({ host: '127.0.0.1', port: 0 });
      const port = (t.app.server.address() as { port: number }).port;
      const c = await connect(port, bob.cookie);
      c.ws.close();
      await c.closed;
      // (A request with no cookie at all is a live-feed client on the full app: an unknown one is refused.)
      expect((await handshake(port, { cookie: 'algodesk_session=' + 'f'.repeat(64) })).status).toBe(401);
      await expect
        .poll(async () => {
          await t.services.observability.traffic.flush();
          return (
            await t.db.database.db
              .selectFrom('traffic_log')
              .select(['path', 'status'])
              .where('path', '=', '/ws')
              .execute()
          ).map((r) => Number(r.status));
        })
        .toEqual([101, 401]);
    });

    it('a plain GET (no upgrade) answers 426 without looking at the session', async () => {
      const i = await instance();
      refused(await handshake(i.port, {}, false), 426, 'upgrade_required');
    });

    it('a socket is closed with 4401 at the first session re-check after its session ended', async () => {
      const i = await instance();
      const c = await open(i, bob);
      await t.app.inject({ method: 'POST', url: '/auth/logout', headers: asBrowser(bob) });
      i.hub.heartbeat(); // re-check not due yet: the socket stays
      await new Promise((r) => setTimeout(r, 50)); // the client's pong
      t.clock.advance(5 * 60_000);
      i.hub.heartbeat();
      expect(await c.closed).toEqual({ code: 4401, reason: 'session ended' });
      expect(i.hub.stats()).toMatchObject({ sockets: 0, sessionClosed: 1 });
    });
  });

  describe('each user receives only their own events', () => {
    it('events of admin reach both admin sockets, not bob; bob gets his; user-less events go nowhere', async () => {
      const i = await instance();
      const [a1, a2, b1] = [await open(i, admin), await open(i, admin), await open(i, bob)];
      i.events.publish(event(ids.admin, { orderId: 'A1' }));
      i.events.publish(event(null, { orderId: 'N1' }));
      i.events.publish(event(ids.bob, { orderId: 'B1' }));
      i.events.publish(event(ids.admin, { orderId: 'A2' }));
      await i.events.whenIdle();
      await until(() => a1.messages.length === 2 && a2.messages.length === 2 && b1.messages.length === 1);
      expect([orderIds(a1), orderIds(a2), orderIds(b1)]).toEqual([['A1', 'A2'], ['A1', 'A2'], ['B1']]);
    });
  });

  describe('messages carry a whitelist of the event, never a secret', () => {
    it('the exact shape, whatever extra fields request and response carry', async () => {
      const i = await instance();
      const c = await open(i, admin);
      const secrets = { apikey: 'k'.repeat(64), password: 'hunter2', nested: { token: 'tok-xyz' } };
      const response = { status: 'success', orderid: '250106000000001', access_token: 'acc-123' };
      i.events.publish(event(ids.admin, { request: { ...event(null).request, ...secrets }, response }));
      const request = { symbol: 'NOPE', exchange: 'NSE', action: 'SELL', quantity: '7', apikey: 'k' };
      const failed = { status: 'error', message: "Symbol 'NOPE' not found", mode: 'analyze' };
      const [name, mode] = ['analyzer.error', 'analyze'] as const;
      i.events.publish(event(ids.admin, { name, mode, request, response: failed, statusCode: 400 }));
      i.events.publish(event(ids.admin, { mode: 'semi_auto', orderId: null, request: { quantity: 'x' } }));
      await until(() => c.messages.length === 3);
      const at = '2026-01-05T04:00:00.000Z';
      const placed = { orderid: '250106000000001', symbol: 'SBIN', exchange: 'NSE', action: 'BUY' };
      const error = { symbol: 'NOPE', exchange: 'NSE', action: 'SELL', quantity: 7, status_code: 400 };
      const blank = { orderid: null, symbol: null, exchange: null, action: null, quantity: null };
      expect(c.messages).toEqual([
        {
          ...{ type: 'order_event', event: 'order.placed', mode: 'live' },
          data: { ...placed, quantity: 5, status_code: 200, broker: 'zerodha', at },
        },
        {
          ...{ type: 'order_event', event: 'analyzer.error', mode: 'analyze' },
          data: { ...error, orderid: '250106000000001', message: failed.message, broker: 'zerodha', at },
        },
        // A semi-automatic order is a live order; fields of the wrong type are null, not copied.
        {
          ...{ type: 'order_event', event: 'order.placed', mode: 'live' },
          data: { ...blank, status_code: 200, broker: 'zerodha', at },
        },
      ]);
      const raw = JSON.stringify(c.messages);
      for (const s of ['apikey', 'password', 'hunter2', 'token', 'acc-123', 'kkkk', 'strategy'])
        expect(raw).not.toContain(s);
    });
  });

  describe('sockets are bounded per user and in total', () => {
    it('over the per-user bound an upgrade is refused with 429; other users and freed slots still connect', async () => {
      const i = await instance({ maxPerUser: 2 });
      const a1 = await open(i, admin);
      await open(i, admin);
      refused(await handshake(i.port, { cookie: admin.cookie }), 429, 'too_many_sockets');
      await open(i, bob);
      a1.ws.close();
      await until(() => i.hub.socketsOf(ids.admin) === 1);
      await open(i, admin);
      expect(i.hub.stats()).toMatchObject({ sockets: 3, users: 2 });
    });

    it('over the total bound an upgrade is refused with 503', async () => {
      const i = await instance({ maxTotal: 2 });
      await open(i, admin);
      await open(i, admin);
      refused(await handshake(i.port, { cookie: bob.cookie }), 503, 'socket_capacity');
    });

    it('a live client answers the pings and survives heartbeats', async () => {
      const i = await instance();
      const c = await open(i, admin);
      for (let n = 0; n < 3; n++) {
        i.hub.heartbeat();
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(i.hub.stats()).toMatchObject({ sockets: 1, deadDropped: 0 });
      i.events.publish(event(ids.admin));
      await until(() => c.messages.length === 1);
    });
  });

  describe('scale-out: an event reaches every instance’s sockets exactly once', () => {
    it('two hubs on one in-process bus (no Redis)', async () => {
      const bus = new LocalInvalidationBus({ shared: true });
      const [a, b] = [await instance({ bus }), await instance({ bus })];
      const [onA, onB, bobOnB] = [await open(a, admin), await open(b, admin), await open(b, bob)];
      a.events.publish(event(ids.admin, { orderId: 'X1' }));
      await a.events.whenIdle();
      b.events.publish(event(ids.admin, { orderId: 'X2' }));
      await b.events.whenIdle();
      await until(() => onA.messages.length >= 2 && onB.messages.length >= 2);
      await new Promise((r) => setTimeout(r, 50));
      expect([orderIds(onA), orderIds(onB), orderIds(bobOnB)]).toEqual([['X1', 'X2'], ['X1', 'X2'], []]);
    });

    it.skipIf(redisUrl === '')('two hubs on two RedisInvalidationBus instances', async () => {
      const prefix = `test-ws-${randomBytes(4).toString('hex')}`;
      const a = await instance({ bus: await redisBus(prefix, cleanup) });
      const b = await instance({ bus: await redisBus(prefix, cleanup) });
      const [onA, onB, bobOnB] = [await open(a, admin), await open(b, admin), await open(b, bob)];
      a.events.publish(event(ids.admin, { orderId: 'R1' }));
      await until(() => onB.messages.length === 1);
      // Published after R1 went through Redis: when A's socket has R2, any echo of R1 would be in.
      b.events.publish(event(ids.admin, { orderId: 'R2' }));
      b.events.publish(event(ids.bob, { orderId: 'R3' }));
      await until(() => onA.messages.length >= 2 && bobOnB.messages.length >= 1);
      await new Promise((r) => setTimeout(r, 100));
      expect([orderIds(onA), orderIds(onB), orderIds(bobOnB)]).toEqual([['R1', 'R2'], ['R1', 'R2'], ['R3']]);
    });
  });
});

/** A server-side socket the test drives: it records what the hub does to it. */
class FakeSocket extends EventEmitter implements LiveSocket {
  readyState = 1;
  bufferedAmount = 0;
  sent: string[] = [];
  pings = 0;
  closedWith: [number | undefined, string | undefined] | 'terminated' | undefined;
  send = (data: string) => void this.sent.push(data);
  ping = () => void this.pings++;
  close = (code?: number, reason?: string) => this.end([code, reason]);
  terminate = () => this.end('terminated');
  private end(how: FakeSocket['closedWith']) {
    if (this.readyState === 3) return;
    [this.closedWith, this.readyState] = [how, 3];
    this.emit('close');
  }
}

describe('live socket hub: heartbeat, slow consumers, bounds, the bus bridge', () => {
  const hub = (opts: Partial<LiveSocketHubOptions> = {}) =>
    createLiveSocketHub({ bus: new LocalInvalidationBus(), logger: silent, ...opts });
  const ev = (userId: number): OrderEvent => ({
    ...{ name: 'order.placed', mode: 'live', apiType: 'placeorder', broker: 'zerodha', orderId: '1' },
    ...{ userId, statusCode: 200, request: {}, response: {}, at: 0 },
  });

  it('a socket that did not answer the last ping is terminated at the next tick; one that did stays', () => {
    const h = hub();
    const [dead, live] = [new FakeSocket(), new FakeSocket()];
    h.admit(1, dead);
    h.admit(1, live);
    h.heartbeat();
    expect([dead.pings, live.pings]).toEqual([1, 1]);
    live.emit('pong');
    h.heartbeat();
    expect([dead.closedWith, live.closedWith]).toEqual(['terminated', undefined]);
    expect(h.stats()).toMatchObject({ sockets: 1, deadDropped: 1 });
  });

  it('a consumer with more than 1 MiB buffered is closed with 1013 and sent nothing more', () => {
    const h = hub();
    const [slow, fast] = [new FakeSocket(), new FakeSocket()];
    h.admit(1, slow);
    h.admit(1, fast);
    slow.bufferedAmount = 1024 * 1024;
    h.consumer()(ev(1));
    expect([slow.sent.length, fast.sent.length]).toEqual([0, 1]);
    expect(slow.closedWith).toEqual([1013, 'slow consumer']);
    expect(h.stats()).toMatchObject({ sockets: 1, slowClosed: 1 });
  });

  it('a socket admitted over a bound (reached during its upgrade) is closed with 1013', () => {
    const h = hub({ maxPerUser: 1 });
    const [first, second] = [new FakeSocket(), new FakeSocket()];
    expect([h.admit(1, first), h.admit(1, second)]).toEqual(['ok', 'user_limit']);
    expect(second.closedWith?.[0]).toBe(1013);
  });

  it('close() ends every socket with 1001 and admits nothing more', () => {
    const h = hub();
    const s = new FakeSocket();
    h.admit(1, s);
    h.close();
    expect(s.closedWith?.[0]).toBe(1001);
    expect(h.admit(1, new FakeSocket())).toBe('closing');
  });

  it('a malformed or foreign message on the order-event topic is ignored', () => {
    const bus = new LocalInvalidationBus();
    const h = hub({ bus });
    const s = new FakeSocket();
    h.admit(1, s);
    for (const key of [
      '{',
      'null',
      '{"o":"x","u":"1","m":{}}',
      '{"o":"x","u":1,"m":{"type":"other"}}',
      '{"o":"x","u":1,"m":{"type":"action_center","event":"dropped","id":1}}',
      '{"o":"x","u":1,"m":{"type":"action_center","event":"queued","id":"1"}}',
    ])
      bus.publish('order-event', key);
    expect(s.sent).toEqual([]);
  });

  it('on a lone instance’s bus no copy is published: the user’s sockets here get each message, nothing goes on the bus', () => {
    const bus = new LocalInvalidationBus();
    const onBus: string[] = [];
    bus.subscribe('order-event', (key) => onBus.push(key));
    const h = hub({ bus });
    const mine = new FakeSocket();
    h.admit(1, mine);
    const consume = h.consumer();
    const placed = (userId: number) => event(userId, { orderId: `O${userId}` });
    consume(placed(1));
    consume(placed(2)); // no socket of user 2 anywhere
    h.actionCenter(1, 'queued', 3);
    expect(mine.sent.map((m) => (JSON.parse(m) as { type: string }).type)).toEqual([
      'order_event',
      'action_center',
    ]);
    expect(onBus).toEqual([]);
    // A bus other instances share gets the copy of each, also of a user with no socket here.
    const shared = new LocalInvalidationBus({ shared: true });
    const copies: string[] = [];
    shared.subscribe('order-event', (key) => copies.push(key));
    const other = hub({ bus: shared }).consumer();
    other(placed(2));
    expect(copies.map((c) => (JSON.parse(c) as { u: number }).u)).toEqual([2]);
  });

  it('an Action Center change reaches the user’s sockets on every instance once, no one else’s', () => {
    const bus = new LocalInvalidationBus({ shared: true });
    const [a, b] = [hub({ bus }), hub({ bus })];
    const [onA, onB, other] = [new FakeSocket(), new FakeSocket(), new FakeSocket()];
    a.admit(1, onA);
    b.admit(1, onB);
    b.admit(2, other);
    a.actionCenter(1, 'queued', 7);
    b.actionCenter(1, 'rejected', 7);
    const expected = [
      { type: 'action_center', event: 'queued', id: 7 },
      { type: 'action_center', event: 'rejected', id: 7 },
    ];
    expect(onA.sent.map((m) => JSON.parse(m) as unknown)).toEqual(expected);
    expect(onB.sent.map((m) => JSON.parse(m) as unknown)).toEqual(expected);
    expect(other.sent).toEqual([]);
  });
});

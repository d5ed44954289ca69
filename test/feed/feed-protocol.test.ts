/**
 * OpenAlgo's WebSocket feed on its own port (docs/rules/market-data.md#feed-protocol), driven by a
 * client written from the protocol: authentication, subscribe in each mode with every field,
 * ticks that move, unsubscribe, ping, broker info, each error code, and one upstream
 * subscription however many sockets ask. Prices come from the scripted source the test pushes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptedFeed } from '../../src/modules/sandbox/prices/price-source.js';
import { importContract } from '../helpers/contracts.js';
import { FeedTestClient, type FeedMessage } from '../helpers/feed-client.js';
import { ist, miniKiteContract } from '../helpers/sandbox.js';
import {
  appWithAdmin,
  asBrowser,
  createUser,
  describeEachDb,
  type Browser,
  type TestApp,
} from '../helpers/test-app.js';

const T0 = ist('2026-01-05', '10:00');
const quote = (ltp: number, at: number) => ({
  ltp,
  bid: ltp - 0.05,
  ask: ltp + 0.05,
  high: ltp + 10,
  low: ltp - 10,
  timestamp: at,
});

describeEachDb('the live feed: OpenAlgo WebSocket protocol on WEBSOCKET_PORT', (dialect) => {
  let t: TestApp;
  let admin: Browser;
  let url: string;
  let apikey: string;
  const open: FeedTestClient[] = [];
  const connect = async () => {
    const c = await FeedTestClient.open(url);
    open.push(c);
    return c;
  };
  const authed = async () => {
    const c = await connect();
    const auth = await c.ask({ action: 'authenticate', api_key: apikey }, 'auth');
    expect(auth.status).toBe('success');
    return c;
  };
  const feed = () => t.services.sandbox.prices() as ScriptedFeed;
  const isTick = (symbol: string, mode: number) => (m: FeedMessage) =>
    m.type === 'market_data' && m.symbol === symbol && m.mode === mode;

  beforeAll(async () => {
    ({ t, admin } = await appWithAdmin(dialect, {
      env: { SANDBOX_PRICE_SOURCE: 'scripted', FEED_POLL_MS: '100' },
    }));
    await importContract(t, 'zerodha', miniKiteContract());
    t.clock.set(T0);
    feed().push({ 'NSE:SBIN': quote(800, T0) });
    apikey = (await t.services.auth.apiKeys.regenerate(1)).apikey;
    const at = await t.app.feed.server.listen('127.0.0.1', 0);
    url = `ws://127.0.0.1:${at.port}`;
  });
  afterAll(async () => {
    await Promise.all(open.map((c) => c.close()));
    await t.close();
  });

  it('authenticates with the API key; a wrong key and a command before auth get their codes', async () => {
    const c = await connect();
    expect(
      await c.ask({ action: 'subscribe', symbols: [{ symbol: 'SBIN', exchange: 'NSE' }] }, 'subscribe'),
    ).toEqual({
      status: 'error',
      code: 'NOT_AUTHENTICATED',
      message: 'You must authenticate first',
    });
    expect(await c.ask({ action: 'authenticate', api_key: 'f'.repeat(64) }, 'auth')).toEqual({
      status: 'error',
      code: 'AUTHENTICATION_ERROR',
      message: 'Invalid API key',
    });
    expect(await c.ask({ action: 'auth', apikey }, 'auth')).toEqual({
      type: 'auth',
      status: 'success',
      message: 'Authentication successful',
      broker: 'scripted',
      user_id: 1,
      supported_features: { ltp: true, quote: true, depth: true },
    });
    // The key never comes back, in any message.
    expect(JSON.stringify(c.received)).not.toContain(apikey);
  });

  it('subscribes in each mode: per-entry acks, an unknown symbol is an entry error, ticks carry every field', async () => {
    const c = await authed();
    const ack = await c.ask(
      {
        action: 'subscribe',
        symbols: [
          { symbol: 'SBIN', exchange: 'NSE' },
          { symbol: 'NOPE', exchange: 'NSE' },
        ],
        mode: 'Quote',
        request_id: 'q-1',
      },
      'subscribe',
    );
    expect(ack).toEqual({
      type: 'subscribe',
      status: 'partial',
      subscriptions: [
        { symbol: 'SBIN', exchange: 'NSE', status: 'success', mode: 'Quote', depth: 5, broker: 'scripted' },
        {
          symbol: 'NOPE',
          exchange: 'NSE',
          status: 'error',
          message: 'Symbol NOPE not found on exchange NSE',
          broker: 'scripted',
        },
      ],
      message: 'Subscription processing complete',
      broker: 'scripted',
      request_id: 'q-1',
    });
    const q = await c.next(isTick('SBIN', 2));
    expect(q).toMatchObject({ exchange: 'NSE', broker: 'scripted' });
    expect(Object.keys(q.data as object).sort()).toEqual(
      [
        'ltp',
        'ltt',
        'timestamp',
        'open',
        'high',
        'low',
        'close',
        'volume',
        'average_price',
        'avg_trade_price',
        'last_quantity',
        'last_trade_quantity',
        'total_buy_quantity',
        'total_sell_quantity',
        'oi',
        'change',
        'change_percent',
      ].sort(),
    );
    expect(q.data).toMatchObject({
      ltp: 800,
      high: 810,
      low: 790,
      timestamp: T0,
      open: null,
      close: null,
      volume: null,
      change: null,
    });

    await c.ask(
      { action: 'subscribe', symbols: [{ symbol: 'SBIN', exchange: 'NSE' }], mode: 1 },
      'subscribe',
    );
    expect((await c.next(isTick('SBIN', 1))).data).toEqual({ ltp: 800, ltt: T0, timestamp: T0 });
    await c.ask(
      { action: 'subscribe', symbols: [{ symbol: 'SBIN', exchange: 'NSE' }], mode: 'depth' },
      'subscribe',
    );
    const d = await c.next(isTick('SBIN', 3));
    expect((d.data as { depth: unknown }).depth).toEqual({
      buy: [{ price: 799.95, quantity: null, orders: null }],
      sell: [{ price: 800.05, quantity: null, orders: null }],
    });

    // The price moves: the next quote reaches every mode the socket holds.
    t.clock.set(T0 + 1000);
    feed().push({ 'NSE:SBIN': quote(801.5, T0 + 1000) });
    for (const mode of [1, 2, 3]) {
      const m = await c.next((x) => isTick('SBIN', mode)(x) && (x.data as { ltp: number }).ltp === 801.5);
      expect((m.data as { timestamp: number }).timestamp).toBe(T0 + 1000);
    }

    const un = await c.ask(
      {
        action: 'unsubscribe',
        symbols: [
          { symbol: 'SBIN', exchange: 'NSE', mode: 'LTP' },
          { symbol: 'TCS', exchange: 'NSE' },
        ],
      },
      'unsubscribe',
    );
    expect(un).toMatchObject({
      type: 'unsubscribe',
      status: 'partial',
      successful: [{ symbol: 'SBIN', exchange: 'NSE', status: 'success', broker: 'scripted' }],
      failed: [{ symbol: 'TCS', exchange: 'NSE', status: 'error' }],
    });
    const all = await c.ask({ action: 'unsubscribe_all' }, 'unsubscribe');
    expect(all).toMatchObject({ status: 'success', failed: [] });
    expect((all.successful as unknown[]).length).toBe(2);
  });

  it('one upstream subscription per instrument, however many sockets ask; dropped when the last leaves', async () => {
    const before = t.app.feed.hub.upstreamCount;
    const a = await authed();
    const b = await authed();
    const sub = { action: 'subscribe', symbols: [{ symbol: 'RELIANCE', exchange: 'NSE' }], mode: 2 };
    await a.ask(sub, 'subscribe');
    await b.ask({ ...sub, mode: 3 }, 'subscribe');
    expect(t.app.feed.hub.upstreamCount).toBe(before + 1);
    await a.ask({ action: 'unsubscribe_all' }, 'unsubscribe');
    expect(t.app.feed.hub.upstreamCount).toBe(before + 1);
    await b.close();
    await expect.poll(() => t.app.feed.hub.upstreamCount).toBe(before);
  });

  it('ping, broker info and supported brokers answer as OpenAlgo does', async () => {
    const c = await authed();
    const pong = await c.ask({ action: 'ping', timestamp: 123, _pingId: 'p1' }, 'pong');
    expect(pong).toEqual({
      type: 'pong',
      status: 'success',
      server_timestamp: expect.any(Number),
      client_timestamp: 123,
      _pingId: 'p1',
    });
    // The server's wall-clock time (OpenAlgo's), for the client's latency measure.
    expect(Math.abs((pong.server_timestamp as number) - Date.now())).toBeLessThan(60_000);
    expect(await c.ask({ action: 'get_broker_info' }, 'broker_info')).toEqual({
      type: 'broker_info',
      status: 'success',
      broker: 'scripted',
      adapter_status: 'connected',
      user_id: 1,
    });
    expect(await c.ask({ action: 'get_supported_brokers' }, 'supported_brokers')).toEqual({
      type: 'supported_brokers',
      status: 'success',
      brokers: ['scripted'],
      count: 1,
    });
  });

  it('subscribe_orders: order updates of its own user only, in OpenAlgo shape, each state change', async () => {
    const c = await authed();
    expect(await c.ask({ action: 'subscribe_orders' }, 'subscribe_orders')).toMatchObject({
      status: 'success',
    });
    await createUser(t, 'bob', 'bob horse battery staple');
    const sbin = { symbol: 'SBIN', exchange: 'NSE', product: 'MIS' as const, quantity: 3 };
    // Bob's order is not this socket's business.
    await t.services.sandbox.service.placeOrder(2, { ...sbin, side: 'BUY', priceType: 'LIMIT', price: 700 });
    const mine = await t.services.sandbox.service.placeOrder(1, {
      ...sbin,
      side: 'BUY',
      priceType: 'LIMIT',
      price: 795,
    });
    const placed = await c.next((m) => m.type === 'order_update');
    expect(placed).toEqual({
      type: 'order_update',
      user_id: 1,
      mode: 'analyze',
      broker: 'sandbox',
      orderid: mine.order.orderId,
      symbol: 'SBIN',
      exchange: 'NSE',
      action: 'BUY',
      quantity: 3,
      price: 795,
      trigger_price: 0,
      pricetype: 'LIMIT',
      product: 'MIS',
      order_status: 'open',
      filled_quantity: 0,
      pending_quantity: 3,
      average_price: 0,
      rejection_reason: '',
    });
    await t.services.sandbox.service.cancelOrder(1, Number(mine.order.orderId));
    expect(await c.next((m) => m.type === 'order_update')).toMatchObject({
      orderid: mine.order.orderId,
      order_status: 'cancelled',
      pending_quantity: 0,
    });
    expect(c.received.filter((m) => m.type === 'order_update' && m.user_id !== 1)).toEqual([]);
    expect(await c.ask({ action: 'unsubscribe_orders' }, 'unsubscribe_orders')).toMatchObject({
      status: 'success',
    });
  });

  it('bad input gets its code and the socket stays usable; a frame over 64 KiB closes with 1009', async () => {
    const c = await authed();
    const err = (raw: FeedMessage | string) => {
      const reply = c.next((m) => m.status === 'error');
      c.send(raw);
      return reply;
    };
    expect(await err('{nope')).toMatchObject({ code: 'INVALID_JSON' });
    expect(await err({ action: 'trade' })).toMatchObject({
      code: 'INVALID_ACTION',
      message: 'Invalid action: trade',
    });
    expect(
      await err({ action: 'subscribe', symbols: [{ symbol: 'SBIN', exchange: 'NSE' }], mode: 9 }),
    ).toMatchObject({ code: 'INVALID_MODE' });
    const many = Array.from({ length: 1001 }, (_, i) => ({ symbol: `S${i}`, exchange: 'NSE' }));
    expect(await err({ action: 'subscribe', symbols: many })).toMatchObject({ code: 'INVALID_PARAMETERS' });
    expect((await c.ask({ action: 'ping' }, 'pong')).status).toBe('success');
    c.send(JSON.stringify({ action: 'ping', pad: 'x'.repeat(70 * 1024) }));
    expect((await c.closed).code).toBe(1009);
  });

  it('hostile frames each get an error; the socket and its neighbours keep working', async () => {
    const c = await authed();
    const neighbour = await authed();
    const hostile: string[] = [
      '['.repeat(20_000) + ']'.repeat(20_000), // nesting deep enough to exhaust a recursive parser
      '{"__proto__":{"action":"subscribe"}}',
      JSON.stringify({ action: 'subscribe', symbols: [{ symbol: '__proto__', exchange: 'constructor' }] }),
      JSON.stringify({
        action: 'subscribe',
        symbols: [{ symbol: 'SBIN', exchange: 'NSE' }],
        mode: { $gt: 1 },
      }),
      JSON.stringify({ action: 'subscribe', symbols: 'SBIN' }),
      JSON.stringify({ action: 'subscribe', symbols: [null, 1, 'x'] }),
      JSON.stringify({ action: 'unsubscribe', symbols: [{ symbol: 'SBIN', exchange: 'NSE', mode: -1 }] }),
      JSON.stringify({ action: 'ping', timestamp: { toString: 1 }, _pingId: ['a'] }),
      JSON.stringify({ action: '\u0000\u202e<script>' }),
      JSON.stringify({ action: 'authenticate', api_key: { $ne: '' } }),
      'null',
      '"just a string"',
      '1e309',
    ];
    for (const frame of hostile) {
      const reply = c.next(
        (m) =>
          m.status === 'error' || m.type === 'subscribe' || m.type === 'pong' || m.type === 'unsubscribe',
      );
      c.send(frame);
      const m = await reply;
      // Either a clear error, or (for the unknown symbol and the ping) a well-formed answer.
      if (m.status === 'error') expect(typeof m.message).toBe('string');
      expect(JSON.stringify(m)).not.toContain('<script>');
    }
    c.socket.send(Buffer.from([0xff, 0x00, 0x13]), { binary: true });
    expect(await c.next((m) => m.status === 'error')).toMatchObject({ code: 'INVALID_JSON' });
    expect((await c.ask({ action: 'ping' }, 'pong')).status).toBe('success');
    expect((await neighbour.ask({ action: 'ping' }, 'pong')).status).toBe('success');
  });

  it('a banned address is refused before the upgrade', async () => {
    const { t: t2 } = await appWithAdmin(dialect, { env: { TRUST_PROXY_HEADERS: 'true' } });
    try {
      await t2.services.security.bans.ban({
        ip: '203.0.113.9',
        reason: 'test',
        durationHours: 0,
        permanent: true,
        force: false,
        by: 'admin',
      });
      const at = await t2.app.feed.server.listen('127.0.0.1', 0);
      const refused = FeedTestClient.open(`ws://127.0.0.1:${at.port}`, { 'x-forwarded-for': '203.0.113.9' });
      await expect(refused).rejects.toMatchObject({ status: 403 });
      const ok = await FeedTestClient.open(`ws://127.0.0.1:${at.port}`, {
        'x-forwarded-for': '203.0.113.10',
      });
      await ok.close();
    } finally {
      await t2.close();
    }
  });

  it('GET /api/websocket/config tells a logged-in browser where the feed is', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/websocket/config',
      headers: { ...asBrowser(admin), host: 'desk.local:5000' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      status: 'success',
      websocket_url: 'ws://desk.local:8765',
      is_secure: false,
      original_url: 'ws://desk.local:8765',
    });
    expect((await t.app.inject({ method: 'GET', url: '/api/websocket/config' })).statusCode).toBe(401);
  });
});

describe('the feed port without authentication', () => {
  it('answers a plain HTTP request with 426', async () => {
    const { t } = await appWithAdmin('sqlite');
    try {
      const at = await t.app.feed.server.listen('127.0.0.1', 0);
      const res = await fetch(`http://127.0.0.1:${at.port}/`);
      expect(res.status).toBe(426);
    } finally {
      await t.close();
    }
  });
});

describeEachDb('the live feed on the HTTP port: /ws', (dialect) => {
  it('a client without a session speaks the same protocol with its API key; a session socket is already authenticated', async () => {
    const { t, admin } = await appWithAdmin(dialect, {
      env: { SANDBOX_PRICE_SOURCE: 'scripted', FEED_POLL_MS: '100' },
    });
    const clients: FeedTestClient[] = [];
    try {
      await importContract(t, 'zerodha', miniKiteContract());
      t.clock.set(T0);
      (t.services.sandbox.prices() as ScriptedFeed).push({ 'NSE:SBIN': quote(800, T0) });
      const apikey = (await t.services.auth.apiKeys.regenerate(1)).apikey;
      await t.app.listen({ host: '127.0.0.1', port: 0 });
      const url = `ws://127.0.0.1:${(t.app.server.address() as { port: number }).port}/ws`;

      const api = await FeedTestClient.open(url);
      clients.push(api);
      // The error codes are the same on /ws.
      const err = (frame: Record<string, unknown> | string) => {
        const reply = api.next((m) => m.status === 'error');
        api.send(frame);
        return reply;
      };
      expect(await err('{nope')).toMatchObject({ code: 'INVALID_JSON' });
      expect(await err({ action: 'trade' })).toMatchObject({ code: 'INVALID_ACTION' });
      expect(await err({ action: 'authenticate', api_key: 'f'.repeat(64) })).toMatchObject({
        code: 'AUTHENTICATION_ERROR',
      });
      expect(
        await api.ask({ action: 'subscribe', symbols: [{ symbol: 'SBIN', exchange: 'NSE' }] }, 'subscribe'),
      ).toMatchObject({ code: 'NOT_AUTHENTICATED' });
      expect(await api.ask({ action: 'authenticate', api_key: apikey }, 'auth')).toMatchObject({
        status: 'success',
        user_id: 1,
      });
      expect(
        await err({ action: 'subscribe', symbols: [{ symbol: 'SBIN', exchange: 'NSE' }], mode: 7 }),
      ).toMatchObject({ code: 'INVALID_MODE' });
      await api.ask(
        { action: 'subscribe', symbols: [{ symbol: 'SBIN', exchange: 'NSE' }], mode: 'LTP' },
        'subscribe',
      );
      expect((await api.next((m) => m.type === 'market_data')).data).toEqual({
        ltp: 800,
        ltt: T0,
        timestamp: T0,
      });

      // The console's socket: the session is its authentication; feed commands work at once.
      const page = await FeedTestClient.open(url, { cookie: admin.cookie });
      clients.push(page);
      const ack = await page.ask(
        { action: 'subscribe', symbols: [{ symbol: 'SBIN', exchange: 'NSE' }], mode: 'Quote' },
        'subscribe',
      );
      expect(ack).toMatchObject({ status: 'success' });
      expect((await page.next((m) => m.type === 'market_data')).data).toMatchObject({ ltp: 800, high: 810 });
      // One upstream for both sockets.
      expect(t.app.feed.hub.upstreamCount).toBe(1);

      // A stale or forged session cookie is still refused before the upgrade.
      await expect(
        FeedTestClient.open(url, { cookie: `algodesk_session=${'f'.repeat(64)}` }),
      ).rejects.toMatchObject({
        status: 401,
      });
    } finally {
      await Promise.all(clients.map((c) => c.close()));
      await t.close();
    }
  });
});

describe('the feed connection rate on both listeners', () => {
  it('FEED_CONNECT_RATE_LIMIT counts new feed sockets per address on the feed port and on /ws alike', async () => {
    const { t } = await appWithAdmin('sqlite', { env: { FEED_CONNECT_RATE_LIMIT: '3 per minute' } });
    const open: FeedTestClient[] = [];
    try {
      await t.app.listen({ host: '127.0.0.1', port: 0 });
      const own = await t.app.feed.server.listen('127.0.0.1', 0);
      const ws = `ws://127.0.0.1:${(t.app.server.address() as { port: number }).port}/ws`;
      const port = `ws://127.0.0.1:${own.port}`;
      for (const url of [port, ws, port]) open.push(await FeedTestClient.open(url));
      // The fourth, on either listener, is over the address's three a minute.
      for (const url of [ws, port])
        await expect(FeedTestClient.open(url)).rejects.toMatchObject({ status: 429 });
    } finally {
      await Promise.all(open.map((c) => c.close()));
      await t.close();
    }
  });
});

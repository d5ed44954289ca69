/**
 * Orders issue, "Done when": every row of the spec's "Errors → Order placement" table through
 * `POST /api/v1/placeorder`, in analyzer mode and in live mode (one app, switched between them by
 * the administrator's route), against the loopback Kite Connect stub. Each refusal is checked for
 * what it must and must not leave behind: the answer, the order or analyzer log row, the order
 * event, and the requests the broker received. (The broker's own statuses passed through are
 * in orders-live.test.ts for Zerodha and orders-upstox-live.test.ts for Upstox.)
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { KiteOrderStub } from '../helpers/broker-order-stubs.js';
import { KITE_CREDS, freshIp, startKiteOrders, type OrdersApp } from '../helpers/orders-app.js';
import { SecretBox } from '../../src/platform/crypto.js';
import { createUser, describeEachDb } from '../helpers/test-app.js';

const order = (extra: Record<string, unknown> = {}) => ({
  strategy: 'status-table',
  symbol: 'SBIN',
  exchange: 'NSE',
  action: 'BUY',
  quantity: 1,
  pricetype: 'LIMIT',
  price: '800.5',
  product: 'CNC',
  ...extra,
});
/** Both modes: the name shown in the test title, and whether it is analyzer mode. */
const MODES = [
  ['analyzer', true],
  ['live', false],
] as const;
const REQUIRED = 'Missing data for required field.';

describeEachDb('placeorder: the status table of "Errors → Order placement", in both modes', (dialect) => {
  let stub: KiteOrderStub;
  let o: OrdersApp;

  beforeAll(async () => {
    ({ stub, o } = await startKiteOrders(dialect, ['SBIN', 'NIFTY2681826000CE'], {
      timeoutMs: 1_000,
      // Low, so the 429 row is reachable; every other call comes from an address of its own.
      env: { ORDER_RATE_LIMIT: '3 per second' },
    }));
  });
  afterAll(async () => {
    await o?.close();
    await stub?.close();
  });
  beforeEach(() => {
    stub.omitOrderId = false;
  });

  /** What a refused call must not leave behind: log rows, events, broker requests, queued orders. */
  const trail = async () => ({
    order_logs: (await o.logs('order_logs')).length,
    analyzer_logs: (await o.logs('analyzer_logs')).length,
    events: o.events.length,
    broker_requests: stub.requests.length,
    pending_orders: (await o.t.db.database.db.selectFrom('pending_orders').select('id').execute()).length,
  });
  /** The mode field: `analyze` in analyzer mode, absent in live mode. */
  const expectModeTag = (body: Record<string, unknown>, analyze: boolean) => {
    if (analyze) expect(body.mode).toBe('analyze');
    else expect(body).not.toHaveProperty('mode');
  };

  describe('request schema validation fails → 400 with messages keyed by field, before anything else (step 1)', () => {
    it.each(MODES)(
      '%s mode: every failing field named; nothing logged, published or sent',
      async (_m, analyze) => {
        await o.setMode(analyze);
        const before = await trail();
        const res = await o.api('placeorder', { symbol: 'SBIN', quantity: 0 });
        expect(res.statusCode).toBe(400);
        const body = res.json();
        expect(body).toMatchObject({
          status: 'error',
          message: {
            strategy: [REQUIRED],
            exchange: [REQUIRED],
            action: [REQUIRED],
            quantity: expect.arrayContaining([expect.any(String)]),
          },
        });
        expect(Object.keys(body.message)).not.toContain('symbol');
        expectModeTag(body, analyze);
        expect(await trail()).toEqual(before);
      },
    );
  });

  describe('missing field, invalid exchange, action, price type or product → 400 naming the field', () => {
    const CASES = [
      ['a missing symbol', { symbol: undefined }, 'symbol'],
      ['exchange NYSE', { exchange: 'NYSE' }, 'exchange'],
      ['action HOLD', { action: 'HOLD' }, 'action'],
      ['price type STOP', { pricetype: 'STOP' }, 'pricetype'],
      ['product BO', { product: 'BO' }, 'product'],
    ] as const;
    it.each(
      MODES.flatMap(([m, analyze]) =>
        CASES.map(([name, extra, field]) => [m, name, field, analyze, extra] as const),
      ),
    )('%s mode: %s → 400 keyed by %s', async (_m, _name, field, analyze, extra) => {
      await o.setMode(analyze);
      const before = await trail();
      const res = await o.api('placeorder', order(extra));
      expect(res.statusCode).toBe(400);
      const body = res.json();
      expect(body.status).toBe('error');
      expect(Object.keys(body.message)).toEqual([field]);
      expectModeTag(body, analyze);
      expect(await trail()).toEqual(before);
    });
  });

  describe('a call without an API key → 400 (the "analyzer-mode call without API key" row; live alike)', () => {
    it.each(MODES)('%s mode: 400 {apikey: required}; nothing logged or published', async (_m, analyze) => {
      await o.setMode(analyze);
      const before = await trail();
      const res = await o.api('placeorder', order(), { apikey: null });
      expect(res.statusCode).toBe(400);
      const body = res.json();
      expect(body).toMatchObject({ status: 'error', message: { apikey: [REQUIRED] } });
      expectModeTag(body, analyze);
      expect(await trail()).toEqual(before);
    });
  });

  describe('an invalid or revoked API key → 403, deliberately not logged and no order event (step 4)', () => {
    it.each(MODES)('%s mode: an unknown key', async (_m, analyze) => {
      await o.setMode(analyze);
      const before = await trail();
      const res = await o.api('placeorder', order(), { apikey: 'f'.repeat(64) });
      expect(res.statusCode).toBe(403);
      const body = res.json();
      expect(body).toMatchObject({ status: 'error', message: 'Invalid algodesk apikey' });
      expectModeTag(body, analyze);
      expect(await trail()).toEqual(before);
    });

    it.each(MODES)(
      '%s mode: a regenerated key’s old value, even right after it was used',
      async (_m, analyze) => {
        await o.setMode(analyze);
        const username = `revoked-${analyze ? 'a' : 'l'}`;
        const user = await createUser(o.t, username, 'revoked horse battery');
        const old = (await o.t.services.auth.apiKeys.regenerate(user.id)).apikey;
        // Used once, so the key sits in the principal cache when it is revoked.
        expect((await o.api('ping', {}, { apikey: old })).statusCode).toBe(200);
        const current = (await o.t.services.auth.apiKeys.regenerate(user.id)).apikey;
        const before = await trail();
        const res = await o.api('placeorder', order(), { apikey: old });
        expect(res.statusCode).toBe(403);
        const body = res.json();
        expect(body).toMatchObject({ status: 'error', message: 'Invalid algodesk apikey' });
        expectModeTag(body, analyze);
        expect(await trail()).toEqual(before);
        expect((await o.api('ping', {}, { apikey: current })).statusCode).toBe(200);
      },
    );
  });

  describe('the broker module cannot be loaded → 404 "Broker-specific module not found" and order.failed (live, step 6)', () => {
    it('a session of a broker without a module: 404, an order.failed row naming that broker, nothing sent', async () => {
      await o.setMode(false);
      await o.t.services.brokers.sessions.set(1, 'nobroker', { accessToken: 'whatever-token' });
      try {
        const before = await trail();
        const res = await o.api('placeorder', order());
        expect(res.statusCode).toBe(404);
        expect(res.json()).toEqual({ status: 'error', message: 'Broker-specific module not found' });
        const row = (await o.logs('order_logs')).at(-1)!;
        expect(row).toMatchObject({ event: 'order.failed', broker: 'nobroker', status_code: 404 });
        expect(JSON.parse(row.response as string)).toMatchObject({
          message: 'Broker-specific module not found',
        });
        expect(o.events.at(-1)).toMatchObject({ name: 'order.failed', mode: 'live', statusCode: 404 });
        expect(stub.requests.length).toBe(before.broker_requests);
      } finally {
        await o.t.services.brokers.sessions.set(1, 'zerodha', { accessToken: KITE_CREDS.accessToken });
      }
    });
  });

  describe('a broker session this install cannot decrypt → 403 asking for a new broker login', () => {
    it('a session sealed under another APP_KEY: 403, order.failed, nothing sent, no secret in the answer', async () => {
      await o.setMode(false);
      const foreign = new SecretBox('a-different-app-key-0123456789abcdef012345', 'broker-token');
      await o.t.services.brokers.sessions.clear(1);
      await o.t.db.database.db
        .insertInto('broker_sessions')
        .values({
          user_id: 1,
          broker: 'zerodha',
          access_token_encrypted: foreign.seal(KITE_CREDS.accessToken),
          broker_user_id: null,
          expires_at: null,
          created_at: o.t.clock.now(),
        })
        .execute();
      try {
        const before = await trail();
        const res = await o.api('placeorder', order());
        expect(res.statusCode).toBe(403);
        expect(res.json()).toEqual({
          status: 'error',
          message: expect.stringMatching(/cannot be read.*log in to your broker again/),
        });
        expect(res.body).not.toContain(KITE_CREDS.accessToken);
        expect((await o.logs('order_logs')).at(-1)).toMatchObject({
          event: 'order.failed',
          status_code: 403,
        });
        expect(stub.requests.length).toBe(before.broker_requests);
      } finally {
        await o.t.services.brokers.sessions.set(1, 'zerodha', { accessToken: KITE_CREDS.accessToken });
      }
    });
  });

  describe('a live order needs the session broker’s own master contract → 409', () => {
    it('an Upstox session with Zerodha’s contract loaded: 409 naming both, order.failed, nothing sent', async () => {
      await o.setMode(false);
      await o.t.services.brokers.sessions.set(1, 'upstox', { accessToken: 'eyJsomeUpstoxToken' });
      try {
        const before = await trail();
        const res = await o.api('placeorder', order());
        expect(res.statusCode).toBe(409);
        expect(res.json()).toMatchObject({
          status: 'error',
          message: expect.stringMatching(/zerodha.*upstox/),
        });
        expect((await o.logs('order_logs')).at(-1)).toMatchObject({
          event: 'order.failed',
          broker: 'upstox',
          status_code: 409,
        });
        expect(stub.requests.length).toBe(before.broker_requests);
      } finally {
        await o.t.services.brokers.sessions.set(1, 'zerodha', { accessToken: KITE_CREDS.accessToken });
      }
    });
  });

  describe('the broker answers without an order id, or not in time (live, step 8)', () => {
    it('a "success" without an order id → 500 and an order.failed row with that status', async () => {
      await o.setMode(false);
      stub.omitOrderId = true;
      const res = await o.api('placeorder', order());
      expect(res.statusCode).toBe(500);
      expect(res.json()).toEqual({
        status: 'error',
        message: expect.stringMatching(/success without an order id/),
      });
      expect((await o.logs('order_logs')).at(-1)).toMatchObject({
        event: 'order.failed',
        broker: 'zerodha',
        status_code: 500,
      });
    });

    it('no answer within BROKER_TIMEOUT_MS → 504 and an order.failed row with that status', async () => {
      await o.setMode(false);
      const sent = stub.forms('/orders/regular').length;
      stub.delayNext(3_000);
      const res = await o.api('placeorder', order());
      expect(res.statusCode).toBe(504);
      expect(res.json()).toMatchObject({ status: 'error', message: expect.any(String) });
      expect(stub.forms('/orders/regular')).toHaveLength(sent + 1);
      expect((await o.logs('order_logs')).at(-1)).toMatchObject({
        event: 'order.failed',
        broker: 'zerodha',
        status_code: 504,
      });
      expect(o.events.at(-1)).toMatchObject({ name: 'order.failed', statusCode: 504 });
    });
  });

  describe('an unhandled exception → 500 with a generic message and an order.failed event', () => {
    const INTERNAL = 'SQLITE_IOERR: disk I/O error reading /srv/algodesk/data/algodesk.db';
    it.each(MODES)('%s mode: the instrument lookup throws', async (_m, analyze) => {
      await o.setMode(analyze);
      const spy = vi.spyOn(o.t.services.market.contracts, 'get').mockRejectedValueOnce(new Error(INTERNAL));
      try {
        const before = await trail();
        const res = await o.api('placeorder', order());
        expect(res.statusCode).toBe(500);
        const body = res.json();
        expect(body).toMatchObject({ status: 'error', message: 'Internal error while placing the order' });
        expectModeTag(body, analyze);
        expect(res.body).not.toContain('SQLITE_IOERR');
        const table = analyze ? 'analyzer_logs' : 'order_logs';
        const rows = await o.logs(table);
        expect(rows).toHaveLength(before[table] + 1);
        expect(rows.at(-1)).toMatchObject({
          event: 'order.failed',
          api_type: 'placeorder',
          status_code: 500,
        });
        expect(rows.at(-1)!.response).not.toContain('SQLITE_IOERR');
        expect(o.events.at(-1)).toMatchObject({ name: 'order.failed', mode: analyze ? 'analyze' : 'live' });
        expect(stub.requests.length).toBe(before.broker_requests);
      } finally {
        spy.mockRestore();
      }
    });

    it('live mode: the broker session cannot be opened (decryption fails)', async () => {
      await o.setMode(false);
      const spy = vi
        .spyOn(o.t.services.brokers.sessions, 'get')
        .mockRejectedValueOnce(new Error('Unsupported state or unable to authenticate data'));
      try {
        const before = await trail();
        const res = await o.api('placeorder', order());
        expect(res.statusCode).toBe(500);
        expect(res.json()).toEqual({ status: 'error', message: 'Internal error while placing the order' });
        expect((await o.logs('order_logs')).at(-1)).toMatchObject({
          event: 'order.failed',
          status_code: 500,
        });
        expect(stub.requests.length).toBe(before.broker_requests);
      } finally {
        spy.mockRestore();
      }
    });
  });

  describe('queueing for approval fails → order.failed and the pipeline’s generic 500, tagged in analyzer mode', () => {
    it.each(MODES)('%s mode: queueing a semi-automatic order fails', async (_m, analyze) => {
      await o.setMode(analyze);
      await o.t.services.auth.apiKeys.setOrderMode(1, 'semi_auto');
      const spy = vi
        .spyOn(o.t.services.orders.actionCenter, 'queue')
        .mockRejectedValueOnce(new Error('SQLITE_FULL: database or disk is full'));
      try {
        const res = await o.api('placeorder', order());
        expect(res.statusCode).toBe(500);
        const body = res.json();
        expect(body).toMatchObject({ status: 'error', message: 'Internal error while placing the order' });
        expectModeTag(body, analyze);
        expect(res.body).not.toContain('SQLITE_FULL');
        await o.t.services.orders.events.whenIdle();
        expect(o.events.at(-1)).toMatchObject({
          name: 'order.failed',
          mode: analyze ? 'analyze' : 'live',
          statusCode: 500,
        });
      } finally {
        spy.mockRestore();
        await o.t.services.auth.apiKeys.setOrderMode(1, 'auto');
      }
    });
  });

  describe('the order rate limit (ORDER_RATE_LIMIT) → 429, tagged with the mode in analyzer mode', () => {
    it.each(MODES)('%s mode: the fourth call within the second from one address', async (_m, analyze) => {
      await o.setMode(analyze);
      const ip = freshIp();
      for (let i = 0; i < 3; i++)
        expect((await o.api('placeorder', { symbol: 'SBIN' }, { ip })).statusCode).toBe(400);
      const before = await trail();
      const res = await o.api('placeorder', order(), { ip });
      expect(res.statusCode).toBe(429);
      expect(res.headers['retry-after']).toBe('1');
      const body = res.json();
      expect(body).toMatchObject({ status: 'error', message: expect.stringMatching(/^Rate limit exceeded/) });
      expectModeTag(body, analyze);
      expect(await trail()).toEqual(before);
    });
  });

  describe('step 3: order data validated again; a failure is order.failed in live mode, analyzer.error in analyzer mode', () => {
    const CASES = [
      ['LIMIT without a price', order({ price: '0' }), /price must be greater than 0/],
      [
        'F&O quantity off the lot size',
        order({ symbol: 'NIFTY18AUG2626000CE', exchange: 'NFO', quantity: 10, product: 'NRML' }),
        /lot size 65/,
      ],
      ['a symbol not in the master contract', order({ symbol: 'NOSUCH' }), /not found on NSE/],
    ] as const;
    it.each(
      MODES.flatMap(([m, analyze]) =>
        CASES.map(([name, body, msg]) => [m, name, analyze, body, msg] as const),
      ),
    )(
      '%s mode: %s → 400 and the event in that mode’s log; the broker is not called',
      async (_m, _name, analyze, body, msg) => {
        await o.setMode(analyze);
        const before = await trail();
        const res = await o.api('placeorder', body);
        expect(res.statusCode).toBe(400);
        expect(res.json()).toMatchObject({ status: 'error', message: expect.stringMatching(msg) });
        expectModeTag(res.json(), analyze);
        const table = analyze ? 'analyzer_logs' : 'order_logs';
        const rows = await o.logs(table);
        expect(rows).toHaveLength(before[table] + 1);
        expect(rows.at(-1)).toMatchObject({
          event: analyze ? 'analyzer.error' : 'order.failed',
          api_type: 'placeorder',
          status_code: 400,
        });
        const other = analyze ? 'order_logs' : 'analyzer_logs';
        expect((await o.logs(other)).length).toBe(before[other]);
        expect(stub.requests.length).toBe(before.broker_requests);
      },
    );
  });
});

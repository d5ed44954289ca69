/**
 * Orders issue: `POST /api/v1/placeorder` in live mode through the Upstox v2 adapter, against the
 * loopback Upstox stub and a master contract cut from the real Upstox file (2026-02-05): the
 * broker's statuses passed through the whole pipeline, success without an order id, timeouts,
 * the session broker's contract rule, freeze-quantity splitting on BFO, CDS, BCD and MCX, and
 * the Upstox login (redirect → `/upstox/callback` → sealed session).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { upstoxError } from '../helpers/broker-quote-stubs.js';
import { startUpstoxOrderStub, type UpstoxOrderStub } from '../helpers/broker-order-stubs.js';
import { importContract } from '../helpers/contracts.js';
import {
  UPSTOX_CREDS,
  kiteContract,
  startOrdersApp,
  upstoxContract,
  type OrdersApp,
} from '../helpers/orders-app.js';
import { describeEachDb } from '../helpers/test-app.js';

/** Real Upstox instruments: SBIN, and one future on each F&O exchange the Kite snapshots lack. */
const INSTRUMENTS = {
  SBIN: { key: 'NSE_EQ|INE062A01020', symbol: 'SBIN', exchange: 'NSE', lot: 1 },
  SENSEX: { key: 'BSE_FO|825565', symbol: 'SENSEX25MAR26FUT', exchange: 'BFO', lot: 20 },
  USDINR_CDS: { key: 'NCD_FO|2264', symbol: 'USDINR25MAR26FUT', exchange: 'CDS', lot: 1 },
  USDINR_BCD: { key: 'BCD_FO|1027212', symbol: 'USDINR25JUN26FUT', exchange: 'BCD', lot: 1 },
  CRUDEOIL: { key: 'MCX_FO|472789', symbol: 'CRUDEOIL19MAR26FUT', exchange: 'MCX', lot: 100 },
} as const;
const PLACE = '/v2/order/place';
const order = (extra: Record<string, unknown> = {}) => ({
  strategy: 'upstox-live',
  symbol: 'SBIN',
  exchange: 'NSE',
  action: 'BUY',
  quantity: 1,
  pricetype: 'LIMIT',
  price: '800.5',
  product: 'CNC',
  ...extra,
});

describeEachDb('placeorder in live mode through the Upstox adapter', (dialect) => {
  let stub: UpstoxOrderStub;
  let o: OrdersApp;

  beforeAll(async () => {
    stub = await startUpstoxOrderStub(UPSTOX_CREDS);
    o = await startOrdersApp(dialect, {
      broker: 'upstox',
      stubUrl: stub.url,
      contract: upstoxContract(Object.values(INSTRUMENTS).map((i) => i.key)),
      timeoutMs: 1_000,
    });
    await o.setMode(false);
  });
  afterAll(async () => {
    await o?.close();
    await stub?.close();
  });
  beforeEach(() => {
    stub.omitOrderId = false;
  });

  describe('steps 7-8: the order goes to Upstox as its JSON body; a 200 publishes order.placed', () => {
    it('answers the broker’s order id; the body carries the instrument key; the log has no credential', async () => {
      const res = await o.api('placeorder', order());
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ status: 'success', orderid: expect.stringMatching(/^\d{15}$/) });
      expect(stub.bodies(PLACE).at(-1)).toMatchObject({
        instrument_token: INSTRUMENTS.SBIN.key,
        transaction_type: 'BUY',
        order_type: 'LIMIT',
        product: 'D',
        quantity: 1,
        price: 800.5,
      });
      const logs = await o.logs('order_logs');
      expect(logs.at(-1)).toMatchObject({
        event: 'order.placed',
        broker: 'upstox',
        status_code: 200,
        order_id: res.json().orderid,
      });
      expect(JSON.stringify(logs)).not.toContain(o.apikey);
      expect(JSON.stringify(logs)).not.toContain(UPSTOX_CREDS.accessToken);
    });
  });

  describe('step 8: Upstox’s status is passed through the pipeline, never rewritten', () => {
    it.each([
      [400, 'UDAPI1056', "The 'order_type' is invalid"],
      [401, 'UDAPI100050', 'Invalid token used to access API'],
      [403, 'UDAPI100060', 'Resource not Found or the user does not have permission'],
      [500, 'UDAPI100500', 'Something went wrong, please try again'],
    ])(
      'Upstox %d (%s): the same status, Upstox’s message and an order.failed row',
      async (status, code, msg) => {
        stub.failNext(status, upstoxError(code, msg));
        const res = await o.api('placeorder', order());
        expect(res.statusCode).toBe(status);
        expect(res.json()).toMatchObject({ status: 'error', message: expect.stringContaining(msg) });
        expect((await o.logs('order_logs')).at(-1)).toMatchObject({
          event: 'order.failed',
          broker: 'upstox',
          status_code: status,
        });
      },
    );

    it('a "success" without an order id → 500 and an order.failed row', async () => {
      stub.omitOrderId = true;
      const res = await o.api('placeorder', order());
      expect(res.statusCode).toBe(500);
      expect(res.json()).toMatchObject({
        status: 'error',
        message: expect.stringMatching(/without an order id/),
      });
      expect((await o.logs('order_logs')).at(-1)).toMatchObject({ event: 'order.failed', status_code: 500 });
    });

    it('no answer within BROKER_TIMEOUT_MS → 504 and an order.failed row', async () => {
      stub.delayNext(3_000);
      const res = await o.api('placeorder', order());
      expect(res.statusCode).toBe(504);
      expect((await o.logs('order_logs')).at(-1)).toMatchObject({
        event: 'order.failed',
        broker: 'upstox',
        status_code: 504,
      });
    });
  });

  describe('a live order needs the session broker’s own master contract → 409', () => {
    it('a Zerodha session with Upstox’s contract loaded: 409, order.failed, nothing sent to any broker', async () => {
      await o.t.services.brokers.sessions.set(1, 'zerodha', { accessToken: 'kiteSomeOtherToken' });
      try {
        const sent = stub.requests.length;
        const res = await o.api('placeorder', order());
        expect(res.statusCode).toBe(409);
        expect(res.json().message).toMatch(/upstox.*zerodha/);
        expect((await o.logs('order_logs')).at(-1)).toMatchObject({
          event: 'order.failed',
          status_code: 409,
        });
        expect(stub.requests.length).toBe(sent);
      } finally {
        await o.t.services.brokers.sessions.set(1, 'upstox', {
          accessToken: stub.credentials.accessToken,
        });
      }
    });
  });

  describe('another broker’s file going live leaves Upstox mapped by its own (docs/rules/brokers.md#broker-apps)', () => {
    it('Zerodha’s file imported over Upstox’s: the next Upstox order still goes out with Upstox’s instrument key', async () => {
      expect((await o.api('placeorder', order())).statusCode).toBe(200);
      const sent = stub.requests.length;
      await importContract(o.t, 'zerodha', kiteContract(['SBIN']));
      try {
        expect(await o.t.services.market.imports.liveBroker()).toBe('zerodha');
        const res = await o.api('placeorder', order());
        expect(res.statusCode, res.body).toBe(200);
        const placed = stub.requests.slice(sent).filter((r) => r.method === 'POST');
        expect(
          placed.map((r) => (JSON.parse(r.body) as { instrument_token: string }).instrument_token),
        ).toEqual([INSTRUMENTS.SBIN.key]);
      } finally {
        await importContract(o.t, 'upstox', upstoxContract(Object.values(INSTRUMENTS).map((i) => i.key)));
      }
      expect((await o.api('placeorder', order())).statusCode).toBe(200);
    });
  });

  describe('freeze quantity: an order above it is split on every F&O exchange, children in whole lots', () => {
    // exchange, name, instrument, underlying, freeze quantity, order quantity, expected children.
    const CASES = [
      ['BFO', 'SENSEX future 100 (lot 20, freeze 50)', INSTRUMENTS.SENSEX, 'SENSEX', 50, 100, [40, 40, 20]],
      [
        'CDS',
        'USDINR future 25000 (lot 1, freeze 10000)',
        INSTRUMENTS.USDINR_CDS,
        'USDINR',
        10_000,
        25_000,
        [10_000, 10_000, 5_000],
      ],
      [
        'BCD',
        'USDINR future 7000 (lot 1, freeze 3000)',
        INSTRUMENTS.USDINR_BCD,
        'USDINR',
        3_000,
        7_000,
        [3_000, 3_000, 1_000],
      ],
      [
        'MCX',
        'CRUDEOIL future 500 (lot 100, freeze 250)',
        INSTRUMENTS.CRUDEOIL,
        'CRUDEOIL',
        250,
        500,
        [200, 200, 100],
      ],
    ] as const;
    beforeAll(async () => {
      for (const [exchange, , , underlying, freeze] of CASES)
        await o.t.services.marketAdmin.freeze.add({ exchange, symbol: underlying, freeze_qty: freeze });
    });

    it.each(CASES)(
      '%s: %s → one Upstox order per whole-lot child, every id answered',
      async (_exchange, _name, inst, _underlying, _freeze, quantity, sizes) => {
        const sent = stub.bodies(PLACE).length;
        const res = await o.api(
          'placeorder',
          order({
            symbol: inst.symbol,
            exchange: inst.exchange,
            quantity,
            pricetype: 'MARKET',
            product: 'NRML',
          }),
        );
        expect(res.statusCode).toBe(200);
        const body = res.json();
        expect(body.orderids).toHaveLength(sizes.length);
        expect(body.orderid).toBe(body.orderids[0]);
        const children = stub.bodies(PLACE).slice(sent);
        expect(children.map((b) => [b.instrument_token, b.quantity])).toEqual(
          sizes.map((q) => [inst.key, q]),
        );
        // One order.placed row per child with its quantity (the workers may write them in any order).
        const byId = (a: unknown[], b: unknown[]) => String(a[1]).localeCompare(String(b[1]));
        const placed = (await o.logs('order_logs')).filter((r) => body.orderids.includes(r.order_id));
        expect(
          placed.map((r) => [r.event, r.order_id, JSON.parse(r.request as string).quantity]).sort(byId),
        ).toEqual(sizes.map((q, i) => ['order.placed', body.orderids[i], q]).sort(byId));
      },
    );

    it('MCX: an order at the child size is one order without orderids', async () => {
      const sent = stub.bodies(PLACE).length;
      const inst = INSTRUMENTS.CRUDEOIL;
      const res = await o.api(
        'placeorder',
        order({ symbol: inst.symbol, exchange: 'MCX', quantity: 200, product: 'NRML' }),
      );
      expect(res.statusCode).toBe(200);
      expect(res.json()).not.toHaveProperty('orderids');
      expect(
        stub
          .bodies(PLACE)
          .slice(sent)
          .map((b) => b.quantity),
      ).toEqual([200]);
    });
  });

  describe('broker login: redirect to Upstox, code exchanged at /upstox/callback, session sealed at rest', () => {
    it('a callback without state is refused (400) before the code is spent, and no session is stored', async () => {
      expect((await o.web('DELETE', '/broker/session')).statusCode).toBe(200);
      try {
        const code = stub.issueCode();
        const res = await o.web('GET', `/upstox/callback?code=${code}`);
        expect(res.statusCode).toBe(400);
        expect(res.json().message).toMatch(/state is missing, invalid or expired/);
        expect(stub.requests.filter((r) => r.path === '/v2/login/authorization/token')).toHaveLength(0);
        expect(stub.codes.has(code)).toBe(true);
        expect((await o.web('GET', '/broker/session')).json()).toEqual({ status: 'success', data: null });
        expect(await o.t.db.database.db.selectFrom('broker_sessions').selectAll().execute()).toEqual([]);
      } finally {
        await o.t.services.brokers.sessions.set(1, 'upstox', {
          accessToken: stub.credentials.accessToken,
        });
      }
    });

    it('GET /broker/login → the Upstox dialog with the state; the callback stores the new token sealed', async () => {
      const go = await o.web('GET', '/broker/login');
      expect(go.statusCode).toBe(302);
      const url = new URL(go.headers.location as string);
      expect(`${url.origin}${url.pathname}`).toBe('https://api.upstox.com/v2/login/authorization/dialog');
      expect(Object.fromEntries(url.searchParams)).toMatchObject({
        response_type: 'code',
        client_id: UPSTOX_CREDS.clientId,
        redirect_uri: UPSTOX_CREDS.redirectUri,
        state: expect.stringMatching(/^1\.\d+\.[0-9a-f]{32}$/),
      });
      const state = url.searchParams.get('state')!;
      const code = stub.issueCode();
      const forged = `${state.slice(0, -1)}${state.endsWith('0') ? '1' : '0'}`;
      expect((await o.web('GET', `/upstox/callback?code=${code}&state=${forged}`)).statusCode).toBe(400);
      const before = stub.credentials.accessToken;
      const ok = await o.web('GET', `/upstox/callback?code=${code}&state=${state}`);
      expect(ok.statusCode).toBe(200);
      expect(ok.json()).toEqual({ status: 'success', message: 'Logged in to upstox', broker: 'upstox' });
      const fresh = stub.credentials.accessToken;
      expect(fresh).not.toBe(before);
      expect((await o.t.services.brokers.sessions.get(1))?.session.accessToken).toBe(fresh);
      const row = await o.t.db.database.db
        .selectFrom('broker_sessions')
        .selectAll()
        .executeTakeFirstOrThrow();
      expect(row).toMatchObject({ user_id: 1, broker: 'upstox', broker_user_id: stub.userId });
      expect(row.access_token_encrypted).not.toContain(fresh);
      // The new session places orders (the stub accepts only the fresh token now).
      expect((await o.api('placeorder', order())).statusCode).toBe(200);
      const view = await o.web('GET', '/broker/session');
      expect(view.json()).toMatchObject({ status: 'success', data: { broker: 'upstox' } });
      expect(view.body).not.toContain(fresh);
      for (const line of o.t.logs) expect(line).not.toContain(fresh);
      // The code is single-use: a replay with a valid state is Upstox's refusal, not a new session.
      const replay = await o.web('GET', `/upstox/callback?code=${code}&state=${state}`);
      expect(replay.statusCode).toBe(400);
      expect((await o.t.services.brokers.sessions.get(1))?.session.accessToken).toBe(fresh);
    });
  });
});

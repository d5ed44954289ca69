/**
 * Orders issue: `POST /api/v1/placeorder` in live mode against a loopback Kite Connect v3 — spec
 * steps 4, 6-9 and the status table rows that need a broker: the broker's status passed through
 * (never rewritten to a generic 500), a success without an order id is an error, timeouts,
 * the order log, latency statistics, and pooled connections.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { kiteError } from '../helpers/broker-quote-stubs.js';
import { SLOWER_THAN_TIMEOUT_MS } from '../helpers/broker-stub.js';
import { startKiteOrderStub, type KiteOrderStub } from '../helpers/broker-order-stubs.js';
import { importContract } from '../helpers/contracts.js';
import { miniKiteContract } from '../helpers/sandbox.js';
import { appWithAdmin, asBrowser, describeEachDb, type Browser, type TestApp } from '../helpers/test-app.js';

const CREDS = { apiKey: 'kiteAPPkey77', apiSecret: 'kiteAPPsecret99', accessToken: 'kiteACCESStoken55' };
const order = (extra: Record<string, unknown> = {}) => ({
  strategy: 'live-test',
  symbol: 'SBIN',
  exchange: 'NSE',
  action: 'BUY',
  quantity: 1,
  pricetype: 'LIMIT',
  price: '800.5',
  product: 'CNC',
  ...extra,
});

describeEachDb('placeorder in live mode through the Zerodha adapter', (dialect) => {
  let stub: KiteOrderStub;
  let t: TestApp;
  let admin: Browser;
  let apikey: string;
  const place = (body: Record<string, unknown>, key = apikey) =>
    t.app.inject({ method: 'POST', url: '/api/v1/placeorder', payload: { apikey: key, ...body } });
  const orderLogs = async () => {
    await t.services.orders.events.whenIdle();
    return t.db.database.db.selectFrom('order_logs').selectAll().orderBy('id').execute();
  };

  beforeAll(async () => {
    stub = await startKiteOrderStub(CREDS);
    ({ t, admin } = await appWithAdmin(dialect, {
      env: {
        ...stub.appEnv(),
        BROKER_TIMEOUT_MS: '300',
        ORDER_RATE_LIMIT: '100000 per second',
      },
    }));
    await importContract(t, 'zerodha', miniKiteContract());
    apikey = (await t.services.auth.apiKeys.regenerate(1)).apikey;
    await t.services.brokers.sessions.set(1, 'zerodha', { accessToken: CREDS.accessToken });
  });
  afterAll(async () => {
    await t?.close();
    await stub?.close();
  });
  beforeEach(() => {
    stub.omitOrderId = false;
  });

  describe('steps 7-8: mapped, sent with the session, 200 publishes order.placed', () => {
    it('answers {status, orderid} with the broker’s id; the form carries Kite’s fields', async () => {
      const res = await place(order({ action: 'buy' }));
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ status: 'success', orderid: expect.stringMatching(/^\d{15}$/) });
      expect(stub.forms('/orders/regular').at(-1)).toMatchObject({
        tradingsymbol: 'SBIN',
        exchange: 'NSE',
        transaction_type: 'BUY',
        order_type: 'LIMIT',
        quantity: '1',
        price: '800.5',
        product: 'CNC',
      });
      const logs = await orderLogs();
      expect(logs.at(-1)).toMatchObject({ event: 'order.placed', broker: 'zerodha', status_code: 200 });
      expect(JSON.stringify(logs)).not.toContain(apikey);
      expect(JSON.stringify(logs)).not.toContain(CREDS.accessToken);
    });
  });

  describe('step 8: the broker’s status is passed through, never rewritten', () => {
    it.each([
      [400, 'InputException', 'Invalid `price`.'],
      [403, 'TokenException', 'Incorrect `api_key` or `access_token`.'],
      [429, 'NetworkException', 'Too many requests'],
      [500, 'GeneralException', 'Something went wrong'],
      [503, 'NetworkException', 'Service unavailable'],
    ])(
      'broker %d (%s): the same status, the broker’s message and an order.failed event',
      async (status, type, message) => {
        stub.failNext(status, kiteError(message, type));
        const res = await place(order());
        expect(res.statusCode).toBe(status);
        expect(res.json()).toMatchObject({ status: 'error', message });
        expect((await orderLogs()).at(-1)).toMatchObject({ event: 'order.failed', status_code: status });
      },
    );

    it('a "success" without an order id is an error (500)', async () => {
      stub.omitOrderId = true;
      const res = await place(order());
      expect(res.statusCode).toBe(500);
      expect(res.json().message).toMatch(/without an order id/);
    });

    it('a broker slower than BROKER_TIMEOUT_MS → 504', async () => {
      stub.delayNext(SLOWER_THAN_TIMEOUT_MS);
      const res = await place(order());
      expect(res.statusCode).toBe(504);
      expect(res.json()).toMatchObject({ status: 'error' });
    });
  });

  describe('step 4 and 6: no session, or no module for the broker', () => {
    it('a user without a broker session gets 403 and the broker is not called', async () => {
      const before = stub.requests.length;
      await t.services.brokers.sessions.clear(1);
      const res = await place(order());
      expect(res.statusCode).toBe(403);
      expect(stub.requests.length).toBe(before);
      await t.services.brokers.sessions.set(1, 'zerodha', { accessToken: CREDS.accessToken });
    });

    it('a session of a broker without a module → 404 "Broker-specific module not found" and order.failed', async () => {
      await t.services.brokers.sessions.set(1, 'nobroker', { accessToken: 'x' });
      const res = await place(order());
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ status: 'error', message: 'Broker-specific module not found' });
      expect((await orderLogs()).at(-1)).toMatchObject({ event: 'order.failed', status_code: 404 });
      await t.services.brokers.sessions.set(1, 'zerodha', { accessToken: CREDS.accessToken });
    });
  });

  describe('pooled keep-alive connections', () => {
    it('ten orders in a row reuse the pool’s connection', async () => {
      const before = stub.connections;
      for (let i = 0; i < 10; i++) expect((await place(order())).statusCode).toBe(200);
      expect(stub.connections - before).toBeLessThanOrEqual(1);
    });
  });

  describe('step 9: latency is recorded and summarised (GET /logs/api/latency/stats)', () => {
    it('every placement has a PLACE row; stats give percentiles and SLA shares per broker', async () => {
      await t.services.orders.latency.flush();
      const res = await t.app.inject({
        method: 'GET',
        url: '/logs/api/latency/stats?hours=1',
        headers: asBrowser(admin),
      });
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body.percentile_method).toBe('nearest-rank');
      expect(body.overall.count).toBeGreaterThanOrEqual(15);
      expect(body.by_broker.zerodha.count).toBe(body.overall.count);
      expect(body.overall.p50_ms).toBeLessThanOrEqual(body.overall.p99_ms);
      const logs = await t.app.inject({
        method: 'GET',
        url: '/logs/api/latency/logs?limit=5',
        headers: asBrowser(admin),
      });
      expect(logs.json().data[0]).toMatchObject({ label: 'PLACE', broker: 'zerodha', symbol: 'SBIN' });
    });
  });

  describe('broker login: redirect to the broker, code exchanged at the callback, session sealed at rest', () => {
    it('GET /broker/login → Kite login URL with the state; the callback stores the new session', async () => {
      const headers = asBrowser(admin);
      const go = await t.app.inject({ method: 'GET', url: '/broker/login', headers });
      expect(go.statusCode).toBe(302);
      const url = new URL(go.headers.location as string);
      expect(url.searchParams.get('api_key')).toBe(CREDS.apiKey);
      const state = new URLSearchParams(url.searchParams.get('redirect_params') ?? '').get('state');
      expect(state).toMatch(/^1\.\d+\.[0-9a-f]{32}$/);
      const token = stub.issueRequestToken();
      const bad = await t.app.inject({
        method: 'GET',
        // A forged state: the last hex digit changed (to one it is not).
        url: `/zerodha/callback?request_token=${token}&state=${state!.slice(0, -1)}${state!.endsWith('0') ? '1' : '0'}`,
        headers,
      });
      expect(bad.statusCode).toBe(400);
      const ok = await t.app.inject({
        method: 'GET',
        url: `/zerodha/callback?request_token=${token}&state=${state}`,
        headers,
      });
      expect(ok.statusCode).toBe(200);
      const fresh = stub.credentials.accessToken;
      expect(fresh).not.toBe(CREDS.accessToken);
      expect((await t.services.brokers.sessions.get(1))?.session.accessToken).toBe(fresh);
      const row = await t.db.database.db.selectFrom('broker_sessions').selectAll().executeTakeFirstOrThrow();
      expect(row.access_token_encrypted).not.toContain(fresh);
      expect((await place(order())).statusCode).toBe(200);
      const view = await t.app.inject({ method: 'GET', url: '/broker/session', headers });
      expect(view.json()).toMatchObject({ status: 'success', data: { broker: 'zerodha' } });
      expect(view.body).not.toContain(fresh);
      for (const line of t.logs) expect(line).not.toContain(fresh);
    });
  });

  describe('analyzer mode never reaches the broker’s order API (issue 5, "Done when")', () => {
    it('with a live session configured, analyzer-mode orders, modifies, cancels and closes send the broker nothing', async () => {
      const headers = asBrowser(admin);
      await t.app.inject({ method: 'POST', url: '/settings/analyze-mode/1', headers });
      const before = stub.requests.filter((r) => r.path !== '/quote').length;
      const limit = await place(order({ pricetype: 'LIMIT', price: '1', product: 'MIS' }));
      expect(limit.json()).toMatchObject({ mode: 'analyze' });
      const api = (path: string, body: Record<string, unknown>) =>
        t.app.inject({ method: 'POST', url: `/api/v1/${path}`, payload: { apikey, ...body } });
      await api('cancelorder', { orderid: limit.json().orderid });
      await api('cancelallorder', {});
      await api('closeposition', {});
      await t.services.sandbox.engine.whenIdle();
      expect(stub.requests.filter((r) => r.path !== '/quote').length).toBe(before);
      await t.app.inject({ method: 'POST', url: '/settings/analyze-mode/0', headers });
    });
  });

  describe('orderstatus, modifyorder, cancelorder in live mode go to the broker', () => {
    it('status of a placed order, a modify, a cancel, and the broker’s refusal to cancel twice', async () => {
      const api = (path: string, body: Record<string, unknown>) =>
        t.app.inject({ method: 'POST', url: `/api/v1/${path}`, payload: { apikey, ...body } });
      const orderid = (await place(order())).json().orderid as string;
      const st = await api('orderstatus', { orderid });
      expect(st.statusCode).toBe(200);
      expect(st.json().data).toMatchObject({
        orderid,
        symbol: 'SBIN',
        exchange: 'NSE',
        action: 'BUY',
        pricetype: 'LIMIT',
        product: 'CNC',
        order_status: 'open',
        quantity: 1,
      });
      const mod = await api('modifyorder', {
        orderid,
        symbol: 'SBIN',
        exchange: 'NSE',
        action: 'BUY',
        product: 'CNC',
        pricetype: 'LIMIT',
        price: '801',
        quantity: 2,
      });
      expect(mod.statusCode).toBe(200);
      expect(mod.json()).toEqual({ status: 'success', orderid });
      expect(stub.forms(`/orders/regular/${orderid}`).at(-1)).toMatchObject({ price: '801', quantity: '2' });
      const cancel = await api('cancelorder', { orderid });
      expect(cancel.json()).toEqual({ status: 'success', orderid });
      expect((await api('orderstatus', { orderid })).json().data.order_status).toBe('cancelled');
      const again = await api('cancelorder', { orderid });
      expect(again.statusCode).toBe(400);
      expect(again.json().message).toMatch(/CANCELLED/);
    });
  });

  describe('semi-automatic: queued, then approved into the live broker', () => {
    it('the queued order reaches the broker only on approval, with the stored fields', async () => {
      await t.services.auth.apiKeys.setOrderMode(1, 'semi_auto');
      const before = stub.forms('/orders/regular').length;
      const queued = await place(order({ quantity: 3, price: '799.95' }));
      expect(queued.json()).toMatchObject({ mode: 'semi_auto', pending_order_id: expect.any(Number) });
      expect(stub.forms('/orders/regular')).toHaveLength(before);
      const id = queued.json().pending_order_id as number;
      const ok = await t.app.inject({
        method: 'POST',
        url: `/action-center/api/orders/${id}/approve`,
        headers: asBrowser(admin),
      });
      expect(ok.json()).toMatchObject({
        http_status: 200,
        result: { status: 'success', orderid: expect.any(String) },
      });
      expect(stub.forms('/orders/regular').at(-1)).toMatchObject({
        tradingsymbol: 'SBIN',
        quantity: '3',
        price: '799.95',
      });
      await t.services.auth.apiKeys.setOrderMode(1, 'auto');
    });
  });
});

/**
 * The Upstox adapter against a loopback Upstox v2: modify, cancel, status, login (authorization
 * dialog URL, code exchange), connection reuse.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { UpstoxAdapter } from './upstox.adapter.js';
import { BrokerLoginError } from '../http/broker-result.js';
import type { BrokerAdapterOptions } from '../http/order-transport.js';
import { FakeClock } from '../../../platform/clock.js';
import {
  closeAfterEach,
  closeLater,
  loadQuoteInstruments,
  type UpstoxSet,
} from '../../../../test/helpers/broker-quote-fixtures.js';
import {
  captureLogs,
  orderFor as order,
  startUpstoxOrderStub,
} from '../../../../test/helpers/broker-order-stubs.js';

const CREDS = {
  clientId: 'upstoxCLIENT4f1a',
  clientSecret: 'upstoxSECRETk2Pw9',
  redirectUri: 'http://127.0.0.1:5000/upstox/callback',
  accessToken: 'eyJ0eXAupstoxTOKEN7Hq3',
};

let U: UpstoxSet;
beforeAll(async () => {
  ({ U } = await loadQuoteInstruments());
});
closeAfterEach();

async function setup(opts: Partial<BrokerAdapterOptions> = {}) {
  const stub = await startUpstoxOrderStub(CREDS);
  const { logger, logs } = captureLogs();
  const adapter = new UpstoxAdapter({
    ...{ apiKey: CREDS.clientId, apiSecret: CREDS.clientSecret, redirectUrl: CREDS.redirectUri },
    ...{ baseUrl: stub.url, logger },
    ...opts,
  });
  closeLater(() => stub.close());
  closeLater(() => adapter.close());
  return { stub, adapter, session: { accessToken: CREDS.accessToken }, logs };
}

describe('modify, cancel and status: PUT /v2/order/modify, DELETE /v2/order/cancel, GET /v2/order/details', () => {
  it('modify sends the documented body; disclosed_quantity only when non-zero', async () => {
    const { stub, adapter, session } = await setup();
    const limit = order(U.ce, { priceType: 'LIMIT', product: 'NRML', quantity: 65, price: '98.5' });
    const { orderId } = await adapter.placeOrder(limit, session);

    const a = await adapter.modifyOrder(orderId!, { ...limit, price: '97.25', quantity: 130 }, session);
    const b = await adapter.modifyOrder(
      orderId!,
      { ...limit, priceType: 'SL', triggerPrice: '97', disclosedQuantity: 65 },
      session,
    );
    const status = await adapter.orderStatus(orderId!, session);

    const common = { validity: 'DAY', order_id: orderId };
    expect(stub.bodies('/v2/order/modify')).toEqual([
      { quantity: 130, price: 97.25, order_type: 'LIMIT', trigger_price: 0, ...common },
      { quantity: 65, price: 98.5, order_type: 'SL', trigger_price: 97, disclosed_quantity: 65, ...common },
    ]);
    expect([a, b].map((r) => [r.ok, r.orderId])).toEqual([
      [true, orderId],
      [true, orderId],
    ]);
    expect(status).toMatchObject({ ok: true, httpStatus: 200, orderId });
    expect(status.raw).toMatchObject({ status: 'open', order_type: 'SL', instrument_token: 'NSE_FO|42546' });
  });

  it("cancel sends order_id in the query; a second cancel is Upstox's 400 passed through", async () => {
    const { stub, adapter, session } = await setup();
    const { orderId } = await adapter.placeOrder(
      order(U.sbin, { priceType: 'LIMIT', price: '790' }),
      session,
    );

    const cancelled = await adapter.cancelOrder(orderId!, session);
    const again = await adapter.cancelOrder(orderId!, session);
    const status = await adapter.orderStatus(orderId!, session);

    expect(stub.requests[1]!.url).toBe(`/v2/order/cancel?order_id=${orderId}`);
    expect(stub.requests[3]!.url).toBe(`/v2/order/details?order_id=${orderId}`);
    expect(cancelled).toMatchObject({ ok: true, orderId });
    expect(again).toMatchObject({
      ok: false,
      httpStatus: 400,
      message: 'UDAPI100040: Cancel of already cancelled/rejected/completed order is not allowed',
    });
    expect(status.raw).toMatchObject({ status: 'cancelled', order_id: orderId });
  });

  it('an unknown order is UDAPI100010 with its status; a success without a record is a failure', async () => {
    const { stub, adapter, session } = await setup();

    const unknown = await adapter.orderStatus('999', session);
    stub.failNext(200, { status: 'success', data: null });
    const empty = await adapter.orderStatus('999', session);

    expect(unknown).toMatchObject({ ok: false, httpStatus: 400, message: 'UDAPI100010: Order not found' });
    expect(empty).toMatchObject({ ok: false, httpStatus: 200, message: 'Upstox returned no order record' });
  });
});

describe('login: the authorization dialog, then code + client secret for a token', () => {
  it('the login URL carries response_type=code, client_id, redirect_uri and state', async () => {
    const { adapter } = await setup();

    const url = new URL(adapter.loginUrl('st8&x=1 y'));

    expect(url.origin + url.pathname).toBe('https://api.upstox.com/v2/login/authorization/dialog');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      response_type: 'code',
      client_id: CREDS.clientId,
      redirect_uri: CREDS.redirectUri,
      state: 'st8&x=1 y',
    });
  });

  it('exchanges the code with the documented form; the session places orders', async () => {
    const clock = new FakeClock(Date.UTC(2026, 1, 5, 14, 30)); // 20:00 IST
    const { stub, adapter } = await setup({ clock });
    const code = stub.issueCode('mk404x');

    const login = await adapter.exchangeCode(code);
    const result = await adapter.placeOrder(order(U.sbin), login.session);

    const token = stub.requests[0]!;
    expect(stub.credentialOf(token)).toBe('absent');
    expect(token.headers.accept).toBe('application/json');
    expect(Object.fromEntries(new URLSearchParams(token.body))).toEqual({
      code: 'mk404x',
      client_id: CREDS.clientId,
      client_secret: CREDS.clientSecret,
      redirect_uri: CREDS.redirectUri,
      grant_type: 'authorization_code',
    });
    expect(login.session).toEqual({ accessToken: stub.credentials.accessToken, brokerUserId: 'UP7731' });
    expect(login.expiresAt).toBe(Date.UTC(2026, 1, 5, 22, 0)); // 03:30 IST the next day
    expect(result.ok).toBe(true);
  });

  it('a login at 02:30 IST expires at 03:30 the same morning', async () => {
    const { stub, adapter } = await setup({ clock: new FakeClock(Date.UTC(2026, 1, 4, 21, 0)) });

    const login = await adapter.exchangeCode(stub.issueCode());

    expect(login.expiresAt).toBe(Date.UTC(2026, 1, 4, 22, 0));
  });

  it.each([
    ['a wrong client secret', { apiSecret: 'upstoxWRONGsecret' }, 401, 'UDAPI100016: Invalid Credentials'],
    ['a used or unknown code', {}, 400, 'UDAPI100057: Invalid Auth code'],
  ])('%s is a BrokerLoginError naming no credential', async (_name, opts, status, message) => {
    const { stub, adapter, logs } = await setup(opts);
    const code = stub.issueCode('codeQ7x2');
    if (!('apiSecret' in opts)) await adapter.exchangeCode(code);

    const err: unknown = await adapter.exchangeCode(code).catch((e: unknown) => e);

    expect(err).toBeInstanceOf(BrokerLoginError);
    expect(err).toMatchObject({ httpStatus: status, message: `Upstox login failed: ${message}` });
    for (const secret of ['codeQ7x2', CREDS.clientSecret, 'upstoxWRONGsecret', stub.credentials.accessToken])
      expect(`${String(err)} ${logs()}`).not.toContain(secret);
  });

  it('an answer without access_token is a BrokerLoginError, not a session', async () => {
    const { stub, adapter } = await setup();
    stub.failNext(200, { status: 'success', user_id: 'UP7731' });

    const err: unknown = await adapter.exchangeCode('mk404x').catch((e: unknown) => e);

    expect(err).toMatchObject({ name: 'BrokerLoginError', httpStatus: 200, code: 'no_token' });
  });
});

describe('connections: one keep-alive pool per origin', () => {
  it('forty sequential calls travel on one TCP connection', async () => {
    const { stub, adapter, session } = await setup();

    for (let i = 0; i < 20; i++) {
      const { orderId } = await adapter.placeOrder(
        order(U.sbin, { priceType: 'LIMIT', price: '790' }),
        session,
      );
      expect((await adapter.orderStatus(orderId!, session)).ok).toBe(true);
    }

    expect(stub.requests).toHaveLength(40);
    expect(stub.connections).toBe(1);
  });
});

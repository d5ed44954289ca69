/**
 * The Zerodha adapter against a loopback Kite Connect v3 (test/helpers/broker-order-stubs.ts),
 * with real instruments from the Kite masters: modify, cancel, status, login, connections.
 */
import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { BrokerLoginError } from '../http/broker-result.js';
import type { BrokerAdapterOptions } from '../http/order-transport.js';
import { FakeClock } from '../../../platform/clock.js';
import {
  closeAfterEach,
  loadQuoteInstruments,
  type KiteSet,
} from '../../../../test/helpers/broker-quote-fixtures.js';
import { kiteAdapterOn } from '../../../../test/helpers/kite-adapter.js';
import { orderFor } from '../../../../test/helpers/broker-order-stubs.js';

// Distinctive, so any leak into a message, a raw body or a log line is caught.
const CREDS = { apiKey: 'kiteKEYo7Rz2', apiSecret: 'kiteSECRETq9Xv4Lm', accessToken: 'kiteTOKEN5Jd8Wq1' };

let K: KiteSet;
beforeAll(async () => {
  ({ K } = await loadQuoteInstruments());
});
closeAfterEach();

/** A Kite stub and an adapter on it, logging at debug into `logs()`; closed after the test. */
const setup = (opts: Partial<BrokerAdapterOptions> = {}) => kiteAdapterOn(CREDS, opts);

const order = orderFor;
describe('modify, cancel and status: PUT/DELETE /orders/regular/:id, GET /orders/:id', () => {
  it('modify sends the changeable fields; status reads the last history entry', async () => {
    const { stub, adapter, session } = await setup();
    const limit = order(K.ce, { priceType: 'LIMIT', product: 'NRML', quantity: 75, price: '98.5' });
    const { orderId } = await adapter.placeOrder(limit, session);

    const modified = await adapter.modifyOrder(
      orderId!,
      { ...limit, price: '97.25', quantity: 150 },
      session,
    );
    const toMarket = await adapter.modifyOrder(orderId!, { ...limit, priceType: 'MARKET' }, session);
    const status = await adapter.orderStatus(orderId!, session);

    expect(stub.requests.map((r) => `${r.method} ${r.path}`).slice(1)).toEqual([
      `PUT /orders/regular/${orderId}`,
      `PUT /orders/regular/${orderId}`,
      `GET /orders/${orderId}`,
    ]);
    const [first, second] = stub.forms(`/orders/regular/${orderId}`);
    const rest = { disclosed_quantity: '0', validity: 'DAY', trigger_price: '0' };
    expect(first).toEqual({ order_type: 'LIMIT', quantity: '150', price: '97.25', ...rest });
    expect(second).toEqual({
      order_type: 'MARKET',
      quantity: '75',
      price: '0',
      ...rest,
      market_protection: '-1',
    });
    expect(modified).toMatchObject({ ok: true, orderId });
    expect(toMarket).toMatchObject({ ok: true, orderId });
    expect(status).toMatchObject({ ok: true, httpStatus: 200, orderId });
    expect(status.raw).toMatchObject({
      status: 'OPEN',
      order_type: 'MARKET',
      tradingsymbol: 'NIFTY2681826000CE',
    });
  });

  it("cancel answers the order id; a second cancel is Kite's 400 passed through", async () => {
    const { adapter, session } = await setup();
    const { orderId } = await adapter.placeOrder(
      order(K.sbin, { priceType: 'LIMIT', price: '790' }),
      session,
    );

    const cancelled = await adapter.cancelOrder(orderId!, session);
    const again = await adapter.cancelOrder(orderId!, session);
    const status = await adapter.orderStatus(orderId!, session);

    expect(cancelled).toMatchObject({ ok: true, httpStatus: 200, orderId });
    expect(again).toMatchObject({
      ok: false,
      httpStatus: 400,
      message: 'Order cannot be changed as it is CANCELLED.',
    });
    expect(status.raw).toMatchObject({ status: 'CANCELLED', order_id: orderId });
  });

  it('an empty history is a failure; an unknown order keeps the status Kite sent', async () => {
    const { stub, adapter, session } = await setup();
    stub.addOrder('250818000000999', []);

    const empty = await adapter.orderStatus('250818000000999', session);
    const unknown = await adapter.cancelOrder('999', session);

    expect(empty).toMatchObject({
      ok: false,
      httpStatus: 200,
      message: 'Zerodha returned no history for the order',
    });
    expect(unknown).toMatchObject({ ok: false, httpStatus: 404 });
  });
});

describe('login: kite.zerodha.com/connect/login, then request_token + SHA-256 checksum for a session', () => {
  it('the login URL carries v=3, the api_key and the state in redirect_params', async () => {
    const { adapter } = await setup();

    const url = new URL(adapter.loginUrl('st8&x=1 y'));

    expect(url.origin + url.pathname).toBe('https://kite.zerodha.com/connect/login');
    expect(url.searchParams.get('v')).toBe('3');
    expect(url.searchParams.get('api_key')).toBe(CREDS.apiKey);
    expect(new URLSearchParams(url.searchParams.get('redirect_params')!).get('state')).toBe('st8&x=1 y');
  });

  it('exchanges the request token with the documented checksum; the session places orders', async () => {
    const clock = new FakeClock(Date.UTC(2026, 7, 18, 4, 30)); // 10:00 IST
    const { stub, adapter } = await setup({ clock });
    const requestToken = stub.issueRequestToken('reqTOKENa1b2c3d4');

    const login = await adapter.exchangeCode(requestToken);
    const result = await adapter.placeOrder(order(K.sbin), login.session);

    const checksum = createHash('sha256')
      .update(CREDS.apiKey + requestToken + CREDS.apiSecret)
      .digest('hex');
    expect(stub.forms('/session/token')).toEqual([
      { api_key: CREDS.apiKey, request_token: requestToken, checksum },
    ]);
    expect(stub.credentialOf(stub.requests[0]!)).toBe('absent');
    expect(login.session).toEqual({ accessToken: stub.credentials.accessToken, brokerUserId: 'ZX4821' });
    expect(login.expiresAt).toBe(Date.UTC(2026, 7, 19, 0, 30)); // 06:00 IST next morning
    expect(result.ok).toBe(true);
  });

  it('a login before 06:00 IST expires at 06:00 the same morning', async () => {
    const { stub, adapter } = await setup({ clock: new FakeClock(Date.UTC(2026, 7, 17, 23, 0)) }); // 04:30 IST

    const login = await adapter.exchangeCode(stub.issueRequestToken());

    expect(login.expiresAt).toBe(Date.UTC(2026, 7, 18, 0, 30));
  });

  it.each([
    ['a wrong api secret (checksum)', { apiSecret: 'kiteWRONGsecret1' }, 'Invalid `checksum`.'],
    ['an unknown or used request token', {}, 'Token is invalid or has expired.'],
  ])('%s is a BrokerLoginError 403 naming no credential', async (_name, opts, message) => {
    const { stub, adapter, logs } = await setup(opts);
    const requestToken = stub.issueRequestToken('reqTOKENz9y8x7w6');
    if (!('apiSecret' in opts)) await adapter.exchangeCode(requestToken);

    const err: unknown = await adapter.exchangeCode(requestToken).catch((e: unknown) => e);

    expect(err).toBeInstanceOf(BrokerLoginError);
    expect(err).toMatchObject({
      httpStatus: 403,
      code: 'TokenException',
      message: `Zerodha login failed: ${message}`,
    });
    for (const secret of [requestToken, CREDS.apiSecret, 'kiteWRONGsecret1', stub.credentials.accessToken])
      expect(`${String(err)} ${logs()}`).not.toContain(secret);
  });
});

describe('connections: one keep-alive pool per origin', () => {
  it('forty sequential calls travel on one TCP connection', async () => {
    const { stub, adapter, session } = await setup();

    for (let i = 0; i < 20; i++) {
      const { orderId } = await adapter.placeOrder(
        order(K.sbin, { priceType: 'LIMIT', price: '790' }),
        session,
      );
      expect((await adapter.orderStatus(orderId!, session)).ok).toBe(true);
    }

    expect(stub.requests).toHaveLength(40);
    expect(stub.connections).toBe(1);
  });

  it('a burst of parallel orders opens at most 8 connections', async () => {
    const { stub, adapter, session } = await setup();

    const results = await Promise.all(
      Array.from({ length: 24 }, () => adapter.placeOrder(order(K.sbin), session)),
    );

    expect(results.every((r) => r.ok)).toBe(true);
    expect(stub.connections).toBeLessThanOrEqual(8);
  });
});

/**
 * The Zerodha adapter against a loopback Kite Connect v3 (test/helpers/broker-order-stubs.ts),
 * with real instruments from the Kite masters: order fields, results, failures.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { BrokerResult } from '../broker-adapter.js';
import type { BrokerAdapterOptions } from '../http/order-transport.js';
import {
  closeAfterEach,
  loadQuoteInstruments,
  type KiteSet,
} from '../../../../test/helpers/broker-quote-fixtures.js';
import { kiteAdapterOn } from '../../../../test/helpers/kite-adapter.js';
import { kiteError } from '../../../../test/helpers/broker-quote-stubs.js';
import { orderFor, type KiteOrderStub } from '../../../../test/helpers/broker-order-stubs.js';

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
const placed = (stub: KiteOrderStub) => stub.forms('/orders/regular');
const ORDER_ID = /^\d{15}$/;

describe('placement: POST /orders/regular with the form fields Kite documents', () => {
  const base = { disclosed_quantity: '0', validity: 'DAY' };
  it.each([
    {
      name: 'MARKET CNC equity, with market protection -1',
      pick: () => order(K.sbin, { quantity: 10 }),
      form: { tradingsymbol: 'SBIN', exchange: 'NSE', transaction_type: 'BUY', order_type: 'MARKET' },
      rest: { quantity: '10', product: 'CNC', price: '0', trigger_price: '0', market_protection: '-1' },
    },
    {
      name: 'LIMIT NRML future',
      pick: () =>
        order(K.fut, { side: 'SELL', priceType: 'LIMIT', product: 'NRML', quantity: 30, price: '55120.5' }),
      form: {
        tradingsymbol: 'BANKNIFTY26AUGFUT',
        exchange: 'NFO',
        transaction_type: 'SELL',
        order_type: 'LIMIT',
      },
      rest: { quantity: '30', product: 'NRML', price: '55120.5', trigger_price: '0' },
    },
    {
      name: 'SL MIS option',
      pick: () =>
        order(K.ce, { priceType: 'SL', product: 'MIS', quantity: 75, price: '101.5', triggerPrice: '100' }),
      form: {
        tradingsymbol: 'NIFTY2681826000CE',
        exchange: 'NFO',
        transaction_type: 'BUY',
        order_type: 'SL',
      },
      rest: { quantity: '75', product: 'MIS', price: '101.5', trigger_price: '100' },
    },
    {
      name: 'SL-M MIS equity, with market protection -1',
      pick: () =>
        order(K.infy, {
          side: 'SELL',
          priceType: 'SL-M',
          product: 'MIS',
          quantity: 5,
          triggerPrice: '1400.05',
        }),
      form: { tradingsymbol: 'INFY', exchange: 'NSE', transaction_type: 'SELL', order_type: 'SL-M' },
      rest: { quantity: '5', product: 'MIS', price: '0', trigger_price: '1400.05', market_protection: '-1' },
    },
  ])('$name', async ({ pick, form, rest }) => {
    const { stub, adapter, session } = await setup();

    const result = await adapter.placeOrder(pick(), session);

    expect(placed(stub)).toEqual([{ ...form, ...rest, ...base }]);
    expect(result).toMatchObject({ ok: true, httpStatus: 200, orderId: expect.stringMatching(ORDER_ID) });
  });

  it('sends an after-market order to POST /orders/amo, the same form (Kite’s variety is the path)', async () => {
    const { stub, adapter, session } = await setup();

    const result = await adapter.placeOrder(
      order(K.sbin, { priceType: 'LIMIT', price: '801.5', quantity: 2, amo: true }),
      session,
    );

    expect(placed(stub)).toEqual([]);
    expect(stub.forms('/orders/amo')).toEqual([
      {
        tradingsymbol: 'SBIN',
        exchange: 'NSE',
        transaction_type: 'BUY',
        order_type: 'LIMIT',
        quantity: '2',
        product: 'CNC',
        price: '801.5',
        trigger_price: '0',
        ...base,
      },
    ]);
    expect(result).toMatchObject({ ok: true, orderId: expect.stringMatching(ORDER_ID) });
  });

  it('sends X-Kite-Version: 3, Authorization token api_key:access_token and a form body', async () => {
    const { stub, adapter, session } = await setup();

    await adapter.placeOrder(order(K.sbin), session);

    const req = stub.requests[0]!;
    expect(stub.credentialOf(req)).toBe('exact');
    expect(req.headers).toMatchObject({
      'x-kite-version': '3',
      'content-type': 'application/x-www-form-urlencoded',
    });
  });

  it('sends 0 for the price of MARKET/SL-M and the trigger of MARKET/LIMIT, whatever came in', async () => {
    const { stub, adapter, session } = await setup();

    await adapter.placeOrder(order(K.sbin, { price: '812.4', triggerPrice: '810' }), session);
    await adapter.placeOrder(
      order(K.sbin, { priceType: 'LIMIT', price: '812.4', triggerPrice: '810' }),
      session,
    );

    expect(placed(stub).map((f) => [f.price, f.trigger_price])).toEqual([
      ['0', '0'],
      ['812.4', '0'],
    ]);
  });

  it("cuts the strategy tag to Kite's 20 characters and sends no tag field without one", async () => {
    const { stub, adapter, session } = await setup();

    const tagged = await adapter.placeOrder(order(K.sbin, { tag: 'mean-reversion-nifty-weekly' }), session);
    await adapter.placeOrder(order(K.sbin, { tag: '  ' }), session);

    expect(tagged.ok).toBe(true);
    expect(placed(stub).map((f) => f.tag)).toEqual(['mean-reversion-nifty', undefined]);
  });
});

describe('results: a success needs an order id; broker errors keep their status and message', () => {
  it('a success carries the order id, the parsed body and the round trip', async () => {
    const { adapter, session } = await setup();

    const result = await adapter.placeOrder(order(K.sbin), session);

    expect(result.raw).toEqual({ status: 'success', data: { order_id: result.orderId } });
    expect(result.message).toBeUndefined();
    expect(result.roundTripMs).toBeGreaterThan(0);
  });

  it("a success without an order id is a failure that keeps Kite's status", async () => {
    const { stub, adapter, session } = await setup();
    stub.omitOrderId = true;

    const result = await adapter.placeOrder(order(K.sbin), session);

    expect(result).toMatchObject({ ok: false, httpStatus: 200, raw: { status: 'success', data: {} } });
    expect(result.orderId).toBeUndefined();
    expect(result.message).toBe('Zerodha answered success without an order id');
  });

  it.each([
    [
      400,
      'InputException',
      'Insufficient funds. Required margin is 95417.84 but available margin is 1021.05.',
    ],
    [403, 'TokenException', 'Token is invalid or has expired.'],
    [429, 'NetworkException', 'Too many requests'],
    [500, 'GeneralException', 'Something went wrong'],
    [502, 'NetworkException', 'Gateway error: the OMS did not respond'],
    [503, 'DataException', 'Unable to parse the response from the exchange'],
  ])('HTTP %i %s passes through with its status and message', async (status, type, message) => {
    const { stub, adapter, session } = await setup();
    stub.failNext(status, kiteError(message, type));

    const result = await adapter.placeOrder(order(K.sbin), session);

    expect(result).toEqual({
      httpStatus: status,
      ok: false,
      message,
      raw: kiteError(message, type),
      roundTripMs: expect.any(Number),
    });
  });

  it('a stale session gets Kite 403 TokenException, the token nowhere in the result or logs', async () => {
    const { adapter, logs } = await setup();

    const result = await adapter.placeOrder(order(K.sbin), { accessToken: 'kiteSTALEtok77Qz' });

    expect(result).toMatchObject({
      ok: false,
      httpStatus: 403,
      message: 'Incorrect `api_key` or `access_token`.',
    });
    for (const text of [JSON.stringify(result), logs()]) expect(text).not.toContain('kiteSTALEtok77Qz');
    expect(logs()).toContain('TokenException');
  });

  it('an HTML 502 from a gateway keeps its status; raw is the (sanitised) text', async () => {
    const { stub, adapter, session } = await setup();
    stub.failNext(502, '<html><body>502 Bad Gateway</body></html>');

    const result = await adapter.placeOrder(order(K.sbin), session);

    expect(result).toMatchObject({
      ok: false,
      httpStatus: 502,
      raw: '<html><body>502 Bad Gateway</body></html>',
    });
    expect(result.message).toBe('Zerodha answered HTTP 502 without a JSON body');
  });

  it('a broker message echoing the credentials is redacted in the message and the raw body', async () => {
    const { stub, adapter, session } = await setup();
    const echo = `Session token ${CREDS.apiKey}:${CREDS.accessToken} rejected (secret ${CREDS.apiSecret})`;
    stub.failNext(403, { ...kiteError(echo, 'TokenException'), data: { access_token: 'kiteOTHERtok' } });

    const result = await adapter.placeOrder(order(K.sbin), session);

    expect(result.message).toContain('[redacted]');
    for (const secret of [...Object.values(CREDS), 'kiteOTHERtok'])
      expect(JSON.stringify(result)).not.toContain(secret);
  });
});

describe('transport failures are results, never throws: timeout 504, no connection 502', () => {
  it('no answer within timeoutMs is 504 with a clear message', async () => {
    const { stub, adapter, session } = await setup({ timeoutMs: 150 });
    stub.delayNext(2_000);

    const result: BrokerResult = await adapter.placeOrder(order(K.sbin), session);

    expect(result).toMatchObject({ ok: false, httpStatus: 504, raw: null });
    expect(result.message).toMatch(/^Zerodha did not answer within 150 ms .*may have reached the broker$/);
    expect(result.roundTripMs).toBeGreaterThanOrEqual(100);
  });

  it('a refused connection is 502', async () => {
    const { stub, adapter, session } = await setup();
    await stub.close();

    const result = await adapter.placeOrder(order(K.sbin), session);

    expect(result).toMatchObject({
      ok: false,
      httpStatus: 502,
      message: 'Zerodha could not be reached (ECONNREFUSED)',
    });
  });

  it('a connection dropped mid-request is 502 that says the order may have reached Kite', async () => {
    const { stub, adapter, session } = await setup();
    stub.delayNext(5_000);

    const pending = adapter.placeOrder(order(K.sbin), session);
    while (stub.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
    await stub.close();
    const result = await pending;

    expect(result).toMatchObject({ ok: false, httpStatus: 502, raw: null });
    expect(result.message).toMatch(
      /^Zerodha connection failed \(UND_ERR_SOCKET\); the request may have reached/,
    );
  });

  it('a closed adapter answers 502 without I/O; a session without a token 401 without I/O', async () => {
    const { stub, adapter, session } = await setup();

    const noToken = await adapter.placeOrder(order(K.sbin), { accessToken: '' });
    await adapter.close();
    const closed = await adapter.placeOrder(order(K.sbin), session);

    expect(noToken).toMatchObject({
      ok: false,
      httpStatus: 401,
      message: expect.stringMatching(/no access token/),
    });
    expect(closed).toMatchObject({ ok: false, httpStatus: 502, message: 'Zerodha: the adapter is closed' });
    expect(stub.requests).toHaveLength(0);
  });
});

describe('orders by tag: GET /orders, the day’s order book, kept to the orders sent with the tag', () => {
  it('finds the orders placed with a tag (each in its current state), none for an unknown tag', async () => {
    const { stub, adapter, session } = await setup();
    const a = await adapter.placeOrder(order(K.sbin, { tag: 'adkey0001' }), session);
    await adapter.placeOrder(order(K.sbin, { tag: 'other' }), session);
    const c = await adapter.placeOrder(order(K.sbin, { tag: 'adkey0001' }), session);
    stub.settle(a.orderId!, 'COMPLETE');

    const found = await adapter.ordersByTag('adkey0001', session);
    expect(found).toMatchObject({ ok: true, httpStatus: 200 });
    expect(found.raw).toEqual([
      expect.objectContaining({ order_id: a.orderId, tag: 'adkey0001', status: 'COMPLETE' }),
      expect.objectContaining({ order_id: c.orderId, tag: 'adkey0001', status: 'OPEN' }),
    ]);
    const book = stub.requests.find((r) => r.method === 'GET' && r.path === '/orders')!;
    expect(book.headers['x-kite-version']).toBe('3');
    expect(await adapter.ordersByTag('never-sent', session)).toMatchObject({ ok: true, raw: [] });
  });

  it('a refused read is a failure with Kite’s status, so no intent is taken for unplaced', async () => {
    const { stub, adapter, session } = await setup();
    stub.failNext(503, kiteError('Service unavailable', 'DataException'));
    const r = await adapter.ordersByTag('adkey0001', session);
    expect(r).toMatchObject({ ok: false, httpStatus: 503 });
  });
});

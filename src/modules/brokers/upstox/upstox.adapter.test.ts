/**
 * The Upstox adapter against a loopback Upstox v2 (test/helpers/broker-order-stubs.ts), with
 * real instruments from the Upstox master: order bodies, hosts, results, failures.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { UpstoxAdapter } from './upstox.adapter.js';
import type { BrokerAdapterOptions } from '../http/order-transport.js';
import {
  closeAfterEach,
  closeLater,
  loadQuoteInstruments,
  type UpstoxSet,
} from '../../../../test/helpers/broker-quote-fixtures.js';
import { upstoxError } from '../../../../test/helpers/broker-quote-stubs.js';
import {
  captureLogs,
  orderFor as order,
  startUpstoxOrderStub,
} from '../../../../test/helpers/broker-order-stubs.js';

// Distinctive, so any leak into a message, a raw body or a log line is caught.
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

/** An Upstox stub and an adapter on it (both hosts), logging into `logs()`; closed after the test. */
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

describe('placement: POST /v2/order/place with the JSON body Upstox documents', () => {
  const base = { validity: 'DAY', disclosed_quantity: 0, is_amo: false };
  it.each([
    {
      name: 'MARKET CNC equity → product D, price 0',
      pick: () => order(U.sbin, { quantity: 10 }),
      body: { quantity: 10, product: 'D', price: 0, instrument_token: 'NSE_EQ|INE062A01020' },
      rest: { order_type: 'MARKET', transaction_type: 'BUY', trigger_price: 0 },
    },
    {
      name: 'LIMIT NRML future → product D (Upstox has no NRML)',
      pick: () =>
        order(U.fut, { side: 'SELL', priceType: 'LIMIT', product: 'NRML', quantity: 30, price: '48210.5' }),
      body: { quantity: 30, product: 'D', price: 48210.5, instrument_token: 'NSE_FO|59175' },
      rest: { order_type: 'LIMIT', transaction_type: 'SELL', trigger_price: 0 },
    },
    {
      name: 'SL MIS option → product I',
      pick: () =>
        order(U.ce, { priceType: 'SL', product: 'MIS', quantity: 65, price: '101.5', triggerPrice: '100' }),
      body: { quantity: 65, product: 'I', price: 101.5, instrument_token: 'NSE_FO|42546' },
      rest: { order_type: 'SL', transaction_type: 'BUY', trigger_price: 100 },
    },
    {
      name: 'SL-M MIS equity → product I, price 0',
      pick: () =>
        order(U.nhpc, {
          side: 'SELL',
          priceType: 'SL-M',
          product: 'MIS',
          quantity: 5,
          triggerPrice: '52.05',
        }),
      body: { quantity: 5, product: 'I', price: 0, instrument_token: 'NSE_EQ|INE848E01016' },
      rest: { order_type: 'SL-M', transaction_type: 'SELL', trigger_price: 52.05 },
    },
  ])('$name', async ({ pick, body, rest }) => {
    const { stub, adapter, session } = await setup();

    const result = await adapter.placeOrder(pick(), session);

    expect(stub.bodies('/v2/order/place')).toEqual([{ ...body, ...rest, ...base }]);
    expect(result).toMatchObject({ ok: true, httpStatus: 200, orderId: expect.stringMatching(/^\d{15}$/) });
  });

  it('sends an after-market order with is_amo true', async () => {
    const { stub, adapter, session } = await setup();

    await adapter.placeOrder(
      order(U.sbin, { priceType: 'LIMIT', price: '801.5', quantity: 2, amo: true }),
      session,
    );

    expect(stub.bodies('/v2/order/place')).toEqual([
      {
        quantity: 2,
        product: 'D',
        price: 801.5,
        instrument_token: 'NSE_EQ|INE062A01020',
        order_type: 'LIMIT',
        transaction_type: 'BUY',
        trigger_price: 0,
        ...base,
        is_amo: true,
      },
    ]);
  });

  it('sends Authorization: Bearer <token>, Accept and Content-Type application/json', async () => {
    const { stub, adapter, session } = await setup();

    await adapter.placeOrder(order(U.sbin), session);

    const req = stub.requests[0]!;
    expect(stub.credentialOf(req)).toBe('exact');
    expect(req.headers).toMatchObject({ accept: 'application/json', 'content-type': 'application/json' });
  });

  it('zeroes the price Upstox refuses (UDAPI1040) and the trigger of MARKET/LIMIT; carries the tag', async () => {
    const { stub, adapter, session } = await setup();

    await adapter.placeOrder(
      order(U.sbin, { price: '812.4', triggerPrice: '810', tag: 'momentum-1' }),
      session,
    );
    await adapter.placeOrder(
      order(U.sbin, { priceType: 'LIMIT', price: '812.4', triggerPrice: '810' }),
      session,
    );

    expect(stub.bodies().map((b) => [b.price, b.trigger_price, b.tag])).toEqual([
      [0, 0, 'momentum-1'],
      [812.4, 0, undefined],
    ]);
  });

  it('orders go to orderBaseUrl (api-hft in production), status to baseUrl (api)', async () => {
    const hft = await startUpstoxOrderStub(CREDS);
    closeLater(() => hft.close());
    const { stub: api, adapter, session } = await setup({ orderBaseUrl: hft.url });

    const { orderId } = await adapter.placeOrder(
      order(U.sbin, { priceType: 'LIMIT', price: '790' }),
      session,
    );
    await adapter.modifyOrder(orderId!, order(U.sbin, { priceType: 'LIMIT', price: '789' }), session);
    await adapter.cancelOrder(orderId!, session);
    await adapter.orderStatus(orderId!, session);

    expect(hft.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /v2/order/place',
      'PUT /v2/order/modify',
      'DELETE /v2/order/cancel',
    ]);
    expect(api.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /v2/order/details']);
  });
});

describe('results: a success needs an order id; broker errors keep their status and message', () => {
  it('a success carries the order id, the parsed body and the round trip', async () => {
    const { adapter, session } = await setup();

    const result = await adapter.placeOrder(order(U.sbin), session);

    expect(result.raw).toEqual({ status: 'success', data: { order_id: result.orderId } });
    expect(result.roundTripMs).toBeGreaterThan(0);
  });

  it("a success without an order id is a failure that keeps Upstox's status", async () => {
    const { stub, adapter, session } = await setup();
    stub.omitOrderId = true;

    const result = await adapter.placeOrder(order(U.sbin), session);

    expect(result).toMatchObject({ ok: false, httpStatus: 200, raw: { status: 'success', data: {} } });
    expect(result.message).toBe('Upstox answered success without an order id');
  });

  it.each([
    [400, 'UDAPI1154', 'Static IP not configured for this app'],
    [
      403,
      'UDAPI100049',
      "Access to this API has been restricted for your account. Please use 'Uplink Business'",
    ],
    [429, 'UDAPI10005', 'Too Many Request Sent'],
    [500, 'UDAPI100500', 'Something went wrong... please contact us'],
    [503, 'UDAPI100500', 'We’re temporarily offline for maintenance'],
  ])('HTTP %i %s passes through with its status and "CODE: message"', async (status, code, message) => {
    const { stub, adapter, session } = await setup();
    stub.failNext(status, upstoxError(code, message));

    const result = await adapter.placeOrder(order(U.sbin), session);

    expect(result).toEqual({
      httpStatus: status,
      ok: false,
      message: `${code}: ${message}`,
      raw: upstoxError(code, message),
      roundTripMs: expect.any(Number),
    });
  });

  it('several errors are joined with " | " as OpenAlgo does', async () => {
    const { stub, adapter, session } = await setup();
    const errors = [
      upstoxError('UDAPI1004', 'Valid order type is required'),
      upstoxError('UDAPI1007', 'Validity is required'),
    ];
    stub.failNext(400, { status: 'error', errors: errors.flatMap((e) => e.errors as unknown[]) });

    const result = await adapter.placeOrder(order(U.sbin), session);

    expect(result.message).toBe('UDAPI1004: Valid order type is required | UDAPI1007: Validity is required');
  });

  it('a stale token gets Upstox 401 UDAPI100050, the token nowhere in the result or logs', async () => {
    const { adapter, logs } = await setup();

    const result = await adapter.placeOrder(order(U.sbin), { accessToken: 'upstoxSTALEtok55' });

    expect(result).toMatchObject({
      httpStatus: 401,
      message: 'UDAPI100050: Invalid token used to access API',
    });
    for (const text of [JSON.stringify(result), logs()]) expect(text).not.toContain('upstoxSTALEtok55');
    expect(logs()).toContain('UDAPI100050');
  });

  it('a broker message echoing the credentials is redacted in the message and the raw body', async () => {
    const { stub, adapter, session } = await setup();
    const echo = `token ${CREDS.accessToken} of ${CREDS.clientId} refused; Bearer abc.def`;
    stub.failNext(401, { ...upstoxError('UDAPI100050', echo), access_token: 'eyJOTHERtok' });

    const result = await adapter.placeOrder(order(U.sbin), session);

    expect(result.message).toBe('UDAPI100050: token [redacted] of [redacted] refused; Bearer [redacted]');
    for (const secret of [...Object.values(CREDS), 'eyJOTHERtok', 'abc.def'])
      expect(JSON.stringify(result)).not.toContain(secret);
  });
});

describe('transport failures are results, never throws: timeout 504, no connection 502', () => {
  it('no answer within timeoutMs is 504 with a clear message', async () => {
    const { stub, adapter, session } = await setup({ timeoutMs: 150 });
    stub.delayNext(2_000);

    const result = await adapter.placeOrder(order(U.sbin), session);

    expect(result).toMatchObject({ ok: false, httpStatus: 504, raw: null });
    expect(result.message).toMatch(/^Upstox did not answer within 150 ms .*may have reached the broker$/);
  });

  it('a refused connection is 502; a session without a token is 401 without I/O', async () => {
    const { stub, adapter, session } = await setup();
    const noToken = await adapter.orderStatus('260205000000001', { accessToken: ' ' });
    await stub.close();

    const refused = await adapter.cancelOrder('260205000000001', session);

    expect(noToken).toMatchObject({
      ok: false,
      httpStatus: 401,
      message: expect.stringMatching(/no access token/),
    });
    expect(refused).toMatchObject({
      ok: false,
      httpStatus: 502,
      message: 'Upstox could not be reached (ECONNREFUSED)',
    });
    expect(stub.requests).toHaveLength(0);
  });
});

describe('orders by tag: GET /v2/order/retrieve-all, kept to the orders sent with the tag', () => {
  it('finds the orders placed with a tag, none for an unknown tag; a refusal keeps its status', async () => {
    const { stub, adapter, session } = await setup();
    const a = await adapter.placeOrder(order(U.sbin, { tag: 'adkey0002' }), session);
    await adapter.placeOrder(order(U.sbin), session);
    const found = await adapter.ordersByTag('adkey0002', session);
    expect(found).toMatchObject({ ok: true, httpStatus: 200 });
    expect(found.raw).toEqual([expect.objectContaining({ order_id: a.orderId, tag: 'adkey0002' })]);
    expect(await adapter.ordersByTag('never-sent', session)).toMatchObject({ ok: true, raw: [] });
    stub.failNext(500, upstoxError('UDAPI100500', 'Something went wrong'));
    expect(await adapter.ordersByTag('adkey0002', session)).toMatchObject({ ok: false, httpStatus: 500 });
  });
});

/**
 * The Angel One adapter's orders against the loopback SmartAPI
 * (test/helpers/broker-order-stub-angel.ts), with instruments from the Angel master through the
 * real importer: place/modify/cancel bodies and headers, the order tag, status and ordersByTag,
 * and Angel's refusals passed through with a status and its message, never a credential.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { QuoteInstrument } from '../quotes/quote-client.js';
import type { BrokerAdapterOptions } from '../http/order-transport.js';
import { AngelAdapter } from './angel.adapter.js';
import { closeAfterEach, closeLater } from '../../../../test/helpers/broker-quote-fixtures.js';
import { captureLogs, orderFor } from '../../../../test/helpers/broker-order-stubs.js';
import {
  ANGEL_CREDS,
  ANGEL_RATE_LIMIT_TEXT,
  ANGEL_STUB_PATHS as P,
  angelError,
  loadAngelInstruments,
  startAngelStub,
} from '../../../../test/helpers/broker-order-stub-angel.js';

let A: Record<'sbin' | 'ce' | 'fut' | 'nifty' | 'pe' | 'sensexCe', QuoteInstrument>;
beforeAll(async () => {
  A = await loadAngelInstruments();
});
closeAfterEach();

async function setup(opts: Partial<BrokerAdapterOptions> = {}) {
  const stub = await startAngelStub(ANGEL_CREDS);
  const { logger, logs } = captureLogs();
  const adapter = new AngelAdapter({
    apiKey: ANGEL_CREDS.apiKey,
    apiSecret: 'angelSECRETn4Hd',
    redirectUrl: '',
    baseUrl: stub.url,
    logger,
    ...opts,
  });
  closeLater(() => stub.close());
  closeLater(() => adapter.close());
  return { stub, adapter, session: { accessToken: ANGEL_CREDS.jwt }, logs };
}

const order = orderFor;
const ORDER_ID = /^\d{15}$/;

describe('placement: POST placeOrder with the body SmartAPI documents', () => {
  it.each([
    {
      name: 'MARKET CNC equity: NORMAL, DELIVERY, prices 0',
      pick: () => order(A.sbin, { quantity: 10, price: '812.4', triggerPrice: '810' }),
      body: {
        variety: 'NORMAL',
        tradingsymbol: 'SBIN-EQ',
        symboltoken: '3045',
        exchange: 'NSE',
        transactiontype: 'BUY',
        ordertype: 'MARKET',
        producttype: 'DELIVERY',
        quantity: '10',
        price: '0',
        triggerprice: '0',
      },
    },
    {
      name: 'LIMIT NRML future: CARRYFORWARD, the price, trigger 0',
      pick: () =>
        order(A.fut, { side: 'SELL', priceType: 'LIMIT', product: 'NRML', quantity: 30, price: '55120.5' }),
      body: {
        variety: 'NORMAL',
        tradingsymbol: 'BANKNIFTY25AUG26FUT',
        symboltoken: '58067',
        exchange: 'NFO',
        transactiontype: 'SELL',
        ordertype: 'LIMIT',
        producttype: 'CARRYFORWARD',
        quantity: '30',
        price: '55120.5',
        triggerprice: '0',
      },
    },
    {
      name: 'SL MIS option: STOPLOSS variety, STOPLOSS_LIMIT, INTRADAY',
      pick: () =>
        order(A.ce, { priceType: 'SL', product: 'MIS', quantity: 65, price: '101.5', triggerPrice: '100' }),
      body: {
        variety: 'STOPLOSS',
        tradingsymbol: 'NIFTY18AUG2626000CE',
        symboltoken: '45200',
        exchange: 'NFO',
        transactiontype: 'BUY',
        ordertype: 'STOPLOSS_LIMIT',
        producttype: 'INTRADAY',
        quantity: '65',
        price: '101.5',
        triggerprice: '100',
      },
    },
    {
      name: 'SL-M MIS BFO option: STOPLOSS_MARKET, price 0, disclosed quantity',
      pick: () =>
        order(A.sensexCe, {
          side: 'SELL',
          priceType: 'SL-M',
          product: 'MIS',
          quantity: 20,
          price: '5',
          triggerPrice: '140.05',
          disclosedQuantity: 10,
        }),
      body: {
        variety: 'STOPLOSS',
        tradingsymbol: 'SENSEX20AUG2678000CE',
        symboltoken: '855223',
        exchange: 'BFO',
        transactiontype: 'SELL',
        ordertype: 'STOPLOSS_MARKET',
        producttype: 'INTRADAY',
        quantity: '20',
        price: '0',
        triggerprice: '140.05',
        disclosedquantity: '10',
      },
    },
  ])('$name', async ({ pick, body }) => {
    const { stub, adapter, session } = await setup();

    const result = await adapter.placeOrder(pick(), session);

    expect(stub.bodies(P.place)).toEqual([{ ...body, duration: 'DAY' }]);
    expect(result).toMatchObject({ ok: true, httpStatus: 200, orderId: expect.stringMatching(ORDER_ID) });
    expect(result.raw).toMatchObject({ status: true, data: { orderid: result.orderId } });
  });

  it('an after-market order is variety AMO', async () => {
    const { stub, adapter, session } = await setup();

    const result = await adapter.placeOrder(
      order(A.sbin, { priceType: 'LIMIT', price: '801.5', amo: true }),
      session,
    );

    expect(stub.bodies(P.place)[0]).toMatchObject({ variety: 'AMO', ordertype: 'LIMIT', price: '801.5' });
    expect(result.ok).toBe(true);
  });

  it('sends Authorization: Bearer <jwt>, X-PrivateKey and the SmartAPI headers', async () => {
    const { stub, adapter, session } = await setup();

    await adapter.placeOrder(order(A.sbin), session);

    const req = stub.requests[0]!;
    expect(stub.credentialOf(req)).toBe('exact');
    expect(req.headers).toMatchObject({
      'content-type': 'application/json',
      accept: 'application/json',
      'x-usertype': 'USER',
      'x-sourceid': 'WEB',
      'x-privatekey': ANGEL_CREDS.apiKey,
    });
  });

  it("ordertag carries the strategy tag, cut to Angel's 20 characters; no tag, no field", async () => {
    const { stub, adapter, session } = await setup();

    const tagged = await adapter.placeOrder(order(A.sbin, { tag: 'mean-reversion-nifty-weekly' }), session);
    await adapter.placeOrder(order(A.sbin, { tag: '  ' }), session);

    expect(tagged.ok).toBe(true);
    expect(stub.bodies(P.place).map((b) => b.ordertag)).toEqual(['mean-reversion-nifty', undefined]);
  });
});

describe('modify, cancel, status, ordersByTag', () => {
  it('modify sends the order id and changeable fields; cancel {variety, orderid}; status reads the book', async () => {
    const { stub, adapter, session } = await setup();
    const limit = order(A.ce, { priceType: 'LIMIT', product: 'NRML', quantity: 65, price: '98.5' });
    const { orderId } = await adapter.placeOrder(limit, session);

    const modified = await adapter.modifyOrder(
      orderId!,
      { ...limit, price: '97.25', quantity: 130 },
      session,
    );
    const toSl = await adapter.modifyOrder(
      orderId!,
      { ...limit, priceType: 'SL', triggerPrice: '97' },
      session,
    );
    const open = await adapter.orderStatus(orderId!, session);
    const cancelled = await adapter.cancelOrder(orderId!, session);
    const status = await adapter.orderStatus(orderId!, session);

    const common = {
      tradingsymbol: 'NIFTY18AUG2626000CE',
      symboltoken: '45200',
      exchange: 'NFO',
      producttype: 'CARRYFORWARD',
      duration: 'DAY',
      orderid: orderId,
    };
    expect(stub.bodies(P.modify)).toEqual([
      {
        ...common,
        variety: 'NORMAL',
        ordertype: 'LIMIT',
        price: '97.25',
        triggerprice: '0',
        quantity: '130',
      },
      {
        ...common,
        variety: 'STOPLOSS',
        ordertype: 'STOPLOSS_LIMIT',
        price: '98.5',
        triggerprice: '97',
        quantity: '65',
      },
    ]);
    expect(stub.bodies(P.cancel)).toEqual([{ variety: 'NORMAL', orderid: orderId }]);
    expect([modified, toSl, cancelled].map((r) => [r.ok, r.orderId])).toEqual([
      [true, orderId],
      [true, orderId],
      [true, orderId],
    ]);
    expect(open.raw).toMatchObject({
      orderid: orderId,
      status: 'TRIGGER PENDING',
      ordertype: 'STOPLOSS_LIMIT',
    });
    expect(status).toMatchObject({ ok: true, httpStatus: 200, orderId });
    expect(status.raw).toMatchObject({ orderid: orderId, status: 'CANCELLED' });
  });

  it('status of an order the book does not list is a 404 naming it', async () => {
    const { adapter, session } = await setup();

    const status = await adapter.orderStatus('260818000000999', session);

    expect(status).toMatchObject({
      ok: false,
      httpStatus: 404,
      message: "Angel One's order book has no order 260818000000999",
    });
  });

  it('ordersByTag filters the day’s order book by ordertag (the tag as sent, cut to 20)', async () => {
    const { adapter, session } = await setup();
    const a = await adapter.placeOrder(order(A.sbin, { tag: 'mean-reversion-nifty-weekly' }), session);
    await adapter.placeOrder(order(A.sbin, { tag: 'other' }), session);
    const c = await adapter.placeOrder(
      order(A.ce, { priceType: 'LIMIT', price: '90', tag: 'mean-reversion-nifty-weekly' }),
      session,
    );

    const found = await adapter.ordersByTag('mean-reversion-nifty-weekly', session);
    const none = await adapter.ordersByTag('absent', session);

    expect(found.ok).toBe(true);
    expect((found.raw as { orderid: string }[]).map((o) => o.orderid)).toEqual([a.orderId, c.orderId]);
    expect(none).toMatchObject({ ok: true, raw: [] });
  });

  it('ordersByTag on an empty day (Angel answers data: null) is an empty list', async () => {
    const { adapter, session } = await setup();

    expect(await adapter.ordersByTag('x', session)).toMatchObject({ ok: true, raw: [] });
  });
});

describe("refusals: Angel's status false answers become a status with Angel's message", () => {
  it.each([
    ['the tag refusal', { tag: 'x' }, 'AB4008', 'Ordertag length should not exceed 20 characters', 400],
    ['an invalid token', {}, 'AG8001', 'Invalid Token', 401],
    ['Angel’s own failure', {}, 'AB1004', 'Something Went Wrong, Please Try After Sometime', 502],
    ['an unknown order', {}, 'AB1013', 'Order not found', 404],
  ])('%s (%s) → HTTP %s', async (_n, over, code, message, status) => {
    const { stub, adapter, session } = await setup();
    stub.refusePlacement(1, 200, angelError(message, code));

    const result = await adapter.placeOrder(order(A.sbin, over), session);

    expect(result).toMatchObject({ ok: false, httpStatus: status, message });
    expect(result.orderId).toBeUndefined();
    expect(result.raw).toEqual(angelError(message, code));
  });

  it('the stub’s documented refusal of a wrong product reaches the client as 400 AB1012', async () => {
    const { stub, adapter, session } = await setup();
    stub.failNext(200, angelError('Invalid Product Type', 'AB1012'));

    const result = await adapter.placeOrder(order(A.sbin), session);

    expect(result).toMatchObject({ ok: false, httpStatus: 400, message: 'Invalid Product Type' });
  });

  it("a stale JWT gets the gateway's AG8001 body: 401 'Invalid Token'", async () => {
    const { adapter } = await setup();

    const result = await adapter.placeOrder(order(A.sbin), { accessToken: 'eyJstale.token.x' });

    expect(result).toMatchObject({ ok: false, httpStatus: 401, message: 'Invalid Token' });
  });

  it('an HTTP error status passes through as it came, with the message', async () => {
    const { stub, adapter, session } = await setup();
    stub.failNext(503, angelError('Service Unavailable', 'AB2001'));

    const result = await adapter.placeOrder(order(A.sbin), session);

    expect(result).toMatchObject({ ok: false, httpStatus: 503, message: 'Service Unavailable' });
  });

  it("the rate limiter's plain-text answer is 429", async () => {
    const { stub, adapter, session } = await setup();
    stub.failNext(403, ANGEL_RATE_LIMIT_TEXT);

    const result = await adapter.placeOrder(order(A.sbin), session);

    expect(result).toMatchObject({
      ok: false,
      httpStatus: 429,
      message: 'Angel One: access denied for exceeding the access rate',
    });
  });

  it("a success without an order id is a failure that keeps Angel's status", async () => {
    const { stub, adapter, session } = await setup();
    stub.omitOrderId = true;

    const result = await adapter.placeOrder(order(A.sbin), session);

    expect(result).toMatchObject({
      ok: false,
      httpStatus: 200,
      message: 'Angel One answered success without an order id',
    });
  });

  it('no access token: refused with 401 before any I/O', async () => {
    const { stub, adapter } = await setup();

    const result = await adapter.placeOrder(order(A.sbin), { accessToken: ' ' });

    expect(result).toMatchObject({ ok: false, httpStatus: 401, roundTripMs: 0 });
    expect(stub.requests).toEqual([]);
  });

  it('the JWT and the API key never appear in a message, a raw body or the logs', async () => {
    const { stub, adapter, session, logs } = await setup();
    const echo = `Invalid Token Bearer ${ANGEL_CREDS.jwt} for key ${ANGEL_CREDS.apiKey}`;
    stub.failNext(200, { ...angelError(echo, 'AG8001'), data: { jwtToken: ANGEL_CREDS.jwt } });

    const result = await adapter.placeOrder(order(A.sbin), session);
    await adapter.placeOrder(order(A.sbin), session);

    expect(result.ok).toBe(false);
    const seen = JSON.stringify([result.message, result.raw]) + logs();
    expect(seen).not.toContain(ANGEL_CREDS.jwt);
    expect(seen).not.toContain(ANGEL_CREDS.apiKey);
    expect(result.message).toContain('[redacted]');
  });
});

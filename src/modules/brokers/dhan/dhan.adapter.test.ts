/**
 * The Dhan adapter against a loopback DhanHQ v2 (test/helpers/broker-order-stub-dhan.ts), with
 * real instruments from the Dhan scrip master: order bodies, results, tags, order status,
 * failures and the credential's absence from every message, body and log line.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { orderStatusOf } from '../../orders/live-order-status.js';
import { closeAfterEach } from '../../../../test/helpers/broker-quote-fixtures.js';
import { orderFor } from '../../../../test/helpers/broker-order-stubs.js';
import { DHAN_RATE_LIMIT, dhanError } from '../../../../test/helpers/broker-order-stub-dhan.js';
import { SLOWER_THAN_TIMEOUT_MS } from '../../../../test/helpers/broker-stub.js';
import {
  DHAN,
  loadDhanInstruments,
  setupDhan,
  type DhanSet,
} from '../../../../test/helpers/dhan-fixtures.js';

let D: DhanSet;
beforeAll(async () => {
  D = await loadDhanInstruments();
});
closeAfterEach();

const setup = () => setupDhan({}, [D.sbin, D.infy, D.ce, D.fut, D.silver]);

describe('placement: POST /orders with the JSON body DhanHQ v2 documents', () => {
  it.each([
    {
      name: 'MARKET CNC equity with a tag: correlationId, price 0, no trigger',
      pick: () => orderFor(D.sbin, { quantity: 10, tag: 'adq3k9z0000000001' }),
      body: {
        dhanClientId: DHAN.clientId,
        correlationId: 'adq3k9z0000000001',
        transactionType: 'BUY',
        exchangeSegment: 'NSE_EQ',
        productType: 'CNC',
        orderType: 'MARKET',
        validity: 'DAY',
        securityId: '3045',
        quantity: 10,
        price: 0,
        afterMarketOrder: false,
      },
    },
    {
      name: 'LIMIT NRML future → MARGIN, price as a number',
      pick: () =>
        orderFor(D.fut, {
          side: 'SELL',
          priceType: 'LIMIT',
          product: 'NRML',
          quantity: 30,
          price: '55120.5',
        }),
      body: {
        dhanClientId: DHAN.clientId,
        transactionType: 'SELL',
        exchangeSegment: 'NSE_FNO',
        productType: 'MARGIN',
        orderType: 'LIMIT',
        validity: 'DAY',
        securityId: '51701',
        quantity: 30,
        price: 55120.5,
        afterMarketOrder: false,
      },
    },
    {
      name: 'SL MIS option → STOP_LOSS INTRADAY with trigger and disclosed quantity',
      pick: () =>
        orderFor(D.ce, {
          priceType: 'SL',
          product: 'MIS',
          quantity: 65,
          price: '101.5',
          triggerPrice: '100',
          disclosedQuantity: 20,
        }),
      body: {
        dhanClientId: DHAN.clientId,
        transactionType: 'BUY',
        exchangeSegment: 'NSE_FNO',
        productType: 'INTRADAY',
        orderType: 'STOP_LOSS',
        validity: 'DAY',
        securityId: '42500',
        quantity: 65,
        disclosedQuantity: 20,
        price: 101.5,
        triggerPrice: 100,
        afterMarketOrder: false,
      },
    },
    {
      name: 'SL-M on MCX → STOP_LOSS_MARKET, price 0 and the trigger',
      pick: () =>
        orderFor(D.silver, {
          side: 'SELL',
          priceType: 'SL-M',
          product: 'NRML',
          triggerPrice: '251000',
          price: '9',
        }),
      body: {
        dhanClientId: DHAN.clientId,
        transactionType: 'SELL',
        exchangeSegment: 'MCX_COMM',
        productType: 'MARGIN',
        orderType: 'STOP_LOSS_MARKET',
        validity: 'DAY',
        securityId: '451666',
        quantity: 1,
        price: 0,
        triggerPrice: 251000,
        afterMarketOrder: false,
      },
    },
    {
      name: 'an after-market LIMIT order: afterMarketOrder true, amoTime OPEN',
      pick: () => orderFor(D.infy, { priceType: 'LIMIT', price: '1500', amo: true }),
      body: {
        dhanClientId: DHAN.clientId,
        transactionType: 'BUY',
        exchangeSegment: 'NSE_EQ',
        productType: 'CNC',
        orderType: 'LIMIT',
        validity: 'DAY',
        securityId: '1594',
        quantity: 1,
        price: 1500,
        afterMarketOrder: true,
        amoTime: 'OPEN',
      },
    },
  ])('$name', async ({ pick, body }) => {
    const { stub, adapter, session } = await setup();
    const r = await adapter.placeOrder(pick(), session);
    expect(r).toMatchObject({ ok: true, httpStatus: 200, orderId: expect.stringMatching(/^\d{11}$/) });
    expect(r.raw).toEqual({ orderId: r.orderId, orderStatus: 'PENDING' });
    const [req] = stub.requests;
    expect(req).toMatchObject({ method: 'POST', path: '/v2/orders' });
    expect(JSON.parse(req!.body)).toEqual(body);
    // Field order as documented (dhanClientId, correlationId, transactionType, …).
    expect(Object.keys(JSON.parse(req!.body) as object)).toEqual(Object.keys(body));
    expect(req!.headers['content-type']).toBe('application/json');
    expect(stub.credentialOf(req!)).toBe('exact');
    // The stub keeps no credential in its record.
    expect(JSON.stringify(stub.requests)).not.toContain(DHAN.accessToken);
  });

  it('a tag Dhan would refuse is made acceptable: other characters become _, cut to 30', async () => {
    const { stub, adapter, session } = await setup();
    const tag = 'mean-rev/NIFTY:weekly#2 with a very long name';
    const r = await adapter.placeOrder(orderFor(D.sbin, { tag }), session);
    expect(r.ok).toBe(true);
    expect(stub.bodies('/v2/orders')[0]!.correlationId).toBe('mean-rev_NIFTY_weekly_2 with a');
    // The same form finds it again.
    const found = await adapter.ordersByTag(tag, session);
    expect((found.raw as unknown[]).map((o) => (o as { order_id: string }).order_id)).toEqual([r.orderId]);
  });

  it('no dhanClientId without the client id in the session: refused locally, nothing sent', async () => {
    const { stub, adapter } = await setup();
    const r = await adapter.placeOrder(orderFor(D.sbin), { accessToken: DHAN.accessToken });
    expect(r).toMatchObject({ ok: false, httpStatus: 401, message: expect.stringContaining('client id') });
    const t = await adapter.placeOrder(orderFor(D.sbin), { accessToken: ' ', brokerUserId: DHAN.clientId });
    expect(t).toMatchObject({
      ok: false,
      httpStatus: 401,
      message: expect.stringContaining('no access token'),
    });
    expect(stub.requests).toHaveLength(0);
  });
});

describe('modify and cancel: PUT and DELETE /orders/{order-id}', () => {
  it('modify sends the documented body and answers the order id', async () => {
    const { stub, adapter, session } = await setup();
    const placed = await adapter.placeOrder(
      orderFor(D.sbin, { priceType: 'LIMIT', price: '800', quantity: 5 }),
      session,
    );
    const id = placed.orderId!;
    const r = await adapter.modifyOrder(
      id,
      orderFor(D.sbin, { priceType: 'SL', price: '790', triggerPrice: '791', quantity: 7 }),
      session,
    );
    expect(r).toMatchObject({ ok: true, httpStatus: 200, orderId: id });
    const req = stub.requests.at(-1)!;
    expect(req).toMatchObject({ method: 'PUT', path: `/v2/orders/${id}` });
    expect(JSON.parse(req.body)).toEqual({
      dhanClientId: DHAN.clientId,
      orderId: id,
      orderType: 'STOP_LOSS',
      legName: 'ENTRY_LEG',
      quantity: 7,
      price: 790,
      triggerPrice: 791,
      validity: 'DAY',
    });
    const book = await adapter.orderBook(session);
    expect(book.ok && book.data[0]).toMatchObject({
      pricetype: 'SL',
      quantity: 7,
      price: 790,
      trigger_price: 791,
    });
  });

  it('cancel sends no body; a second cancel passes Dhan’s DH-906 refusal through', async () => {
    const { stub, adapter, session } = await setup();
    const id = (await adapter.placeOrder(orderFor(D.sbin, { priceType: 'LIMIT', price: '800' }), session))
      .orderId!;
    const r = await adapter.cancelOrder(id, session);
    expect(r).toMatchObject({
      ok: true,
      httpStatus: 200,
      orderId: id,
      raw: { orderId: id, orderStatus: 'CANCELLED' },
    });
    expect(stub.requests.at(-1)).toMatchObject({ method: 'DELETE', path: `/v2/orders/${id}`, body: '' });
    const again = await adapter.cancelOrder(id, session);
    expect(again).toMatchObject({
      ok: false,
      httpStatus: 400,
      message: 'DH-906: Order is CANCELLED and cannot be cancelled',
    });
    expect(again.raw).toEqual(
      dhanError('Order_Error', 'DH-906', 'Order is CANCELLED and cannot be cancelled'),
    );
  });

  it('a success without an order id: the id asked about for modify and cancel, a failure for place', async () => {
    const { stub, adapter, session } = await setup();
    const id = (await adapter.placeOrder(orderFor(D.sbin, { priceType: 'LIMIT', price: '800' }), session))
      .orderId!;
    stub.omitOrderId = true;
    expect(await adapter.cancelOrder(id, session)).toMatchObject({ ok: true, orderId: id });
    const p = await adapter.placeOrder(orderFor(D.sbin), session);
    expect(p).toMatchObject({
      ok: false,
      httpStatus: 200,
      message: 'Dhan answered success without an order id',
    });
  });
});

describe('order status and orders by tag', () => {
  it('GET /orders/{id}: the record in the names the orderstatus reader takes, Dhan’s under `dhan`', async () => {
    const { stub, adapter, session } = await setup();
    const id = (
      await adapter.placeOrder(orderFor(D.ce, { product: 'NRML', quantity: 65, tag: 'adT1' }), session)
    ).orderId!;
    stub.settle(id, 'TRADED');
    const r = await adapter.orderStatus(id, session);
    expect(r).toMatchObject({ ok: true, orderId: id });
    expect(stub.requests.at(-1)).toMatchObject({ method: 'GET', path: `/v2/orders/${id}` });
    expect(r.raw).toMatchObject({
      order_id: id,
      tradingsymbol: 'NIFTY-Feb2026-25000-CE',
      exchange: 'NFO',
      status: 'COMPLETE',
      product: 'NRML',
      order_type: 'MARKET',
      filled_quantity: 65,
      tag: 'adT1',
      dhan: { orderId: id, orderStatus: 'TRADED', securityId: '42500', exchangeSegment: 'NSE_FNO' },
    });
    expect(orderStatusOf(id, r.raw)).toMatchObject({
      orderid: id,
      exchange: 'NFO',
      action: 'BUY',
      order_status: 'complete',
      product: 'NRML',
      pricetype: 'MARKET',
      filled_quantity: 65,
      strategy: 'adT1',
    });
  });

  it.each([
    ['PENDING', 'open'],
    ['REJECTED', 'rejected'],
    ['EXPIRED', 'cancelled'],
  ] as const)('Dhan %s reads as %s', async (dhan, ours) => {
    const { stub, adapter, session } = await setup();
    const id = (await adapter.placeOrder(orderFor(D.sbin, { priceType: 'LIMIT', price: '1' }), session))
      .orderId!;
    stub.settle(id, dhan);
    expect(orderStatusOf(id, (await adapter.orderStatus(id, session)).raw).order_status).toBe(ours);
  });

  it('an unknown order id passes Dhan’s refusal through', async () => {
    const { adapter, session } = await setup();
    expect(await adapter.orderStatus('999', session)).toMatchObject({
      ok: false,
      httpStatus: 400,
      message: 'DH-906: Invalid order id',
    });
  });

  it('ordersByTag filters the day’s book by correlationId: every part of a split, nothing else', async () => {
    const { stub, adapter, session } = await setup();
    const a = await adapter.placeOrder(orderFor(D.fut, { quantity: 30, tag: 'adSPLIT' }), session);
    await adapter.placeOrder(orderFor(D.fut, { quantity: 30, tag: 'adOTHER' }), session);
    const b = await adapter.placeOrder(orderFor(D.fut, { quantity: 15, tag: 'adSPLIT' }), session);
    await adapter.placeOrder(orderFor(D.fut, { quantity: 15 }), session);
    const r = await adapter.ordersByTag('adSPLIT', session);
    expect(stub.requests.at(-1)).toMatchObject({ method: 'GET', path: '/v2/orders' });
    expect(r.ok).toBe(true);
    const list = r.raw as Record<string, unknown>[];
    expect(list.map((o) => [o.order_id, o.quantity, o.tag])).toEqual([
      [a.orderId, 30, 'adSPLIT'],
      [b.orderId, 15, 'adSPLIT'],
    ]);
    expect(await adapter.ordersByTag('adNONE', session)).toMatchObject({ ok: true, raw: [] });
  });
});

describe('failures: Dhan’s status and message passed through, the token nowhere', () => {
  it('a wrong token: 401 DH-901 with Dhan’s message; no token in message, raw or logs', async () => {
    const { adapter, logs } = await setup();
    const session = { accessToken: 'eyJhbGciWRONGtoken3Rt8', brokerUserId: DHAN.clientId };
    const results = [
      await adapter.placeOrder(orderFor(D.sbin), session),
      await adapter.cancelOrder('1', session),
      await adapter.ordersByTag('x', session),
    ];
    for (const r of results) {
      expect(r).toMatchObject({
        ok: false,
        httpStatus: 401,
        message: 'DH-901: Client ID or user generated access token is invalid or expired.',
      });
      expect(JSON.stringify(r)).not.toContain('WRONGtoken');
    }
    const book = await adapter.orderBook(session);
    expect(book).toMatchObject({ ok: false, httpStatus: 401 });
    expect(logs()).toContain('DH-901');
    expect(logs()).not.toContain('WRONGtoken');
    expect(logs()).not.toContain(DHAN.accessToken);
  });

  it('an input refusal keeps Dhan’s 400 and text', async () => {
    const { adapter, session } = await setup();
    const r = await adapter.placeOrder(orderFor(D.sbin, { priceType: 'LIMIT', price: '0' }), session);
    expect(r).toMatchObject({ ok: false, httpStatus: 400, message: 'DH-905: Price is required' });
  });

  it('a rate-limit answer (429 DH-904) is passed through, not retried', async () => {
    const { stub, adapter, session } = await setup();
    stub.failNext(DHAN_RATE_LIMIT.status, DHAN_RATE_LIMIT.body);
    const r = await adapter.placeOrder(orderFor(D.sbin), session);
    expect(r).toMatchObject({
      ok: false,
      httpStatus: 429,
      message: expect.stringMatching(/^DH-904: Too many requests/),
    });
    const books = await (async () => {
      stub.failNext(DHAN_RATE_LIMIT.status, DHAN_RATE_LIMIT.body);
      return adapter.positions(session);
    })();
    expect(books).toMatchObject({ ok: false, httpStatus: 429 });
    expect(stub.requests).toHaveLength(2);
  });

  it('a token echoed in an error is masked', async () => {
    const { stub, adapter, session } = await setup();
    stub.failNext(
      500,
      dhanError('Internal_Server_Error', 'DH-908', `bad header access-token=${DHAN.accessToken}`),
    );
    const r = await adapter.placeOrder(orderFor(D.sbin), session);
    expect(r).toMatchObject({ ok: false, httpStatus: 500 });
    expect(r.message).toContain('[redacted]');
    expect(JSON.stringify(r)).not.toContain(DHAN.accessToken);
  });

  it('a timeout is a 504, a refused connection a 502', async () => {
    const { stub, adapter, session } = await setupDhan({ timeoutMs: 300 }, [D.sbin]);
    stub.delayNext(SLOWER_THAN_TIMEOUT_MS);
    const r = await adapter.placeOrder(orderFor(D.sbin), session);
    expect(r).toMatchObject({
      ok: false,
      httpStatus: 504,
      message: expect.stringContaining('Dhan did not answer'),
    });
    const url = stub.baseUrl;
    await stub.close();
    const { DhanAdapter } = await import('./dhan.adapter.js');
    const gone = new DhanAdapter({ apiKey: '', apiSecret: '', redirectUrl: '', baseUrl: url, keepWarmMs: 0 });
    const f = await gone.placeOrder(orderFor(D.sbin), session);
    await gone.close();
    expect(f).toMatchObject({ ok: false, httpStatus: 502 });
  }, 10_000);
});

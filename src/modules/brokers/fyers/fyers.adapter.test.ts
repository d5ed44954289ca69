/**
 * The Fyers adapter against a loopback Fyers API v3 (test/helpers/broker-order-stub-fyers.ts), with
 * real instruments from the Fyers symbol masters: order bodies for each price type and product,
 * results, tags, order status, ordersByTag, margin, refusals passed through with Fyers' message,
 * and the credentials' absence from every message, body and log line.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { orderStatusOf } from '../../orders/live-order-status.js';
import { closeAfterEach } from '../../../../test/helpers/broker-quote-fixtures.js';
import { orderFor } from '../../../../test/helpers/broker-order-stubs.js';
import { fyersError } from '../../../../test/helpers/broker-history-stub-fyers.js';
import {
  FYERS,
  FYERS_SECRETS,
  loadFyersInstruments,
  setupFyers,
  type FyersSet,
} from '../../../../test/helpers/fyers-fixtures.js';
import { fyersTag } from './fyers.mapping.js';

let F: FyersSet;
beforeAll(async () => {
  F = await loadFyersInstruments();
});
closeAfterEach();

const setup = () => setupFyers({}, [F.sbin, F.fut, F.ce, F.usdinr, F.silver]);
const ORDER = '/api/v3/orders/sync';

/** No credential anywhere in `text`. */
const clean = (text: string) => {
  for (const s of FYERS_SECRETS) expect(text).not.toContain(s);
};

describe('placement: POST /api/v3/orders/sync with the body the docs document', () => {
  it.each([
    {
      name: 'MARKET CNC equity with a tag: type 2, prices 0, orderTag',
      pick: () => orderFor(F.sbin, { quantity: 10, tag: 'adq3k9z0000000001' }),
      body: {
        symbol: 'NSE:SBIN-EQ',
        qty: 10,
        type: 2,
        side: 1,
        productType: 'CNC',
        limitPrice: 0,
        stopPrice: 0,
        orderTag: 'adq3k9z0000000001',
      },
    },
    {
      name: 'LIMIT NRML future sold → MARGIN, side -1, limitPrice only',
      pick: () =>
        orderFor(F.fut, {
          side: 'SELL',
          priceType: 'LIMIT',
          product: 'NRML',
          quantity: 20,
          price: '85120.5',
        }),
      body: {
        symbol: 'BSE:SENSEX25NOVFUT',
        qty: 20,
        type: 1,
        side: -1,
        productType: 'MARGIN',
        limitPrice: 85120.5,
        stopPrice: 0,
      },
    },
    {
      name: 'SL MIS option → type 4 (stop-limit), INTRADAY, both prices',
      pick: () =>
        orderFor(F.ce, {
          priceType: 'SL',
          product: 'MIS',
          quantity: 20,
          price: '101.5',
          triggerPrice: '100',
        }),
      body: {
        symbol: 'BSE:SENSEX25NOV91700CE',
        type: 4,
        productType: 'INTRADAY',
        limitPrice: 101.5,
        stopPrice: 100,
      },
    },
    {
      name: 'SL-M MIS commodity future → type 3 (stop), stopPrice only',
      pick: () =>
        orderFor(F.silver, { side: 'SELL', priceType: 'SL-M', product: 'MIS', triggerPrice: '71000' }),
      body: { type: 3, side: -1, productType: 'INTRADAY', limitPrice: 0, stopPrice: 71000 },
    },
  ])('$name', async ({ pick, body }) => {
    const { stub, adapter, session } = await setup();
    const r = await adapter.placeOrder(pick(), session);
    expect(r).toMatchObject({ ok: true, httpStatus: 200 });
    expect(r.orderId).toMatch(/^\d{14}$/);
    const [sent] = stub.bodies(ORDER, 'POST');
    expect(sent).toMatchObject({ ...body, validity: 'DAY', offlineOrder: false, stopLoss: 0, takeProfit: 0 });
    if (!('orderTag' in body)) expect(sent).not.toHaveProperty('orderTag');
    expect(stub.credentialOf(stub.requests[0]!)).toBe('exact');
  });

  it('an after-market order is offlineOrder true; a disclosed quantity goes as disclosedQty', async () => {
    const { stub, adapter, session } = await setup();
    await adapter.placeOrder(
      orderFor(F.sbin, { amo: true, priceType: 'LIMIT', price: '800', quantity: 50, disclosedQuantity: 10 }),
      session,
    );
    expect(stub.bodies(ORDER, 'POST')[0]).toMatchObject({
      offlineOrder: true,
      disclosedQty: 10,
      limitPrice: 800,
    });
  });

  it('the tag keeps only letters and digits, at most 30 (the docs’ order-tag rule)', async () => {
    expect(fyersTag('strat-7_ref:0001')).toBe('strat7ref0001');
    expect(fyersTag('a'.repeat(40))).toHaveLength(30);
    expect(fyersTag('--')).toBeUndefined();
    expect(fyersTag('Untagged')).toBeUndefined();
    const { stub, adapter, session } = await setup();
    expect((await adapter.placeOrder(orderFor(F.sbin, { tag: 'ad-q3k9 z/01' }), session)).ok).toBe(true);
    expect(stub.bodies(ORDER, 'POST')[0]!.orderTag).toBe('adq3k9z01');
  });
});

describe('modify and cancel: PATCH and DELETE /api/v3/orders/sync', () => {
  it('modify sends id, type, qty and the prices the new type carries; cancel sends {id}', async () => {
    const { stub, adapter, session } = await setup();
    const id = (await adapter.placeOrder(orderFor(F.sbin, { priceType: 'LIMIT', price: '790' }), session))
      .orderId!;
    const m = await adapter.modifyOrder(
      id,
      orderFor(F.sbin, { priceType: 'SL', price: '801', triggerPrice: '800', quantity: 3 }),
      session,
    );
    expect(m).toMatchObject({ ok: true, orderId: id });
    expect(stub.bodies(ORDER, 'PATCH')).toEqual([{ id, type: 4, qty: 3, limitPrice: 801, stopPrice: 800 }]);
    await adapter.modifyOrder(id, orderFor(F.sbin, { priceType: 'MARKET', quantity: 3 }), session);
    expect(stub.bodies(ORDER, 'PATCH')[1]).toEqual({ id, type: 2, qty: 3 });
    expect(await adapter.cancelOrder(id, session)).toMatchObject({ ok: true, orderId: id, httpStatus: 200 });
    expect(stub.bodies(ORDER, 'DELETE')).toEqual([{ id }]);
    expect(orderStatusOf(id, (await adapter.orderStatus(id, session)).raw).order_status).toBe('cancelled');
  });

  it('cancelling a final order passes Fyers’ refusal through with its status and message', async () => {
    const { stub, adapter, session } = await setup();
    stub.fillMarketOrders = true;
    const id = (await adapter.placeOrder(orderFor(F.sbin), session)).orderId!;
    expect(await adapter.cancelOrder(id, session)).toMatchObject({
      ok: false,
      httpStatus: 400,
      message: 'Order is not pending and cannot be cancelled',
    });
  });
});

describe('refusals keep Fyers’ message and status; no credential leaks', () => {
  it('a rejected placement (HTTP 400, code -99) comes back as Fyers said it, logged without a token', async () => {
    const { stub, adapter, session, logs } = await setup();
    stub.refusePlacement(1, 400, {
      s: 'error',
      code: -99,
      message: `RMS:Margin Exceeds for ${FYERS.accessToken}`,
    });
    const r = await adapter.placeOrder(orderFor(F.sbin), session);
    expect(r).toMatchObject({ ok: false, httpStatus: 400, message: 'RMS:Margin Exceeds for [redacted]' });
    clean(JSON.stringify(r));
    clean(logs());
    expect(logs()).toContain('broker order call failed');
  });

  it('an "s":"error" that came with HTTP 200 gets the status of its code', async () => {
    const { stub, adapter, session } = await setup();
    stub.failNext(200, { s: 'error', code: -17, message: 'Your token has expired' });
    expect(await adapter.placeOrder(orderFor(F.sbin), session)).toMatchObject({
      ok: false,
      httpStatus: 401,
      message: 'Your token has expired',
    });
    stub.failNext(200, { s: 'error', code: -429, message: 'request limit reached' });
    expect(await adapter.orderBook(session)).toMatchObject({
      ok: false,
      httpStatus: 429,
      message: 'request limit reached',
    });
  });

  it('a wrong token is refused by Fyers (401, -16); no token is refused before any I/O', async () => {
    const { stub, adapter } = await setup();
    const r = await adapter.placeOrder(orderFor(F.sbin), { accessToken: 'eyJwrongTOKEN1234' });
    expect(r).toMatchObject({ ok: false, httpStatus: 401, message: 'Could not authenticate the user' });
    expect(stub.credentialOf(stub.requests[0]!)).toBe('wrong');
    expect(stub.requests[0]!.headers.authorization).toBeUndefined();
    const none = await adapter.placeOrder(orderFor(F.sbin), { accessToken: '' });
    expect(none).toMatchObject({ ok: false, httpStatus: 401 });
    expect(stub.requests).toHaveLength(1);
  });

  it('a success without an id is a failure that says so', async () => {
    const { stub, adapter, session } = await setup();
    stub.omitOrderId = true;
    expect(await adapter.placeOrder(orderFor(F.sbin), session)).toMatchObject({ ok: false, httpStatus: 200 });
  });
});

describe('order status and ordersByTag: records in the shared field names', () => {
  it('orderStatus reads GET /orders?id= into the record the orders module takes', async () => {
    const { stub, adapter, session } = await setup();
    stub.fillMarketOrders = true;
    stub.prices.set(F.ce.brsymbol, 212.35);
    const id = (
      await adapter.placeOrder(orderFor(F.ce, { product: 'NRML', quantity: 20, tag: 'adT1' }), session)
    ).orderId!;
    const r = await adapter.orderStatus(id, session);
    expect(stub.requests.at(-1)!.url).toBe(`/api/v3/orders?id=${id}`);
    expect(r).toMatchObject({ ok: true, orderId: id, raw: { fyers: { id, status: 2 } } });
    expect(orderStatusOf(id, r.raw)).toMatchObject({
      orderid: id,
      exchange: 'BFO',
      action: 'BUY',
      order_status: 'complete',
      product: 'NRML',
      pricetype: 'MARKET',
      average_price: 212.35,
      strategy: 'adT1',
    });
    expect(await adapter.orderStatus('99', session)).toMatchObject({ ok: false, httpStatus: 404 });
  });

  it('ordersByTag keeps the day’s orders tagged 1:<tag> (also a split’s several)', async () => {
    const { adapter, session } = await setup();
    const a = (await adapter.placeOrder(orderFor(F.sbin, { tag: 'adREF0001' }), session)).orderId;
    const b = (await adapter.placeOrder(orderFor(F.sbin, { tag: 'adREF0001' }), session)).orderId;
    await adapter.placeOrder(orderFor(F.sbin, { tag: 'adREF0002' }), session);
    await adapter.placeOrder(orderFor(F.sbin), session);
    const r = await adapter.ordersByTag('adREF0001', session);
    expect(r.ok).toBe(true);
    expect((r.raw as { order_id: string; tag: string }[]).map((o) => [o.order_id, o.tag])).toEqual([
      [a, 'adREF0001'],
      [b, 'adREF0001'],
    ]);
    expect((await adapter.ordersByTag('nothing', session)).raw).toEqual([]);
  });
});

describe('margin: POST /api/v3/multiorder/margin', () => {
  it('sends the basket as {data:[…]} and reads margin_total', async () => {
    const { stub, adapter, session } = await setup();
    stub.prices.set(F.fut.brsymbol, 80000);
    const r = await adapter.basketMargin(
      [
        orderFor(F.fut, { side: 'SELL', product: 'NRML', quantity: 20 }),
        orderFor(F.sbin, { priceType: 'LIMIT', price: '800', quantity: 10 }),
      ],
      session,
    );
    expect(stub.bodies('/api/v3/multiorder/margin')).toEqual([
      {
        data: [
          {
            symbol: 'BSE:SENSEX25NOVFUT',
            qty: 20,
            side: -1,
            type: 2,
            productType: 'MARGIN',
            limitPrice: 0,
            stopLoss: 0,
            stopPrice: 0,
            takeProfit: 0,
          },
          {
            symbol: 'NSE:SBIN-EQ',
            qty: 10,
            side: 1,
            type: 1,
            productType: 'CNC',
            limitPrice: 800,
            stopLoss: 0,
            stopPrice: 0,
            takeProfit: 0,
          },
        ],
      },
    ]);
    // Stub rule: the short future 15% of 20 × 80000 = 240000; the delivery buy 10 × 800 = 8000.
    expect(r).toMatchObject({
      ok: true,
      data: { total: 248000, span: 0, exposure: 0, initialTotal: 248000 },
    });
    expect(await adapter.basketMargin([], session)).toMatchObject({ ok: false, httpStatus: 400 });
  });

  it('a refusal keeps Fyers’ message', async () => {
    const { stub, adapter, session } = await setup();
    stub.failNext(400, fyersError(400, -300, 'Invalid symbol').body);
    expect(await adapter.basketMargin([orderFor(F.sbin)], session)).toMatchObject({
      ok: false,
      httpStatus: 400,
      message: 'Invalid symbol',
    });
  });
});

/**
 * The Noren adapter's orders, for both variants, against the loopback Noren stub
 * (test/helpers/broker-order-stub-noren.ts) with instruments from the Noren symbol files through
 * the real importer: PlaceOrder/ModifyOrder/CancelOrder jData for each price type and product,
 * the `jKey` form field, status through SingleOrdHist, ordersByTag on `remarks`, and Noren's
 * refusals passed through with a status and its `emsg`, never the token.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { orderFor } from '../../../../test/helpers/broker-order-stubs.js';
import { closeAfterEach } from '../../../../test/helpers/broker-quote-fixtures.js';
import {
  NOREN_SESSION_EXPIRED,
  NorenStub,
  norenFail,
} from '../../../../test/helpers/broker-order-stub-noren.js';
import {
  loadNorenInstruments,
  sessionOf,
  setupNoren,
  teachTokens,
  VARIANTS,
  type NorenSet,
} from '../../../../test/helpers/noren-fixtures.js';

let A: NorenSet;
beforeAll(async () => {
  A = await loadNorenInstruments();
});
closeAfterEach();

describe.each(VARIANTS)('$variant.name orders', (v) => {
  const uid = v.creds.userId;
  const session = sessionOf(v.creds);
  const base = v.base;

  it.each([
    {
      name: 'MARKET CNC equity: MKT, C, price 0, no trgprc',
      pick: () => orderFor(A.sbin, { quantity: 10, price: '812.4', triggerPrice: '810', tag: 'rec-1' }),
      data: {
        exch: 'NSE',
        tsym: 'SBIN-EQ',
        qty: '10',
        prc: '0',
        prd: 'C',
        trantype: 'B',
        prctyp: 'MKT',
        remarks: 'rec-1',
      },
    },
    {
      name: 'LIMIT NRML future: LMT, M, the price',
      pick: () =>
        orderFor(A.fut, {
          side: 'SELL',
          priceType: 'LIMIT',
          product: 'NRML',
          quantity: 30,
          price: '51120.5',
        }),
      data: {
        exch: 'NFO',
        tsym: 'BANKNIFTY30JAN25F',
        qty: '30',
        prc: '51120.5',
        prd: 'M',
        trantype: 'S',
        prctyp: 'LMT',
      },
    },
    {
      name: 'SL MIS option: SL-LMT, I, price and trigger',
      pick: () =>
        orderFor(A.ce, {
          priceType: 'SL',
          product: 'MIS',
          quantity: 75,
          price: '120',
          triggerPrice: '118.5',
        }),
      data: {
        exch: 'NFO',
        tsym: 'NIFTY09JAN25C23500',
        qty: '75',
        prc: '120',
        trgprc: '118.5',
        prd: 'I',
        prctyp: 'SL-LMT',
        trantype: 'B',
      },
    },
    {
      name: 'SL-M NRML SENSEX option on BFO: SL-MKT, trigger only',
      pick: () =>
        orderFor(A.sensexCe, {
          priceType: 'SL-M',
          product: 'NRML',
          quantity: 20,
          price: '9',
          triggerPrice: '210',
        }),
      data: {
        exch: 'BFO',
        tsym: 'SENSEX2510778500CE',
        qty: '20',
        prc: '0',
        trgprc: '210',
        prd: 'M',
        prctyp: 'SL-MKT',
        trantype: 'B',
      },
    },
  ])('places $name', async ({ pick, data }) => {
    const { stub, adapter } = await setupNoren(v);
    const r = await adapter.placeOrder(pick(), session);
    expect(r).toMatchObject({ ok: true, httpStatus: 200, orderId: '26081800000001' });
    const [req] = stub.requests;
    expect(req!.path).toBe(`${base}/PlaceOrder`);
    expect(req!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(stub.credentialOf(req!)).toBe('exact');
    expect(NorenStub.jData(req!)).toEqual({
      uid,
      actid: uid,
      dscqty: '0',
      ret: 'DAY',
      ordersource: 'API',
      ...data,
    });
  });

  it('form-encodes M&M and marks an after-market order', async () => {
    const { stub, adapter } = await setupNoren(v);
    await adapter.placeOrder(orderFor(A.mm, { amo: true, disclosedQuantity: 2, quantity: 20 }), session);
    expect(stub.requests[0]!.body).toContain('M%26M-EQ');
    expect(NorenStub.jData(stub.requests[0]!)).toMatchObject({ tsym: 'M&M-EQ', amo: 'Yes', dscqty: '2' });
  });

  it('modifies and cancels with the documented jData; status is the newest SingleOrdHist state', async () => {
    const { stub, adapter } = await setupNoren(v);
    teachTokens(stub, A);
    const o = orderFor(A.ce, {
      priceType: 'LIMIT',
      product: 'NRML',
      quantity: 75,
      price: '100',
      tag: 'mine',
    });
    const { orderId } = await adapter.placeOrder(o, session);
    const m = await adapter.modifyOrder(
      orderId!,
      { ...o, priceType: 'SL', price: '101', triggerPrice: '99', quantity: 150 },
      session,
    );
    expect(m).toMatchObject({ ok: true, orderId });
    expect(NorenStub.jData(stub.requests[1]!)).toEqual({
      uid,
      exch: 'NFO',
      norenordno: orderId,
      tsym: 'NIFTY09JAN25C23500',
      qty: '150',
      prctyp: 'SL-LMT',
      prc: '101',
      trgprc: '99',
      ret: 'DAY',
    });
    const s = await adapter.orderStatus(orderId!, session);
    expect(s.ok).toBe(true);
    expect(s.raw).toMatchObject({
      order_id: orderId,
      status: 'OPEN',
      order_type: 'SL',
      quantity: 150,
      price: 101,
      trigger_price: 99,
      product: 'NRML',
      tag: 'mine',
      token: '48094',
    });
    const c = await adapter.cancelOrder(orderId!, session);
    expect(c).toMatchObject({ ok: true, orderId });
    expect(NorenStub.jData(stub.requests[3]!)).toEqual({ uid, norenordno: orderId });
    expect((await adapter.orderStatus(orderId!, session)).raw).toMatchObject({ status: 'CANCELLED' });
  });

  it('finds the orders of a tag in the order book, shared field names beside Noren’s', async () => {
    const { stub, adapter } = await setupNoren(v);
    stub.fillMarketOrders = true;
    stub.prices.set('SBIN-EQ', 812.5);
    await adapter.placeOrder(orderFor(A.sbin, { quantity: 3, tag: 'strat-7' }), session);
    await adapter.placeOrder(orderFor(A.sbin, { quantity: 4, tag: 'other' }), session);
    const r = await adapter.ordersByTag('strat-7', session);
    expect(r.ok).toBe(true);
    expect(r.raw).toEqual([
      expect.objectContaining({
        norenordno: '26081800000001',
        remarks: 'strat-7',
        order_id: '26081800000001',
        status: 'COMPLETE',
        transaction_type: 'BUY',
        filled_quantity: 3,
        average_price: 812.5,
        tag: 'strat-7',
      }),
    ]);
    expect((await adapter.ordersByTag('none', session)).raw).toEqual([]);
  });

  it('an empty order book ("no data") is no orders, not a failure', async () => {
    const { adapter } = await setupNoren(v);
    expect(await adapter.ordersByTag('x', session)).toMatchObject({ ok: true, raw: [] });
  });

  it.each([
    [
      'an expired session',
      () => norenFail(NOREN_SESSION_EXPIRED),
      401,
      `${v.variant.label}: ${NOREN_SESSION_EXPIRED}`,
    ],
    [
      'a rejection',
      () => norenFail('Error Occurred : 2 "invalid input"'),
      400,
      `${v.variant.label}: Error Occurred : 2 "invalid input"`,
    ],
    ['a server timeout', () => norenFail('Server Timeout :  '), 504, `${v.variant.label}: Server Timeout :`],
  ])('passes %s through with its emsg and a status', async (_n, answer, status, message) => {
    const { stub, adapter, logs } = await setupNoren(v);
    const a = answer();
    stub.failNext(a.status, a.body);
    const r = await adapter.placeOrder(orderFor(A.sbin), session);
    expect(r).toMatchObject({ ok: false, httpStatus: status, message });
    expect(logs()).toContain('broker order call failed');
    expect(logs()).not.toContain(v.creds.token);
  });

  it('a wrong token is refused by the broker and the token appears nowhere', async () => {
    const { stub, adapter, logs } = await setupNoren(v);
    const r = await adapter.placeOrder(orderFor(A.sbin), { ...session, accessToken: 'stale-token-999' });
    expect(r).toMatchObject({ ok: false, httpStatus: 401 });
    expect(stub.credentialOf(stub.requests[0]!)).toBe('wrong');
    expect(stub.requests[0]!.body).not.toContain('stale-token-999');
    expect(`${JSON.stringify(r)}${logs()}`).not.toContain('stale-token-999');
  });

  it('refuses unknown orders with 404 and sessions without a user before any I/O', async () => {
    const { stub, adapter } = await setupNoren(v);
    expect(await adapter.modifyOrder('1', orderFor(A.sbin), session)).toMatchObject({
      ok: false,
      httpStatus: 404,
    });
    expect(await adapter.cancelOrder('1', session)).toMatchObject({ ok: false, httpStatus: 404 });
    expect(await adapter.orderStatus('1', session)).toMatchObject({ ok: false, httpStatus: 404 });
    const before = stub.requests.length;
    expect(await adapter.placeOrder(orderFor(A.sbin), { accessToken: v.creds.token })).toMatchObject({
      ok: false,
      httpStatus: 401,
    });
    expect(stub.requests.length).toBe(before);
  });

  it('a success without an order id is a failure', async () => {
    const { stub, adapter } = await setupNoren(v);
    stub.omitOrderId = true;
    expect(await adapter.placeOrder(orderFor(A.sbin), session)).toMatchObject({
      ok: false,
      message: `${v.variant.label} answered success without an order id`,
    });
  });

  it('basket margin: GetBasketMargin with the first leg on top and the rest in basketlists', async () => {
    const { stub, adapter } = await setupNoren(v);
    stub.prices.set('NIFTY09JAN25C23500', 100);
    stub.prices.set('BANKNIFTY30JAN25F', 50000);
    const legs = [
      orderFor(A.ce, { priceType: 'LIMIT', product: 'NRML', quantity: 75, price: '100' }),
      orderFor(A.fut, { side: 'SELL', product: 'NRML', quantity: 15 }),
    ];
    const r = await adapter.basketMargin(legs, session);
    expect(r).toMatchObject({
      ok: true,
      data: { total: 151500, span: 0, exposure: 0, initialTotal: 151500 },
    });
    expect(NorenStub.jData(stub.requests[0]!)).toEqual({
      uid,
      actid: uid,
      exch: 'NFO',
      tsym: 'NIFTY09JAN25C23500',
      qty: '75',
      prc: '100',
      prd: 'M',
      trantype: 'B',
      prctyp: 'LMT',
      basketlists: [
        {
          exch: 'NFO',
          tsym: 'BANKNIFTY30JAN25F',
          qty: '15',
          prc: '0',
          prd: 'M',
          trantype: 'S',
          prctyp: 'MKT',
        },
      ],
    });
    expect(await adapter.basketMargin([], session)).toMatchObject({ ok: false, httpStatus: 400 });
  });
});

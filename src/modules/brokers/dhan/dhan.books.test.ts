/**
 * The Dhan adapter's books, funds and margin against the loopback DhanHQ v2 (fills by the stub's
 * fill switch), mapped into the broker contract's rows with the security id as the token.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { closeAfterEach } from '../../../../test/helpers/broker-quote-fixtures.js';
import { orderFor } from '../../../../test/helpers/broker-order-stubs.js';
import { dhanError } from '../../../../test/helpers/broker-order-stub-dhan.js';
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

/** A stub that fills MARKET orders, SBIN at 800, the future at 55000. */
async function filled() {
  const s = await setupDhan({}, [D.sbin, D.infy, D.ce, D.fut]);
  s.stub.fillMarketOrders = true;
  s.stub.prices.set(D.sbin.brsymbol, 800);
  s.stub.prices.set(D.fut.brsymbol, 55000);
  return s;
}

describe('books', () => {
  it('order book: a filled MARKET order and a working LIMIT order, as OpenAlgo shows them', async () => {
    const { stub, adapter, session } = await filled();
    const m = await adapter.placeOrder(
      orderFor(D.sbin, { quantity: 10, product: 'MIS', tag: 'adB1' }),
      session,
    );
    const l = await adapter.placeOrder(
      orderFor(D.fut, { side: 'SELL', priceType: 'LIMIT', price: '56000', product: 'NRML', quantity: 30 }),
      session,
    );
    const r = await adapter.orderBook(session);
    expect(stub.requests.at(-1)).toMatchObject({ method: 'GET', path: '/v2/orders' });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.data).toEqual([
      {
        brsymbol: 'SBIN',
        exchange: 'NSE',
        brexchange: 'NSE_EQ',
        token: '3045',
        orderid: m.orderId,
        action: 'BUY',
        quantity: 10,
        price: 0,
        trigger_price: 0,
        pricetype: 'MARKET',
        product: 'MIS',
        order_status: 'complete',
        average_price: 800,
        filled_quantity: 10,
        pending_quantity: 0,
        rejection_reason: '',
        timestamp: '2026-08-18 09:15:01',
        strategy: 'adB1',
      },
      {
        brsymbol: 'BANKNIFTY-Mar2026-FUT',
        exchange: 'NFO',
        brexchange: 'NSE_FNO',
        token: '51701',
        orderid: l.orderId,
        action: 'SELL',
        quantity: 30,
        price: 56000,
        trigger_price: 0,
        pricetype: 'LIMIT',
        product: 'NRML',
        order_status: 'open',
        average_price: 0,
        filled_quantity: 0,
        pending_quantity: 30,
        rejection_reason: '',
        timestamp: '2026-08-18 09:15:02',
        strategy: '',
      },
    ]);
    stub.settle(l.orderId!, 'REJECTED');
    const after = await adapter.orderBook(session);
    expect(after.ok && after.data[1]).toMatchObject({
      order_status: 'rejected',
      pending_quantity: 0,
      rejection_reason: 'RMS:Margin Exceeds',
    });
  });

  it('trade book and positions from the fills', async () => {
    const { adapter, session } = await filled();
    const buy = await adapter.placeOrder(orderFor(D.fut, { product: 'NRML', quantity: 30 }), session);
    await adapter.placeOrder(orderFor(D.sbin, { quantity: 10, product: 'MIS' }), session);
    await adapter.placeOrder(orderFor(D.sbin, { side: 'SELL', quantity: 4, product: 'MIS' }), session);
    const t = await adapter.tradeBook(session);
    expect(t.ok && t.data[0]).toEqual({
      brsymbol: 'BANKNIFTY-Mar2026-FUT',
      exchange: 'NFO',
      brexchange: 'NSE_FNO',
      token: '51701',
      tradeid: '90000001',
      orderid: buy.orderId,
      action: 'BUY',
      quantity: 30,
      average_price: 55000,
      product: 'NRML',
      timestamp: '2026-08-18 09:15:01',
      strategy: '',
    });
    expect(t.ok && t.data.map((x) => [x.action, x.quantity])).toEqual([
      ['BUY', 30],
      ['BUY', 10],
      ['SELL', 4],
    ]);
    const p = await adapter.positions(session);
    expect(p.ok && p.data).toEqual([
      {
        brsymbol: 'BANKNIFTY-Mar2026-FUT',
        exchange: 'NFO',
        brexchange: 'NSE_FNO',
        token: '51701',
        product: 'NRML',
        quantity: 30,
        average_price: 55000,
        ltp: 0,
        pnl: 0,
        realized_pnl: 0,
        unrealized_pnl: 0,
      },
      {
        brsymbol: 'SBIN',
        exchange: 'NSE',
        brexchange: 'NSE_EQ',
        token: '3045',
        product: 'MIS',
        quantity: 6,
        average_price: 800,
        ltp: 0,
        pnl: 0,
        realized_pnl: 0,
        unrealized_pnl: 0,
      },
    ]);
  });

  it('holdings: exchange NSE/BSE/ALL to the segment, T1 in totalQty; “No holdings available” is an empty book', async () => {
    const { stub, adapter, session } = await filled();
    stub.holdingRows = [
      {
        exchange: 'ALL',
        tradingSymbol: 'SBIN',
        securityId: '3045',
        isin: 'INE062A01020',
        totalQty: 12,
        dpQty: 10,
        t1Qty: 2,
        availableQty: 12,
        collateralQty: 0,
        avgCostPrice: 650.5,
      },
      { exchange: 'BSE', tradingSymbol: 'INFY', securityId: '500209', totalQty: 3, avgCostPrice: 1400 },
    ];
    const h = await adapter.holdings(session);
    expect(h.ok && h.data).toEqual([
      {
        brsymbol: 'SBIN',
        exchange: 'NSE',
        brexchange: 'NSE_EQ',
        token: '3045',
        quantity: 12,
        average_price: 650.5,
        ltp: 0,
        pnl: 0,
      },
      {
        brsymbol: 'INFY',
        exchange: 'BSE',
        brexchange: 'BSE_EQ',
        token: '500209',
        quantity: 3,
        average_price: 1400,
        ltp: 0,
        pnl: 0,
      },
    ]);
    // OpenAlgo meets this refusal for an empty demat (not in Dhan's documentation).
    stub.failNext(400, dhanError('Holding_Error', 'DH-1111', 'No holdings available'));
    expect(await adapter.holdings(session)).toMatchObject({ ok: true, data: [] });
    stub.failNext(
      500,
      dhanError('Internal_Server_Error', 'DH-908', 'Server was not able to process API request.'),
    );
    expect(await adapter.holdings(session)).toMatchObject({ ok: false, httpStatus: 500 });
  });

  it('funds: fundlimit’s availabelBalance, collateral and utilised, M2M from the positions', async () => {
    const { stub, adapter, session } = await filled();
    await adapter.placeOrder(orderFor(D.sbin, { quantity: 10, product: 'MIS' }), session);
    stub.prices.set(D.sbin.brsymbol, 810);
    const f = await adapter.funds(session);
    expect(
      stub.requests
        .slice(-2)
        .map((r) => r.path)
        .sort(),
    ).toEqual(['/v2/fundlimit', '/v2/positions']);
    expect(f).toMatchObject({
      ok: true,
      data: {
        availablecash: 242_000,
        collateral: 0,
        m2mrealized: 0,
        m2munrealized: 100,
        utiliseddebits: 8000,
      },
    });
  });
});

describe('margin: POST /margincalculator, one leg a request, summed', () => {
  it('one leg: the documented body, totalMargin/spanMargin/exposureMargin', async () => {
    const { stub, adapter, session } = await filled();
    const r = await adapter.basketMargin(
      [orderFor(D.fut, { side: 'SELL', priceType: 'LIMIT', price: '55000', product: 'NRML', quantity: 30 })],
      session,
    );
    expect(stub.bodies('/v2/margincalculator')).toEqual([
      {
        dhanClientId: DHAN.clientId,
        exchangeSegment: 'NSE_FNO',
        transactionType: 'SELL',
        quantity: 30,
        productType: 'MARGIN',
        securityId: '51701',
        price: 55000,
      },
    ]);
    // Value 1,650,000: SPAN 12 % = 198,000, exposure 3 % = 49,500.
    expect(r).toMatchObject({
      ok: true,
      data: { total: 247_500, span: 198_000, exposure: 49_500, initialTotal: 247_500 },
    });
  });

  it('a basket: each leg asked in turn, the figures added (no hedge benefit)', async () => {
    const { stub, adapter, session } = await filled();
    const r = await adapter.basketMargin(
      [
        orderFor(D.sbin, { priceType: 'LIMIT', price: '800', quantity: 10, product: 'MIS' }),
        orderFor(D.fut, {
          side: 'SELL',
          priceType: 'SL',
          price: '54900',
          triggerPrice: '54950',
          product: 'NRML',
          quantity: 30,
        }),
      ],
      session,
    );
    expect(
      stub.bodies('/v2/margincalculator').map((b) => [b.securityId, b.productType, b.triggerPrice]),
    ).toEqual([
      ['3045', 'INTRADAY', undefined],
      ['51701', 'MARGIN', 54950],
    ]);
    // SBIN MIS: 8,000 / 5 = 1,600; the future: 30 × 54,900 → SPAN 197,640, exposure 49,410.
    expect(r).toMatchObject({
      ok: true,
      data: { total: 1_600 + 247_050, span: 197_640, exposure: 49_410, initialTotal: 1_600 + 247_050 },
    });
  });

  it('a refused leg answers for the basket with Dhan’s status and message', async () => {
    const { stub, adapter, session } = await filled();
    stub.failNext(400, dhanError('Input_Exception', 'DH-905', 'Invalid securityId'));
    const r = await adapter.basketMargin([orderFor(D.sbin), orderFor(D.infy)], session);
    expect(r).toMatchObject({ ok: false, httpStatus: 400, message: 'DH-905: Invalid securityId' });
    expect(stub.requests).toHaveLength(1);
    const none = await adapter.basketMargin([orderFor(D.sbin)], { accessToken: DHAN.accessToken });
    expect(none).toMatchObject({ ok: false, httpStatus: 401 });
  });
});

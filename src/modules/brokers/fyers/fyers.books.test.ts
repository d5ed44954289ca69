/**
 * Fyers books → the contract's rows: the docs' own sample records mapped field by field, and the
 * adapter's books read from the loopback stub after real placements (orders, trades, positions,
 * holdings, funds).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { closeAfterEach } from '../../../../test/helpers/broker-quote-fixtures.js';
import { orderFor } from '../../../../test/helpers/broker-order-stubs.js';
import { loadFyersInstruments, setupFyers, type FyersSet } from '../../../../test/helpers/fyers-fixtures.js';
import {
  fyersFunds,
  fyersHoldings,
  fyersOrders,
  fyersPositions,
  fyersTime,
  fyersTrades,
} from './fyers.books.js';
import { bookTag } from './fyers.mapping.js';

let F: FyersSet;
beforeAll(async () => {
  F = await loadFyersInstruments();
});
closeAfterEach();

/** The docs' "Orders" sample record (NSE:IDEA-EQ, a traded CNC sell). */
const DOC_ORDER = {
  clientId: 'X******',
  id: '23030900015105',
  exchOrdId: '1100000001089341',
  qty: 1,
  remainingQuantity: 0,
  filledQty: 1,
  discloseQty: 0,
  limitPrice: 6.95,
  stopPrice: 0,
  tradedPrice: 6.95,
  type: 1,
  fyToken: '101000000014366',
  exchange: 10,
  segment: 10,
  symbol: 'NSE:IDEA-EQ',
  instrument: 0,
  message: '',
  offlineOrder: false,
  orderDateTime: '09-Mar-2023 09:34:38',
  orderValidity: 'DAY',
  productType: 'CNC',
  side: -1,
  status: 2,
  orderTag: '1:Ordertag',
};

describe('the docs’ sample records', () => {
  it('an order: OpenAlgo’s words, IST time, the tag without its 1: prefix', () => {
    expect(fyersOrders({ s: 'ok', orderBook: [DOC_ORDER] })).toEqual([
      {
        brsymbol: 'NSE:IDEA-EQ',
        exchange: 'NSE',
        brexchange: 'NSE_CM',
        token: '101000000014366',
        orderid: '23030900015105',
        action: 'SELL',
        quantity: 1,
        price: 6.95,
        trigger_price: 0,
        pricetype: 'LIMIT',
        product: 'CNC',
        order_status: 'complete',
        average_price: 6.95,
        filled_quantity: 1,
        pending_quantity: 0,
        rejection_reason: '',
        timestamp: '2023-03-09 09:34:38',
        strategy: 'Ordertag',
      },
    ]);
  });

  it.each([
    [1, 'cancelled'],
    [2, 'complete'],
    [4, 'open'],
    [5, 'rejected'],
    [6, 'open'],
    [7, 'cancelled'],
  ])('order status %s is %s', (status, ours) => {
    expect(fyersOrders({ orderBook: [{ ...DOC_ORDER, status }] })[0]!.order_status).toBe(ours);
  });

  it('a rejected order keeps Fyers’ message; a pending one its remaining quantity', () => {
    const [rej, pend] = fyersOrders({
      orderBook: [
        { ...DOC_ORDER, status: 5, message: 'RMS:Margin Exceeds', type: 3, stopPrice: 7 },
        {
          ...DOC_ORDER,
          status: 6,
          qty: 10,
          filledQty: 4,
          remainingQuantity: 6,
          productType: 'INTRADAY',
          type: 2,
        },
      ],
    });
    expect(rej).toMatchObject({
      rejection_reason: 'RMS:Margin Exceeds',
      pricetype: 'SL-M',
      price: 0,
      trigger_price: 7,
    });
    expect(pend).toMatchObject({
      pending_quantity: 6,
      product: 'MIS',
      pricetype: 'MARKET',
      price: 0,
      rejection_reason: '',
    });
  });

  it('tags: 1:<tag> is the user’s, 2:… Fyers’ own, Untagged none', () => {
    expect([
      bookTag('1:adREF1'),
      bookTag('2:Untagged'),
      bookTag('1:Untagged'),
      bookTag('2:AUTO9'),
      bookTag(undefined),
    ]).toEqual(['adREF1', '', '', '', '']);
    expect([fyersTime('07-Aug-2020 13:51:12'), fyersTime('07-08-2020 13:51:12'), fyersTime('x')]).toEqual([
      '2020-08-07 13:51:12',
      '2020-08-07 13:51:12',
      'x',
    ]);
  });

  it('a trade (docs’ Trades sample), a position (MCX, docs’ sample) and a holding', () => {
    expect(
      fyersTrades({
        tradeBook: [
          {
            orderDateTime: '07-Aug-2020 13:51:12',
            orderNumber: '120080789075',
            exchange: 10,
            side: 1,
            segment: 10,
            fyToken: '101000000010666',
            productType: 'CNC',
            tradedQty: 10,
            tradePrice: 32.7,
            tradeNumber: '52605023',
            symbol: 'NSE:PNB-EQ',
            orderTag: '1:Ordertag',
          },
        ],
      }),
    ).toEqual([
      {
        brsymbol: 'NSE:PNB-EQ',
        exchange: 'NSE',
        brexchange: 'NSE_CM',
        token: '101000000010666',
        tradeid: '52605023',
        orderid: '120080789075',
        action: 'BUY',
        quantity: 10,
        average_price: 32.7,
        product: 'CNC',
        timestamp: '2020-08-07 13:51:12',
        strategy: 'Ordertag',
      },
    ]);
    const [p] = fyersPositions({
      netPositions: [
        {
          netQty: 1,
          netAvg: 71856.0,
          productType: 'MARGIN',
          realized_profit: 400.0,
          unrealized_profit: 461.0,
          pl: 861.0,
          ltp: 72717.0,
          fyToken: '1120200831217406',
          segment: 20,
          symbol: 'MCX:SILVERMIC20AUGFUT',
          exchange: 10,
        },
      ],
    });
    expect(p).toEqual({
      brsymbol: 'MCX:SILVERMIC20AUGFUT',
      exchange: 'MCX',
      brexchange: 'MCX_COM',
      token: '1120200831217406',
      product: 'NRML',
      quantity: 1,
      average_price: 71856,
      ltp: 72717,
      pnl: 861,
      realized_pnl: 400,
      unrealized_pnl: 461,
    });
    expect(
      fyersHoldings({
        holdings: [
          {
            holdingType: 'HLD',
            quantity: 1,
            costPrice: 192.6,
            pl: -42.9,
            ltp: 149.7,
            fyToken: 10100000003812,
            exchange: 10,
            symbol: 'NSE:ZEEL-EQ',
            segment: 10,
          },
        ],
      }),
    ).toEqual([
      {
        brsymbol: 'NSE:ZEEL-EQ',
        exchange: 'NSE',
        brexchange: 'NSE_CM',
        token: '10100000003812',
        quantity: 1,
        average_price: 192.6,
        ltp: 149.7,
        pnl: -42.9,
      },
    ]);
  });

  it('funds: Clear Balance, Collaterals, Utilized Amount (equity + commodity), M2M from positions', () => {
    const lines = [
      { id: 1, title: 'Total Balance', equityAmount: 58.15, commodityAmount: 0 },
      { id: 2, title: 'Utilized Amount', equityAmount: 0.3, commodityAmount: 1 },
      { id: 3, title: 'Clear Balance', equityAmount: 58.15, commodityAmount: 10 },
      { id: 5, title: 'Collaterals', equityAmount: 5, commodityAmount: 0 },
      { id: 10, title: 'Available Balance', equityAmount: 63.15, commodityAmount: 10 },
    ];
    const positions = fyersPositions({
      netPositions: [
        { symbol: 'NSE:SBIN-EQ', segment: 10, pl: 30, realized_profit: 10, unrealized_profit: 20 },
      ],
    });
    expect(fyersFunds({ fund_limit: lines }, positions)).toEqual({
      availablecash: 68.15,
      collateral: 5,
      m2mrealized: 10,
      m2munrealized: 20,
      utiliseddebits: 1.3,
    });
  });
});

describe('the adapter’s books from the stub', () => {
  it('orders, trades, positions and funds after a filled MARKET buy and an open LIMIT sell', async () => {
    const { stub, adapter, session } = await setupFyers({}, [F.sbin, F.usdinr]);
    stub.fillMarketOrders = true;
    stub.prices.set(F.sbin.brsymbol, 812.5);
    const buy = (
      await adapter.placeOrder(orderFor(F.sbin, { quantity: 4, product: 'MIS', tag: 'adB1' }), session)
    ).orderId!;
    const sell = (
      await adapter.placeOrder(
        orderFor(F.usdinr, { side: 'SELL', priceType: 'LIMIT', price: '88.5', product: 'NRML' }),
        session,
      )
    ).orderId!;

    const orders = await adapter.orderBook(session);
    expect(
      orders.ok && orders.data.map((o) => [o.orderid, o.order_status, o.exchange, o.brexchange, o.token]),
    ).toEqual([
      [buy, 'complete', 'NSE', 'NSE_CM', F.sbin.token],
      [sell, 'open', 'CDS', 'NSE_CD', F.usdinr.token],
    ]);
    const trades = await adapter.tradeBook(session);
    expect(trades).toMatchObject({
      ok: true,
      data: [
        {
          orderid: buy,
          quantity: 4,
          average_price: 812.5,
          product: 'MIS',
          strategy: 'adB1',
          token: F.sbin.token,
        },
      ],
    });
    stub.prices.set(F.sbin.brsymbol, 820);
    const positions = await adapter.positions(session);
    expect(positions).toMatchObject({
      ok: true,
      data: [
        {
          brsymbol: 'NSE:SBIN-EQ',
          exchange: 'NSE',
          product: 'MIS',
          quantity: 4,
          average_price: 812.5,
          ltp: 820,
          unrealized_pnl: 30,
          realized_pnl: 0,
        },
      ],
    });
    const funds = await adapter.funds(session);
    expect(funds).toMatchObject({
      ok: true,
      data: { availablecash: 250_000 - 3250, utiliseddebits: 3250, m2munrealized: 30, m2mrealized: 0 },
    });
  });

  it('holdings from the stub’s rows; a refused book keeps Fyers’ status and message', async () => {
    const { stub, adapter, session } = await setupFyers();
    stub.holdingRows = [
      {
        holdingType: 'T1',
        quantity: 3,
        costPrice: 10,
        pl: 1.5,
        ltp: 10.5,
        fyToken: '10100000003045',
        exchange: 10,
        segment: 10,
        symbol: 'NSE:SBIN-EQ',
      },
    ];
    expect(await adapter.holdings(session)).toMatchObject({
      ok: true,
      data: [{ quantity: 3, average_price: 10, ltp: 10.5, pnl: 1.5, exchange: 'NSE' }],
    });
    stub.failNext(401, { s: 'error', code: -8, message: 'Your token has expired. Please generate a token' });
    expect(await adapter.tradeBook(session)).toMatchObject({
      ok: false,
      httpStatus: 401,
      message: 'Your token has expired. Please generate a token',
    });
  });
});

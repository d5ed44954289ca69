/**
 * The Angel One adapter's books, funds and margin against the loopback SmartAPI: each book read
 * from its documented shape into the contract's neutral rows (instrument by brsymbol and symbol
 * token, OpenAlgo's words for status, price type and product), and the margin calculator.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { QuoteInstrument } from '../quotes/quote-client.js';
import { FakeClock } from '../../../platform/clock.js';
import { AngelAdapter } from './angel.adapter.js';
import { angelTime } from './angel.books.js';
import { closeAfterEach, closeLater } from '../../../../test/helpers/broker-quote-fixtures.js';
import { orderFor } from '../../../../test/helpers/broker-order-stubs.js';
import {
  ANGEL_CREDS,
  ANGEL_STUB_PATHS as P,
  angelError,
  loadAngelInstruments,
  startAngelStub,
} from '../../../../test/helpers/broker-order-stub-angel.js';

let A: Record<'sbin' | 'ce' | 'pe' | 'fut', QuoteInstrument>;
beforeAll(async () => {
  A = await loadAngelInstruments();
});
closeAfterEach();

const NOW = Date.UTC(2026, 7, 18, 5, 0); // 10:30 IST

async function setup() {
  const stub = await startAngelStub(ANGEL_CREDS);
  const adapter = new AngelAdapter({
    apiKey: ANGEL_CREDS.apiKey,
    apiSecret: 'angelSECRETn4Hd',
    redirectUrl: '',
    baseUrl: stub.url,
    clock: new FakeClock(NOW),
  });
  for (const i of Object.values(A)) stub.symbols.set(i.token, i.brsymbol);
  closeLater(() => stub.close());
  closeLater(() => adapter.close());
  return { stub, adapter, session: { accessToken: ANGEL_CREDS.jwt } };
}

const instrumentOf = (i: QuoteInstrument) => ({
  brsymbol: i.brsymbol,
  exchange: i.brexchange,
  brexchange: i.brexchange,
  token: i.token,
});

describe('order book: getOrderBook → BookOrder', () => {
  it('maps a filled MARKET, a resting SL, a cancelled LIMIT and a rejected order', async () => {
    const { stub, adapter, session } = await setup();
    stub.fillMarketOrders = true;
    stub.prices.set('SBIN-EQ', 812.5);
    const filled = await adapter.placeOrder(orderFor(A.sbin, { quantity: 10, tag: 'strat-a' }), session);
    const sl = await adapter.placeOrder(
      orderFor(A.ce, { priceType: 'SL', product: 'MIS', quantity: 65, price: '101.5', triggerPrice: '100' }),
      session,
    );
    const limit = await adapter.placeOrder(
      orderFor(A.fut, { side: 'SELL', priceType: 'LIMIT', product: 'NRML', quantity: 30, price: '55120.5' }),
      session,
    );
    await adapter.cancelOrder(limit.orderId!, session);
    const rejected = await adapter.placeOrder(
      orderFor(A.pe, { priceType: 'LIMIT', price: '50', product: 'NRML' }),
      session,
    );
    stub.settle(rejected.orderId!, 'rejected');

    const book = await adapter.orderBook(session);

    expect(stub.requests.at(-1)).toMatchObject({ method: 'GET', path: P.orderBook });
    expect(book.ok).toBe(true);
    const rows = book.ok ? book.data : [];
    expect(rows).toEqual([
      {
        ...instrumentOf(A.sbin),
        orderid: filled.orderId,
        action: 'BUY',
        quantity: 10,
        price: 0,
        trigger_price: 0,
        pricetype: 'MARKET',
        product: 'CNC',
        order_status: 'complete',
        average_price: 812.5,
        filled_quantity: 10,
        pending_quantity: 0,
        rejection_reason: '',
        timestamp: '2026-08-18 09:15:01',
        strategy: 'strat-a',
      },
      expect.objectContaining({
        ...instrumentOf(A.ce),
        orderid: sl.orderId,
        pricetype: 'SL',
        product: 'MIS',
        price: 101.5,
        trigger_price: 100,
        order_status: 'trigger pending',
        pending_quantity: 65,
        strategy: '',
      }),
      expect.objectContaining({
        ...instrumentOf(A.fut),
        orderid: limit.orderId,
        action: 'SELL',
        pricetype: 'LIMIT',
        product: 'NRML',
        price: 55120.5,
        order_status: 'cancelled',
        pending_quantity: 0,
      }),
      expect.objectContaining({
        orderid: rejected.orderId,
        order_status: 'rejected',
        rejection_reason: 'RMS:Margin Exceeds,Required:95417.84, Available:1021.05',
      }),
    ]);
  });

  it('an empty day (data: null) is an empty book', async () => {
    const { adapter, session } = await setup();

    expect(await adapter.orderBook(session)).toMatchObject({ ok: true, data: [] });
  });

  it("a refusal is the book's failure with Angel's status and message", async () => {
    const { stub, adapter, session } = await setup();
    stub.failNext(200, angelError('Invalid Token', 'AG8002'));

    expect(await adapter.orderBook(session)).toMatchObject({
      ok: false,
      httpStatus: 401,
      message: 'Invalid Token',
    });
  });

  it("Angel's times are written YYYY-MM-DD HH:MM:SS", () => {
    expect(angelTime('20-Oct-2020 13:10:59')).toBe('2020-10-20 13:10:59');
    expect(angelTime('5-Jan-2026 09:15:00')).toBe('2026-01-05 09:15:00');
    expect(angelTime('whenever')).toBe('whenever');
  });
});

describe('trades, positions, holdings, funds', () => {
  async function traded() {
    const s = await setup();
    s.stub.fillMarketOrders = true;
    s.stub.prices.set('SBIN-EQ', 800);
    const buy = await s.adapter.placeOrder(orderFor(A.sbin, { quantity: 10, product: 'MIS' }), s.session);
    s.stub.prices.set('SBIN-EQ', 810);
    const sell = await s.adapter.placeOrder(
      orderFor(A.sbin, { side: 'SELL', quantity: 4, product: 'MIS' }),
      s.session,
    );
    s.stub.prices.set('SBIN-EQ', 805);
    return { ...s, buy, sell };
  }

  it('getTradeBook: one row per fill, dated today (Angel sends only the time), no token', async () => {
    const { adapter, session, buy, sell } = await traded();

    const trades = await adapter.tradeBook(session);

    const sbin = { brsymbol: 'SBIN-EQ', exchange: 'NSE', brexchange: 'NSE', token: '' };
    expect(trades).toMatchObject({
      ok: true,
      data: [
        {
          ...sbin,
          tradeid: '50005750',
          orderid: buy.orderId,
          action: 'BUY',
          quantity: 10,
          average_price: 800,
          product: 'MIS',
          timestamp: '2026-08-18 09:15:01',
          strategy: '',
        },
        {
          ...sbin,
          tradeid: '50005751',
          orderid: sell.orderId,
          action: 'SELL',
          quantity: 4,
          average_price: 810,
          product: 'MIS',
          timestamp: '2026-08-18 09:15:02',
          strategy: '',
        },
      ],
    });
  });

  it('getPosition: net quantity, average, ltp and P&L', async () => {
    const { adapter, session } = await traded();

    const positions = await adapter.positions(session);

    expect(positions).toEqual({
      ok: true,
      roundTripMs: expect.any(Number),
      data: [
        {
          ...instrumentOf(A.sbin),
          product: 'MIS',
          quantity: 6,
          average_price: 800,
          ltp: 805,
          pnl: 70,
          realized_pnl: 40,
          unrealized_pnl: 30,
        },
      ],
    });
  });

  it('getAllHolding: data.holdings, CNC quantity, average, ltp and profitandloss', async () => {
    const { stub, adapter, session } = await setup();
    stub.holdingRows = [
      {
        tradingsymbol: 'SBIN-EQ',
        exchange: 'NSE',
        isin: 'INE062A01020',
        t1quantity: 0,
        realisedquantity: 2,
        quantity: 2,
        authorisedquantity: 0,
        product: 'DELIVERY',
        collateralquantity: null,
        collateraltype: null,
        haircut: 0,
        averageprice: 111.87,
        ltp: 130.15,
        symboltoken: '3045',
        close: 129.6,
        profitandloss: 37,
        pnlpercentage: 16.34,
      },
    ];

    const holdings = await adapter.holdings(session);

    expect(stub.requests.at(-1)!.path).toBe(P.allHoldings);
    expect(holdings).toMatchObject({
      ok: true,
      data: [{ ...instrumentOf(A.sbin), quantity: 2, average_price: 111.87, ltp: 130.15, pnl: 37 }],
    });
  });

  it('getRMS: the five OpenAlgo fund figures, from strings', async () => {
    const { adapter, session } = await traded();

    const funds = await adapter.funds(session);

    // cash 250,000 less the net value used (8000 − 3240 = 4760); realised 40, unrealised 30.
    expect(funds).toMatchObject({
      ok: true,
      data: {
        availablecash: 245240,
        collateral: 0,
        m2mrealized: 40,
        m2munrealized: 30,
        utiliseddebits: 4760,
      },
    });
  });
});

describe('margin: POST margin/v1/batch', () => {
  it('sends the positions by token with numbers as numbers; reads total, span and the benefit', async () => {
    const { stub, adapter, session } = await setup();
    stub.prices.set('NIFTY18AUG2626000CE', 100);
    stub.prices.set('NIFTY18AUG2626000PE', 80);
    const legs = [
      orderFor(A.ce, { side: 'SELL', priceType: 'LIMIT', price: '100', product: 'NRML', quantity: 65 }),
      orderFor(A.pe, { side: 'BUY', product: 'NRML', quantity: 65 }),
    ];

    const margin = await adapter.basketMargin(legs, session);

    expect(stub.bodies(P.margin)).toEqual([
      {
        positions: [
          {
            exchange: 'NFO',
            qty: 65,
            price: 100,
            productType: 'CARRYFORWARD',
            token: '45200',
            tradeType: 'SELL',
            orderType: 'LIMIT',
          },
          {
            exchange: 'NFO',
            qty: 65,
            price: 0,
            productType: 'CARRYFORWARD',
            token: '45203',
            tradeType: 'BUY',
            orderType: 'MARKET',
          },
        ],
      },
    ]);
    // Sold CE: value 6500 → SPAN 780 + exposure 195; bought PE at the stub's 80: premium 5200.
    // Before the hedge 6175; a spread drops 70 % of the SPAN (546): total 5629, SPAN 234.
    expect(margin).toMatchObject({
      ok: true,
      data: { total: 5629, span: 234, exposure: 0, initialTotal: 6175 },
    });
  });

  it('refuses an empty basket and one of more than 50 positions without sending', async () => {
    const { stub, adapter, session } = await setup();
    const many = Array.from({ length: 51 }, () => orderFor(A.sbin));

    expect(await adapter.basketMargin([], session)).toMatchObject({ ok: false, httpStatus: 400 });
    expect(await adapter.basketMargin(many, session)).toMatchObject({
      ok: false,
      httpStatus: 400,
      message: "Angel One's margin calculator takes at most 50 positions a request",
    });
    expect(stub.requests).toEqual([]);
  });
});

/**
 * The live contract suite's rigs (see live-rigs.ts) of Dhan (DhanHQ v2: its order stub with the
 * charts APIs of broker-history-stub-dhan.ts, the real scrip master of 2026-02-10) and Angel One
 * (SmartAPI: its order stub with getCandleData of broker-history-stub-angel.ts, the documented
 * rows of its master). Both stubs serve their own market quotes; their rate limits (Dhan's quote
 * API 1/s and charts 5/s, Angel's history 3/s) are lifted, as the suite is not about pacing.
 */
import { readFileSync } from 'node:fs';
import { serveAngelCandles } from '../helpers/broker-history-stub-angel.js';
import { serveDhanCharts } from '../helpers/broker-history-stub-dhan.js';
import {
  ANGEL_CREDS,
  ANGEL_STUB_PATHS,
  angelError,
  angelQuote,
  startAngelStub,
} from '../helpers/broker-order-stub-angel.js';
import { dhanError, dhanQuote, startDhanStub } from '../helpers/broker-order-stub-dhan.js';
import { DHAN } from '../helpers/dhan-fixtures.js';
import { marketFixture } from '../helpers/market-fixtures.js';
import { istMidnight, neutral, type LiveRig, type RigStub } from './live-rig-world.js';

/** Dhan's product and order types in OpenAlgo's words (dhanhq.co/docs/v2/annexure). */
const DHAN_PRODUCT: Record<string, string> = { CNC: 'CNC', INTRADAY: 'MIS', MARGIN: 'NRML' };
const DHAN_TYPE: Record<string, string> = {
  MARKET: 'MARKET',
  LIMIT: 'LIMIT',
  STOP_LOSS: 'SL',
  STOP_LOSS_MARKET: 'SL-M',
};

export const dhan: LiveRig = {
  broker: 'dhan',
  symbols: { eq: 'SBIN', fno: 'NIFTY10FEB2625000CE' },
  env: {}, // the pasted access token is the whole credential
  contract: () => readFileSync(marketFixture('dhan', 'api-scrip-master_2026-02-10.csv')),
  session: () => ({ accessToken: DHAN.accessToken, brokerUserId: DHAN.clientId }),
  wrongSession: { session: { accessToken: 'wrongDHANtoken5521', brokerUserId: DHAN.clientId }, status: 401 },
  refusal: {
    status: 400,
    body: dhanError('Order_Error', 'DH-906', 'Insufficient Funds'),
    message: 'Insufficient Funds',
  },
  intervals: { days: ['D'], hours: ['1h'], minutes: ['1m', '5m', '15m'] },
  unservedInterval: 'W',
  positionLtp: false,
  async startStub(): Promise<RigStub> {
    const stub = await startDhanStub(DHAN);
    stub.quoteIntervalMs = 0;
    const charts = serveDhanCharts(stub);
    charts.intervalMs = 0;
    const key = (i: { brexchange: string; token: string }) => `${i.brexchange}|${i.token}`;
    return {
      stub,
      url: stub.baseUrl,
      teach: (i) => void stub.instruments.set(key(i), i.brsymbol),
      nameOf: key,
      sent: () =>
        stub.bodies('/v2/orders', 'POST').map((b) =>
          neutral({
            instrument: `${String(b.exchangeSegment)}|${String(b.securityId)}`,
            side: b.transactionType,
            quantity: b.quantity,
            priceType: DHAN_TYPE[String(b.orderType)],
            product: DHAN_PRODUCT[String(b.productType)],
            price: b.price,
            trigger: b.triggerPrice,
          }),
        ),
      booked: () =>
        [...stub.orders.values()].map((h) => ({
          id: String(h[0]!.orderId),
          side: String(h[0]!.transactionType),
          quantity: Number(h[0]!.quantity),
          tag: String(h[0]!.correlationId ?? ''),
          status: String(h.at(-1)!.orderStatus).toLowerCase(),
        })),
      fill: (id) => stub.settle(id, 'TRADED'),
      holding: (i, h) => {
        stub.holdingRows = [
          {
            exchange: 'ALL',
            tradingSymbol: i.brsymbol,
            securityId: i.token,
            isin: 'INE062A01020',
            totalQty: h.quantity,
            dpQty: h.quantity - 1,
            t1Qty: 1,
            availableQty: h.quantity,
            collateralQty: 0,
            avgCostPrice: h.average,
            lastTradedPrice: h.ltp,
          },
        ];
      },
      seedQuote: (i, q) =>
        void stub.quotes.set(
          key(i),
          dhanQuote({
            lastPrice: q.ltp,
            ohlc: { open: q.open, high: q.high, low: q.low, close: q.prevClose },
            bids: q.bids,
            asks: q.asks,
          }),
        ),
      seedDaily: (i, rows) =>
        void charts.daily.set(
          key(i),
          rows.map((c) => ({ ...c, time: istMidnight(c.date) })),
        ),
      close: () => stub.close(),
    };
  },
};

/** Angel One's product and order types in OpenAlgo's words (SmartAPI orders page). */
const ANGEL_PRODUCT: Record<string, string> = { DELIVERY: 'CNC', INTRADAY: 'MIS', CARRYFORWARD: 'NRML' };
const ANGEL_TYPE: Record<string, string> = {
  MARKET: 'MARKET',
  LIMIT: 'LIMIT',
  STOPLOSS_LIMIT: 'SL',
  STOPLOSS_MARKET: 'SL-M',
};

export const angel: LiveRig = {
  broker: 'angel',
  symbols: { eq: 'SBIN', fno: 'NIFTY18AUG2626000CE' },
  env: { BROKER_API_KEY: ANGEL_CREDS.apiKey },
  contract: () => readFileSync(marketFixture('angel', 'OpenAPIScripMaster_documented_rows.json')),
  session: () => ({
    accessToken: ANGEL_CREDS.jwt,
    brokerUserId: ANGEL_CREDS.clientCode,
    refreshToken: ANGEL_CREDS.refreshToken,
    feedToken: ANGEL_CREDS.feedToken,
  }),
  wrongSession: {
    session: {
      accessToken: 'eyJhbGciOiJIUzUxMiJ9.angelWRONGjwt31.sig7',
      brokerUserId: ANGEL_CREDS.clientCode,
      refreshToken: ANGEL_CREDS.refreshToken,
      feedToken: ANGEL_CREDS.feedToken,
    },
    status: 401,
  },
  refusal: {
    status: 200,
    body: angelError('Invalid Product Type', 'AB1012'),
    message: 'Invalid Product Type',
    answered: 400,
  },
  intervals: { days: ['D'], hours: ['1h'], minutes: ['1m', '3m', '5m', '10m', '15m', '30m'] },
  unservedInterval: 'W',
  positionLtp: true,
  async startStub(): Promise<RigStub> {
    const stub = await startAngelStub(ANGEL_CREDS);
    const candles = serveAngelCandles(stub);
    candles.perSecond = 1_000;
    const key = (i: { brexchange: string; token: string }) => `${i.brexchange}:${i.token}`;
    return {
      stub,
      url: stub.url,
      teach: (i) => void stub.symbols.set(i.token, i.brsymbol),
      nameOf: (i) => `${i.brexchange}:${i.brsymbol}:${i.token}`,
      sent: () =>
        stub.bodies(ANGEL_STUB_PATHS.place).map((b) =>
          neutral({
            instrument: `${String(b.exchange)}:${String(b.tradingsymbol)}:${String(b.symboltoken)}`,
            side: b.transactiontype,
            quantity: b.quantity,
            priceType: ANGEL_TYPE[String(b.ordertype)],
            product: ANGEL_PRODUCT[String(b.producttype)],
            price: b.price,
            trigger: b.triggerprice,
          }),
        ),
      booked: () =>
        [...stub.orders.values()].map((h) => ({
          id: String(h[0]!.orderid),
          side: String(h[0]!.transactiontype),
          quantity: Number(h[0]!.quantity),
          tag: String(h[0]!.ordertag ?? ''),
          status: String(h.at(-1)!.status).toLowerCase(),
        })),
      fill: (id) => stub.settle(id, 'complete'),
      holding: (i, h) => {
        stub.holdingRows = [
          {
            tradingsymbol: i.brsymbol,
            exchange: i.brexchange,
            isin: 'INE062A01020',
            t1quantity: 1,
            realisedquantity: h.quantity - 1,
            quantity: h.quantity,
            authorisedquantity: 0,
            product: 'DELIVERY',
            collateralquantity: null,
            collateraltype: null,
            haircut: 0,
            averageprice: h.average,
            ltp: h.ltp,
            symboltoken: i.token,
            close: h.ltp,
            profitandloss: (h.ltp - h.average) * h.quantity,
            pnlpercentage: Math.round(((h.ltp - h.average) / h.average) * 10_000) / 100,
          },
        ];
      },
      seedQuote: (i, q) =>
        void stub.quotes.set(
          key(i),
          angelQuote({
            exchange: i.brexchange,
            tradingSymbol: i.brsymbol,
            symbolToken: i.token,
            ltp: q.ltp,
            open: q.open,
            high: q.high,
            low: q.low,
            close: q.prevClose,
            bids: q.bids,
            asks: q.asks,
          }),
        ),
      seedDaily: (i, rows) =>
        void candles.rows.set(
          `${key(i)}:ONE_DAY`,
          rows.map((c) => [`${c.date}T00:00:00+05:30`, c.open, c.high, c.low, c.close, c.volume]),
        ),
      close: () => stub.close(),
    };
  },
};

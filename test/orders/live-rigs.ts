/**
 * The brokers of the live contract suite (live-contract.ts): one {@link LiveRig} per broker
 * adapter — Zerodha (Kite Connect v3), Upstox v2, Dhan (DhanHQ v2), Angel One (SmartAPI), Fyers
 * (API v3), Shoonya and Flattrade (the Noren OMS) — saying
 * how to start its loopback stub, which master contract to import, which instruments to trade,
 * how to seed the stub's prices, quotes, holdings and candles, how to fill an order at the stub,
 * how to read back what the stub received in OpenAlgo's words, and the broker's documented
 * refusals. Dhan's and Angel One's rigs are in live-rigs-dhan-angel.ts, Fyers', Shoonya's and
 * Flattrade's in live-rigs-fyers-noren.ts; the rig's types and the
 * world the suite runs in are in live-rig-world.ts.
 */
import { startKiteOrderStub, startUpstoxOrderStub } from '../helpers/broker-order-stubs.js';
import {
  kiteError,
  kiteQuote,
  startKiteQuoteStub,
  startUpstoxQuoteStub,
  upstoxError,
  upstoxQuote,
} from '../helpers/broker-quote-stubs.js';
import { KITE_CREDS, UPSTOX_CREDS, kiteContract, upstoxContract } from '../helpers/orders-app.js';
import { angel, dhan } from './live-rigs-dhan-angel.js';
import { flattrade, fyers, shoonya } from './live-rigs-fyers-noren.js';
import { forwardTo, neutral, type Body, type LiveRig, type RigStub } from './live-rig-world.js';

/** Zerodha: Kite's order stub, with `/quote` and the historical API of Kite's quote stub forwarded. */
const zerodha: LiveRig = {
  broker: 'zerodha',
  symbols: { eq: 'SBIN', fno: 'NIFTY25AUG2626000CE' },
  env: {
    BROKER_API_KEY: KITE_CREDS.apiKey,
    BROKER_API_SECRET: KITE_CREDS.apiSecret,
    BROKER_REDIRECT_URL: 'http://127.0.0.1:5000/zerodha/callback',
  },
  contract: () => kiteContract(['SBIN', 'NIFTY26AUG26000CE']),
  session: () => ({ accessToken: KITE_CREDS.accessToken }),
  wrongSession: { session: { accessToken: 'kiteWRONGtoken4477' }, status: 403 },
  refusal: {
    status: 400,
    body: kiteError('Invalid `price`.', 'InputException'),
    message: 'Invalid `price`.',
  },
  intervals: { days: ['D'], hours: ['1h'], minutes: ['1m', '3m', '5m', '10m', '15m', '30m'] },
  unservedInterval: 'W',
  positionLtp: true,
  async startStub(): Promise<RigStub> {
    const stub = await startKiteOrderStub(KITE_CREDS);
    const quotes = await startKiteQuoteStub({
      apiKey: KITE_CREDS.apiKey,
      accessToken: KITE_CREDS.accessToken,
    });
    const auth = `token ${KITE_CREDS.apiKey}:${KITE_CREDS.accessToken}`;
    const forward = forwardTo(stub, quotes.url, { authorization: auth, 'x-kite-version': '3' });
    stub.route('GET', '/quote', forward);
    stub.routePrefix('GET', '/instruments/historical/', forward);
    const named = (f: Record<string, string>) => `${f.exchange}:${f.tradingsymbol}`;
    return {
      stub,
      url: stub.url,
      teach: (i) => void stub.tokens.set(i.brsymbol, Number(i.token)),
      nameOf: (i) => `${i.brexchange}:${i.brsymbol}`,
      sent: () =>
        stub.forms('/orders/regular').map((f) =>
          neutral({
            instrument: named(f),
            side: f.transaction_type,
            quantity: f.quantity,
            priceType: f.order_type,
            product: f.product,
            price: f.price,
            trigger: f.trigger_price,
          }),
        ),
      booked: () =>
        [...stub.orders.values()].map((h) => ({
          id: String(h[0]!.order_id),
          side: String(h[0]!.transaction_type),
          quantity: Number(h[0]!.quantity),
          tag: String(h[0]!.tag ?? ''),
          status: String(h.at(-1)!.status).toLowerCase(),
        })),
      fill: (id) => stub.settle(id, 'COMPLETE'),
      holding: (i, h) => {
        stub.holdingRows = [
          {
            tradingsymbol: i.brsymbol,
            exchange: i.brexchange,
            instrument_token: Number(i.token),
            product: 'CNC',
            quantity: h.quantity - 1,
            t1_quantity: 1,
            average_price: h.average,
            last_price: h.ltp,
            pnl: (h.ltp - h.average) * h.quantity,
          },
        ];
      },
      seedQuote: (i, q) =>
        void quotes.quotes.set(
          `${i.brexchange}:${i.brsymbol}`,
          kiteQuote({
            instrumentToken: Number(i.token),
            lastPrice: q.ltp,
            ohlc: { open: q.open, high: q.high, low: q.low, close: q.prevClose },
            bids: q.bids,
            asks: q.asks,
          }),
        ),
      seedDaily: (i, rows) =>
        void quotes.candles.set(
          `${i.token}/day`,
          rows.map((c) => [`${c.date}T00:00:00+0530`, c.open, c.high, c.low, c.close, c.volume, 0]),
        ),
      close: async () => {
        await stub.close();
        await quotes.close();
      },
    };
  },
};

/** Upstox: its order stub, with the market-quote and historical-candle APIs of its quote stub forwarded. */
const upstox: LiveRig = {
  broker: 'upstox',
  symbols: { eq: 'SBIN', fno: 'NIFTY30MAR26FUT' },
  env: {
    BROKER_API_KEY: UPSTOX_CREDS.clientId,
    BROKER_API_SECRET: UPSTOX_CREDS.clientSecret,
    BROKER_REDIRECT_URL: UPSTOX_CREDS.redirectUri,
  },
  contract: () => upstoxContract(['NSE_EQ|INE062A01020', 'NSE_FO|51714']),
  session: () => ({ accessToken: UPSTOX_CREDS.accessToken }),
  wrongSession: { session: { accessToken: 'eyJupstoxWRONG8812' }, status: 401 },
  refusal: {
    status: 400,
    body: upstoxError('UDAPI1056', "The 'order_type' is invalid"),
    message: "The 'order_type' is invalid",
  },
  intervals: { months: ['M'], weeks: ['W'], days: ['D'], minutes: ['1m', '30m'] },
  unservedInterval: '1h',
  positionLtp: true,
  async startStub(): Promise<RigStub> {
    const stub = await startUpstoxOrderStub(UPSTOX_CREDS);
    const quotes = await startUpstoxQuoteStub(UPSTOX_CREDS.accessToken);
    const forward = forwardTo(stub, quotes.url, { authorization: `Bearer ${UPSTOX_CREDS.accessToken}` });
    stub.route('GET', '/v2/market-quote/quotes', forward);
    stub.routePrefix('GET', '/v2/historical-candle/', forward);
    // Upstox's D is delivery: CNC on a cash segment, NRML on F&O (as its books read it back).
    const product = (b: Body) =>
      b.product === 'I' ? 'MIS' : String(b.instrument_token).startsWith('NSE_EQ') ? 'CNC' : 'NRML';
    return {
      stub,
      url: stub.url,
      teach: (i) => void stub.symbols.set(i.token, i.brsymbol),
      nameOf: (i) => i.token,
      sent: () =>
        stub.bodies('/v2/order/place').map((b) =>
          neutral({
            instrument: b.instrument_token,
            side: b.transaction_type,
            quantity: b.quantity,
            priceType: b.order_type,
            product: product(b),
            price: b.price,
            trigger: b.trigger_price,
          }),
        ),
      booked: () =>
        [...stub.orders.values()].map((h) => ({
          id: String(h[0]!.order_id),
          side: String(h[0]!.transaction_type),
          quantity: Number(h[0]!.quantity),
          tag: String(h[0]!.tag ?? ''),
          status: String(h.at(-1)!.status).toLowerCase(),
        })),
      fill: (id) => {
        const h = stub.orders.get(id)!;
        const last = h.at(-1)!;
        const filled = { filled_quantity: last.quantity, pending_quantity: 0 };
        h.push({
          ...last,
          ...filled,
          status: 'complete',
          average_price: stub.priceOf(String(last.tradingsymbol)),
        });
      },
      holding: (i, h) => {
        stub.holdingRows = [
          {
            isin: 'INE062A01020',
            product: 'D',
            quantity: h.quantity - 1,
            t1_quantity: 1,
            trading_symbol: i.brsymbol,
            tradingsymbol: i.brsymbol,
            instrument_token: i.token,
            exchange: 'NSE',
            average_price: h.average,
            last_price: h.ltp,
            pnl: (h.ltp - h.average) * h.quantity,
          },
        ];
      },
      seedQuote: (i, q) =>
        void quotes.quotes.set(i.token, {
          ...upstoxQuote({
            instrumentKey: i.token,
            symbol: i.brsymbol,
            lastPrice: q.ltp,
            ohlc: { open: q.open, high: q.high, low: q.low, close: q.ltp },
            bids: q.bids,
            asks: q.asks,
          }),
          net_change: Math.round((q.ltp - q.prevClose) * 100) / 100,
        }),
      seedDaily: (i, rows) =>
        void quotes.candles.set(
          `${i.token}/day`,
          rows.map((c) => [`${c.date}T00:00:00+05:30`, c.open, c.high, c.low, c.close, c.volume, 0]),
        ),
      close: async () => {
        await stub.close();
        await quotes.close();
      },
    };
  },
};

/** Every broker's rig, by broker. */
export const rigs = { zerodha, upstox, dhan, angel, fyers, shoonya, flattrade } as const;

/**
 * The world of the `/api/v1` market data suites through Zerodha: one real app per suite against a
 * loopback Kite Connect v3 stub (300 ms broker timeout), with a master contract of SBIN, INFY and
 * 48 more NSE equities of the real Kite snapshot, and OpenAlgo's documented depth example as Kite's
 * full quote of SBIN.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll } from 'vitest';
import { kiteQuote, startKiteQuoteStub, type KiteQuoteStub } from './broker-quote-stubs.js';
import { marketFixture } from './market-fixtures.js';
import { KITE_CREDS, kiteContract, startOrdersApp, type OrdersApp } from './orders-app.js';

/** The first 50 NSE equities of the real Kite snapshot (tradingsymbols). */
export const FIFTY = readFileSync(marketFixture('zerodha', 'kite_instruments_NSE_2025-10-06.csv'), 'utf8')
  .split('\n')
  .slice(1)
  .map((l) => l.split(','))
  .filter((f) => f[9] === 'EQ' && f[10] === 'NSE' && /^[A-Z]+$/.test(f[2] ?? ''))
  .map((f) => f[2]!)
  .filter((s, n, all) => all.indexOf(s) === n && s !== 'SBIN' && s !== 'INFY')
  .slice(0, 48);
export const SBIN_TOKEN = '779521';

/** OpenAlgo's documented depth example (depth page), as Kite's full quote of SBIN. */
export const DOC_DEPTH = {
  open: 760.0,
  high: 774.0,
  low: 758.15,
  ltp: 769.6,
  ltq: 205,
  prev_close: 746.9,
  volume: 9362799,
  oi: 161265750,
  totalbuyqty: 591351,
  totalsellqty: 835701,
  asks: [
    { price: 769.6, quantity: 767 },
    { price: 769.65, quantity: 115 },
    { price: 769.7, quantity: 162 },
    { price: 769.75, quantity: 1121 },
    { price: 769.8, quantity: 430 },
  ],
  bids: [
    { price: 769.4, quantity: 886 },
    { price: 769.35, quantity: 212 },
    { price: 769.3, quantity: 351 },
    { price: 769.25, quantity: 343 },
    { price: 769.2, quantity: 399 },
  ],
};
export const kiteDocSbin = () => ({
  ...kiteQuote({
    instrumentToken: Number(SBIN_TOKEN),
    lastPrice: DOC_DEPTH.ltp,
    ohlc: { open: DOC_DEPTH.open, high: DOC_DEPTH.high, low: DOC_DEPTH.low, close: DOC_DEPTH.prev_close },
    bids: DOC_DEPTH.bids.map((l) => [l.price, l.quantity, 3] as const),
    asks: DOC_DEPTH.asks.map((l) => [l.price, l.quantity, 2] as const),
  }),
  last_quantity: DOC_DEPTH.ltq,
  volume: DOC_DEPTH.volume,
  oi: DOC_DEPTH.oi,
  buy_quantity: DOC_DEPTH.totalbuyqty,
  sell_quantity: DOC_DEPTH.totalsellqty,
});

export interface KiteMarketData {
  /** The loopback Kite: its quotes, candles, requests and scripted failures. */
  stub: KiteQuoteStub;
  /** The app, its API key, feed and mode switch. */
  o: OrdersApp;
}

/** Hooks for a suite (call inside its `describe`): the stub and app started before it, closed after. */
export function useKiteMarketData(): KiteMarketData {
  const k: KiteMarketData = {
    stub: undefined as unknown as KiteQuoteStub,
    o: undefined as unknown as OrdersApp,
  };
  beforeAll(async () => {
    k.stub = await startKiteQuoteStub({ apiKey: KITE_CREDS.apiKey, accessToken: KITE_CREDS.accessToken });
    k.o = await startOrdersApp('sqlite', {
      broker: 'zerodha',
      stubUrl: k.stub.url,
      contract: kiteContract(['SBIN', 'INFY', ...FIFTY]),
      timeoutMs: 300,
    });
  });
  afterAll(async () => {
    await k.o?.close();
    await k.stub?.close();
  });
  return k;
}

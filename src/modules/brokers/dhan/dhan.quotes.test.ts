/**
 * Dhan's quote client (quotes/dhan-quotes.ts) against the loopback market-quote API: the request
 * body and headers, the reading of the documented quote, batching at 1000, the 1-per-second pacing
 * and the stub's rate-limit refusal without it, errors without the token.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { DhanQuoteClient } from '../quotes/dhan-quotes.js';
import { captureLogs } from '../../../../test/helpers/broker-order-stubs.js';
import { closeAfterEach, closeLater, quoteError } from '../../../../test/helpers/broker-quote-fixtures.js';
import { dhanQuote, startDhanStub } from '../../../../test/helpers/broker-order-stub-dhan.js';
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

/** A stub and a client on it with the given pacing (both ms). */
async function client(minIntervalMs: number, quoteIntervalMs: number, token = DHAN.accessToken) {
  const stub = await startDhanStub(DHAN);
  stub.quoteIntervalMs = quoteIntervalMs;
  const { logger, logs } = captureLogs();
  const c = new DhanQuoteClient({
    baseUrl: stub.baseUrl,
    accessToken: token,
    clientId: DHAN.clientId,
    minIntervalMs,
    logger,
  });
  closeLater(() => stub.close());
  closeLater(() => c.close());
  return { stub, c, logs };
}

describe('POST /marketfeed/quote', () => {
  it('asks by segment and security id with access-token and client-id; reads the documented quote', async () => {
    const { stub, adapter, session } = await setupDhan();
    stub.quotes.set(
      'NSE_EQ|3045',
      dhanQuote({
        lastPrice: 812.35,
        ohlc: { open: 805, high: 815.5, low: 801.1, close: 803.4 },
        bids: [[812.3, 100, 3]],
        asks: [[812.4, 50]],
        lastTradeTime: '18/08/2026 10:14:58',
      }),
    );
    stub.quotes.set('NSE_FNO|42500', dhanQuote({ lastPrice: 368.15, lastTradeTime: '01/01/1980 00:00:00' }));
    stub.quotes.set('IDX_I|13', dhanQuote({ lastPrice: 25012.4 }));
    const q = adapter.quoteClient(() => session);
    const before = Date.now();
    const got = await q.quotes([D.sbin, D.ce, D.nifty, D.infy]);
    const [req] = stub.requests;
    expect(req).toMatchObject({ method: 'POST', path: '/v2/marketfeed/quote' });
    expect(JSON.parse(req!.body)).toEqual({ NSE_EQ: [3045, 1594], NSE_FNO: [42500], IDX_I: [13] });
    expect(req!.headers['client-id']).toBe(DHAN.clientId);
    expect(stub.credentialOf(req!)).toBe('exact');
    expect(got.get('NSE:SBIN')).toEqual({
      ltp: 812.35,
      bid: 812.3,
      ask: 812.4,
      high: 815.5,
      low: 801.1,
      timestamp: Date.parse('2026-08-18T10:14:58+05:30'),
    });
    // Never traded (1980 placeholder): the receive time.
    expect(got.get('NFO:NIFTY10FEB2625000CE')!.timestamp).toBeGreaterThanOrEqual(before);
    expect(got.get('NSE_INDEX:NIFTY')!.ltp).toBe(25012.4);
    expect(got.has('NSE:INFY')).toBe(false);
    expect(q.broker).toBe('dhan');
    expect(q.maxBatch).toBe(1000);
  });

  it('full quotes: depth without padding, previous close from ohlc.close, circuit limits', async () => {
    const { stub, c } = await client(0, 0);
    stub.quotes.set(
      'NSE_EQ|3045',
      dhanQuote({
        lastPrice: 812,
        ohlc: { open: 805, high: 815, low: 801, close: 803.4 },
        bids: [[811.9, 10, 2]],
        upper: 883.7,
        lower: 723.1,
      }),
    );
    const m = await c.marketQuotes([D.sbin]);
    expect(m.get('NSE:SBIN')).toMatchObject({
      open: 805,
      prevClose: 803.4,
      volume: 1200,
      ltq: 5,
      totalBuyQty: 1825,
      bids: [{ price: 811.9, quantity: 10, orders: 2 }],
      asks: [],
      upperCircuit: 883.7,
      lowerCircuit: 723.1,
    });
  });

  it('more than 1000 instruments go in batches of 1000, paced one interval apart', async () => {
    const { stub, c } = await client(200, 150);
    const list = D.all.slice(0, 1250);
    const t0 = performance.now();
    await c.quotes(list);
    const sizes = stub
      .bodies()
      .map((b) => Object.values(b).reduce<number>((a, ids) => a + (ids as unknown[]).length, 0));
    expect(sizes).toEqual([1000, 250]);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(190);
  });

  it('without pacing the second batch meets Dhan’s rate limit: a retryable 429 DH-904, not retried', async () => {
    const { stub, c } = await client(0, 60_000);
    const err = await quoteError(c.quotes(D.all.slice(0, 1001)));
    expect(err).toMatchObject({ status: 429, code: 'DH-904', retryable: true, broker: 'dhan' });
    expect(err.message).toContain('Too many requests');
    expect(stub.requests).toHaveLength(2);
  });

  it('a wrong token: 401 DH-901, the token in no message or log; no session: refused before I/O', async () => {
    const { stub, c, logs } = await client(0, 0, 'eyJhbGciWRONGtoken3Rt8');
    const err = await quoteError(c.quotes([D.sbin]));
    expect(err).toMatchObject({ status: 401, code: 'DH-901', retryable: false });
    expect(err.message + logs()).not.toContain('WRONGtoken');
    const none = new DhanQuoteClient({
      baseUrl: stub.baseUrl,
      accessToken: () => undefined,
      clientId: DHAN.clientId,
    });
    closeLater(() => none.close());
    expect(await quoteError(none.quotes([D.sbin]))).toMatchObject({ code: 'no_token' });
    expect(stub.requests).toHaveLength(1);
  });
});

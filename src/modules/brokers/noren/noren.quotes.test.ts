/**
 * The Noren market-data client (quotes/noren-quotes.ts, noren-history.ts), for both variants,
 * against the loopback stub answering with the README's examples: GetQuotes one instrument a
 * request (the jData and jKey), the full quote and depth of the ACC-EQ example, "no data" left
 * out, an expired session rejecting, TPSeries (zero rows dropped, oldest first) and EODChartData
 * (JSON strings, day candles at 00:00 IST), and the refusals made before any request.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { closeAfterEach, closeLater } from '../../../../test/helpers/broker-quote-fixtures.js';
import { NorenStub, NOREN_SESSION_EXPIRED } from '../../../../test/helpers/broker-order-stub-noren.js';
import {
  DOC_EOD,
  DOC_QUOTE,
  DOC_TPSERIES,
  loadNorenInstruments,
  setupNoren,
  VARIANTS,
  type NorenSet,
} from '../../../../test/helpers/noren-fixtures.js';
import { FakeClock } from '../../../platform/clock.js';
import { QuoteError } from '../quotes/quote-client.js';
import { NorenQuoteClient } from '../quotes/noren-quotes.js';
import { norenHistoryPlan } from '../quotes/noren-history.js';

let A: NorenSet;
beforeAll(async () => {
  A = await loadNorenInstruments();
});
closeAfterEach();

const NOW = Date.UTC(2026, 7, 18, 5, 0);

async function quoteError(p: Promise<unknown>): Promise<QuoteError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(QuoteError);
  return err as QuoteError;
}

describe.each(VARIANTS)('$variant.name market data', (v) => {
  async function client(userId: string | null = v.creds.userId) {
    const { stub, options } = await setupNoren(v);
    const c = new NorenQuoteClient({
      ...options,
      variant: v.variant,
      accessToken: () => v.creds.token,
      brokerUserId: () => userId ?? undefined,
      clock: new FakeClock(NOW),
      paceMs: 0,
    });
    closeLater(() => c.close());
    return { stub, c };
  }

  it('asks GetQuotes one instrument a request and reads the full quote and depth', async () => {
    const { stub, c } = await client();
    stub.quotes.set(`NSE|${A.sbin.token}`, {
      ...DOC_QUOTE,
      token: A.sbin.token,
      lp: '812.40',
      o: '805.00',
      h: '815.00',
      l: '801.10',
      c: '808.00',
      v: '1234567',
      ltq: '5',
    });
    stub.quotes.set(`NFO|${A.ce.token}`, { ...DOC_QUOTE, token: A.ce.token, lp: '120.5', oi: '150000' });
    const q = await c.marketQuotes([A.sbin, A.ce, A.fut]);
    expect(stub.requests.map((r) => [r.path, NorenStub.jData(r), stub.credentialOf(r)])).toEqual([
      [`${v.base}/GetQuotes`, { uid: v.creds.userId, exch: 'NSE', token: '3045' }, 'exact'],
      [`${v.base}/GetQuotes`, { uid: v.creds.userId, exch: 'NFO', token: '48094' }, 'exact'],
      [`${v.base}/GetQuotes`, { uid: v.creds.userId, exch: 'NFO', token: A.fut.token }, 'exact'],
    ]);
    expect([...q.keys()]).toEqual(['NSE:SBIN', 'NFO:NIFTY09JAN2523500CE']);
    expect(q.get('NSE:SBIN')).toEqual({
      open: 805,
      high: 815,
      low: 801.1,
      ltp: 812.4,
      prevClose: 808,
      volume: 1234567,
      oi: 0,
      ltq: 5,
      totalBuyQty: 2,
      totalSellQty: 0,
      bids: [{ price: 2000, quantity: 2, orders: 2 }],
      asks: [],
      timestamp: NOW,
      upperCircuit: 2093.95,
      lowerCircuit: 1713.25,
    });
    expect(q.get('NFO:NIFTY09JAN2523500CE')?.oi).toBe(150000);
    const quotes = await c.quotes([A.sbin]);
    expect(quotes.get('NSE:SBIN')).toEqual({
      ltp: 812.4,
      bid: 2000,
      ask: 0,
      high: 815,
      low: 801.1,
      close: 808,
      timestamp: NOW,
    });
  });

  it('rejects on an expired session, with the emsg and never the token', async () => {
    const { stub, c } = await client();
    stub.failNext(200, { stat: 'Not_Ok', emsg: NOREN_SESSION_EXPIRED });
    const err = await quoteError(c.quotes([A.sbin]));
    expect(err).toMatchObject({ status: 401, retryable: false, broker: v.variant.name });
    expect(err.message).toBe(`${v.variant.label} quotes: HTTP 401: ${NOREN_SESSION_EXPIRED}`);
    expect(err.message).not.toContain(v.creds.token);
  });

  it('refuses before any request without a user id, a known interval or a token', async () => {
    const { stub, c } = await client(null);
    expect((await quoteError(c.quotes([A.sbin]))).code).toBe('no_token');
    expect((await quoteError(c.history(A.sbin, 'W', '2026-08-01', '2026-08-10'))).code).toBe('bad_request');
    expect(stub.requests).toEqual([]);
  });

  it('reads TPSeries candles oldest first, without the empty minutes', async () => {
    const { stub, c } = await client();
    stub.series.set(`NSE|${A.sbin.token}`, DOC_TPSERIES);
    const candles = await c.history(A.sbin, '1m', '2020-06-02', '2020-06-02');
    expect(candles).toEqual([
      {
        time: Date.UTC(2020, 5, 2, 10, 13, 23),
        open: 1287,
        high: 1287,
        low: 0,
        close: 1287,
        volume: 4,
        oi: 128702,
      },
    ]);
    const [req] = stub.requests;
    expect(req!.path).toBe(`${v.base}/TPSeries`);
    expect(NorenStub.jData(req!)).toEqual({
      uid: v.creds.userId,
      exch: 'NSE',
      token: '3045',
      st: String(Date.UTC(2020, 5, 1, 18, 30) / 1000),
      et: String(Date.UTC(2020, 5, 2, 18, 29, 59) / 1000),
      intrv: '1',
    });
  });

  it('reads EODChartData day candles at 00:00 IST, asked by EXCH:TSYM', async () => {
    const { stub, c } = await client();
    stub.series.set('NSE:SBIN-EQ', DOC_EOD);
    const candles = await c.history(A.sbin, 'D', '2022-09-01', '2022-09-30');
    expect(candles.map((x) => [new Date(x.time).toISOString(), x.open, x.close, x.volume])).toEqual([
      ['2022-09-14T18:30:00.000Z', 2583, 2562.7, 4783723],
      ['2022-09-20T18:30:00.000Z', 2496.75, 2509.75, 4249172],
    ]);
    expect(NorenStub.jData(stub.requests[0]!)).toMatchObject({ uid: v.creds.userId, sym: 'NSE:SBIN-EQ' });
  });

  it('an empty series ("no data") is no candles', async () => {
    const { c } = await client();
    expect(await c.history(A.ce, '5m', '2025-01-02', '2025-01-03')).toEqual([]);
  });
});

describe('history plan', () => {
  it('splits a long intraday range into 30-day windows and refuses more than 25', async () => {
    const A2 = await loadNorenInstruments();
    const plan = norenHistoryPlan(A2.sbin, '15m', '2026-01-01', '2026-03-15');
    expect('requests' in plan && plan.requests.map((r) => r.data.intrv)).toEqual(['15', '15', '15']);
    expect(norenHistoryPlan(A2.sbin, '1m', '2020-01-01', '2026-12-31')).toEqual({
      refusal: 'at most 750 days of 1m candles per request',
    });
  });
});

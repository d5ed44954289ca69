/**
 * Dhan's candles (quotes/dhan-quotes.ts `history`, quotes/dhan-history.ts) against the loopback
 * charts APIs: the daily and intraday bodies, each OpenAlgo interval and instrument type as Dhan
 * names it, 90-day windows, epoch seconds read in IST, the pacing at 5 a second, and refusals as
 * QuoteErrors without the token.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { HistoryInterval, QuoteInstrument } from '../quotes/quote-client.js';
import { DhanQuoteClient, type DhanQuoteClientOptions } from '../quotes/dhan-quotes.js';
import { createMarketDataClient } from '../quotes/create-quote-client.js';
import { captureLogs } from '../../../../test/helpers/broker-order-stubs.js';
import { closeAfterEach, closeLater, quoteError } from '../../../../test/helpers/broker-quote-fixtures.js';
import { dhanError, startDhanStub } from '../../../../test/helpers/broker-order-stub-dhan.js';
import { DHAN_DOC_DAILY, serveDhanCharts } from '../../../../test/helpers/broker-history-stub-dhan.js';
import { DHAN, loadDhanInstruments, type DhanSet } from '../../../../test/helpers/dhan-fixtures.js';

let D: DhanSet;
beforeAll(async () => {
  D = await loadDhanInstruments();
});
closeAfterEach();

/** A stub serving the charts and a client on it (no pacing unless asked). */
async function setup(opts: Partial<DhanQuoteClientOptions> = {}, stubIntervalMs = 0) {
  const stub = await startDhanStub(DHAN);
  const charts = serveDhanCharts(stub);
  charts.intervalMs = stubIntervalMs;
  const { logger, logs } = captureLogs();
  const client = new DhanQuoteClient({
    baseUrl: stub.baseUrl,
    accessToken: DHAN.accessToken,
    clientId: DHAN.clientId,
    chartIntervalMs: 0,
    logger,
    ...opts,
  });
  closeLater(() => stub.close());
  closeLater(() => client.close());
  return { stub, charts, client, logs };
}

const find = (pred: (i: QuoteInstrument) => boolean): QuoteInstrument => {
  const found = D.all.find(pred);
  if (!found) throw new Error('no such instrument in the Dhan fixture');
  return found;
};
/** Epoch seconds of an IST time. */
const ist = (s: string) => Date.parse(`${s}+05:30`) / 1000;
const row = (time: number, close: number, oi?: number) => ({
  time,
  open: close - 1,
  high: close + 1,
  low: close - 2,
  close,
  volume: 100,
  ...(oi === undefined ? {} : { oi }),
});

describe('POST /charts/historical (daily)', () => {
  it('the docs’ request for SBIN: toDate is the day after the last one; the documented arrays read as IST days', async () => {
    const stub = await startDhanStub(DHAN);
    closeLater(() => stub.close());
    const charts = serveDhanCharts(stub);
    charts.daily.set('NSE_EQ|3045', [...DHAN_DOC_DAILY]);
    // The market-data module's client, as it is built for the configured broker.
    const client = createMarketDataClient('dhan', {
      baseUrl: stub.baseUrl,
      accessToken: () => DHAN.accessToken,
      brokerUserId: () => DHAN.clientId,
    });
    closeLater(() => client.close());

    const candles = await client.history(D.sbin, 'D', '2022-01-08', '2022-02-07');

    const [req] = stub.requests;
    expect(req).toMatchObject({ method: 'POST', path: '/v2/charts/historical' });
    expect(stub.credentialOf(req!)).toBe('exact');
    expect(req!.headers['client-id']).toBe(DHAN.clientId);
    expect(req!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(req!.body)).toEqual({
      securityId: '3045',
      exchangeSegment: 'NSE_EQ',
      instrument: 'EQUITY',
      expiryCode: 0,
      oi: false,
      fromDate: '2022-01-08',
      toDate: '2022-02-08',
    });
    expect(candles).toEqual([
      {
        time: Date.parse('2022-01-10T00:00:00+05:30'),
        open: 3978,
        high: 3978,
        low: 3861,
        close: 3879.85,
        volume: 3937092,
        oi: 0,
      },
      {
        time: Date.parse('2022-01-11T00:00:00+05:30'),
        open: 3856,
        high: 3925,
        low: 3856,
        close: 3915.9,
        volume: 1906106,
        oi: 0,
      },
    ]);
  });

  it('a day stamped at 00:00 UTC is still its IST day; rows come back oldest first', async () => {
    const { charts, client } = await setup();
    // 2026-08-14 00:00 UTC (05:30 IST), then 2026-08-13 00:00 IST: newest first on the wire.
    charts.daily.set('NSE_EQ|3045', [
      row(Date.UTC(2026, 7, 14) / 1000, 810),
      row(ist('2026-08-13T00:00:00'), 801),
    ]);

    const candles = await client.history(D.sbin, 'D', '2026-08-13', '2026-08-14');

    expect(candles.map((c) => [new Date(c.time).toISOString(), c.close])).toEqual([
      ['2026-08-12T18:30:00.000Z', 801],
      ['2026-08-13T18:30:00.000Z', 810],
    ]);
  });

  it.each([
    ['sbin', 'EQUITY', false],
    ['nifty', 'INDEX', false],
    ['ce', 'OPTIDX', true],
    ['fut', 'FUTIDX', true],
    ['silver', 'FUTCOM', true],
  ] as const)('%s is asked as instrument %s (oi %s)', async (name, instrument, oi) => {
    const { charts, client } = await setup();
    const i = D[name];
    charts.daily.set(`${i.brexchange}|${i.token}`, [row(ist('2026-02-02T00:00:00'), 50, 1200)]);

    const [candle] = await client.history(i, 'D', '2026-02-02', '2026-02-02');

    expect(charts.bodies('daily')[0]).toMatchObject({
      securityId: i.token,
      exchangeSegment: i.brexchange,
      instrument,
      oi,
    });
    // Open interest is asked for (and read) only for derivatives.
    expect(candle).toMatchObject({ close: 50, oi: oi ? 1200 : 0 });
  });

  const opt = (i: QuoteInstrument) => /(CE|PE)$/.test(i.symbol);
  const fut = (i: QuoteInstrument) => i.symbol.endsWith('FUT');
  it.each([
    [
      'a stock future',
      'FUTSTK',
      (i: QuoteInstrument) => i.exchange === 'NFO' && i.symbol.startsWith('RELIANCE') && fut(i),
    ],
    [
      'a stock option',
      'OPTSTK',
      (i: QuoteInstrument) => i.exchange === 'NFO' && !i.symbol.includes('NIFTY') && opt(i),
    ],
    ['a currency future', 'FUTCUR', (i: QuoteInstrument) => i.exchange === 'CDS' && fut(i)],
    ['a currency option', 'OPTCUR', (i: QuoteInstrument) => i.exchange === 'CDS' && opt(i)],
    ['a commodity option', 'OPTFUT', (i: QuoteInstrument) => i.exchange === 'MCX' && opt(i)],
  ] as const)('%s is asked as %s', async (_what, instrument, pred) => {
    const { charts, client } = await setup();
    const i = find(pred);
    expect(await client.history(i, 'D', '2026-02-02', '2026-02-02')).toEqual([]);
    expect(charts.bodies('daily')[0]).toMatchObject({ securityId: i.token, instrument, oi: true });
  });
});

describe('POST /charts/intraday (minutes)', () => {
  it.each([
    ['1m', '1'],
    ['5m', '5'],
    ['15m', '15'],
    ['1h', '60'],
  ] as const)(
    '%s is interval "%s", from 00:00:00 to 23:59:59 IST; epoch seconds are the candle start',
    async (interval, dhan) => {
      const { stub, charts, client } = await setup();
      charts.intraday.set('NSE_EQ|3045', [row(ist('2026-08-18T09:15:00'), 812.35)]);

      const candles = await client.history(D.sbin, interval, '2026-08-18', '2026-08-18');

      expect(stub.requests[0]?.path).toBe('/v2/charts/intraday');
      expect(charts.bodies('intraday')).toEqual([
        {
          securityId: '3045',
          exchangeSegment: 'NSE_EQ',
          instrument: 'EQUITY',
          interval: dhan,
          oi: false,
          fromDate: '2026-08-18 00:00:00',
          toDate: '2026-08-18 23:59:59',
        },
      ]);
      expect(candles).toEqual([
        {
          time: Date.parse('2026-08-18T03:45:00Z'),
          open: 811.35,
          high: 813.35,
          low: 810.35,
          close: 812.35,
          volume: 100,
          oi: 0,
        },
      ]);
    },
  );

  it('the intervals are 1m, 5m, 15m, 1h and D; any other is refused before any I/O', async () => {
    const { stub, client } = await setup();
    expect(client.intervals).toEqual(['1m', '5m', '15m', '1h', 'D']);
    for (const interval of ['3m', '10m', '30m', 'W', 'M'] as HistoryInterval[])
      expect(await quoteError(client.history(D.sbin, interval, '2026-08-18', '2026-08-18'))).toMatchObject({
        code: 'bad_request',
        status: undefined,
        message: `Dhan quotes: interval ${interval} is not one Dhan serves`,
      });
    expect((await quoteError(client.history(D.sbin, '1m', '2026-02-30', '2026-03-01'))).code).toBe(
      'bad_request',
    );
    expect(stub.requests).toHaveLength(0);
  });

  it('135 days of minutes go in two windows of at most 90 days; the candles join oldest first', async () => {
    const { charts, client } = await setup();
    charts.intraday.set('NSE_FNO|42500', [
      row(ist('2026-05-15T15:29:00'), 104, 70),
      row(ist('2026-04-01T09:15:00'), 103, 60),
      row(ist('2026-03-31T15:29:00'), 102, 50),
      row(ist('2026-01-01T09:15:00'), 101, 40),
    ]);

    const candles = await client.history(D.ce, '1m', '2026-01-01', '2026-05-15');

    expect(charts.bodies('intraday').map((b) => [b.fromDate, b.toDate, b.instrument, b.oi])).toEqual([
      ['2026-01-01 00:00:00', '2026-03-31 23:59:59', 'OPTIDX', true],
      ['2026-04-01 00:00:00', '2026-05-15 23:59:59', 'OPTIDX', true],
    ]);
    expect(candles.map((c) => [c.time, c.close, c.oi])).toEqual([
      [Date.parse('2026-01-01T03:45:00Z'), 101, 40],
      [Date.parse('2026-03-31T09:59:00Z'), 102, 50],
      [Date.parse('2026-04-01T03:45:00Z'), 103, 60],
      [Date.parse('2026-05-15T09:59:00Z'), 104, 70],
    ]);
  });

  it('more than 25 windows is refused before any I/O; an inverted range asks nothing', async () => {
    const { stub, client } = await setup();
    const err = await quoteError(client.history(D.sbin, '1m', '2020-01-01', '2026-12-31'));
    expect(err).toMatchObject({ code: 'bad_request', message: expect.stringContaining('at most 2250 days') });
    expect(await client.history(D.sbin, '5m', '2026-08-18', '2026-08-01')).toEqual([]);
    expect(await client.history(D.sbin, 'D', '2026-08-18', '2026-08-01')).toEqual([]);
    expect(stub.requests).toHaveLength(0);
  });
});

describe('empty answers, pacing and refusals', () => {
  it('no candles in the range: []', async () => {
    const { client } = await setup();
    expect(await client.history(D.sbin, 'D', '2026-08-01', '2026-08-18')).toEqual([]);
    expect(await client.history(D.sbin, '15m', '2026-08-01', '2026-08-18')).toEqual([]);
  });

  it('windows are paced at the chart interval, within the Data APIs’ 5 a second', async () => {
    const { charts, client } = await setup({ chartIntervalMs: 150 }, 120);
    const t0 = performance.now();
    await client.history(D.sbin, '1m', '2026-01-01', '2026-08-18'); // 3 windows
    expect(charts.bodies('intraday')).toHaveLength(3);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(290);
  });

  it('without pacing the second window meets the rate limit: a retryable 429 DH-904, not retried', async () => {
    const { stub, client } = await setup({}, 60_000);
    const err = await quoteError(client.history(D.sbin, '1m', '2026-01-01', '2026-05-15'));
    expect(err).toMatchObject({ broker: 'dhan', status: 429, code: 'DH-904', retryable: true });
    expect(err.message).toContain('Too many requests');
    expect(stub.requests).toHaveLength(2);
  });

  it('the Data API’s 805 is a retryable rate limit whatever the status', async () => {
    const { stub, client } = await setup();
    stub.failNext(200, {
      status: 'failed',
      data: { '805': 'Too many requests. Further requests may result in the user being blocked.' },
    });
    const err = await quoteError(client.history(D.sbin, 'D', '2026-08-01', '2026-08-18'));
    expect(err).toMatchObject({ status: 200, code: '805', retryable: true });
    expect(err.message).toBe(
      'Dhan quotes: HTTP 200 805: Too many requests. Further requests may result in the user being blocked.',
    );
  });

  it('Dhan’s refusal passes through with its code and message; the token is in no message or log', async () => {
    const { stub, client, logs } = await setup();
    stub.failNext(
      400,
      dhanError('Input_Exception', 'DH-905', `Missing required fields, bad values ${DHAN.accessToken}`),
    );
    const input = await quoteError(client.history(D.sbin, 'D', '2026-08-01', '2026-08-18'));
    expect(input).toMatchObject({ status: 400, code: 'DH-905', retryable: false });
    expect(input.message).toBe(
      'Dhan quotes: HTTP 400 DH-905: Missing required fields, bad values [redacted]',
    );

    const wrong = new DhanQuoteClient({
      baseUrl: stub.baseUrl,
      accessToken: 'eyJhbGciWRONGtoken3Rt8',
      clientId: DHAN.clientId,
    });
    closeLater(() => wrong.close());
    const denied = await quoteError(wrong.history(D.sbin, 'D', '2026-08-01', '2026-08-18'));
    expect(denied).toMatchObject({ status: 401, code: 'DH-901', retryable: false });
    expect(denied.message + input.message + logs()).not.toMatch(/WRONGtoken|DHANtoken/);
  });

  it('no session or a closed client: refused before any I/O', async () => {
    const { stub, client } = await setup({ accessToken: () => undefined });
    expect((await quoteError(client.history(D.sbin, 'D', '2026-08-01', '2026-08-18'))).code).toBe('no_token');
    await client.close();
    expect((await quoteError(client.history(D.sbin, 'D', '2026-08-01', '2026-08-18'))).code).toBe('closed');
    expect(stub.requests).toHaveLength(0);
  });
});

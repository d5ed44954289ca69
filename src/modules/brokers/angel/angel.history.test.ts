/**
 * Angel One's candles (quotes/angel-quotes.ts `history`, quotes/angel-history.ts) against the
 * loopback getCandleData: the documented request and answer, each OpenAlgo interval as SmartAPI
 * names it, windows of the interval's most days, times read with their +05:30, the pacing under 3
 * requests a second, and refusals as QuoteErrors without a credential.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { HistoryInterval, QuoteInstrument } from '../quotes/quote-client.js';
import { AngelQuoteClient, type AngelQuoteOptions } from '../quotes/angel-quotes.js';
import { createMarketDataClient } from '../quotes/create-quote-client.js';
import { closeAfterEach, closeLater, quoteError } from '../../../../test/helpers/broker-quote-fixtures.js';
import { captureLogs } from '../../../../test/helpers/broker-order-stubs.js';
import {
  ANGEL_CREDS,
  angelError,
  loadAngelInstruments,
  startAngelStub,
  type AngelSet,
} from '../../../../test/helpers/broker-order-stub-angel.js';
import {
  ANGEL_DOC_REQUEST,
  ANGEL_DOC_ROWS,
  ANGEL_HISTORY_STUB_PATH,
  serveAngelCandles,
  type AngelCandleRow,
} from '../../../../test/helpers/broker-history-stub-angel.js';

let A: AngelSet;
beforeAll(async () => {
  A = await loadAngelInstruments();
});
closeAfterEach();

/** A stub serving getCandleData and a client on it (no pacing unless asked). */
async function setup(opts: Partial<AngelQuoteOptions> = {}) {
  const stub = await startAngelStub(ANGEL_CREDS);
  const candles = serveAngelCandles(stub);
  const { logger, logs } = captureLogs();
  const client = new AngelQuoteClient({
    baseUrl: stub.url,
    apiKey: ANGEL_CREDS.apiKey,
    accessToken: ANGEL_CREDS.jwt,
    logger,
    historyPaceMs: 0,
    ...opts,
  });
  closeLater(() => stub.close());
  closeLater(() => client.close());
  return { stub, candles, client, logs };
}

/** A row of `close` at IST `time` (`2026-08-18T09:15:00`). */
const row = (time: string, close: number, volume = 10): AngelCandleRow => [
  `${time}+05:30`,
  close - 1,
  close + 1,
  close - 2,
  close,
  volume,
];
const key = (i: QuoteInstrument, interval: string) => `${i.brexchange}:${i.token}:${interval}`;

describe('POST historical/v1/getCandleData', () => {
  it('the docs’ NIFTY 50 example: body, headers and the row read with its +05:30', async () => {
    const stub = await startAngelStub(ANGEL_CREDS);
    closeLater(() => stub.close());
    const candles = serveAngelCandles(stub);
    candles.rows.set('NSE:99926000:ONE_HOUR', [...ANGEL_DOC_ROWS]);
    // The market-data module's client, as it is built for the configured broker.
    const client = createMarketDataClient('angel', {
      baseUrl: stub.url,
      apiKey: ANGEL_CREDS.apiKey,
      accessToken: () => ANGEL_CREDS.jwt,
    });
    closeLater(() => client.close());

    const got = await client.history(A.nifty, '1h', '2023-09-06', '2023-09-06');

    const [req] = stub.requests;
    expect(req).toMatchObject({ method: 'POST', path: ANGEL_HISTORY_STUB_PATH });
    expect(stub.credentialOf(req!)).toBe('exact');
    expect(req!.headers['x-privatekey']).toBe(ANGEL_CREDS.apiKey);
    expect(JSON.parse(req!.body)).toEqual({
      ...ANGEL_DOC_REQUEST,
      fromdate: '2023-09-06 00:00',
      todate: '2023-09-06 23:59',
    });
    expect(got).toEqual([
      {
        time: Date.parse('2023-09-06T05:45:00Z'),
        open: 19571.2,
        high: 19573.35,
        low: 19534.4,
        close: 19552.05,
        volume: 0,
        oi: 0,
      },
    ]);
  });

  it.each([
    ['1m', 'ONE_MINUTE'],
    ['3m', 'THREE_MINUTE'],
    ['5m', 'FIVE_MINUTE'],
    ['10m', 'TEN_MINUTE'],
    ['15m', 'FIFTEEN_MINUTE'],
    ['30m', 'THIRTY_MINUTE'],
    ['1h', 'ONE_HOUR'],
    ['D', 'ONE_DAY'],
  ] as const)('%s is asked as %s by exchange and symbol token', async (interval, angel) => {
    const { candles, client } = await setup();
    candles.rows.set(key(A.fut, angel), [row('2026-08-18T09:15:00', 55_000, 75)]);

    const got = await client.history(A.fut, interval, '2026-08-18', '2026-08-18');

    expect(candles.bodies()).toEqual([
      {
        exchange: 'NFO',
        symboltoken: A.fut.token,
        interval: angel,
        fromdate: '2026-08-18 00:00',
        todate: '2026-08-18 23:59',
      },
    ]);
    expect(got).toEqual([
      {
        time: Date.parse('2026-08-18T03:45:00Z'),
        open: 54_999,
        high: 55_001,
        low: 54_998,
        close: 55_000,
        volume: 75,
        oi: 0,
      },
    ]);
  });

  it('the intervals are OpenAlgo’s eight for Angel; W and M are refused before any I/O', async () => {
    const { stub, client } = await setup();
    expect(client.intervals).toEqual(['1m', '3m', '5m', '10m', '15m', '30m', '1h', 'D']);
    for (const interval of ['W', 'M'] as HistoryInterval[])
      expect(await quoteError(client.history(A.sbin, interval, '2026-08-01', '2026-08-18'))).toMatchObject({
        code: 'bad_request',
        status: undefined,
        message: `Angel One quotes: interval ${interval} is not one Angel One serves`,
      });
    expect((await quoteError(client.history(A.sbin, 'D', '2026-8-1', '2026-08-18'))).code).toBe(
      'bad_request',
    );
    const noToken = { ...A.sbin, token: '' };
    expect((await quoteError(client.history(noToken, 'D', '2026-08-01', '2026-08-18'))).code).toBe(
      'bad_request',
    );
    expect(stub.requests).toHaveLength(0);
  });

  it('day candles are 00:00 IST of their day, oldest first', async () => {
    const { candles, client } = await setup();
    candles.rows.set(key(A.sbin, 'ONE_DAY'), [
      row('2026-08-13T00:00:00', 801),
      row('2026-08-14T00:00:00', 810),
    ]);

    const got = await client.history(A.sbin, 'D', '2026-08-13', '2026-08-14');

    expect(got.map((c) => [new Date(c.time).toISOString(), c.close])).toEqual([
      ['2026-08-12T18:30:00.000Z', 801],
      ['2026-08-13T18:30:00.000Z', 810],
    ]);
  });
});

describe('ranges longer than one request', () => {
  it('79 days of minutes go in windows of 30 days; the candles join oldest first', async () => {
    const { candles, client } = await setup();
    candles.rows.set(key(A.ce, 'ONE_MINUTE'), [
      row('2026-06-01T09:15:00', 101),
      row('2026-06-30T15:29:00', 102),
      row('2026-07-01T09:15:00', 103),
      row('2026-08-18T15:29:00', 104),
    ]);

    const got = await client.history(A.ce, '1m', '2026-06-01', '2026-08-18');

    expect(candles.bodies().map((b) => [b.fromdate, b.todate])).toEqual([
      ['2026-06-01 00:00', '2026-06-30 23:59'],
      ['2026-07-01 00:00', '2026-07-30 23:59'],
      ['2026-07-31 00:00', '2026-08-18 23:59'],
    ]);
    expect(got.map((c) => [c.time, c.close])).toEqual([
      [Date.parse('2026-06-01T03:45:00Z'), 101],
      [Date.parse('2026-06-30T09:59:00Z'), 102],
      [Date.parse('2026-07-01T03:45:00Z'), 103],
      [Date.parse('2026-08-18T09:59:00Z'), 104],
    ]);
  });

  it('each interval’s window is its documented most days (1h: 400, D: 2000)', async () => {
    const { candles, client } = await setup();
    candles.perSecond = 10; // unpaced here: the windows are what is looked at
    await client.history(A.sbin, '1h', '2025-01-01', '2026-03-01');
    await client.history(A.sbin, 'D', '2015-01-01', '2026-08-18');
    expect(candles.bodies().map((b) => [b.interval, b.fromdate, b.todate])).toEqual([
      ['ONE_HOUR', '2025-01-01 00:00', '2026-02-04 23:59'],
      ['ONE_HOUR', '2026-02-05 00:00', '2026-03-01 23:59'],
      ['ONE_DAY', '2015-01-01 00:00', '2020-06-22 23:59'],
      ['ONE_DAY', '2020-06-23 00:00', '2025-12-13 23:59'],
      ['ONE_DAY', '2025-12-14 00:00', '2026-08-18 23:59'],
    ]);
  });

  it('more than 25 windows is refused before any I/O; an inverted range asks nothing', async () => {
    const { stub, client } = await setup();
    const err = await quoteError(client.history(A.sbin, '1m', '2024-01-01', '2026-08-18'));
    expect(err).toMatchObject({ code: 'bad_request', message: expect.stringContaining('at most 750 days') });
    expect(await client.history(A.sbin, '5m', '2026-08-18', '2026-08-01')).toEqual([]);
    expect(stub.requests).toHaveLength(0);
  });

  it('windows are paced under 3 requests a second (the default pace)', async () => {
    const { candles, client } = await setup({ historyPaceMs: undefined });
    const t0 = performance.now();
    await client.history(A.sbin, '1m', '2026-05-01', '2026-08-18'); // 4 windows
    expect(candles.bodies()).toHaveLength(4);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(1000);
  });

  it('unpaced, the 4th request in a second meets the rate limiter: a retryable rate_limited, not retried', async () => {
    const { stub, client } = await setup();
    const err = await quoteError(client.history(A.sbin, '1m', '2026-05-01', '2026-08-18'));
    expect(err).toMatchObject({ broker: 'angel', status: 403, code: 'rate_limited', retryable: true });
    expect(stub.requests).toHaveLength(4);
  });
});

describe('empty answers and refusals', () => {
  it('no candles: data [] or null is []', async () => {
    const { stub, client } = await setup();
    expect(await client.history(A.sbin, 'D', '2026-08-01', '2026-08-18')).toEqual([]);
    stub.failNext(200, { status: true, message: 'SUCCESS', errorcode: '', data: null });
    expect(await client.history(A.sbin, 'D', '2026-08-01', '2026-08-18')).toEqual([]);
  });

  it('status false passes through with its code and message; the JWT is in no message or log', async () => {
    const { stub, client, logs } = await setup();
    stub.failNext(200, angelError(`Invalid Token ${ANGEL_CREDS.jwt}`, 'AG8001'));
    stub.failNext(200, angelError('Something Went Wrong, Please Try After Sometime', 'AB1004'));

    const denied = await quoteError(client.history(A.sbin, 'D', '2026-08-01', '2026-08-18'));
    const fault = await quoteError(client.history(A.sbin, 'D', '2026-08-01', '2026-08-18'));

    expect(denied).toMatchObject({ broker: 'angel', status: 401, code: 'AG8001', retryable: false });
    expect(denied.message).toBe('Angel One quotes: HTTP 401 AG8001: Invalid Token [redacted]');
    expect(fault).toMatchObject({ status: 502, code: 'AB1004', retryable: true });
    expect(fault.message).toContain('Something Went Wrong');
    expect(logs()).not.toContain(ANGEL_CREDS.jwt);
  });

  it('no session or no API key: refused before any I/O', async () => {
    const { stub, client } = await setup({ accessToken: () => undefined });
    const keyless = new AngelQuoteClient({ baseUrl: stub.url, apiKey: '', accessToken: ANGEL_CREDS.jwt });
    closeLater(() => keyless.close());
    expect((await quoteError(client.history(A.sbin, 'D', '2026-08-01', '2026-08-18'))).code).toBe('no_token');
    expect((await quoteError(keyless.history(A.sbin, 'D', '2026-08-01', '2026-08-18'))).code).toBe(
      'no_api_key',
    );
    expect(stub.requests).toHaveLength(0);
  });
});

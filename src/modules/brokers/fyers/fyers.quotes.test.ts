/**
 * Fyers market data (quotes/fyers-quotes.ts) against the loopback stub: the docs' sample quote and
 * depth read into algodesk's shapes, batches of 50 symbols, history split into the documented
 * 100/366-day windows, the rate-limit refusal passed through, and no credential in any message.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { closeAfterEach, closeLater, quoteError } from '../../../../test/helpers/broker-quote-fixtures.js';
import { captureLogs } from '../../../../test/helpers/broker-order-stubs.js';
import { startFyersStub } from '../../../../test/helpers/broker-order-stub-fyers.js';
import {
  FYERS_DOC_SBIN_DEPTH,
  FYERS_DOC_SBIN_QUOTE,
  fyersQuote,
} from '../../../../test/helpers/broker-history-stub-fyers.js';
import {
  FYERS,
  FYERS_SECRETS,
  loadFyersInstruments,
  type FyersSet,
} from '../../../../test/helpers/fyers-fixtures.js';
import { FyersQuoteClient } from '../quotes/fyers-quotes.js';

let F: FyersSet;
beforeAll(async () => {
  F = await loadFyersInstruments();
});
closeAfterEach();

async function setup(minIntervalMs = 0) {
  const stub = await startFyersStub(FYERS);
  const { logger, logs } = captureLogs();
  const client = new FyersQuoteClient({
    baseUrl: stub.url,
    apiKey: FYERS.appId,
    accessToken: FYERS.accessToken,
    minIntervalMs,
    logger,
    clock: { now: () => 1_700_000_000_000 },
  });
  closeLater(() => stub.close());
  closeLater(() => client.close());
  return { stub, client, logs };
}

describe('quotes: GET /data/quotes, 50 symbols a request', () => {
  it('reads the docs’ SBIN sample and keys it by algodesk’s symbol', async () => {
    const { stub, client } = await setup();
    stub.data.quotes.set('NSE:SBIN-EQ', FYERS_DOC_SBIN_QUOTE);
    const q = await client.quotes([F.sbin]);
    expect(q.get('NSE:SBIN')).toEqual({
      ltp: 426.9,
      bid: 426.85,
      ask: 426.9,
      high: 433.65,
      low: 423.6,
      timestamp: 1622160000_000,
    });
    expect(stub.requests[0]!.url).toBe('/data/quotes?symbols=NSE%3ASBIN-EQ');
    expect(stub.credentialOf(stub.requests[0]!)).toBe('exact');
  });

  it('splits 120 symbols into 50 + 50 + 20 and skips the symbols Fyers did not know', async () => {
    const { stub, client } = await setup();
    const list = F.all.filter((i) => i.exchange === 'BFO' || i.exchange === 'CDS').slice(0, 120);
    expect(list).toHaveLength(120);
    list.slice(0, 100).forEach((i, n) => stub.data.quotes.set(i.brsymbol, fyersQuote(i.brsymbol, 10 + n)));
    const q = await client.quotes(list);
    expect(stub.requests.map((r) => (r.query.get('symbols') ?? '').split(',').length)).toEqual([50, 50, 20]);
    expect(q.size).toBe(100);
    expect(q.get(`${list[7]!.exchange}:${list[7]!.symbol}`)?.ltp).toBe(17);
  });
});

describe('full quotes: the depth API for one instrument, the quotes API for several', () => {
  it('one instrument: GET /data/depth?symbol=…&ohlcv_flag=1, the docs’ sample read in full', async () => {
    const { stub, client } = await setup();
    stub.data.depths.set('NSE:SBIN-EQ', FYERS_DOC_SBIN_DEPTH);
    const m = (await client.marketQuotes([F.sbin])).get('NSE:SBIN')!;
    expect(stub.requests[0]!.url).toBe('/data/depth?symbol=NSE%3ASBIN-EQ&ohlcv_flag=1');
    expect(m).toMatchObject({
      open: 430.5,
      high: 433.65,
      low: 423.6,
      ltp: 427.25,
      prevClose: 425.2,
      volume: 39163870,
      oi: 0,
      ltq: 20,
      totalBuyQty: 2396063,
      totalSellQty: 4990001,
      timestamp: 1622184920_000,
      upperCircuit: 467.7,
      lowerCircuit: 382.7,
    });
    expect(m.bids).toHaveLength(5);
    expect(m.bids[0]).toEqual({ price: 427.25, quantity: 4738, orders: 5 });
    expect(m.asks[4]).toEqual({ price: 427.6, quantity: 7272, orders: 25 });
  });

  it('several: the quotes API, the best bid and ask as one level, prevClose from prev_close_price', async () => {
    const { stub, client } = await setup();
    stub.data.quotes.set('NSE:SBIN-EQ', FYERS_DOC_SBIN_QUOTE);
    stub.data.quotes.set(F.fut.brsymbol, fyersQuote(F.fut.brsymbol, 85000));
    const m = await client.marketQuotes([F.sbin, F.fut]);
    expect(stub.requests.map((r) => r.path)).toEqual(['/data/quotes']);
    expect(m.get('NSE:SBIN')).toMatchObject({
      ltp: 426.9,
      prevClose: 425.2,
      volume: 38977242,
      bids: [{ price: 426.85 }],
      asks: [{ price: 426.9 }],
    });
    expect(m.get(`BFO:${F.fut.symbol}`)?.ltp).toBe(85000);
  });

  it('an unknown symbol is Fyers’ refusal (-300) with its message', async () => {
    const { client } = await setup();
    const err = await quoteError(client.marketQuotes([F.sbin]));
    expect(err).toMatchObject({ status: 400, code: '-300', retryable: false });
    expect(err.message).toContain('Please provide a valid symbol');
  });
});

describe('history: GET /data/history in the documented windows', () => {
  const day = (iso: string, hh = 3, mm = 45) => Date.parse(`${iso}T00:00:00Z`) / 1000 + hh * 3600 + mm * 60;
  const dates = (from: string, n: number) =>
    Array.from({ length: n }, (_, k) =>
      new Date(Date.parse(`${from}T00:00:00Z`) + k * 86_400_000).toISOString().slice(0, 10),
    );

  it('1m over 250 days goes as 100 + 100 + 50 days; the candles come back joined, oldest first', async () => {
    const { stub, client } = await setup();
    const all = dates('2026-01-01', 250);
    stub.data.candles.set(
      'NSE:SBIN-EQ|1',
      all.map((d, n) => [day(d), 100 + n, 101 + n, 99 + n, 100.5 + n, 1000 + n]).reverse(),
    );
    const c = await client.history(F.sbin, '1m', '2026-01-01', all.at(-1)!);
    expect(
      stub.requests.map((r) => [
        r.query.get('range_from'),
        r.query.get('range_to'),
        r.query.get('resolution'),
        r.query.get('date_format'),
      ]),
    ).toEqual([
      ['2026-01-01', '2026-04-10', '1', '1'],
      ['2026-04-11', '2026-07-19', '1', '1'],
      ['2026-07-20', '2026-09-07', '1', '1'],
    ]);
    expect(c).toHaveLength(250);
    expect(c[0]).toEqual({
      time: day('2026-01-01') * 1000,
      open: 100,
      high: 101,
      low: 99,
      close: 100.5,
      volume: 1000,
      oi: 0,
    });
    expect(c.every((x, n) => n === 0 || x.time > c[n - 1]!.time)).toBe(true);
  });

  it('daily: 366 days a request, candles at 00:00 IST; derivatives ask for OI and read it', async () => {
    const { stub, client } = await setup();
    stub.data.candles.set(`${F.fut.brsymbol}|D`, [
      [Date.parse('2025-11-10T00:00:00Z') / 1000, 85000, 85500, 84000, 85200, 120, 4500],
    ]);
    const c = await client.history(F.fut, 'D', '2024-10-01', '2025-11-20');
    expect(stub.requests.map((r) => [r.query.get('range_from'), r.query.get('range_to')])).toEqual([
      ['2024-10-01', '2025-10-01'],
      ['2025-10-02', '2025-11-20'],
    ]);
    expect(stub.requests[0]!.query.get('oi_flag')).toBe('1');
    expect(stub.requests[0]!.query.get('cont_flag')).toBe('1');
    expect(c).toEqual([
      {
        time: Date.parse('2025-11-09T18:30:00Z'),
        open: 85000,
        high: 85500,
        low: 84000,
        close: 85200,
        volume: 120,
        oi: 4500,
      },
    ]);
  });

  it('an interval Fyers does not serve (W) is refused unsent; so is a window count over 25', async () => {
    const { stub, client } = await setup();
    expect(client.intervals).toEqual(['1m', '3m', '5m', '10m', '15m', '30m', '1h', 'D']);
    expect(await quoteError(client.history(F.sbin, 'W', '2026-01-01', '2026-02-01'))).toMatchObject({
      code: 'bad_request',
    });
    expect(await quoteError(client.history(F.sbin, '5m', '2010-01-01', '2026-02-01'))).toMatchObject({
      code: 'bad_request',
    });
    expect(stub.requests).toHaveLength(0);
  });
});

describe('rate limit and credentials', () => {
  it('an eleventh request within a second is Fyers’ 429 (-429): retryable, message kept, no token', async () => {
    const { stub, client, logs } = await setup();
    stub.data.quotes.set('NSE:SBIN-EQ', FYERS_DOC_SBIN_QUOTE);
    for (let n = 0; n < 10; n++) await client.quotes([F.sbin]);
    const err = await quoteError(client.quotes([F.sbin]));
    expect(err).toMatchObject({ status: 429, code: '-429', retryable: true });
    expect(err.message).toContain('request limit reached');
    for (const s of FYERS_SECRETS) expect(err.message + logs()).not.toContain(s);
  });

  it('the client paces its own requests 300 ms apart by default (200 a minute)', async () => {
    const { stub, client } = await setup(300);
    stub.data.quotes.set('NSE:SBIN-EQ', FYERS_DOC_SBIN_QUOTE);
    const t0 = performance.now();
    for (let n = 0; n < 3; n++) await client.quotes([F.sbin]);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(590);
    expect(stub.requests).toHaveLength(3);
  });

  it('no token or no app id is refused before any I/O', async () => {
    const stub = await startFyersStub(FYERS);
    closeLater(() => stub.close());
    const noToken = new FyersQuoteClient({
      baseUrl: stub.url,
      apiKey: FYERS.appId,
      accessToken: () => undefined,
    });
    const noApp = new FyersQuoteClient({ baseUrl: stub.url, accessToken: FYERS.accessToken });
    closeLater(() => noToken.close());
    closeLater(() => noApp.close());
    expect(await quoteError(noToken.quotes([F.sbin]))).toMatchObject({ code: 'no_token' });
    expect(await quoteError(noApp.quotes([F.sbin]))).toMatchObject({ code: 'no_token' });
    expect(stub.requests).toHaveLength(0);
  });
});

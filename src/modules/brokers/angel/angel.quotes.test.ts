/**
 * Angel One quotes (quotes/angel-quotes.ts) against the loopback SmartAPI: the FULL-mode request
 * by exchange and symbol token, batches of 50 paced apart, the quote read into the sandbox's
 * Quote and the market-data MarketQuote, and refusals as QuoteErrors without a credential.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { QuoteInstrument } from '../quotes/quote-client.js';
import { AngelQuoteClient, type AngelQuoteOptions } from '../quotes/angel-quotes.js';
import { FakeClock } from '../../../platform/clock.js';
import { AngelAdapter } from './angel.adapter.js';
import { closeAfterEach, closeLater, quoteError } from '../../../../test/helpers/broker-quote-fixtures.js';
import { captureLogs } from '../../../../test/helpers/broker-order-stubs.js';
import {
  ANGEL_CREDS,
  ANGEL_RATE_LIMIT_TEXT,
  ANGEL_STUB_PATHS as P,
  angelError,
  angelQuote,
  loadAngelInstruments,
  startAngelStub,
  type AngelStub,
} from '../../../../test/helpers/broker-order-stub-angel.js';

let A: Record<'sbin' | 'nifty' | 'ce' | 'fut', QuoteInstrument>;
beforeAll(async () => {
  A = await loadAngelInstruments();
});
closeAfterEach();

const RECEIVED = Date.UTC(2026, 7, 18, 5, 0);

async function setup(opts: Partial<AngelQuoteOptions> = {}) {
  const stub = await startAngelStub(ANGEL_CREDS);
  const { logger, logs } = captureLogs();
  const client = new AngelQuoteClient({
    baseUrl: stub.url,
    apiKey: ANGEL_CREDS.apiKey,
    accessToken: ANGEL_CREDS.jwt,
    logger,
    clock: new FakeClock(RECEIVED),
    paceMs: 40,
    ...opts,
  });
  closeLater(() => stub.close());
  closeLater(() => client.close());
  return { stub, client, logs };
}

/** A documented-shape quote for `i` in the stub. */
const put = (
  stub: AngelStub,
  i: QuoteInstrument,
  ltp: number,
  more: Partial<Parameters<typeof angelQuote>[0]> = {},
) =>
  stub.quotes.set(
    `${i.brexchange}:${i.token}`,
    angelQuote({ exchange: i.brexchange, tradingSymbol: i.brsymbol, symbolToken: i.token, ltp, ...more }),
  );

/** `n` synthetic NFO instruments with tokens 70000…; each with a quote of ltp 10 + k. */
function many(stub: AngelStub, n: number): QuoteInstrument[] {
  return Array.from({ length: n }, (_, k) => {
    const i = {
      symbol: `X${k}`,
      exchange: 'NFO',
      brsymbol: `X${k}`,
      brexchange: 'NFO',
      token: String(70000 + k),
    };
    put(stub, i, 10 + k);
    return i;
  });
}

describe('POST market/v1/quote in FULL mode', () => {
  it('asks by exchange and symbol token, with the SmartAPI headers and Bearer JWT', async () => {
    const { stub, client } = await setup();
    put(stub, A.sbin, 812.5);
    put(stub, A.nifty, 24850.35);
    put(stub, A.ce, 101.2);

    const quotes = await client.quotes([A.sbin, A.nifty, A.ce]);

    expect(stub.bodies(P.quote)).toEqual([
      { mode: 'FULL', exchangeTokens: { NSE: ['3045', '99926000'], NFO: ['45200'] } },
    ]);
    const req = stub.requests[0]!;
    expect(stub.credentialOf(req)).toBe('exact');
    expect(req.headers).toMatchObject({ 'x-privatekey': ANGEL_CREDS.apiKey, 'x-usertype': 'USER' });
    expect([...quotes.keys()]).toEqual(['NSE:SBIN', 'NSE_INDEX:NIFTY', 'NFO:NIFTY18AUG2626000CE']);
    expect(quotes.get('NSE_INDEX:NIFTY')?.ltp).toBe(24850.35);
  });

  it('reads the quote: ltp, high, low, best bid and ask, previous close, exchFeedTime in IST', async () => {
    const { stub, client } = await setup();
    put(stub, A.sbin, 568.2, {
      open: 567.4,
      high: 569.35,
      low: 566.1,
      close: 567.4,
      bids: [
        [568.2, 511, 2],
        [568.15, 411, 2],
      ],
      asks: [[568.25, 100, 1]],
      exchFeedTime: '21-Jun-2023 10:46:10',
      volume: 3556150,
      lowerCircuit: 511.1,
      upperCircuit: 624.6,
    });

    const quote = (await client.quotes([A.sbin])).get('NSE:SBIN');
    const full = (await client.marketQuotes([A.sbin])).get('NSE:SBIN');

    const at = Date.UTC(2023, 5, 21, 5, 16, 10); // 10:46:10 IST
    expect(quote).toEqual({
      ltp: 568.2,
      bid: 568.2,
      ask: 568.25,
      high: 569.35,
      low: 566.1,
      close: 567.4,
      timestamp: at,
    });
    expect(full).toEqual({
      open: 567.4,
      high: 569.35,
      low: 566.1,
      ltp: 568.2,
      prevClose: 567.4,
      volume: 3556150,
      oi: 0,
      ltq: 46,
      totalBuyQty: 922,
      totalSellQty: 100,
      bids: [
        { price: 568.2, quantity: 511, orders: 2 },
        { price: 568.15, quantity: 411, orders: 2 },
      ],
      asks: [{ price: 568.25, quantity: 100, orders: 1 }],
      timestamp: at,
      upperCircuit: 624.6,
      lowerCircuit: 511.1,
    });
  });

  it('instruments Angel lists in unfetched are absent; ones without a numeric token are not asked', async () => {
    const { stub, client } = await setup();
    put(stub, A.sbin, 812.5);

    const quotes = await client.quotes([A.sbin, A.fut, { ...A.ce, token: 'NSE_FO|45200' }]);

    expect(stub.bodies(P.quote)[0]).toEqual({
      mode: 'FULL',
      exchangeTokens: { NSE: ['3045'], NFO: ['58067'] },
    });
    expect([...quotes.keys()]).toEqual(['NSE:SBIN']);
  });

  it('batches at 50 tokens a request, paced apart, and joins the answers', async () => {
    const { stub, client } = await setup({ paceMs: 60 });
    const list = many(stub, 101);

    const started = performance.now();
    const quotes = await client.quotes(list);

    expect(stub.bodies(P.quote).map((b) => (b.exchangeTokens as { NFO: string[] }).NFO.length)).toEqual([
      50, 50, 1,
    ]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(110);
    expect(quotes.size).toBe(101);
    expect(quotes.get('NFO:X100')?.ltp).toBe(110);
    expect(client.maxBatch).toBe(50);
  });
});

describe('refusals', () => {
  it('status false: a QuoteError with the code, its status and message; no JWT in it or the logs', async () => {
    const { stub, client, logs } = await setup();
    put(stub, A.sbin, 1);
    stub.failNext(200, angelError(`Invalid Token ${ANGEL_CREDS.jwt}`, 'AG8001'));

    const err = await quoteError(client.quotes([A.sbin]));

    expect(err).toMatchObject({ broker: 'angel', status: 401, code: 'AG8001', retryable: false });
    expect(err.message).toBe('Angel One quotes: HTTP 401 AG8001: Invalid Token [redacted]');
    expect(logs()).not.toContain(ANGEL_CREDS.jwt);
  });

  it('AB1004 (Angel’s own failure) is retryable; the rate limiter’s text is a retryable rate_limited', async () => {
    const { stub, client } = await setup();
    put(stub, A.sbin, 1);
    stub.failNext(200, angelError('Something Went Wrong, Please Try After Sometime', 'AB1004'));
    stub.failNext(403, ANGEL_RATE_LIMIT_TEXT);

    const fault = await quoteError(client.quotes([A.sbin]));
    const limited = await quoteError(client.quotes([A.sbin]));

    expect(fault).toMatchObject({ status: 502, code: 'AB1004', retryable: true });
    expect(limited).toMatchObject({ status: 403, code: 'rate_limited', retryable: true });
  });

  it('no session: quotes and history are refused before any I/O (history: angel.history.test.ts)', async () => {
    const { stub, client } = await setup({ accessToken: () => undefined });

    const err = await quoteError(client.quotes([A.sbin]));
    const history = await quoteError(client.history(A.sbin, 'D', '2026-08-01', '2026-08-18'));

    expect(err.code).toBe('no_token');
    expect(history.code).toBe('no_token');
    expect(client.intervals).toEqual(['1m', '3m', '5m', '10m', '15m', '30m', '1h', 'D']);
    expect(stub.requests).toEqual([]);
  });

  it("the adapter's quote client follows the session and closes with the adapter", async () => {
    const { stub } = await setup();
    put(stub, A.sbin, 812.5);
    const current: { session?: { accessToken: string } } = {};
    const adapter = new AngelAdapter({
      apiKey: ANGEL_CREDS.apiKey,
      apiSecret: '',
      redirectUrl: '',
      baseUrl: stub.url,
    });
    const client = adapter.quoteClient(() => current.session);

    const before = await quoteError(client.quotes([A.sbin]));
    current.session = { accessToken: ANGEL_CREDS.jwt };
    const after = await client.quotes([A.sbin]);
    await adapter.close();
    const closed = await quoteError(client.quotes([A.sbin]));

    expect(before.code).toBe('no_token');
    expect(after.get('NSE:SBIN')?.ltp).toBe(812.5);
    expect(client.broker).toBe('angel');
    expect(closed.code).toBe('closed');
  });
});

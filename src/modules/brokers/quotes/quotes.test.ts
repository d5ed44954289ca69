import { beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../../platform/clock.js';
import { quoteKey } from '../../sandbox/core/types.js';
import type { KiteQuoteStub, UpstoxQuoteStub } from '../../../../test/helpers/broker-quote-stubs.js';
import { kiteQuote, upstoxQuote } from '../../../../test/helpers/broker-quote-stubs.js';

import {
  KITE_DOC_INFY,
  UPSTOX_DOC_NHPC,
  closeAfterEach,
  fill,
  kiteKeysAsked,
  loadQuoteInstruments,
  setup,
  upstoxKeysAsked,
  type KiteSet,
  type UpstoxSet,
} from '../../../../test/helpers/broker-quote-fixtures.js';

let K: KiteSet;
let U: UpstoxSet;
beforeAll(async () => {
  ({ K, U } = await loadQuoteInstruments());
});
closeAfterEach();

// ---- Kite Connect --------------------------------------------------------------------------------

describe('Kite quotes: GET /quote with i=EXCHANGE:TRADINGSYMBOL, answers mapped back to algodesk symbols', () => {
  it('asks with the documented headers and the broker symbols, and keys answers by EXCHANGE:SYMBOL', async () => {
    const { stub, client } = await setup('zerodha');
    const list = [K.sbin, K.nifty, K.ce, K.fut];
    fill(stub, list);

    const quotes = await client.quotes(list);

    expect(stub.requests).toHaveLength(1);
    const req = stub.requests[0]!;
    expect(req).toMatchObject({ method: 'GET', path: '/quote', authOk: true });
    expect(req.headers['x-kite-version']).toBe('3');
    expect(req.headers.authorization).toBeUndefined(); // the stub keeps no credential
    expect(kiteKeysAsked(stub)).toEqual([
      ['NSE:SBIN', 'NSE:NIFTY 50', 'NFO:NIFTY2681826000CE', 'NFO:BANKNIFTY26AUGFUT'],
    ]);
    expect([...quotes.keys()]).toEqual([
      quoteKey('NSE', 'SBIN'),
      quoteKey('NSE_INDEX', 'NIFTY'),
      quoteKey('NFO', 'NIFTY18AUG2626000CE'),
      quoteKey('NFO', 'BANKNIFTY25AUG26FUT'),
    ]);
    expect(quotes.get('NSE_INDEX:NIFTY')?.ltp).toBe(101);
  });

  it("reads Kite's documented example: ltp, best bid/ask, day high/low, IST timestamp to epoch ms", async () => {
    const { stub, client } = await setup('zerodha');
    (stub as KiteQuoteStub).quotes.set('NSE:INFY', KITE_DOC_INFY);

    const quotes = await client.quotes([K.infy]);

    expect(quotes.get('NSE:INFY')).toEqual({
      ltp: 1412.95,
      bid: 0, // the buy side is five rows of zeros
      ask: 1412.95,
      high: 1421.75,
      low: 1395.55,
      timestamp: Date.UTC(2021, 5, 8, 10, 15, 56), // 15:45:56 IST
    });
  });

  it('gives bid and ask 0 for an empty book: zero-padded, empty or missing depth', async () => {
    const { stub, client } = await setup('zerodha');
    const table = (stub as KiteQuoteStub).quotes;
    fill(stub, [K.sbin]);
    table.set('NSE:INFY', { ...KITE_DOC_INFY, depth: { buy: [], sell: [] } });
    const { depth: _none, ...index } = kiteQuote({ instrumentToken: 256265, lastPrice: 24850.15 });
    table.set('NSE:NIFTY 50', index);

    const quotes = await client.quotes([K.sbin, K.infy, K.nifty]);

    for (const key of ['NSE:SBIN', 'NSE:INFY', 'NSE_INDEX:NIFTY'])
      expect(quotes.get(key)).toMatchObject({ bid: 0, ask: 0 });
  });

  it('leaves out instruments Kite does not answer, and asks once for one listed twice', async () => {
    const { stub, client } = await setup('zerodha');
    fill(stub, [K.sbin]);

    const quotes = await client.quotes([K.sbin, K.ce, { ...K.sbin }]);

    expect(kiteKeysAsked(stub)).toEqual([['NSE:SBIN', 'NFO:NIFTY2681826000CE']]);
    expect([...quotes.keys()]).toEqual(['NSE:SBIN']);
  });

  it('uses the receive time when the timestamp is absent, null or the 1970 placeholder', async () => {
    const clock = new FakeClock(Date.UTC(2026, 7, 18, 5, 0, 0));
    const { stub, client } = await setup('zerodha', { clock });
    const table = (stub as KiteQuoteStub).quotes;
    table.set('NSE:SBIN', kiteQuote({ instrumentToken: 779521, lastPrice: 1, timestamp: null }));
    const { timestamp: _t, ...noTimestamp } = KITE_DOC_INFY;
    table.set('NSE:INFY', noTimestamp);
    table.set(
      'NSE:NIFTY 50',
      kiteQuote({ instrumentToken: 256265, lastPrice: 1, timestamp: '1970-01-01 05:30:00' }),
    );

    const quotes = await client.quotes([K.sbin, K.infy, K.nifty]);

    expect([...quotes.values()].map((q) => q.timestamp)).toEqual([clock.now(), clock.now(), clock.now()]);
  });

  it('splits 1,201 instruments into 500 + 500 + 201 in order, on one keep-alive connection', async () => {
    const { stub, client } = await setup('zerodha');
    const list = K.nfo.slice(0, 1201);
    fill(stub, list);

    const quotes = await client.quotes(list);

    expect(client.maxBatch).toBe(500);
    expect(kiteKeysAsked(stub).map((k) => k.length)).toEqual([500, 500, 201]);
    expect(kiteKeysAsked(stub).flat()).toEqual(list.map((i) => `${i.brexchange}:${i.brsymbol}`));
    expect(quotes.size).toBe(1201);
    expect(quotes.get(quoteKey(list[1200]!.exchange, list[1200]!.symbol))?.ltp).toBe(1300);
    expect(stub.connections).toBe(1);
  });
});

// ---- Upstox --------------------------------------------------------------------------------------

describe('Upstox quotes: GET /v2/market-quote/quotes by instrument key, answers matched by instrument_token', () => {
  it('asks with the documented headers and comma-separated keys; SEGMENT:SYMBOL answers map back', async () => {
    const { stub, client } = await setup('upstox');
    const list = [U.sbin, U.nifty, U.ce, U.fut];
    fill(stub, list);
    // Upstox keys an index answer by its name (`NSE_INDEX:Nifty 50`), not the master's `NIFTY`.
    (stub as UpstoxQuoteStub).quotes.set(
      'NSE_INDEX|Nifty 50',
      upstoxQuote({ instrumentKey: 'NSE_INDEX|Nifty 50', symbol: 'Nifty 50', lastPrice: 25727.55 }),
    );

    const quotes = await client.quotes(list);

    expect(stub.requests).toHaveLength(1);
    const req = stub.requests[0]!;
    expect(req).toMatchObject({ method: 'GET', path: '/v2/market-quote/quotes', authOk: true });
    expect(req.headers.accept).toBe('application/json');
    expect(req.headers.authorization).toBeUndefined();
    expect(upstoxKeysAsked(stub)).toEqual([
      ['NSE_EQ|INE062A01020', 'NSE_INDEX|Nifty 50', 'NSE_FO|42546', 'NSE_FO|59175'],
    ]);
    expect(Object.fromEntries([...quotes].map(([k, q]) => [k, q.ltp]))).toEqual({
      'NSE:SBIN': 100,
      'NSE_INDEX:NIFTY': 25727.55,
      'NFO:NIFTY10FEB2626000CE': 102,
      'NFO:BANKNIFTY24FEB26FUT': 103,
    });
  });

  it("reads Upstox's documented example, float32 prices and the +05:30 timestamp included", async () => {
    const { stub, client } = await setup('upstox');
    (stub as UpstoxQuoteStub).quotes.set('NSE_EQ|INE848E01016', UPSTOX_DOC_NHPC);

    const quotes = await client.quotes([U.nhpc]);

    expect(quotes.get('NSE:NHPC')).toEqual({
      ltp: 52.05, // sent as 52.04999923706055, the float32 of 52.05
      bid: 52.05,
      ask: 0,
      high: 53.8,
      low: 51.75,
      timestamp: Date.UTC(2023, 9, 18, 23, 51, 51, 99),
    });
  });

  it('gives bid and ask 0 for an empty book and the receive time without a timestamp', async () => {
    const clock = new FakeClock();
    const { stub, client } = await setup('upstox', { clock });
    const q = upstoxQuote({
      instrumentKey: U.nifty.token,
      symbol: 'Nifty 50',
      lastPrice: 25727.55,
      timestamp: null,
    });
    (stub as UpstoxQuoteStub).quotes.set(U.nifty.token, q);

    const quotes = await client.quotes([U.nifty]);

    expect(quotes.get('NSE_INDEX:NIFTY')).toMatchObject({ bid: 0, ask: 0, timestamp: clock.now() });
  });

  it('leaves out unanswered instruments and never sends a token that is not an instrument key', async () => {
    const { stub, client } = await setup('upstox');
    fill(stub, [U.sbin]);

    const quotes = await client.quotes([U.sbin, U.ce, K.infy /* Kite token 408065 */]);

    expect(upstoxKeysAsked(stub)).toEqual([['NSE_EQ|INE062A01020', 'NSE_FO|42546']]);
    expect([...quotes.keys()]).toEqual(['NSE:SBIN']);
  });

  it('splits 501 instruments into 500 + 1 on one keep-alive connection', async () => {
    const { stub, client } = await setup('upstox');
    const list = U.nseFo.slice(0, 501);
    fill(stub, list);

    const quotes = await client.quotes(list);

    expect(upstoxKeysAsked(stub).map((k) => k.length)).toEqual([500, 1]);
    expect(quotes.size).toBe(501);
    expect(stub.connections).toBe(1);
  });
});

// ---- errors --------------------------------------------------------------------------------------

/**
 * `/api/v1` market data (quotes, multiquotes, depth, history) through the real app against a
 * loopback Upstox v2: its documented NHPC quote answered with OpenAlgo's fields (the previous
 * close from `net_change`, `docs/rules/market-data.md#openalgo-shapes`), one broker call per
 * multiquotes, daily candles oldest first, an interval v2 does not serve refused, and a broker 401
 * passed through and a timeout as 504.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UPSTOX_DOC_NHPC } from '../helpers/broker-quote-fixtures.js';
import {
  startUpstoxQuoteStub,
  upstoxError,
  upstoxQuote,
  type UpstoxQuoteStub,
} from '../helpers/broker-quote-stubs.js';
import { SLOWER_THAN_TIMEOUT_MS } from '../helpers/broker-stub.js';
import { UPSTOX_CREDS, startOrdersApp, upstoxContract, type OrdersApp } from '../helpers/orders-app.js';

const SBIN_KEY = 'NSE_EQ|INE062A01020';
const NHPC_KEY = 'NSE_EQ|INE848E01016';

describe('market data through Upstox (v2 on loopback)', () => {
  let stub: UpstoxQuoteStub;
  let o: OrdersApp;

  beforeAll(async () => {
    stub = await startUpstoxQuoteStub(UPSTOX_CREDS.accessToken);
    o = await startOrdersApp('sqlite', {
      broker: 'upstox',
      stubUrl: stub.url,
      contract: upstoxContract([SBIN_KEY, NHPC_KEY]),
      timeoutMs: 300,
    });
  });
  afterAll(async () => {
    await o?.close();
    await stub?.close();
  });

  it('quotes: Upstox’s documented NHPC quote answers OpenAlgo’s fields (previous close from net_change)', async () => {
    stub.quotes.set(NHPC_KEY, UPSTOX_DOC_NHPC);
    const res = await o.api('quotes', { symbol: 'NHPC', exchange: 'NSE' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      status: 'success',
      data: {
        open: 53.4,
        high: 53.8,
        low: 51.75,
        ltp: 52.05,
        ask: 0,
        bid: 52.05,
        prev_close: 53.1,
        volume: 24123697,
        oi: 0,
        upper_circuit: 63.7,
        lower_circuit: 42.5,
      },
    });
    expect(stub.requests.at(-1)?.query.get('instrument_key')).toBe(NHPC_KEY);
  });

  it('depth and multiquotes from Upstox’s documented quote', async () => {
    stub.quotes.set(NHPC_KEY, UPSTOX_DOC_NHPC);
    const book = await o.api('depth', { symbol: 'NHPC', exchange: 'NSE' });
    expect(book.statusCode).toBe(200);
    expect(book.json().data).toMatchObject({
      ltp: 52.05,
      prev_close: 53.1,
      totalbuyqty: 6917,
      totalsellqty: 0,
      bids: [{ price: 52.05, quantity: 6917 }, ...Array(4).fill({ price: 0, quantity: 0 })],
      upper_circuit: 63.7,
      lower_circuit: 42.5,
    });
    const before = stub.requests.length;
    const multi = await o.api('multiquotes', {
      symbols: [
        { symbol: 'NHPC', exchange: 'NSE' },
        { symbol: 'SBIN', exchange: 'NSE' },
      ],
    });
    expect(stub.requests.length - before).toBe(1);
    expect(multi.json().results).toEqual([
      {
        symbol: 'NHPC',
        exchange: 'NSE',
        data: expect.objectContaining({ ltp: 52.05, upper_circuit: 63.7, lower_circuit: 42.5 }),
      },
      { symbol: 'SBIN', exchange: 'NSE', error: 'No quote data' },
    ]);
  });

  it('circuit limits (docs/rules/market-data.md#circuit-limits): passed through; Upstox’s 0 or none is null', async () => {
    stub.quotes.set(
      SBIN_KEY,
      upstoxQuote({
        instrumentKey: SBIN_KEY,
        symbol: 'SBIN',
        lastPrice: 800,
        upperCircuitLimit: 880,
        lowerCircuitLimit: 720,
      }),
    );
    stub.quotes.set(NHPC_KEY, upstoxQuote({ instrumentKey: NHPC_KEY, symbol: 'NHPC', lastPrice: 52 }));
    const band = (data: Record<string, unknown>) => [data.upper_circuit, data.lower_circuit];

    const sbin = await o.api('quotes', { symbol: 'SBIN', exchange: 'NSE' });
    expect(sbin.statusCode).toBe(200);
    expect(band(sbin.json().data)).toEqual([880, 720]);
    const book = await o.api('depth', { symbol: 'SBIN', exchange: 'NSE' });
    expect(band(book.json().data)).toEqual([880, 720]);
    const zero = await o.api('depth', { symbol: 'NHPC', exchange: 'NSE' });
    expect(band(zero.json().data)).toEqual([null, null]);

    stub.quotes.set(
      NHPC_KEY,
      upstoxQuote({
        instrumentKey: NHPC_KEY,
        symbol: 'NHPC',
        lastPrice: 52,
        upperCircuitLimit: null,
        lowerCircuitLimit: null,
      }),
    );
    const multi = await o.api('multiquotes', {
      symbols: [
        { symbol: 'SBIN', exchange: 'NSE' },
        { symbol: 'NHPC', exchange: 'NSE' },
      ],
    });
    const [a, b] = multi.json().results as { data: Record<string, unknown> }[];
    expect(band(a!.data)).toEqual([880, 720]);
    expect(band(b!.data)).toEqual([null, null]);
  });

  it('history: daily candles from /v2/historical-candle, reordered oldest first', async () => {
    stub.candles.set(`${SBIN_KEY}/day`, [
      ['2025-04-02T00:00:00+05:30', 771, 780, 768, 776.5, 1200000, 0],
      ['2025-04-01T00:00:00+05:30', 766.5, 774, 763.2, 772.5, 900000, 0],
    ]);
    const res = await o.api('history', {
      symbol: 'SBIN',
      exchange: 'NSE',
      interval: 'D',
      start_date: '2025-04-01',
      end_date: '2025-04-08',
    });
    expect(res.statusCode).toBe(200);
    const { data } = res.json();
    expect(data.map((c: { timestamp: number }) => c.timestamp)).toEqual([
      Date.parse('2025-04-01T00:00:00+05:30') / 1000,
      Date.parse('2025-04-02T00:00:00+05:30') / 1000,
    ]);
    expect(data[1]).toEqual(expect.objectContaining({ open: 771, close: 776.5, volume: 1200000 }));
    expect(decodeURIComponent(stub.requests.at(-1)!.path)).toBe(
      `/v2/historical-candle/${SBIN_KEY}/day/2025-04-08/2025-04-01`,
    );
  });

  it('history: an interval Upstox v2 does not serve is 400 naming the ones it does', async () => {
    const res = await o.api('history', {
      symbol: 'SBIN',
      exchange: 'NSE',
      interval: '5m',
      start_date: '2025-04-01',
      end_date: '2025-04-08',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toMatch(/1m, 30m, D, W, M/);
  });

  it('a 401 from Upstox passes through; a timeout is 504', async () => {
    stub.failNext(401, upstoxError('UDAPI100050', 'Invalid token used to access API'));
    const refused = await o.api('quotes', { symbol: 'NHPC', exchange: 'NSE' });
    expect(refused.statusCode).toBe(401);
    expect(refused.json().message).toMatch(/Invalid token/);
    expect(refused.body).not.toContain(UPSTOX_CREDS.accessToken);

    stub.delayNext(SLOWER_THAN_TIMEOUT_MS);
    const slow = await o.api('depth', { symbol: 'NHPC', exchange: 'NSE' });
    expect(slow.statusCode).toBe(504);
  });
});

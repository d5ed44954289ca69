/**
 * `/api/v1` market data (OpenAlgo's Data API: quotes, multiquotes, depth, history) through the
 * real app against a loopback Kite Connect v3: OpenAlgo's documented example requests answered
 * with its documented fields and types (`docs/rules/market-data.md#openalgo-shapes`), one broker
 * call per multiquotes (`docs/rules/market-data.md#one-batched-call`), and history ranges longer
 * than Kite serves asked for in consecutive windows.
 */
import { describe, expect, it } from 'vitest';
import { KITE_DOC_INFY } from '../helpers/broker-quote-fixtures.js';
import { depth, kiteQuote } from '../helpers/broker-quote-stubs.js';
import {
  DOC_DEPTH,
  FIFTY,
  kiteDocSbin,
  SBIN_TOKEN,
  useKiteMarketData,
} from '../helpers/market-data-world.js';

/** OpenAlgo's documented quote keys, in its order; the circuit limits (ours) come after them. */
const QUOTE_KEYS = ['open', 'high', 'low', 'ltp', 'ask', 'bid', 'prev_close', 'volume', 'oi'];

/** Each documented quote field is a number, in OpenAlgo's order; the circuits last, number or null. */
function expectQuoteShape(data: Record<string, unknown>): void {
  expect(Object.keys(data)).toEqual([...QUOTE_KEYS, 'upper_circuit', 'lower_circuit']);
  for (const f of QUOTE_KEYS) expect(typeof data[f], f).toBe('number');
  for (const f of ['upper_circuit', 'lower_circuit'])
    expect(data[f] === null || typeof data[f] === 'number', f).toBe(true);
}

describe('market data through Zerodha (Kite Connect v3 on loopback)', () => {
  const k = useKiteMarketData();

  it('quotes: the documented request answers the documented fields from Kite’s documented INFY quote', async () => {
    k.stub.quotes.set('NSE:INFY', KITE_DOC_INFY);
    const res = await k.o.api('quotes', { symbol: 'INFY', exchange: 'NSE' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toEqual({
      status: 'success',
      data: {
        open: 1396,
        high: 1421.75,
        low: 1395.55,
        ltp: 1412.95,
        ask: 1412.95,
        bid: 0,
        prev_close: 1389.65,
        volume: 7360198,
        oi: 0,
        upper_circuit: 1528.6,
        lower_circuit: 1250.7,
      },
    });
    expectQuoteShape(body.data);
    expect(k.stub.requests.at(-1)?.query.getAll('i')).toEqual(['NSE:INFY']);
    expect(k.stub.requests.at(-1)?.authOk).toBe(true);
  });

  it('depth: OpenAlgo’s documented depth example, five levels a side', async () => {
    k.stub.quotes.set('NSE:SBIN', kiteDocSbin());
    const res = await k.o.api('depth', { symbol: 'SBIN', exchange: 'NSE' });
    expect(res.statusCode).toBe(200);
    // Kite's 0 band (kiteQuote's default) is unknown: null.
    expect(res.json()).toEqual({
      status: 'success',
      data: { ...DOC_DEPTH, upper_circuit: null, lower_circuit: null },
    });
    // OpenAlgo's documented keys keep their order; the circuit limits come last.
    expect(Object.keys(res.json().data)).toEqual([
      ...Object.keys(DOC_DEPTH),
      'upper_circuit',
      'lower_circuit',
    ]);
  });

  it('depth: an empty side is five zero rows, as OpenAlgo pads it', async () => {
    k.stub.quotes.set('NSE:INFY', KITE_DOC_INFY);
    const res = await k.o.api('depth', { symbol: 'INFY', exchange: 'NSE' });
    const data = res.json().data;
    expect(data.bids).toEqual(depth([]).map(() => ({ price: 0, quantity: 0 })));
    expect(data.asks[0]).toEqual({ price: 1412.95, quantity: 5191 });
    expect(data).toMatchObject({
      totalbuyqty: 0,
      totalsellqty: 5191,
      ltq: 5,
      prev_close: 1389.65,
      upper_circuit: 1528.6,
      lower_circuit: 1250.7,
    });
  });

  it('multiquotes: 50 symbols are ONE broker call; results in the order asked, unknown ones with an error', async () => {
    const symbols = ['SBIN', 'INFY', ...FIFTY];
    expect(symbols).toHaveLength(50);
    symbols.forEach((s, n) =>
      k.stub.quotes.set(
        `NSE:${s}`,
        kiteQuote({ instrumentToken: 1000 + n, lastPrice: 100 + n, bids: [[99 + n, 10]] }),
      ),
    );
    const before = k.stub.requests.length;
    const res = await k.o.api('multiquotes', {
      symbols: [
        ...symbols.map((symbol) => ({ symbol, exchange: 'NSE' })),
        { symbol: 'NOSUCH', exchange: 'NSE' },
      ],
    });
    expect(res.statusCode).toBe(200);
    expect(k.stub.requests.length - before).toBe(1);
    expect(k.stub.requests.at(-1)?.query.getAll('i')).toHaveLength(50);
    const { status, results } = res.json();
    expect(status).toBe('success');
    expect(results).toHaveLength(51);
    results
      .slice(0, 50)
      .forEach((r: { symbol: string; exchange: string; data: Record<string, unknown> }, n: number) => {
        expect(r.symbol).toBe(symbols[n]);
        expect(r.exchange).toBe('NSE');
        expect(r.data).toMatchObject({ ltp: 100 + n, bid: 99 + n, ask: 0 });
        expectQuoteShape(r.data);
      });
    expect(results[50]).toEqual({ symbol: 'NOSUCH', exchange: 'NSE', error: expect.any(String) });
  });

  it('history: OpenAlgo’s documented 5m request answers epoch-second candles, oldest first', async () => {
    k.stub.candles.set(`${SBIN_TOKEN}/5minute`, [
      ['2025-04-01T09:20:00+0530', 772.45, 774.95, 772.1, 773.2, 197189, 0],
      ['2025-04-01T09:15:00+0530', 766.5, 774, 763.2, 772.5, 318625, 0],
      ['2025-04-09T09:15:00+0530', 700, 701, 699, 700.5, 1, 0],
    ]);
    const res = await k.o.api('history', {
      symbol: 'SBIN',
      exchange: 'NSE',
      interval: '5m',
      start_date: '2025-04-01',
      end_date: '2025-04-08',
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      status: 'success',
      data: [
        {
          timestamp: Date.parse('2025-04-01T09:15:00+05:30') / 1000,
          open: 766.5,
          high: 774,
          low: 763.2,
          close: 772.5,
          volume: 318625,
          oi: 0,
        },
        {
          timestamp: Date.parse('2025-04-01T09:20:00+05:30') / 1000,
          open: 772.45,
          high: 774.95,
          low: 772.1,
          close: 773.2,
          volume: 197189,
          oi: 0,
        },
      ],
    });
    const req = k.stub.requests.at(-1)!;
    expect(req.path).toBe(`/instruments/historical/${SBIN_TOKEN}/5minute`);
    expect(req.query.get('from')).toBe('2025-04-01 00:00:00');
    expect(req.query.get('to')).toBe('2025-04-08 23:59:59');
    expect(req.query.get('oi')).toBe('1');
  });

  it('history: a range longer than Kite serves per request goes in consecutive windows, joined', async () => {
    k.stub.candles.set(`${SBIN_TOKEN}/minute`, [
      ['2025-01-02T09:15:00+0530', 760, 761, 759, 760.5, 100, 0],
      ['2025-03-05T09:15:00+0530', 770, 771, 769, 770.5, 200, 0],
    ]);
    k.stub.reset();
    const res = await k.o.api('history', {
      symbol: 'SBIN',
      exchange: 'NSE',
      interval: '1m',
      start_date: '2025-01-01',
      end_date: '2025-04-15',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.map((c: { close: number }) => c.close)).toEqual([760.5, 770.5]);
    // 105 days of minutes: Kite takes at most 60 a request.
    const windows = k.stub.requests
      .filter((r) => r.path === `/instruments/historical/${SBIN_TOKEN}/minute`)
      .map((r) => [r.query.get('from'), r.query.get('to')]);
    expect(windows).toEqual([
      ['2025-01-01 00:00:00', '2025-03-01 23:59:59'],
      ['2025-03-02 00:00:00', '2025-04-15 23:59:59'],
    ]);
    k.stub.reset();
    const tooLong = await k.o.api('history', {
      symbol: 'SBIN',
      exchange: 'NSE',
      interval: '1m',
      start_date: '2015-01-01',
      end_date: '2025-04-15',
    });
    expect(tooLong.statusCode).toBe(400);
    expect(tooLong.json().message).toBe(
      'Zerodha quotes: at most 1500 days of 1m candles per request (Kite serves 60 a call)',
    );
    expect(k.stub.requests).toHaveLength(0);
  });
});

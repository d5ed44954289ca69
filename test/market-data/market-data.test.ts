/**
 * `/api/v1` market data (OpenAlgo's Data API: quotes, multiquotes, depth, history) through the
 * real app against loopback Kite Connect v3 and Upstox v2 stubs: OpenAlgo's documented example
 * requests answered with its documented fields and types, one broker call per multiquotes, the
 * broker's status passed through, a timeout as 504, the sandbox's prices in analyzer mode without
 * a broker session, and refusals of bad input.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  depth,
  kiteError,
  kiteQuote,
  startKiteQuoteStub,
  startUpstoxQuoteStub,
  upstoxError,
  type KiteQuoteStub,
  type UpstoxQuoteStub,
} from '../helpers/broker-quote-stubs.js';
import { KITE_DOC_INFY, UPSTOX_DOC_NHPC } from '../helpers/broker-quote-fixtures.js';
import { marketFixture } from '../helpers/market-fixtures.js';
import {
  KITE_CREDS,
  UPSTOX_CREDS,
  freshIp,
  kiteContract,
  startOrdersApp,
  upstoxContract,
  type OrdersApp,
} from '../helpers/orders-app.js';

/** The first 50 NSE equities of the real Kite snapshot (tradingsymbols). */
const FIFTY = readFileSync(marketFixture('zerodha', 'kite_instruments_NSE_2025-10-06.csv'), 'utf8')
  .split('\n')
  .slice(1)
  .map((l) => l.split(','))
  .filter((f) => f[9] === 'EQ' && f[10] === 'NSE' && /^[A-Z]+$/.test(f[2] ?? ''))
  .map((f) => f[2]!)
  .filter((s, n, all) => all.indexOf(s) === n && s !== 'SBIN' && s !== 'INFY')
  .slice(0, 48);
const SBIN_TOKEN = '779521';
const SBIN_KEY = 'NSE_EQ|INE062A01020';
const NHPC_KEY = 'NSE_EQ|INE848E01016';

/** OpenAlgo's documented depth example (depth page), as Kite's full quote of SBIN. */
const DOC_DEPTH = {
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
const kiteDocSbin = () => ({
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

/** Each documented quote field is a number. */
function expectQuoteShape(data: Record<string, unknown>): void {
  for (const f of ['open', 'high', 'low', 'ltp', 'ask', 'bid', 'prev_close', 'volume', 'oi'])
    expect(typeof data[f], f).toBe('number');
}

describe('market data through Zerodha (Kite Connect v3 on loopback)', () => {
  let stub: KiteQuoteStub;
  let o: OrdersApp;

  beforeAll(async () => {
    stub = await startKiteQuoteStub({ apiKey: KITE_CREDS.apiKey, accessToken: KITE_CREDS.accessToken });
    o = await startOrdersApp('sqlite', {
      broker: 'zerodha',
      stubUrl: stub.url,
      contract: kiteContract(['SBIN', 'INFY', ...FIFTY]),
      timeoutMs: 300,
    });
  });
  afterAll(async () => {
    await o?.close();
    await stub?.close();
  });

  it('quotes: the documented request answers the documented fields from Kite’s documented INFY quote', async () => {
    stub.quotes.set('NSE:INFY', KITE_DOC_INFY);
    const res = await o.api('quotes', { symbol: 'INFY', exchange: 'NSE' });
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
      },
    });
    expectQuoteShape(body.data);
    expect(stub.requests.at(-1)?.query.getAll('i')).toEqual(['NSE:INFY']);
    expect(stub.requests.at(-1)?.authOk).toBe(true);
  });

  it('depth: OpenAlgo’s documented depth example, five levels a side', async () => {
    stub.quotes.set('NSE:SBIN', kiteDocSbin());
    const res = await o.api('depth', { symbol: 'SBIN', exchange: 'NSE' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'success', data: DOC_DEPTH });
  });

  it('depth: an empty side is five zero rows, as OpenAlgo pads it', async () => {
    stub.quotes.set('NSE:INFY', KITE_DOC_INFY);
    const res = await o.api('depth', { symbol: 'INFY', exchange: 'NSE' });
    const data = res.json().data;
    expect(data.bids).toEqual(depth([]).map(() => ({ price: 0, quantity: 0 })));
    expect(data.asks[0]).toEqual({ price: 1412.95, quantity: 5191 });
    expect(data).toMatchObject({ totalbuyqty: 0, totalsellqty: 5191, ltq: 5, prev_close: 1389.65 });
  });

  it('multiquotes: 50 symbols are ONE broker call; results in the order asked, unknown ones with an error', async () => {
    const symbols = ['SBIN', 'INFY', ...FIFTY];
    expect(symbols).toHaveLength(50);
    symbols.forEach((s, n) =>
      stub.quotes.set(
        `NSE:${s}`,
        kiteQuote({ instrumentToken: 1000 + n, lastPrice: 100 + n, bids: [[99 + n, 10]] }),
      ),
    );
    const before = stub.requests.length;
    const res = await o.api('multiquotes', {
      symbols: [
        ...symbols.map((symbol) => ({ symbol, exchange: 'NSE' })),
        { symbol: 'NOSUCH', exchange: 'NSE' },
      ],
    });
    expect(res.statusCode).toBe(200);
    expect(stub.requests.length - before).toBe(1);
    expect(stub.requests.at(-1)?.query.getAll('i')).toHaveLength(50);
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
    stub.candles.set(`${SBIN_TOKEN}/5minute`, [
      ['2025-04-01T09:20:00+0530', 772.45, 774.95, 772.1, 773.2, 197189, 0],
      ['2025-04-01T09:15:00+0530', 766.5, 774, 763.2, 772.5, 318625, 0],
      ['2025-04-09T09:15:00+0530', 700, 701, 699, 700.5, 1, 0],
    ]);
    const res = await o.api('history', {
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
    const req = stub.requests.at(-1)!;
    expect(req.path).toBe(`/instruments/historical/${SBIN_TOKEN}/5minute`);
    expect(req.query.get('from')).toBe('2025-04-01 00:00:00');
    expect(req.query.get('to')).toBe('2025-04-08 23:59:59');
    expect(req.query.get('oi')).toBe('1');
  });

  it('history: a range longer than Kite serves per request goes in consecutive windows, joined', async () => {
    stub.candles.set(`${SBIN_TOKEN}/minute`, [
      ['2025-01-02T09:15:00+0530', 760, 761, 759, 760.5, 100, 0],
      ['2025-03-05T09:15:00+0530', 770, 771, 769, 770.5, 200, 0],
    ]);
    stub.reset();
    const res = await o.api('history', {
      symbol: 'SBIN',
      exchange: 'NSE',
      interval: '1m',
      start_date: '2025-01-01',
      end_date: '2025-04-15',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.map((c: { close: number }) => c.close)).toEqual([760.5, 770.5]);
    // 105 days of minutes: Kite takes at most 60 a request.
    const windows = stub.requests
      .filter((r) => r.path === `/instruments/historical/${SBIN_TOKEN}/minute`)
      .map((r) => [r.query.get('from'), r.query.get('to')]);
    expect(windows).toEqual([
      ['2025-01-01 00:00:00', '2025-03-01 23:59:59'],
      ['2025-03-02 00:00:00', '2025-04-15 23:59:59'],
    ]);
    stub.reset();
    const tooLong = await o.api('history', {
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
    expect(stub.requests).toHaveLength(0);
  });

  describe('ticker: GET /api/v1/ticker/EXCHANGE:SYMBOL with the key in the query', () => {
    const ticker = (path: string, query: Record<string, string>) =>
      o.t.app.inject({
        method: 'GET',
        url: `/api/v1/ticker/${path}?${new URLSearchParams(query).toString()}`,
        remoteAddress: freshIp(),
      });
    beforeAll(() => {
      stub.candles.set(`${SBIN_TOKEN}/day`, [
        ['2025-04-01T00:00:00+0530', 766.5, 774, 763.2, 772.5, 318625, 0],
        ['2025-04-02T00:00:00+0530', 772.5, 780, 770, 779.9, 200000, 0],
      ]);
      stub.candles.set(`${SBIN_TOKEN}/5minute`, [
        ['2025-04-01T09:15:00+0530', 766.5, 774, 763.2, 772.5, 318625, 0],
      ]);
    });

    it('JSON: daily candles by default, OpenAlgo’s fields (no oi)', async () => {
      const res = await ticker('NSE:SBIN', { apikey: o.apikey, from: '2025-04-01', to: '2025-04-02' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        status: 'success',
        data: [
          {
            timestamp: Date.parse('2025-04-01T00:00:00+05:30') / 1000,
            open: 766.5,
            high: 774,
            low: 763.2,
            close: 772.5,
            volume: 318625,
          },
          {
            timestamp: Date.parse('2025-04-02T00:00:00+05:30') / 1000,
            open: 772.5,
            high: 780,
            low: 770,
            close: 779.9,
            volume: 200000,
          },
        ],
      });
      expect(stub.requests.at(-1)!.path).toBe(`/instruments/historical/${SBIN_TOKEN}/day`);
    });

    it('txt: one row per candle, the IST time only intraday', async () => {
      const daily = await ticker('NSE:SBIN', {
        apikey: o.apikey,
        from: '2025-04-01',
        to: '2025-04-02',
        format: 'txt',
      });
      expect(daily.headers['content-type']).toMatch(/^text\/plain/);
      expect(daily.body).toBe(
        'SBIN,2025-04-01,766.5,774,763.2,772.5,318625\nSBIN,2025-04-02,772.5,780,770,779.9,200000\n',
      );
      const intraday = await ticker('NSE:SBIN', {
        apikey: o.apikey,
        interval: '5m',
        from: '2025-04-01',
        to: '2025-04-01',
        format: 'txt',
      });
      expect(intraday.body).toBe('SBIN,2025-04-01,09:15:00,766.5,774,763.2,772.5,318625\n');
    });

    it('a path without one colon is 400, a wrong key 403, a missing date 400; nothing is asked', async () => {
      const before = stub.requests.length;
      expect(
        (await ticker('SBIN', { apikey: o.apikey, from: '2025-04-01', to: '2025-04-02' })).statusCode,
      ).toBe(400);
      expect(
        (await ticker('NSE:SBIN', { apikey: 'nope', from: '2025-04-01', to: '2025-04-02' })).statusCode,
      ).toBe(403);
      expect((await ticker('NSE:SBIN', { apikey: o.apikey, from: '2025-04-01' })).statusCode).toBe(400);
      expect(stub.requests.length).toBe(before);
    });
  });

  describe('broker failures', () => {
    it.each([
      [429, 'NetworkException', 'Too many requests'],
      [403, 'TokenException', 'Incorrect `api_key` or `access_token`.'],
      [500, 'GeneralException', 'Something went wrong'],
    ])('broker HTTP %i passes through with the broker’s message', async (status, type, message) => {
      stub.failNext(status, kiteError(message, type));
      const res = await o.api('quotes', { symbol: 'SBIN', exchange: 'NSE' });
      expect(res.statusCode).toBe(status);
      expect(res.json()).toMatchObject({ status: 'error', message: expect.stringContaining(message) });
      expect(res.body).not.toContain(KITE_CREDS.accessToken);
      expect(res.body).not.toContain(KITE_CREDS.apiKey);
    });

    it('a broker slower than BROKER_TIMEOUT_MS answers 504 with a message', async () => {
      stub.quotes.set('NSE:SBIN', kiteDocSbin());
      stub.delayNext(1_000);
      const res = await o.api('quotes', { symbol: 'SBIN', exchange: 'NSE' });
      expect(res.statusCode).toBe(504);
      expect(res.json()).toMatchObject({ status: 'error', message: expect.stringMatching(/timed out/) });
    });

    it('a broker timeout on history is 504 too', async () => {
      // Every request of this test is slow, whatever else reaches the stub meanwhile (the
      // sandbox's price source polls it too), so the history call is sure to be one of them.
      stub.reset();
      stub.delayNext(1_000, 100);
      const res = await o.api('history', {
        symbol: 'SBIN',
        exchange: 'NSE',
        interval: 'D',
        start_date: '2025-04-01',
        end_date: '2025-04-08',
      });
      expect(res.statusCode).toBe(504);
      stub.reset();
    });
  });

  describe('bad input is refused before the broker is asked', () => {
    it.each([
      ['quotes', { exchange: 'NSE' }, 400],
      ['quotes', { symbol: 'SBIN', exchange: 'nse' }, 400],
      ['quotes', { symbol: 'NOSUCH', exchange: 'NSE' }, 400],
      ['depth', { symbol: 'SBIN' }, 400],
      ['multiquotes', { symbols: [] }, 400],
      ['multiquotes', { symbols: 'SBIN' }, 400],
      [
        'history',
        { symbol: 'SBIN', exchange: 'NSE', interval: '7m', start_date: '2025-04-01', end_date: '2025-04-02' },
        400,
      ],
      [
        'history',
        { symbol: 'SBIN', exchange: 'NSE', interval: 'D', start_date: '01-04-2025', end_date: '2025-04-02' },
        400,
      ],
      [
        'history',
        { symbol: 'SBIN', exchange: 'NSE', interval: 'D', start_date: '2025-04-09', end_date: '2025-04-02' },
        400,
      ],
      [
        'history',
        { symbol: 'SBIN', exchange: 'NSE', interval: 'W', start_date: '2025-04-01', end_date: '2025-04-02' },
        400,
      ],
    ] as const)('%s %j → %i', async (path, body, status) => {
      const before = stub.requests.length;
      const res = await o.api(path, body);
      expect(res.statusCode).toBe(status);
      expect(res.json().status).toBe('error');
      expect(stub.requests.length).toBe(before);
    });

    it('a wrong API key is 403 and nothing is asked', async () => {
      const before = stub.requests.length;
      const res = await o.api('quotes', { symbol: 'SBIN', exchange: 'NSE' }, { apikey: 'not-a-key' });
      expect(res.statusCode).toBe(403);
      expect(stub.requests.length).toBe(before);
    });
  });

  describe('without a broker session', () => {
    it('live mode: every data route answers 403 naming the missing broker session; the broker is not asked', async () => {
      await o.t.services.brokers.sessions.clear(1);
      const before = stub.requests.length;
      for (const [path, body] of [
        ['quotes', { symbol: 'SBIN', exchange: 'NSE' }],
        ['depth', { symbol: 'SBIN', exchange: 'NSE' }],
        ['multiquotes', { symbols: [{ symbol: 'SBIN', exchange: 'NSE' }] }],
        [
          'history',
          {
            symbol: 'SBIN',
            exchange: 'NSE',
            interval: 'D',
            start_date: '2025-04-01',
            end_date: '2025-04-02',
          },
        ],
      ] as const) {
        const res = await o.api(path, body);
        expect(res.statusCode, path).toBe(403);
        expect(res.json().message, path).toMatch(/broker session/);
      }
      expect(stub.requests.length).toBe(before);
    });

    it('analyzer mode: quotes, multiquotes and top-of-book depth come from the sandbox price source; history is refused', async () => {
      await o.setMode(true);
      const now = o.t.clock.now();
      o.feed.push({ 'NSE:SBIN': { ltp: 800, bid: 799.9, ask: 800.1, high: 810, low: 790, timestamp: now } });
      const before = stub.requests.length;

      const quote = await o.api('quotes', { symbol: 'SBIN', exchange: 'NSE' });
      expect(quote.statusCode).toBe(200);
      expect(quote.json()).toEqual({
        status: 'success',
        data: {
          open: 0,
          high: 810,
          low: 790,
          ltp: 800,
          ask: 800.1,
          bid: 799.9,
          prev_close: 0,
          volume: 0,
          oi: 0,
        },
      });

      const multi = await o.api('multiquotes', {
        symbols: [
          { symbol: 'SBIN', exchange: 'NSE' },
          { symbol: 'INFY', exchange: 'NSE' },
        ],
      });
      expect(multi.json().results).toEqual([
        { symbol: 'SBIN', exchange: 'NSE', data: expect.objectContaining({ ltp: 800 }) },
        { symbol: 'INFY', exchange: 'NSE', error: 'No quote data' },
      ]);

      const book = await o.api('depth', { symbol: 'SBIN', exchange: 'NSE' });
      expect(book.statusCode).toBe(200);
      expect(book.json().data.bids[0]).toEqual({ price: 799.9, quantity: 0 });
      expect(book.json().data.asks[0]).toEqual({ price: 800.1, quantity: 0 });
      expect(book.json().data.bids).toHaveLength(5);

      const unpriced = await o.api('quotes', { symbol: 'INFY', exchange: 'NSE' });
      expect(unpriced.statusCode).toBe(404);

      const history = await o.api('history', {
        symbol: 'SBIN',
        exchange: 'NSE',
        interval: 'D',
        start_date: '2025-04-01',
        end_date: '2025-04-02',
      });
      expect(history.statusCode).toBe(403);
      expect(history.json().message).toMatch(/History needs a broker session/);
      expect(stub.requests.length).toBe(before);
      await o.setMode(false);
    });
  });
});

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
      { symbol: 'NHPC', exchange: 'NSE', data: expect.objectContaining({ ltp: 52.05 }) },
      { symbol: 'SBIN', exchange: 'NSE', error: 'No quote data' },
    ]);
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

    stub.delayNext(1_000);
    const slow = await o.api('depth', { symbol: 'NHPC', exchange: 'NSE' });
    expect(slow.statusCode).toBe(504);
  });
});

import { beforeAll, describe, expect, it } from 'vitest';
import { createMarketDataClient } from './create-quote-client.js';
import type { MarketDataClient } from './quote-client.js';
import { parseCandleTime, readCandles } from './quote-fields.js';
import {
  kiteError,
  kiteQuote,
  upstoxError,
  upstoxQuote,
} from '../../../../test/helpers/broker-quote-stubs.js';
import {
  KITE_DOC_INFY,
  UPSTOX_DOC_NHPC,
  closeAfterEach,
  loadQuoteInstruments,
  quoteError,
  setup,
  type KiteSet,
  type UpstoxSet,
} from '../../../../test/helpers/broker-quote-fixtures.js';

let K: KiteSet;
let U: UpstoxSet;
beforeAll(async () => {
  ({ K, U } = await loadQuoteInstruments());
});
closeAfterEach();

const asData = (c: unknown) => c as MarketDataClient;

describe('full quotes: depth, OHLC, volume, OI and the previous close', () => {
  it('Kite’s documented INFY quote: ohlc.close is the previous close; padding rows are dropped', async () => {
    const { stub, client } = await setup('zerodha');
    stub.quotes.set('NSE:INFY', KITE_DOC_INFY);

    const q = (await asData(client).marketQuotes([K.infy])).get('NSE:INFY');

    expect(q).toEqual({
      open: 1396,
      high: 1421.75,
      low: 1395.55,
      ltp: 1412.95,
      prevClose: 1389.65,
      volume: 7360198,
      oi: 0,
      ltq: 5,
      totalBuyQty: 0,
      totalSellQty: 5191,
      bids: [],
      asks: [{ price: 1412.95, quantity: 5191, orders: 13 }],
      timestamp: Date.parse('2021-06-08T15:45:56+05:30'),
      upperCircuit: 1528.6,
      lowerCircuit: 1250.7,
    });
  });

  it('Upstox’s documented NHPC quote: the previous close is last_price − net_change; float32 prices read back', async () => {
    const { stub, client } = await setup('upstox');
    stub.quotes.set(U.nhpc.token, UPSTOX_DOC_NHPC);

    const q = (await asData(client).marketQuotes([U.nhpc])).get('NSE:NHPC');

    expect(q).toMatchObject({
      open: 53.4,
      ltp: 52.05,
      prevClose: 53.1,
      volume: 24123697,
      totalBuyQty: 6917,
      totalSellQty: 0,
      bids: [{ price: 52.05, quantity: 6917, orders: 20 }],
      asks: [],
      upperCircuit: 63.7,
      lowerCircuit: 42.5,
    });
  });
});

describe('circuit limits (docs/rules/market-data.md#circuit-limits)', () => {
  it('Kite: upper_circuit_limit and lower_circuit_limit pass through; 0 or missing is null', async () => {
    const { stub, client } = await setup('zerodha');
    const quote = (i: typeof K.sbin, circuits: Parameters<typeof kiteQuote>[0]) =>
      stub.quotes.set(`${i.brexchange}:${i.brsymbol}`, kiteQuote(circuits));
    quote(K.sbin, {
      instrumentToken: 779521,
      lastPrice: 800,
      upperCircuitLimit: 880,
      lowerCircuitLimit: 720,
    });
    quote(K.infy, { instrumentToken: 408065, lastPrice: 1400 }); // Kite's 0 and 0
    quote(K.nifty, {
      instrumentToken: 256265,
      lastPrice: 26_000,
      upperCircuitLimit: null,
      lowerCircuitLimit: null,
    });
    quote(K.fut, { instrumentToken: 1, lastPrice: 55_000, upperCircuitLimit: 60_500, lowerCircuitLimit: 0 });

    const got = await asData(client).marketQuotes([K.sbin, K.infy, K.nifty, K.fut]);

    const band = (key: string) => {
      const q = got.get(key);
      return [q?.upperCircuit, q?.lowerCircuit];
    };
    expect(band('NSE:SBIN')).toEqual([880, 720]);
    expect(band('NSE:INFY')).toEqual([null, null]);
    expect(band('NSE_INDEX:NIFTY')).toEqual([null, null]);
    expect(band(`NFO:${K.fut.symbol}`)).toEqual([60_500, null]);
  });

  it('Upstox: the circuits pass through (float32 widening read back); 0, missing or not a number is null', async () => {
    const { stub, client } = await setup('upstox');
    const quote = (i: typeof U.sbin, extra: Partial<Parameters<typeof upstoxQuote>[0]> = {}) =>
      stub.quotes.set(
        i.token,
        upstoxQuote({ instrumentKey: i.token, symbol: i.brsymbol, lastPrice: 50, ...extra }),
      );
    // 57.25 and 46.849998474121094 are how Upstox sends float32 57.25 and 46.85.
    quote(U.nhpc, { upperCircuitLimit: 57.25, lowerCircuitLimit: 46.849998474121094 });
    quote(U.sbin); // Upstox's 0 and 0
    quote(U.fut, { upperCircuitLimit: null, lowerCircuitLimit: null });
    stub.quotes.set(U.ce.token, {
      ...upstoxQuote({ instrumentKey: U.ce.token, symbol: U.ce.brsymbol, lastPrice: 120 }),
      upper_circuit_limit: '130',
      lower_circuit_limit: -1,
    });

    const got = await asData(client).marketQuotes([U.nhpc, U.sbin, U.fut, U.ce]);

    const band = (i: typeof U.sbin) => {
      const q = got.get(`${i.exchange}:${i.symbol}`);
      return [q?.upperCircuit, q?.lowerCircuit];
    };
    expect(band(U.nhpc)).toEqual([57.25, 46.85]);
    expect(band(U.sbin)).toEqual([null, null]);
    expect(band(U.fut)).toEqual([null, null]);
    expect(band(U.ce)).toEqual([null, null]);
  });
});

describe('historical candles', () => {
  it('Kite: GET /instruments/historical/{token}/{interval} with from, to and oi=1; rows parsed, oldest first', async () => {
    const { stub, client } = await setup('zerodha');
    stub.candles.set(`${K.sbin.token}/day`, [
      ['2026-08-14T00:00:00+0530', 801, 812.5, 798, 810.25, 1_200_300, 0],
      ['2026-08-13T00:00:00+0530', 795, 803, 790.1, 801, 1_000_000, 0],
    ]);

    const candles = await asData(client).history(K.sbin, 'D', '2026-08-13', '2026-08-14');

    expect(candles).toEqual([
      {
        time: Date.parse('2026-08-13T00:00:00+05:30'),
        open: 795,
        high: 803,
        low: 790.1,
        close: 801,
        volume: 1_000_000,
        oi: 0,
      },
      {
        time: Date.parse('2026-08-14T00:00:00+05:30'),
        open: 801,
        high: 812.5,
        low: 798,
        close: 810.25,
        volume: 1_200_300,
        oi: 0,
      },
    ]);
    const req = stub.requests[0]!;
    expect(req.path).toBe(`/instruments/historical/${K.sbin.token}/day`);
    expect(req.headers['x-kite-version']).toBe('3');
    expect(req.authOk).toBe(true);
    expect([req.query.get('from'), req.query.get('to'), req.query.get('oi')]).toEqual([
      '2026-08-13 00:00:00',
      '2026-08-14 23:59:59',
      '1',
    ]);
  });

  it('Upstox: GET /v2/historical-candle/{key}/{interval}/{to}/{from}', async () => {
    const { stub, client } = await setup('upstox');
    stub.candles.set(`${U.sbin.token}/30minute`, [['2026-02-05T09:15:00+05:30', 1, 2, 0.5, 1.5, 10, 3]]);

    const candles = await asData(client).history(U.sbin, '30m', '2026-02-05', '2026-02-05');

    expect(candles).toEqual([
      {
        time: Date.parse('2026-02-05T09:15:00+05:30'),
        open: 1,
        high: 2,
        low: 0.5,
        close: 1.5,
        volume: 10,
        oi: 3,
      },
    ]);
    expect(decodeURIComponent(stub.requests[0]!.path)).toBe(
      `/v2/historical-candle/${U.sbin.token}/30minute/2026-02-05/2026-02-05`,
    );
  });

  it('an interval the broker does not serve, or a malformed date, is refused before any I/O', async () => {
    const { stub, client } = await setup('upstox');
    expect(await quoteError(asData(client).history(U.sbin, '5m', '2026-02-05', '2026-02-05'))).toMatchObject({
      code: 'bad_request',
      status: undefined,
    });
    expect((await quoteError(asData(client).history(U.sbin, 'D', '2026-02-30', '2026-03-01'))).code).toBe(
      'bad_request',
    );
    expect(stub.connections).toBe(0);
    expect(asData(client).intervals).toEqual(['1m', '30m', 'D', 'W', 'M']);
    const kite = createMarketDataClient('zerodha', { apiKey: 'k', accessToken: 't' });
    expect(kite.intervals).toEqual(['1m', '3m', '5m', '10m', '15m', '30m', '1h', 'D']);
    await kite.close();
  });

  it.each([
    ['zerodha', 400, kiteError('interval exceeds max limit: 60 days', 'InputException'), 'InputException'],
    ['upstox', 401, upstoxError('UDAPI100050', 'Invalid token used to access API'), 'UDAPI100050'],
  ] as const)(
    '%s HTTP %i on history is a QuoteError with the broker’s code',
    async (broker, status, body, code) => {
      const { stub, client } = await setup(broker);
      stub.failNext(status, body);
      const inst = broker === 'zerodha' ? K.sbin : U.sbin;
      expect(await quoteError(asData(client).history(inst, 'D', '2026-01-01', '2026-02-01'))).toMatchObject({
        status,
        code,
      });
    },
  );

  it('candle times with +0530 and +05:30 zones; unusable rows are skipped', () => {
    expect(parseCandleTime('2017-12-15T09:15:00+0530')).toBe(Date.parse('2017-12-15T03:45:00Z'));
    expect(parseCandleTime('2023-10-01T00:00:00+05:30')).toBe(Date.parse('2023-09-30T18:30:00Z'));
    expect(parseCandleTime('yesterday')).toBeUndefined();
    expect(
      readCandles({ candles: [['bad', 1, 2, 3, 4, 5], ['2023-10-01T00:00:00+05:30', 'x', 2, 3, 4], 'row'] }),
    ).toEqual([]);
  });
});

import { beforeAll, describe, expect, it } from 'vitest';
import { createMarketDataClient } from './create-quote-client.js';
import type { MarketDataClient } from './quote-client.js';
import { parseCandleTime, readCandles } from './quote-fields.js';
import { kiteError, upstoxError } from '../../../../test/helpers/broker-quote-stubs.js';
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
    });
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

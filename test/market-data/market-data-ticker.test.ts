/**
 * `GET /api/v1/ticker/EXCHANGE:SYMBOL` (the API key in the query) through the real app against a
 * loopback Kite Connect v3: history's candles without `oi`, daily by default, as JSON or one text
 * row per candle (`docs/rules/market-data.md#openalgo-shapes`); a bad path, key or date is refused
 * and the broker is not asked.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { SBIN_TOKEN, useKiteMarketData } from '../helpers/market-data-world.js';
import { freshIp } from '../helpers/orders-app.js';

describe('market data through Zerodha (Kite Connect v3 on loopback)', () => {
  const k = useKiteMarketData();

  describe('ticker: GET /api/v1/ticker/EXCHANGE:SYMBOL with the key in the query', () => {
    const ticker = (path: string, query: Record<string, string>) =>
      k.o.t.app.inject({
        method: 'GET',
        url: `/api/v1/ticker/${path}?${new URLSearchParams(query).toString()}`,
        remoteAddress: freshIp(),
      });
    beforeAll(() => {
      k.stub.candles.set(`${SBIN_TOKEN}/day`, [
        ['2025-04-01T00:00:00+0530', 766.5, 774, 763.2, 772.5, 318625, 0],
        ['2025-04-02T00:00:00+0530', 772.5, 780, 770, 779.9, 200000, 0],
      ]);
      k.stub.candles.set(`${SBIN_TOKEN}/5minute`, [
        ['2025-04-01T09:15:00+0530', 766.5, 774, 763.2, 772.5, 318625, 0],
      ]);
    });

    it('JSON: daily candles by default, OpenAlgo’s fields (no oi)', async () => {
      const res = await ticker('NSE:SBIN', { apikey: k.o.apikey, from: '2025-04-01', to: '2025-04-02' });
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
      expect(k.stub.requests.at(-1)!.path).toBe(`/instruments/historical/${SBIN_TOKEN}/day`);
    });

    it('txt: one row per candle, the IST time only intraday', async () => {
      const daily = await ticker('NSE:SBIN', {
        apikey: k.o.apikey,
        from: '2025-04-01',
        to: '2025-04-02',
        format: 'txt',
      });
      expect(daily.headers['content-type']).toMatch(/^text\/plain/);
      expect(daily.body).toBe(
        'SBIN,2025-04-01,766.5,774,763.2,772.5,318625\nSBIN,2025-04-02,772.5,780,770,779.9,200000\n',
      );
      const intraday = await ticker('NSE:SBIN', {
        apikey: k.o.apikey,
        interval: '5m',
        from: '2025-04-01',
        to: '2025-04-01',
        format: 'txt',
      });
      expect(intraday.body).toBe('SBIN,2025-04-01,09:15:00,766.5,774,763.2,772.5,318625\n');
    });

    it('a path without one colon is 400, a wrong key 403, a missing date 400; nothing is asked', async () => {
      const before = k.stub.requests.length;
      expect(
        (await ticker('SBIN', { apikey: k.o.apikey, from: '2025-04-01', to: '2025-04-02' })).statusCode,
      ).toBe(400);
      expect(
        (await ticker('NSE:SBIN', { apikey: 'nope', from: '2025-04-01', to: '2025-04-02' })).statusCode,
      ).toBe(403);
      expect((await ticker('NSE:SBIN', { apikey: k.o.apikey, from: '2025-04-01' })).statusCode).toBe(400);
      expect(k.stub.requests.length).toBe(before);
    });
  });
});

/**
 * `/api/v1` market data through the real app without a broker session
 * (`docs/rules/market-data.md#data-source`): in live mode every data route is a 403 naming the
 * missing session and the loopback Kite is not asked; in analyzer mode quotes, multiquotes and
 * top-of-book depth come from the sandbox's price source, and history is refused.
 */
import { describe, expect, it } from 'vitest';
import { useKiteMarketData } from '../helpers/market-data-world.js';

describe('market data through Zerodha (Kite Connect v3 on loopback)', () => {
  const k = useKiteMarketData();

  describe('without a broker session', () => {
    it('live mode: every data route answers 403 naming the missing broker session; the broker is not asked', async () => {
      await k.o.t.services.brokers.sessions.clear(1);
      const before = k.stub.requests.length;
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
        const res = await k.o.api(path, body);
        expect(res.statusCode, path).toBe(403);
        expect(res.json().message, path).toMatch(/broker session/);
      }
      expect(k.stub.requests.length).toBe(before);
    });

    it('analyzer mode: quotes, multiquotes and top-of-book depth come from the sandbox price source; history is refused', async () => {
      await k.o.setMode(true);
      const now = k.o.t.clock.now();
      k.o.feed.push({
        'NSE:SBIN': { ltp: 800, bid: 799.9, ask: 800.1, high: 810, low: 790, timestamp: now },
      });
      const before = k.stub.requests.length;

      const quote = await k.o.api('quotes', { symbol: 'SBIN', exchange: 'NSE' });
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
          upper_circuit: null,
          lower_circuit: null,
        },
      });
      expect(Object.keys(quote.json().data).slice(-2)).toEqual(['upper_circuit', 'lower_circuit']);

      const multi = await k.o.api('multiquotes', {
        symbols: [
          { symbol: 'SBIN', exchange: 'NSE' },
          { symbol: 'INFY', exchange: 'NSE' },
        ],
      });
      expect(multi.json().results).toEqual([
        {
          symbol: 'SBIN',
          exchange: 'NSE',
          data: expect.objectContaining({ ltp: 800, upper_circuit: null, lower_circuit: null }),
        },
        { symbol: 'INFY', exchange: 'NSE', error: 'No quote data' },
      ]);

      const book = await k.o.api('depth', { symbol: 'SBIN', exchange: 'NSE' });
      expect(book.statusCode).toBe(200);
      expect(book.json().data.bids[0]).toEqual({ price: 799.9, quantity: 0 });
      expect(book.json().data.asks[0]).toEqual({ price: 800.1, quantity: 0 });
      expect(book.json().data.bids).toHaveLength(5);
      // The sandbox knows no price band: null, last, as in the broker's answer.
      expect(Object.keys(book.json().data).slice(-2)).toEqual(['upper_circuit', 'lower_circuit']);
      expect(book.json().data).toMatchObject({ upper_circuit: null, lower_circuit: null });

      const unpriced = await k.o.api('quotes', { symbol: 'INFY', exchange: 'NSE' });
      expect(unpriced.statusCode).toBe(404);

      const history = await k.o.api('history', {
        symbol: 'SBIN',
        exchange: 'NSE',
        interval: 'D',
        start_date: '2025-04-01',
        end_date: '2025-04-02',
      });
      expect(history.statusCode).toBe(403);
      expect(history.json().message).toMatch(/History needs a broker session/);
      expect(k.stub.requests.length).toBe(before);
      await k.o.setMode(false);
    });
  });
});

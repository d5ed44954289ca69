/**
 * `/api/v1` market data through the real app when things go wrong on a loopback Kite Connect v3:
 * the broker's HTTP status passed through with its message and no credential, a timeout as 504
 * (`docs/rules/market-data.md#broker-failures`), and bad input or a wrong API key refused before
 * the broker is asked.
 */
import { describe, expect, it } from 'vitest';
import { kiteError } from '../helpers/broker-quote-stubs.js';
import { SLOWER_THAN_TIMEOUT_MS } from '../helpers/broker-stub.js';
import { kiteDocSbin, useKiteMarketData } from '../helpers/market-data-world.js';
import { KITE_CREDS } from '../helpers/orders-app.js';

describe('market data through Zerodha (Kite Connect v3 on loopback)', () => {
  const k = useKiteMarketData();

  describe('broker failures', () => {
    it.each([
      [429, 'NetworkException', 'Too many requests'],
      [403, 'TokenException', 'Incorrect `api_key` or `access_token`.'],
      [500, 'GeneralException', 'Something went wrong'],
    ])('broker HTTP %i passes through with the broker’s message', async (status, type, message) => {
      k.stub.failNext(status, kiteError(message, type));
      const res = await k.o.api('quotes', { symbol: 'SBIN', exchange: 'NSE' });
      expect(res.statusCode).toBe(status);
      expect(res.json()).toMatchObject({ status: 'error', message: expect.stringContaining(message) });
      expect(res.body).not.toContain(KITE_CREDS.accessToken);
      expect(res.body).not.toContain(KITE_CREDS.apiKey);
    });

    it('a broker slower than BROKER_TIMEOUT_MS answers 504 with a message', async () => {
      k.stub.quotes.set('NSE:SBIN', kiteDocSbin());
      k.stub.delayNext(SLOWER_THAN_TIMEOUT_MS);
      const res = await k.o.api('quotes', { symbol: 'SBIN', exchange: 'NSE' });
      expect(res.statusCode).toBe(504);
      expect(res.json()).toMatchObject({ status: 'error', message: expect.stringMatching(/timed out/) });
    });

    it('a broker timeout on history is 504 too', async () => {
      // Every request of this test is slow, whatever else reaches the stub meanwhile (the
      // sandbox's price source polls it too), so the history call is sure to be one of them.
      k.stub.reset();
      k.stub.delayNext(SLOWER_THAN_TIMEOUT_MS, 100);
      const res = await k.o.api('history', {
        symbol: 'SBIN',
        exchange: 'NSE',
        interval: 'D',
        start_date: '2025-04-01',
        end_date: '2025-04-08',
      });
      expect(res.statusCode).toBe(504);
      k.stub.reset();
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
      const before = k.stub.requests.length;
      const res = await k.o.api(path, body);
      expect(res.statusCode).toBe(status);
      expect(res.json().status).toBe('error');
      expect(k.stub.requests.length).toBe(before);
    });

    it('a wrong API key is 403 and nothing is asked', async () => {
      const before = k.stub.requests.length;
      const res = await k.o.api('quotes', { symbol: 'SBIN', exchange: 'NSE' }, { apikey: 'not-a-key' });
      expect(res.statusCode).toBe(403);
      expect(k.stub.requests.length).toBe(before);
    });
  });
});

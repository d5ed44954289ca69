import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { istInstant } from '../../src/modules/market/timings.service.js';
import { ScriptedFeed } from '../../src/modules/sandbox/prices/price-source.js';
import { importContract, kiteCombined } from '../helpers/contracts.js';
import { createTestApp, createUser, describeEachDb, type TestApp } from '../helpers/test-app.js';

type Json = Record<string, unknown>;

/**
 * OpenAlgo's market utilities over the Kite fixtures (NSE cash 579 + NFO/BFO 4,195 real rows):
 * each documented example request gets the documented fields and types; bad input is a 4xx that
 * says what is wrong.
 */
describeEachDb('market utilities on /api/v1', (dialect) => {
  let t: TestApp;
  let apikey: string;
  const feed = new ScriptedFeed();

  beforeAll(async () => {
    t = await createTestApp(dialect, { env: { API_RATE_LIMIT: '100000 per second' } });
    const user = await createUser(t);
    apikey = (await t.services.auth.apiKeys.regenerate(user.id)).apikey;
    await importContract(t, 'zerodha', kiteCombined());
    await t.services.sandbox.usePriceSource(feed);
  }, 120_000);
  afterAll(() => t?.close());

  const post = async (path: string, body: Json) => {
    const res = await t.app.inject({ method: 'POST', url: `/api/v1/${path}`, payload: { apikey, ...body } });
    return { status: res.statusCode, body: res.json() as Json };
  };
  const liveRows = async (exchange?: string) => {
    const db = t.db.database.db;
    const gen = await db
      .selectFrom('contract_imports')
      .select((eb) => eb.fn.max('id').as('id'))
      .where('status', '=', 'success')
      .executeTakeFirstOrThrow();
    let q = db.selectFrom('instruments').where('generation', '=', Number(gen.id));
    if (exchange) q = q.where('exchange', '=', exchange);
    return Number((await q.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  };

  describe('symbol', () => {
    it("answers the documented futures example with OpenAlgo's fields and types", async () => {
      const { status, body } = await post('symbol', { symbol: 'NIFTY25AUG26FUT', exchange: 'NFO' });
      expect(status).toBe(200);
      const data = body.data as Json;
      expect(Object.keys(data).sort()).toEqual(
        [
          'brexchange',
          'brsymbol',
          'exchange',
          'expiry',
          'freeze_qty',
          'id',
          'instrumenttype',
          'lotsize',
          'name',
          'strike',
          'symbol',
          'tick_size',
          'token',
        ].sort(),
      );
      expect(data).toMatchObject({
        symbol: 'NIFTY25AUG26FUT',
        exchange: 'NFO',
        expiry: '25-AUG-26',
        instrumenttype: 'FUT',
        lotsize: 65,
        name: 'NIFTY',
        strike: 0,
      });
      expect(typeof data.id).toBe('number');
      expect(typeof data.token).toBe('string');
      expect(typeof data.tick_size).toBe('number');
    });

    it('answers an equity with an empty expiry and lot size 1', async () => {
      const { status, body } = await post('symbol', { symbol: 'RELIANCE', exchange: 'NSE' });
      expect(status).toBe(200);
      expect(body.data).toMatchObject({ symbol: 'RELIANCE', exchange: 'NSE', expiry: '', lotsize: 1 });
    });

    it('refuses unknown symbols, unknown exchanges, hostile and oversized strings with a message', async () => {
      const missing = await post('symbol', { symbol: "X'; DROP TABLE instruments;--", exchange: 'NSE' });
      expect(missing.status).toBe(404);
      expect(JSON.stringify(missing.body.message)).toMatch(/not found on NSE/);
      const exchange = await post('symbol', { symbol: 'SBIN', exchange: 'NASDAQ' });
      expect(exchange.status).toBe(400);
      expect(JSON.stringify(exchange.body.message)).toMatch(/exchange/);
      const control = await post('symbol', { symbol: 'SB\u0007IN', exchange: 'NSE' });
      expect(control.status).toBe(400);
      const long = await post('symbol', { symbol: 'S'.repeat(5_000), exchange: 'NSE' });
      expect(long.status).toBe(400);
      expect(JSON.stringify(long.body.message)).toMatch(/symbol/);
      const huge = await t.app.inject({
        method: 'POST',
        url: '/api/v1/symbol',
        payload: { apikey, symbol: 'SBIN', exchange: 'NSE', pad: 'x'.repeat(3_000_000) },
      });
      expect(huge.statusCode).toBeGreaterThanOrEqual(400);
      expect(huge.statusCode).toBeLessThan(500);
      expect((await post('symbol', { symbol: 'SBIN', exchange: 'NSE', apikey: 'wrong' })).status).toBe(403);
    });
  });

  describe('expiry', () => {
    it('lists option expiries nearest first as DD-MMM-YY with the documented message', async () => {
      const { status, body } = await post('expiry', {
        symbol: 'NIFTY',
        exchange: 'NFO',
        instrumenttype: 'options',
      });
      expect(status).toBe(200);
      const data = body.data as string[];
      expect(data.length).toBeGreaterThanOrEqual(2);
      expect(data.slice(0, 2)).toEqual(['18-AUG-26', '25-AUG-26']);
      for (const d of data) expect(d).toMatch(/^\d{2}-[A-Z]{3}-\d{2}$/);
      const iso = data.map((d) => Date.parse(d.replace(/-(\d{2})$/, '-20$1')));
      expect([...iso].sort((a, b) => a - b)).toEqual(iso);
      expect(body.message).toBe(`Found ${data.length} expiry dates for NIFTY options in NFO`);
    });

    it('lists futures expiries', async () => {
      const { status, body } = await post('expiry', {
        symbol: 'NIFTY',
        exchange: 'NFO',
        instrumenttype: 'futures',
      });
      expect(status).toBe(200);
      expect(body.data).toContain('25-AUG-26');
    });

    it('refuses a cash exchange, an unknown type and an unknown underlying', async () => {
      const cash = await post('expiry', { symbol: 'SBIN', exchange: 'NSE', instrumenttype: 'futures' });
      expect(cash.status).toBe(400);
      expect(JSON.stringify(cash.body.message)).toMatch(/no expiries/);
      expect(
        (await post('expiry', { symbol: 'NIFTY', exchange: 'NFO', instrumenttype: 'swaps' })).status,
      ).toBe(400);
      const none = await post('expiry', { symbol: 'NOSUCH', exchange: 'NFO', instrumenttype: 'options' });
      expect(none.status).toBe(404);
      expect(JSON.stringify(none.body.message)).toMatch(/No expiry dates found/);
    });
  });

  describe('instruments', () => {
    const get = (query: string, payloadAsStream = false) =>
      t.app.inject({ method: 'GET', url: `/api/v1/instruments?apikey=${apikey}${query}`, payloadAsStream });

    it('JSON: every live row with the documented fields; the count in the message', async () => {
      const res = await get('');
      expect(res.statusCode).toBe(200);
      const body = res.json() as { status: string; message: string; data: Json[] };
      const total = await liveRows();
      expect(total).toBe(4_774);
      expect(body.data).toHaveLength(total);
      expect(body.message).toBe(`Found ${total} instruments`);
      expect(Object.keys(body.data[0]!)).toEqual([
        'symbol',
        'brsymbol',
        'name',
        'exchange',
        'brexchange',
        'token',
        'expiry',
        'strike',
        'lotsize',
        'instrumenttype',
        'tick_size',
      ]);
    });

    it('CSV of one exchange: the header, then one line per row of that exchange', async () => {
      const res = await get('&exchange=NFO&format=csv');
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/csv/);
      expect(res.headers['content-disposition']).toContain('instruments_NFO.csv');
      const lines = res.body.trimEnd().split('\n');
      expect(lines[0]).toBe(
        'symbol,brsymbol,name,exchange,brexchange,token,expiry,strike,lotsize,instrumenttype,tick_size',
      );
      expect(lines.length - 1).toBe(await liveRows('NFO'));
      expect(lines.slice(1).every((l) => l.split(',')[3] === 'NFO')).toBe(true);
    });

    it('is streamed: no content length, the body arrives as a stream of several chunks', async () => {
      const res = await get('&format=csv', true);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-length']).toBeUndefined();
      const stream = res.stream();
      expect(stream).toBeInstanceOf(Readable);
      let chunks = 0;
      let bytes = 0;
      for await (const c of stream) {
        chunks++;
        bytes += (c as Buffer).length;
      }
      expect(chunks).toBeGreaterThan(2);
      expect(bytes).toBeGreaterThan(100_000);
    });

    it('refuses an unknown exchange or format and a missing key', async () => {
      const ex = await get('&exchange=LSE');
      expect(ex.statusCode).toBe(400);
      expect(JSON.stringify(ex.json().message)).toMatch(/exchange/);
      expect((await get('&format=xml')).statusCode).toBe(400);
      const nokey = await t.app.inject({ method: 'GET', url: '/api/v1/instruments' });
      expect(nokey.statusCode).toBe(400);
      const badkey = await t.app.inject({ method: 'GET', url: '/api/v1/instruments?apikey=nope' });
      expect(badkey.statusCode).toBe(403);
    });
  });

  describe('intervals', () => {
    it('without a configured broker says so', async () => {
      const { status, body } = await post('intervals', {});
      expect(status).toBe(404);
      expect(JSON.stringify(body.message)).toMatch(/No broker is configured/);
    });

    it("with BROKER_NAME answers the broker's intervals in OpenAlgo's groups", async () => {
      const z = await createTestApp(dialect, { db: t.db, clock: t.clock, env: { BROKER_NAME: 'zerodha' } });
      try {
        const res = await z.app.inject({ method: 'POST', url: '/api/v1/intervals', payload: { apikey } });
        expect(res.statusCode).toBe(200);
        expect(res.json()).toEqual({
          status: 'success',
          data: {
            months: [],
            weeks: [],
            days: ['D'],
            hours: ['1h'],
            minutes: ['1m', '3m', '5m', '10m', '15m', '30m'],
            seconds: [],
          },
        });
      } finally {
        await z.app.close();
      }
    });
  });

  describe('optionsymbol', () => {
    const nifty = (ltp: number) =>
      feed.push({
        'NSE_INDEX:NIFTY': {
          ltp,
          bid: 0,
          ask: 0,
          high: ltp * 1.01,
          low: ltp * 0.99,
          timestamp: t.clock.now(),
        },
      });

    it('resolves the documented ATM, ITM3 and OTM4 examples from the underlying price', async () => {
      nifty(25_966.4);
      const req = { underlying: 'NIFTY', exchange: 'NSE_INDEX', expiry_date: '25AUG26' };
      const atm = await post('optionsymbol', { ...req, offset: 'ATM', option_type: 'CE' });
      expect(atm.status).toBe(200);
      expect(atm.body).toMatchObject({
        status: 'success',
        symbol: 'NIFTY25AUG2625950CE',
        exchange: 'NFO',
        lotsize: 65,
        underlying_ltp: 25_966.4,
      });
      expect(typeof atm.body.tick_size).toBe('number');
      expect(Object.keys(atm.body).sort()).toEqual(
        ['exchange', 'freeze_qty', 'lotsize', 'status', 'symbol', 'tick_size', 'underlying_ltp'].sort(),
      );
      const itm = await post('optionsymbol', { ...req, offset: 'ITM3', option_type: 'PE' });
      expect(itm.body.symbol).toBe('NIFTY25AUG2626100PE');
      const otm = await post('optionsymbol', { ...req, offset: 'OTM4', option_type: 'CE' });
      expect(otm.body.symbol).toBe('NIFTY25AUG2626150CE');
      const itmCall = await post('optionsymbol', { ...req, offset: 'ITM2', option_type: 'CE' });
      expect(itmCall.body.symbol).toBe('NIFTY25AUG2625850CE');
    });

    it('refuses bad offsets, dates, unknown expiries and an underlying without a price', async () => {
      nifty(25_966.4);
      const req = { underlying: 'NIFTY', exchange: 'NSE_INDEX', option_type: 'CE' };
      const offset = await post('optionsymbol', { ...req, expiry_date: '25AUG26', offset: 'ITM51' });
      expect(offset.status).toBe(400);
      expect(JSON.stringify(offset.body.message)).toMatch(/offset/);
      const date = await post('optionsymbol', { ...req, expiry_date: '31FEB26', offset: 'ATM' });
      expect(date.status).toBe(400);
      expect(JSON.stringify(date.body.message)).toMatch(/expiry_date/);
      const expiry = await post('optionsymbol', { ...req, expiry_date: '01JAN30', offset: 'ATM' });
      expect(expiry.status).toBe(404);
      expect(JSON.stringify(expiry.body.message)).toMatch(/No NIFTY CE options expiring 01-JAN-30 on NFO/);
      const far = await post('optionsymbol', { ...req, expiry_date: '25AUG26', offset: 'OTM50' });
      expect(far.status).toBe(400);
      expect(JSON.stringify(far.body.message)).toMatch(/outside the chain/);
      const unpriced = await post('optionsymbol', {
        underlying: 'BANKNIFTY',
        exchange: 'NSE_INDEX',
        expiry_date: '25AUG26',
        offset: 'ATM',
        option_type: 'CE',
      });
      expect(unpriced.status).toBe(404);
      expect(JSON.stringify(unpriced.body.message)).toMatch(/No price for BANKNIFTY/);
    });
  });

  describe('market calendar', () => {
    it('holidays of the documented year in the documented shape', async () => {
      const { status, body } = await post('market/holidays', { year: 2026 });
      expect(status).toBe(200);
      expect(body).toMatchObject({ status: 'success', year: 2026, timezone: 'Asia/Kolkata' });
      const data = body.data as Json[];
      const republic = data.find((h) => h.date === '2026-01-26');
      expect(republic).toMatchObject({ holiday_type: 'TRADING_HOLIDAY' });
      expect(republic!.closed_exchanges).toContain('NSE');
      for (const h of data) {
        expect(Object.keys(h).sort()).toEqual(
          ['closed_exchanges', 'date', 'description', 'holiday_type', 'open_exchanges'].sort(),
        );
        for (const o of h.open_exchanges as Json[]) {
          expect(typeof o.start_time).toBe('number');
          expect(typeof o.end_time).toBe('number');
        }
      }
    });

    it('refuses years out of range and non-integers', async () => {
      const low = await post('market/holidays', { year: 1999 });
      expect(low.status).toBe(400);
      expect(JSON.stringify(low.body.message)).toMatch(/year/);
      expect((await post('market/holidays', { year: 'twenty' })).status).toBe(400);
    });

    it('timings of a trading day as epoch ms; none on a weekend', async () => {
      const { status, body } = await post('market/timings', { date: '2025-12-19' });
      expect(status).toBe(200);
      const data = body.data as Json[];
      expect(data.map((d) => d.exchange)).toEqual(['NSE', 'BSE', 'NFO', 'BFO', 'CDS', 'BCD', 'MCX']);
      expect(data[0]).toEqual({
        exchange: 'NSE',
        start_time: istInstant('2025-12-19', '09:15'),
        end_time: istInstant('2025-12-19', '15:30'),
      });
      expect((await post('market/timings', { date: '2025-12-20' })).body.data).toEqual([]);
    });

    it('refuses dates that are not real dates', async () => {
      for (const date of ['2025-02-30', '19-12-2025', "'; --", '2051-01-01']) {
        const res = await post('market/timings', { date });
        expect(res.status, date).toBe(400);
        expect(JSON.stringify(res.body.message)).toMatch(/date/);
      }
    });
  });
});

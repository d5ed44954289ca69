import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalInvalidationBus } from '../../src/platform/invalidation.js';
import { kiteCombined, importContract } from '../helpers/contracts.js';
import {
  asBrowser,
  createTestApp,
  createUser,
  describeEachDb,
  login,
  type Browser,
  type TestApp,
} from '../helpers/test-app.js';

interface Item {
  symbol: string;
  brsymbol: string;
  name: string;
  exchange: string;
  brexchange: string;
  token: string;
  expiry: string;
  strike: number;
  lotsize: number;
  instrumenttype: string;
  tick_size: number;
  freeze_qty: number | null;
}

/**
 * Search over the Kite fixtures (real rows: NSE cash 579 + NFO/BFO 4,195 = 4,774 rows; see
 * test/fixtures/market/README.md). Every case runs on two instances sharing one database: one
 * answers from the in-memory index, the other with `INSTRUMENT_INDEX=false` from the database;
 * both must give the same answer (search rule 6).
 */
describeEachDb('instrument search', (dialect) => {
  let t: TestApp;
  let fb: TestApp;
  let apikey: string;
  let browser: Browser;

  beforeAll(async () => {
    // One bus, as one Redis channel would be: a freeze-quantity change reaches both instances.
    const bus = new LocalInvalidationBus();
    t = await createTestApp(dialect, { bus });
    fb = await createTestApp(dialect, { db: t.db, bus, env: { INSTRUMENT_INDEX: 'false' }, clock: t.clock });
    const user = await createUser(t);
    apikey = (await t.services.auth.apiKeys.regenerate(user.id)).apikey;
    browser = await login(t);
    await importContract(t, 'zerodha', kiteCombined());
  }, 120_000);
  afterAll(async () => {
    await fb?.close();
    await t?.close();
  });

  /** POSTs to both instances; asserts they agree; returns the status and body. */
  async function api(
    payload: unknown,
  ): Promise<{ status: number; body: { status: string; message: unknown; data: Item[] } }> {
    t.clock.advance(1000);
    const a = await t.app.inject({ method: 'POST', url: '/api/v1/search', payload: payload as object });
    const b = await fb.app.inject({ method: 'POST', url: '/api/v1/search', payload: payload as object });
    expect(b.statusCode).toBe(a.statusCode);
    expect(b.json()).toEqual(a.json());
    return { status: a.statusCode, body: a.json() };
  }

  /** GETs a session route on both instances (same session works on both: shared database). */
  async function session<T = { results: Item[]; total: number }>(
    url: string,
  ): Promise<{ status: number; body: T }> {
    const a = await t.app.inject({ method: 'GET', url, headers: { cookie: browser.cookie } });
    const b = await fb.app.inject({ method: 'GET', url, headers: { cookie: browser.cookie } });
    if (b.statusCode === 500) console.log(fb.logs.filter((l) => l.includes('"level":50')).join('\n'));
    expect(b.statusCode).toBe(a.statusCode);
    expect(b.json()).toEqual(a.json());
    return { status: a.statusCode, body: a.json() };
  }

  it('builds the index for one instance and leaves the other on the database', () => {
    expect(t.services.market.contracts.indexReady).toBe(true);
    expect(t.services.market.contracts.indexSize).toBe(4_774);
    expect(fb.services.market.contracts.indexReady).toBe(false);
  });

  describe('public search: wire format', () => {
    it('answers SBIN with the NSE equity first and OpenAlgo field names', async () => {
      const { status, body } = await api({ apikey, query: 'SBIN' });
      expect(status).toBe(200);
      expect(body.status).toBe('success');
      expect(body.message).toBe(`Found ${body.data.length} matching symbols`);
      expect(body.data[0]).toEqual({
        symbol: 'SBIN',
        brsymbol: 'SBIN',
        name: 'STATE BANK OF INDIA',
        exchange: 'NSE',
        brexchange: 'NSE',
        token: '779521',
        expiry: '',
        strike: 0,
        lotsize: 1,
        instrumenttype: 'EQ',
        tick_size: 0.05,
        freeze_qty: null,
      });
    });

    it('the pre-serialised answer is exactly the object form', async () => {
      for (const query of ['SBIN', 'NIFTY 26000 CE', 'M&M', 'nothing-here']) {
        const data = await t.services.market.search.publicSearch(query, undefined);
        const json = await t.services.market.search.publicSearchJson(query, undefined);
        expect(JSON.parse(json.toString('utf8'))).toEqual({
          status: 'success',
          message: data.length ? `Found ${data.length} matching symbols` : 'No matching symbols found',
          data,
        });
      }
    });

    it('says so when nothing matches', async () => {
      const { status, body } = await api({ apikey, query: 'NOSUCHSYMBOLXYZ' });
      expect(status).toBe(200);
      expect(body).toEqual({ status: 'success', message: 'No matching symbols found', data: [] });
    });
  });

  describe('public search: every term must match', () => {
    it('NIFTY 26000 CE gives only NIFTY-family 26000 calls', async () => {
      const { body } = await api({ apikey, query: 'NIFTY 26000 CE' });
      // Every NIFTY-family 26000 call of the NFO/BFO fixture: NIFTY's two nearest expiries and
      // FINNIFTY's nearest (the fixture holds no other, e.g. no BANKNIFTY 26000 strike), by
      // Kite trading symbol.
      expect(body.data.map((r) => r.brsymbol).sort()).toEqual([
        'FINNIFTY26AUG26000CE',
        'NIFTY2681826000CE',
        'NIFTY26AUG26000CE',
      ]);
      for (const r of body.data) {
        expect(r.symbol).toContain('NIFTY');
        expect(r.strike).toBe(26000);
        expect(r.instrumenttype).toBe('CE');
        expect(r.symbol.endsWith('26000CE')).toBe(true);
      }
      // NIFTY's own contracts (symbol prefix) come before BANKNIFTY/FINNIFTY ones.
      expect(body.data[0]!.symbol.startsWith('NIFTY')).toBe(true);
      expect(body.data.at(-1)!.brsymbol).toBe('FINNIFTY26AUG26000CE');
    });

    it('BANKNIFTY FUT gives the BANKNIFTY futures', async () => {
      const { body } = await api({ apikey, query: 'banknifty fut' });
      expect(body.data.length).toBeGreaterThan(0);
      for (const r of body.data) {
        expect(r.instrumenttype).toBe('FUT');
        expect(r.symbol).toMatch(/^BANKNIFTY\d{2}[A-Z]{3}\d{2}FUT$/);
        expect(r.exchange).toBe('NFO');
        expect(r.lotsize).toBe(30);
      }
    });

    it('matches the token and the name too', async () => {
      const byToken = await api({ apikey, query: '779521' });
      expect(byToken.body.data.map((r) => r.symbol)).toContain('SBIN');
      const byName = await api({ apikey, query: 'STATE BANK', exchange: 'NSE' });
      expect(byName.body.data.map((r) => r.symbol)).toContain('SBIN');
    });

    it('filters by exchange', async () => {
      const { body } = await api({ apikey, query: 'SBIN', exchange: 'NFO' });
      expect(body.data.length).toBeGreaterThan(0);
      expect(new Set(body.data.map((r) => r.exchange))).toEqual(new Set(['NFO']));
      const idx = await api({ apikey, query: 'NIFTY', exchange: 'NSE_INDEX' });
      expect(idx.body.data[0]).toMatchObject({ symbol: 'NIFTY', exchange: 'NSE_INDEX', token: '256265' });
    });
  });

  describe('public search: ranking and cap', () => {
    it('puts the exact symbol, then prefixes, then other matches; shorter symbols first', async () => {
      const { body } = await api({ apikey, query: 'NIFTY' });
      const rank = (s: string) => (s === 'NIFTY' ? 0 : s.startsWith('NIFTY') ? 1 : 2);
      const ranks = body.data.map((r) => rank(r.symbol));
      expect(ranks[0]).toBe(0);
      expect([...ranks].sort((a, b) => a - b)).toEqual(ranks);
      for (let i = 1; i < body.data.length; i++)
        if (ranks[i] === ranks[i - 1])
          expect(body.data[i]!.symbol.length).toBeGreaterThanOrEqual(body.data[i - 1]!.symbol.length);
    });

    it('returns at most 500 results', async () => {
      const { body } = await api({ apikey, query: 'NIFTY' });
      expect(body.data).toHaveLength(500);
    });
  });

  describe('public search: bad input', () => {
    it.each([
      [{ apikey: 'x'.repeat(64) }, 'query'],
      [{ query: 'SBIN' }, 'apikey'],
      [{ apikey: 'x', query: 'SBIN', exchange: 'XYZ' }, 'exchange'],
      [{ apikey: 'x', query: 5 }, 'query'],
      [{ apikey: 'x', query: 'S'.repeat(201) }, 'query'],
    ])('refuses %j naming the field', async (payload, field) => {
      const { status, body } = await api(payload);
      expect(status).toBe(400);
      expect(JSON.stringify(body.message)).toContain(field);
    });

    it('refuses an empty query after a valid key', async () => {
      const { status, body } = await api({ apikey, query: '   ' });
      expect(status).toBe(400);
      expect(body.message).toBe('Query parameter is required and cannot be empty');
    });

    it('refuses an unknown key with 403', async () => {
      const { status } = await api({ apikey: 'f'.repeat(64), query: 'SBIN' });
      expect(status).toBe(403);
    });

    it('treats LIKE wildcards and quotes as plain text', async () => {
      for (const query of ['%', '_', "SBIN' OR '1'='1", '\\', 'M&M', 'BAJAJ-AUTO']) {
        const { status, body } = await api({ apikey, query });
        expect(status).toBe(200);
        for (const r of body.data)
          expect(`${r.symbol}\u001f${r.brsymbol}\u001f${r.name}\u001f${r.token}`.toUpperCase()).toContain(
            query.toUpperCase(),
          );
      }
      const mm = await api({ apikey, query: 'M&M', exchange: 'NSE' });
      expect(mm.body.data[0]!.symbol).toBe('M&M');
    });
  });

  describe('session search rule 1: no q and no exchange', () => {
    it('returns an empty list and total 0', async () => {
      const { status, body } = await session('/search/api/search');
      expect(status).toBe(200);
      expect(body).toEqual({ results: [], total: 0 });
      expect((await session('/search/api/search?underlying=NIFTY')).body).toEqual({ results: [], total: 0 });
    });

    it('needs a session', async () => {
      const res = await t.app.inject({ method: 'GET', url: '/search/api/search?q=SBIN' });
      expect(res.statusCode).toBe(401);
    });
  });

  describe('session search rule 2: F&O filters or an F&O exchange use the F&O search', () => {
    it('general search without F&O filters', async () => {
      const { body } = await session('/search/api/search?q=SBIN');
      expect(body.results[0]).toMatchObject({ symbol: 'SBIN', exchange: 'NSE' });
      expect(body.total).toBeGreaterThan(body.results.length - 1);
    });

    it('an exchange alone lists that exchange (general search, shortest symbols first)', async () => {
      const { body } = await session('/search/api/search?exchange=NSE_INDEX');
      expect(body.total).toBe(117);
      expect(body.results).toHaveLength(117);
      const lengths = body.results.map((r) => r.symbol.length);
      expect([...lengths].sort((a, b) => a - b)).toEqual(lengths);
    });

    it('an F&O exchange gives derivatives only, in chain order', async () => {
      const { body } = await session('/search/api/search?q=NIFTY&exchange=NFO');
      expect(body.results.length).toBeGreaterThan(0);
      for (const r of body.results) expect(r.expiry).not.toBe('');
      expect(body.results[0]!.name).toBe('NIFTY');
    });

    it('underlying, expiry, type and strike range filter the chain', async () => {
      const exp = await session<{ status: string; expiries: string[] }>(
        '/search/api/expiries?exchange=NFO&underlying=NIFTY&instrumenttype=options',
      );
      const first = exp.body.expiries[0]!;
      const { body } = await session(
        `/search/api/search?exchange=NFO&underlying=nifty&expiry=${first}&instrumenttype=CE&strike_min=24000&strike_max=25000`,
      );
      expect(body.total).toBe(body.results.length);
      expect(body.total).toBeGreaterThan(3);
      for (const r of body.results) {
        expect(r).toMatchObject({ exchange: 'NFO', instrumenttype: 'CE', expiry: first });
        expect(r.symbol.startsWith('NIFTY')).toBe(true);
        expect(r.strike).toBeGreaterThanOrEqual(24000);
        expect(r.strike).toBeLessThanOrEqual(25000);
      }
      const strikes = body.results.map((r) => r.strike);
      expect([...strikes].sort((a, b) => a - b)).toEqual(strikes);
      // The same expiry written as an ISO date selects the same contracts.
      const iso = await session(
        `/search/api/search?exchange=NFO&underlying=NIFTY&expiry=${isoOf(first)}&instrumenttype=CE&strike_min=24000&strike_max=25000`,
      );
      expect(iso.body).toEqual(body);
    });
  });

  describe('session search rule 3: multi-values are a de-duplicated union', () => {
    it('exchange=NFO,BFO and instrumenttype=CE,PE', async () => {
      const both = await session('/search/api/search?exchange=NFO,BFO&instrumenttype=CE,PE&q=SENSEX');
      const nfo = await session('/search/api/search?exchange=NFO&instrumenttype=CE,PE&q=SENSEX');
      const bfo = await session('/search/api/search?exchange=BFO&instrumenttype=CE,PE&q=SENSEX');
      expect(both.body.total).toBe(nfo.body.total + bfo.body.total);
      const keys = both.body.results.map((r) => `${r.symbol}|${r.exchange}`);
      expect(new Set(keys).size).toBe(keys.length);
      expect(new Set(both.body.results.map((r) => r.instrumenttype))).toEqual(new Set(['CE', 'PE']));
    });

    it('a cash and an F&O exchange together give both', async () => {
      const { body } = await session('/search/api/search?q=SBIN&exchange=NSE,NFO,NSE');
      const exchanges = new Set(body.results.map((r) => r.exchange));
      expect(exchanges).toEqual(new Set(['NSE', 'NFO']));
      const keys = body.results.map((r) => `${r.symbol}|${r.exchange}`);
      expect(new Set(keys).size).toBe(keys.length);
    });
  });

  describe('session search: bad input', () => {
    it.each([
      ['/search/api/search?q=SBIN&exchange=XYZ', 'exchange'],
      ['/search/api/search?exchange=NFO&expiry=31-FEB-26', 'expiry'],
      ['/search/api/search?exchange=NFO&expiry=tomorrow', 'expiry'],
      ['/search/api/search?exchange=NFO&strike_min=abc', 'strike_min'],
      ['/search/api/search?exchange=NFO&strike_min=5&strike_max=1', 'strike_min'],
      [`/search/api/search?q=${'A'.repeat(300)}`, 'q'],
      ['/search/api/expiries?exchange=NOPE', 'exchange'],
    ])('%s → 400', async (url, field) => {
      const { status, body } = await session<{ message: string; errors?: Record<string, string[]> }>(url);
      expect(status).toBe(400);
      expect(JSON.stringify(body)).toContain(field);
    });
  });

  describe('expiries (rule 4)', () => {
    it('sorted by date, past ones dropped, options only with instrumenttype=options', async () => {
      const all = (
        await session<{ expiries: string[] }>('/search/api/expiries?exchange=NFO&underlying=NIFTY')
      ).body.expiries;
      const opts = (
        await session<{ expiries: string[] }>(
          '/search/api/expiries?exchange=NFO&underlying=NIFTY&instrumenttype=options',
        )
      ).body.expiries;
      const futs = (
        await session<{ expiries: string[] }>(
          '/search/api/expiries?exchange=NFO&underlying=NIFTY&instrumenttype=futures',
        )
      ).body.expiries;
      expect(all.map(isoOf)).toEqual([...all.map(isoOf)].sort());
      expect(new Set(all)).toEqual(new Set([...opts, ...futs]));
      // The fixture's NIFTY options: the two nearest weeklies and the long-dated 24-DEC-29 call;
      // its futures: the three monthlies. Only 25-AUG-26 is shared.
      expect(opts).toEqual(['18-AUG-26', '25-AUG-26', '24-DEC-29']);
      expect(futs).toEqual(['25-AUG-26', '29-SEP-26', '27-OCT-26']);
      expect(all).toHaveLength(5);
      expect(all[0]).toBe('18-AUG-26');
      // Move the clock past the first expiry: it drops out.
      const saved = t.clock.now();
      t.clock.set(Date.UTC(2026, 7, 19, 6, 0, 0));
      browser = await login(t); // the jump outlived the session
      const later = (
        await session<{ expiries: string[] }>('/search/api/expiries?exchange=NFO&underlying=NIFTY')
      ).body.expiries;
      t.clock.set(saved);
      browser = await login(t); // the jump outlived the session
      expect(later).not.toContain('18-AUG-26');
      expect(later.length).toBeLessThan(all.length);
    });
  });

  describe('underlyings (rule 5)', () => {
    it('lists option underlyings, sorted; include_futures accepts 1, true, yes', async () => {
      const { body } = await session<{ status: string; underlyings: string[] }>(
        '/search/api/underlyings?exchange=NFO',
      );
      expect(body.status).toBe('success');
      expect(body.underlyings).toContain('NIFTY');
      expect(body.underlyings).toContain('BANKNIFTY');
      expect([...body.underlyings].sort()).toEqual(body.underlyings);
      const bfo = (await session<{ underlyings: string[] }>('/search/api/underlyings?exchange=BFO')).body
        .underlyings;
      expect(bfo).toEqual(expect.arrayContaining(['SENSEX', 'BANKEX']));
      for (const flag of ['1', 'true', 'yes', 'no']) {
        const r = await session<{ underlyings: string[] }>(
          `/search/api/underlyings?exchange=NFO&include_futures=${flag}`,
        );
        expect(r.body.underlyings.length).toBeGreaterThanOrEqual(body.underlyings.length);
      }
    });
  });

  describe('legacy routes', () => {
    it('/search/ reads its query from symbol', async () => {
      const { body } = await session('/search/?symbol=SBIN&exchange=NSE');
      expect(body.results[0]).toMatchObject({ symbol: 'SBIN', exchange: 'NSE' });
    });

    it('/search/token finds a symbol’s token and a token’s instrument', async () => {
      const bySymbol = await session<{ data: Item[] }>('/search/token?symbol=sbin&exchange=NSE');
      expect(bySymbol.body.data).toEqual([expect.objectContaining({ symbol: 'SBIN', token: '779521' })]);
      const byToken = await session<{ data: Item[] }>('/search/token?token=256265');
      expect(byToken.body.data[0]).toMatchObject({ symbol: 'NIFTY', exchange: 'NSE_INDEX' });
      const missing = await session('/search/token?symbol=SBIN');
      expect(missing.status).toBe(400);
    });
  });

  describe('freeze quantities in results', () => {
    it('carries the configured freeze quantity of an F&O underlying', async () => {
      // Asked before the change too: the index remembers the rows of an answer, never its freeze
      // quantities, so the next answer carries the new one.
      const before = await api({ apikey, query: 'NIFTY 26000 CE', exchange: 'NFO' });
      expect(before.body.data.filter((r) => r.name === 'NIFTY' && r.freeze_qty === 1800)).toEqual([]);
      const res = await t.app.inject({
        method: 'POST',
        url: '/admin/api/freeze',
        headers: asBrowser(browser),
        payload: { exchange: 'NFO', symbol: 'NIFTY', freeze_qty: 1800 },
      });
      expect(res.statusCode).toBeLessThan(300);
      const { body } = await api({ apikey, query: 'NIFTY 26000 CE', exchange: 'NFO' });
      const nifty = body.data.filter((r) => r.name === 'NIFTY');
      expect(nifty.length).toBeGreaterThan(0);
      for (const r of nifty) expect(r.freeze_qty).toBe(1800);
      const cash = await api({ apikey, query: 'SBIN', exchange: 'NSE' });
      expect(cash.body.data[0]!.freeze_qty).toBeNull();
    });
  });
});

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
/** `18-AUG-26` → `2026-08-18`. */
function isoOf(expiry: string): string {
  const [d, m, y] = expiry.split('-');
  return `20${y}-${String(MONTHS.indexOf(m!) + 1).padStart(2, '0')}-${d}`;
}

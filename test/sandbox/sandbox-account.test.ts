/**
 * The `/analyzer` page's session reads (docs/rules/web.md#account-pages): `GET /sandbox/api/account`
 * (the user's sandbox funds, the `SANDBOX_*` configuration as facts, the price source and its
 * newest quote) and `GET /sandbox/api/analyzer-log` (the user's own analyzer requests and answers,
 * never another user's, never an API key).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { MINI, startSandbox, type SandboxHarness } from '../helpers/sandbox.js';
import { START, k, marketOpen } from '../helpers/sandbox-api-fixtures.js';
import { describeEachDb, login, type Browser } from '../helpers/test-app.js';

interface Account {
  status: string;
  funds: {
    starting_funds: number;
    available: number;
    used_margin: number;
    realised_pnl: number;
    unrealised_pnl: number;
    reset_at: string;
  };
  settings: {
    starting_funds: number;
    leverage: Record<string, number>;
    square_off: Record<string, string>;
    reset_day: string;
    reset_time: string;
    sessions: string;
    max_quote_age_seconds: number;
  };
  price_source: { name: string; configured: string; demo: boolean; last_quote_at: string | null };
}
interface LogEntry {
  id: number;
  event: string;
  api_type: string;
  order_id: string | null;
  status_code: number;
  request: Record<string, unknown>;
  response: Record<string, unknown>;
  created_at: string;
}

describeEachDb('the analyzer page’s reads: account, configuration, price source and own log', (dialect) => {
  let h: SandboxHarness;
  afterEach(() => h?.close());

  const get = (b: Browser | undefined, url: string) =>
    h.t.app.inject({ method: 'GET', url, headers: b ? { cookie: b.cookie } : {} });

  /** The user's log once it holds `n` rows (the writer flushes in batches). */
  async function logOf(b: Browser, n: number): Promise<LogEntry[]> {
    for (let i = 0; i < 200; i++) {
      const res = await get(b, '/sandbox/api/analyzer-log');
      expect(res.statusCode).toBe(200);
      const rows = (res.json() as { data: LogEntry[] }).data;
      if (rows.length >= n) return rows;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`the analyzer log did not reach ${n} rows`);
  }

  it('answers 401 without a session, for both routes', async () => {
    h = await startSandbox(dialect);
    for (const url of ['/sandbox/api/account', '/sandbox/api/analyzer-log']) {
      const res = await get(undefined, url);
      expect(res.statusCode, url).toBe(401);
      expect(res.json()).toMatchObject({ code: 'session_required' });
    }
  });

  it('states the account, the configuration and the price source with its newest quote', async () => {
    h = await startSandbox(dialect, {
      env: {
        SANDBOX_LEVERAGE: 'equity_mis=4,futures=8',
        SANDBOX_SQUARE_OFF: 'NSE=15:10,MCX=23:00',
        SANDBOX_RESET_DAY: 'daily',
        SANDBOX_RESET_TIME: '08:30',
        SANDBOX_MAX_QUOTE_AGE_SECONDS: '30',
      },
    });
    const before = (await get(h.admin, '/sandbox/api/account')).json() as Account;
    expect(before.funds).toMatchObject({
      starting_funds: START,
      available: START,
      used_margin: 0,
      realised_pnl: 0,
      unrealised_pnl: 0,
    });
    expect(before.settings).toEqual({
      starting_funds: START,
      leverage: {
        equity_mis: 4,
        equity_cnc: 1,
        equity_nrml: 1,
        futures: 8,
        option_buy: 1,
        option_sell: 1,
      },
      fno_margin: {
        index: { span: 5.5, exposure: 2 },
        stock: { span: 13, exposure: 3.5 },
        currency: { span: 2, exposure: 1 },
        commodity: { span: 7, exposure: 1.5 },
      },
      // The suites' default (test/helpers/test-app.ts); the server's is `book`.
      charges: 'off',
      square_off: expect.objectContaining({ NSE: '15:10', BSE: '15:15', CDS: '16:45', MCX: '23:00' }),
      reset_day: 'daily',
      reset_time: '08:30',
      // The suites' default (test/helpers/test-app.ts); the server's is `enforce`.
      sessions: 'ignore',
      max_quote_age_seconds: 30,
    });
    // The harness prices with a scripted feed; nothing pushed yet.
    expect(before.price_source).toMatchObject({ name: 'scripted', demo: true, last_quote_at: null });

    await marketOpen(h);
    const quoteAt = h.t.clock.now();
    await h.ok('placeorder', {
      strategy: 't',
      ...MINI.SBIN,
      action: 'BUY',
      quantity: 10,
      pricetype: 'MARKET',
      product: 'CNC',
    });
    await h.tick({ [k(MINI.SBIN)]: h.quote(810) });
    const after = (await get(h.admin, '/sandbox/api/account')).json() as Account;
    const funds = (await h.ok<{ data: { availablecash: number; utiliseddebits: number } }>('funds')).data;
    expect(after.funds.available).toBe(funds.availablecash);
    expect(after.funds.used_margin).toBe(funds.utiliseddebits);
    expect(after.funds.used_margin).toBeGreaterThan(0);
    expect(after.funds.unrealised_pnl).toBeCloseTo(10 * (810 - 800.05), 2);
    expect(after.price_source.last_quote_at).toBe(new Date(quoteAt).toISOString());
  });

  it('lists only the signed-in user’s analyzer requests, answers and refusals, without the API key', async () => {
    h = await startSandbox(dialect);
    await marketOpen(h);
    const bob = await h.t.services.auth.users.create({ username: 'bob', password: 'bob horse battery' });
    const bobKey = (await h.t.services.auth.apiKeys.regenerate(bob.id)).apikey;
    const bobSession = await login(h.t, 'bob', 'bob horse battery');
    const order = {
      strategy: 't',
      ...MINI.SBIN,
      action: 'BUY',
      quantity: 1,
      pricetype: 'MARKET',
      product: 'CNC',
    };

    const placed = await h.ok<{ orderid: string }>('placeorder', order);
    const refused = await h.api('placeorder', { ...order, symbol: 'NOSUCHSYMBOL' });
    expect(refused.statusCode).toBe(400);
    const bobs = await h.api('placeorder', { ...order, quantity: 2 }, bobKey);
    expect(bobs.statusCode).toBe(200);

    const mine = await logOf(h.admin, 2);
    expect(mine).toHaveLength(2);
    // Newest first: the refusal, then the placed order.
    expect(mine[0]).toMatchObject({
      api_type: 'placeorder',
      status_code: 400,
      request: { symbol: 'NOSUCHSYMBOL' },
      response: { status: 'error' },
    });
    expect(mine[1]).toMatchObject({
      api_type: 'placeorder',
      status_code: 200,
      order_id: placed.orderid,
      request: { symbol: 'SBIN', quantity: 1 },
      response: { status: 'success', orderid: placed.orderid },
    });
    for (const r of mine) expect(r.request).not.toHaveProperty('apikey');
    const text = JSON.stringify(mine);
    expect(text).not.toContain(h.apikey);
    expect(text).not.toContain(bobKey);

    const theirs = await logOf(bobSession, 1);
    expect(theirs).toHaveLength(1);
    expect(theirs[0]).toMatchObject({
      request: { quantity: 2 },
      order_id: (bobs.json() as { orderid: string }).orderid,
    });

    // The newest `limit` rows; a limit out of range is refused with the reason.
    const one = (await get(h.admin, '/sandbox/api/analyzer-log?limit=1')).json() as { data: LogEntry[] };
    expect(one.data.map((r) => r.id)).toEqual([mine[0]!.id]);
    for (const bad of ['0', '501', 'x']) {
      const res = await get(h.admin, `/sandbox/api/analyzer-log?limit=${bad}`);
      expect(res.statusCode, bad).toBe(400);
      expect(res.json()).toMatchObject({ status: 'error' });
    }
  });
});

describe('the price source answers its kind and newest quote time', () => {
  it('is stated by every source', async () => {
    const { ScriptedFeed } = await import('../../src/modules/sandbox/prices/price-source.js');
    const feed = new ScriptedFeed();
    expect(feed.kind).toBe('scripted');
    expect(feed.lastQuoteAt()).toBeUndefined();
    feed.push({ 'NSE:SBIN': { ltp: 1, high: 1, low: 1, timestamp: 2_000 } });
    feed.push({ 'NSE:INFY': { ltp: 1, high: 1, low: 1, timestamp: 1_000 } });
    expect(feed.lastQuoteAt()).toBe(2_000);
  });
});

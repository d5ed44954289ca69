/**
 * A sandbox under test: the real app on a database of its own, a mini master contract cut from
 * the real Kite snapshots, a logged-in administrator, a user API key, analyzer mode switched on
 * over HTTP, and a scripted price feed whose quotes are stamped with the fake clock.
 */
import { readFileSync, rmSync } from 'node:fs';
import type { LightMyRequestResponse } from 'fastify';
import { istInstant } from '../../src/modules/market/timings.service.js';
import { ScriptedFeed } from '../../src/modules/sandbox/prices/price-source.js';
import type { Quote } from '../../src/modules/sandbox/core/types.js';
import type { Dialect } from '../../src/platform/db/database.js';
import { importContract } from './contracts.js';
import { expectBooksAgree } from './ledger.js';
import { marketFixture } from './market-fixtures.js';
import {
  appWithAdmin,
  asBrowser,
  createTestApp,
  type Browser,
  type TestApp,
  type TestAppOptions,
} from './test-app.js';

/** Kite trading symbols of the mini contract and the canonical symbols they import as. */
export const MINI = {
  SBIN: { exchange: 'NSE', symbol: 'SBIN' },
  RELIANCE: { exchange: 'NSE', symbol: 'RELIANCE' },
  INFY: { exchange: 'NSE', symbol: 'INFY' },
  NIFTY_INDEX: { exchange: 'NSE_INDEX', symbol: 'NIFTY' },
  /** NIFTY 18-Aug-2026 26000 CE, lot 65, tick 0.05. */
  NIFTY_CE: { exchange: 'NFO', symbol: 'NIFTY18AUG2626000CE' },
  /** NIFTY Aug-2026 future, lot 65, tick 0.10. */
  NIFTY_FUT: { exchange: 'NFO', symbol: 'NIFTY25AUG26FUT' },
  /** BANKNIFTY Aug-2026 future, lot 30, tick 0.20. */
  BANKNIFTY_FUT: { exchange: 'NFO', symbol: 'BANKNIFTY25AUG26FUT' },
} as const;

const KITE_LINES = [
  'SBIN',
  'RELIANCE',
  'INFY',
  'NIFTY 50',
  'NIFTY2681826000CE',
  'NIFTY26AUGFUT',
  'BANKNIFTY26AUGFUT',
];

/** The mini contract: the Kite header and the real rows of {@link KITE_LINES} (and `extra` Kite symbols). */
export function miniKiteContract(extra: readonly string[] = []): Buffer {
  const wanted = [...KITE_LINES, ...extra];
  const nse = readFileSync(marketFixture('zerodha', 'kite_instruments_NSE_2025-10-06.csv'), 'utf8').split(
    '\n',
  );
  const fo = readFileSync(marketFixture('zerodha', 'kite_instruments_NFO_BFO_2026-08-18.csv'), 'utf8').split(
    '\n',
  );
  const rows = [...nse.slice(1), ...fo.slice(1)].filter((l) => wanted.includes(l.split(',')[2] ?? ''));
  if (rows.length !== wanted.length)
    throw new Error(`mini contract: found ${rows.length} of ${wanted.length} rows`);
  return Buffer.from([nse[0], ...rows].join('\n') + '\n');
}

/** Epoch ms of `hhmm` IST on `date` (`YYYY-MM-DD`). */
export const ist = (date: string, hhmm: string): number => istInstant(date, hhmm);

export interface SandboxHarness {
  t: TestApp;
  admin: Browser;
  apikey: string;
  feed: ScriptedFeed;
  /** POST an `/api/v1/<path>` with the API key in the body. */
  api(path: string, body?: Record<string, unknown>, apikey?: string): Promise<LightMyRequestResponse>;
  /** Same, returning the parsed JSON and failing on any status but `expect`. */
  ok<T = Record<string, unknown>>(path: string, body?: Record<string, unknown>): Promise<T>;
  /** A quote stamped now: bid/ask default to ltp ∓ spread, the day's range to ±5 %. */
  quote(ltp: number, extra?: Partial<Quote>): Quote;
  /** Pushes quotes (keyed `EXCHANGE:SYMBOL`) and waits for the engine to process them. */
  tick(quotes: Record<string, Quote>): Promise<void>;
  /** Moves the clock to `hhmm` IST on `date` and runs the engine's jobs. */
  at(date: string, hhmm: string): Promise<void>;
  /** Places an order through the service (the placeorder route is the orders issue's). */
  place(req: Record<string, unknown>): ReturnType<TestApp['services']['sandbox']['service']['placeOrder']>;
  userId: number;
  /** Closes the app and drops its database (also after a restart). */
  close(): Promise<void>;
}

/** Builds the harness; with `db`, a second app on the same database (a restart). */
export async function startSandbox(
  dialect: Dialect,
  opts: TestAppOptions & { restartOf?: SandboxHarness } = {},
): Promise<SandboxHarness> {
  let t: TestApp;
  let admin: Browser;
  let apikey: string;
  // The fake clock does not move between calls: lift the API rate limit unless a test sets one.
  opts = {
    ...opts,
    env: { API_RATE_LIMIT: '100000 per second', ORDER_RATE_LIMIT: '100000 per second', ...opts.env },
  };
  if (opts.restartOf) {
    t = await createTestApp(dialect, { ...opts, db: opts.restartOf.t.db, clock: opts.restartOf.t.clock });
    admin = opts.restartOf.admin;
    apikey = opts.restartOf.apikey;
  } else {
    ({ t, admin } = await appWithAdmin(dialect, opts));
    await importContract(t, 'zerodha', miniKiteContract());
    apikey = (await t.services.auth.apiKeys.regenerate(1)).apikey;
  }
  const feed = new ScriptedFeed();
  await t.services.sandbox.usePriceSource(feed);
  if (!opts.restartOf) {
    const res = await t.app.inject({
      method: 'POST',
      url: '/settings/analyze-mode/1',
      headers: asBrowser(admin),
    });
    if (res.statusCode !== 200) throw new Error(`analyze mode: ${res.statusCode} ${res.body}`);
  }
  const engine = t.services.sandbox.engine;
  const h: SandboxHarness = {
    t,
    admin,
    apikey,
    feed,
    userId: 1,
    api: (path, body = {}, key = apikey) =>
      t.app.inject({ method: 'POST', url: `/api/v1/${path}`, payload: { apikey: key, ...body } }),
    async ok(path, body) {
      const res = await h.api(path, body);
      if (res.statusCode !== 200) throw new Error(`${path}: ${res.statusCode} ${res.body}`);
      return res.json();
    },
    quote: (ltp, extra = {}) => ({
      ltp,
      bid: Math.round((ltp - 0.05) * 100) / 100,
      ask: Math.round((ltp + 0.05) * 100) / 100,
      high: Math.round(ltp * 105) / 100,
      low: Math.round(ltp * 95) / 100,
      timestamp: t.clock.now(),
      ...extra,
    }),
    async tick(quotes) {
      feed.push(quotes);
      await engine.whenIdle();
    },
    async at(date, hhmm) {
      t.clock.set(ist(date, hhmm));
      await engine.tick();
    },
    async close() {
      try {
        await expectBooksAgree(t.services);
      } finally {
        await t.close();
      }
      if (opts.restartOf) {
        await t.db.drop();
        rmSync(t.db.dataDir, { recursive: true, force: true });
      }
    },
    place: (req) =>
      t.services.sandbox.service.placeOrder(1, {
        priceType: 'MARKET',
        product: 'MIS',
        ...req,
      } as never),
  };
  return h;
}

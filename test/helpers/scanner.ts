/**
 * Builders for the scanner tests (docs/rules/scanner.md): a sandbox harness (analyzer mode, the
 * mini contract, scripted quotes) at 10:00 IST on a trading day, scanners created over the session
 * routes, Chartink-format alerts posted to `/scanner/webhook/<webhook_id>`, and readers of the
 * analyzer books and the scanner's tables.
 */
import type { LightMyRequestResponse } from 'fastify';
import type { Kysely } from 'kysely';
import type { DB } from '../../src/db/schema.js';
import type { ScannerServices } from '../../src/modules/scanner/scanner.plugin.js';
import type { Dialect } from '../../src/platform/db/database.js';
import { ist, startSandbox, type SandboxHarness } from './sandbox.js';
import { asBrowser, login, type Browser, type TestAppOptions } from './test-app.js';
import { isLegacyTable, legacyRows } from './webhook-rows.js';

export const HOST_SERVER = 'https://desk.example.com';
/** A Monday, an NSE trading day. */
export const TRADING_DAY = '2026-08-17';
/** The Saturday of that week. */
export const SATURDAY = '2026-08-22';
/** A Monday that NSE and BSE hold as a trading holiday (Ganesh Chaturthi, seeded calendar). */
export const HOLIDAY = '2026-09-14';
/** `scn_` and 43 base64url characters (32 random bytes). */
export const WEBHOOK_ID = /^scn_[A-Za-z0-9_-]{43}$/;
/** The quotes the feed holds (the alerts' trigger prices are close to them). */
export const LTP = { SBIN: 800, RELIANCE: 2400, INFY: 1500 } as const;

type Row = Record<string, unknown>;

/** A scanner as the session routes show it. */
export interface ScannerView {
  id: number;
  name: string;
  action: string;
  exchange: string;
  product: string;
  quantity: number | null;
  capital: number | null;
  overrides: Record<string, number>;
  window_start: string;
  window_end: string;
  squareoff_time: string | null;
  max_symbols: number;
  mode: string;
  enabled: boolean;
  live_enabled: boolean;
  created_at: unknown;
  updated_at: unknown;
}

/** One symbol's outcome in a webhook answer or an audit row. */
export interface SymbolResult {
  symbol: string;
  status: 'success' | 'error' | 'skipped';
  orderid?: string;
  quantity?: number;
  message?: string;
}

/** The webhook's answer. */
export interface HookAnswer {
  status: 'success' | 'error';
  result: string;
  message?: string;
  scanner_id?: number;
  action?: string;
  results?: SymbolResult[];
}

export interface Delivery {
  id: number;
  ts: unknown;
  ip: string;
  result: string;
  http_status: number;
  action: string | null;
  message: string | null;
  payload: unknown;
  results: SymbolResult[] | null;
  duration_ms: number;
}

export interface ScannerHarness extends SandboxHarness {
  /** Creates a scanner over HTTP (200 expected) and returns what the answer shows once. */
  create(
    body: Row,
    b?: Browser,
  ): Promise<{ id: number; webhookId: string; url: string; view: ScannerView; res: LightMyRequestResponse }>;
  /** A session request under `/scanner/api/scanners` (cookie and CSRF header). */
  manage(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    payload?: unknown,
    b?: Browser,
  ): Promise<LightMyRequestResponse>;
  /** POSTs an alert (an object is sent as JSON text; a string as is) to the scanner webhook. */
  hook(
    webhookId: string,
    body: unknown,
    opts?: { ip?: string; contentType?: string | null },
  ): Promise<LightMyRequestResponse>;
  /** The deliveries route's rows, newest first. */
  deliveries(id: number, limit?: number): Promise<Delivery[]>;
  /** Rows of a table, in id order. */
  rows(table: string): Promise<Row[]>;
  /** The analyzer order book (`/api/v1/orderbook`), newest first. */
  orders(): Promise<Row[]>;
  /** The signed net quantity of a position in the analyzer position book (0 when none). */
  position(symbol: string, product?: string): Promise<number>;
  /** Moves the clock to `hhmm` IST on `date`, pushes fresh quotes and logs the admin in again. */
  moveTo(date: string, hhmm: string): Promise<void>;
  /** Moves the clock on by `ms` and pushes fresh quotes (a MARKET order needs a fresh one). */
  advance(ms: number): Promise<void>;
  /** Pushes fresh quotes for the three stocks at {@link LTP}. */
  freshQuotes(): Promise<void>;
  /** `t.services.scanner`. */
  scanner(): ScannerServices;
}

/** A Chartink alert body for the three mini-contract stocks, with `over` merged in. */
export function chartink(over: Row = {}): Row {
  return {
    stocks: 'SBIN,RELIANCE,INFY',
    trigger_prices: '800,2400.5,1500',
    triggered_at: '10:05 am',
    scan_name: 'Breakout',
    scan_url: 'breakout-scan',
    alert_name: 'Alert for Breakout',
    ...over,
  };
}

/** A fixed-quantity MIS BUY scanner on NSE (override what a test needs). */
export function buyScanner(over: Row = {}): Row {
  return { name: 'breakouts', action: 'BUY', exchange: 'NSE', product: 'MIS', quantity: 10, ...over };
}

export async function startScanner(
  dialect: Dialect,
  env: Record<string, string> = {},
  opts: Omit<TestAppOptions, 'env'> = {},
): Promise<ScannerHarness> {
  const h = await startSandbox(dialect, {
    ...opts,
    env: { HOST_SERVER, WEBHOOK_RATE_LIMIT: '100000 per second', ...env },
  });
  const db = () => h.t.db.database.db as unknown as Kysely<Record<string, Row>>;
  const freshQuotes = () =>
    h.tick({
      'NSE:SBIN': h.quote(LTP.SBIN),
      'NSE:RELIANCE': h.quote(LTP.RELIANCE),
      'NSE:INFY': h.quote(LTP.INFY),
    });
  await h.at(TRADING_DAY, '10:00');
  // The session opened before the clock moved to the trading day has expired.
  h.admin = await login(h.t);
  await freshQuotes();
  const manage: ScannerHarness['manage'] = (method, path, payload, b = h.admin) =>
    h.t.app.inject({
      method,
      url: `/scanner/api/scanners${path}`,
      headers: asBrowser(b),
      ...(payload !== undefined ? { payload: payload as object } : {}),
    });
  const extra: Omit<ScannerHarness, keyof SandboxHarness> = {
    manage,
    async create(body, b) {
      const res = await manage('POST', '', body, b);
      if (res.statusCode !== 200) throw new Error(`create: ${res.statusCode} ${res.body}`);
      const json = res.json() as { data: ScannerView; webhook_id: string; webhook_url: string };
      return { id: json.data.id, webhookId: json.webhook_id, url: json.webhook_url, view: json.data, res };
    },
    hook: (webhookId, body, opts = {}) => {
      const type = opts.contentType === undefined ? 'application/json' : opts.contentType;
      return h.t.app.inject({
        method: 'POST',
        url: `/scanner/webhook/${webhookId}`,
        payload: typeof body === 'string' ? body : JSON.stringify(body),
        headers: type === null ? {} : { 'content-type': type },
        ...(opts.ip ? { remoteAddress: opts.ip } : {}),
      });
    },
    async deliveries(id, limit) {
      const res = await manage('GET', `/${id}/deliveries${limit === undefined ? '' : `?limit=${limit}`}`);
      if (res.statusCode !== 200) throw new Error(`deliveries: ${res.statusCode} ${res.body}`);
      return (res.json() as { data: Delivery[] }).data;
    },
    rows: (table) =>
      isLegacyTable(table)
        ? legacyRows(db() as unknown as Kysely<DB>, table)
        : (db().selectFrom(table).selectAll().orderBy('id').execute() as Promise<Row[]>),
    async orders() {
      return (await h.ok<{ data: { orders: Row[] } }>('orderbook')).data.orders;
    },
    async position(symbol, product = 'MIS') {
      const rows = (await h.ok<{ data: Row[] }>('positionbook')).data;
      const row = rows.find((p) => p.symbol === symbol && p.exchange === 'NSE' && p.product === product);
      return Number(row?.quantity ?? 0);
    },
    async moveTo(date, hhmm) {
      const before = h.t.clock.now();
      await h.at(date, hhmm);
      if (h.t.clock.now() - before > 6 * 3_600_000 || h.t.clock.now() < before) h.admin = await login(h.t);
      await freshQuotes();
    },
    async advance(ms) {
      h.t.clock.set(h.t.clock.now() + ms);
      await freshQuotes();
    },
    freshQuotes,
    scanner: () => h.t.services.scanner,
  };
  return Object.assign(h, extra);
}

/** Epoch ms of `hhmm` IST on the trading day. */
export const onTradingDay = (hhmm: string): number => ist(TRADING_DAY, hhmm);

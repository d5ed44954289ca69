/**
 * Builders for the flow tests (docs/rules/flow.md): a sandbox harness (analyzer mode, the mini
 * contract, scripted quotes) at 10:00 IST on a trading day, flows created over the session routes,
 * deliveries posted to `/flow/webhook/<token>[/<symbol>]` with the secret in the body or the query,
 * and readers of the analyzer books and the flow tables.
 */
import type { LightMyRequestResponse } from 'fastify';
import type { Kysely } from 'kysely';
import type { DB } from '../../src/db/schema.js';
import type { FlowServices } from '../../src/modules/flow/flow.plugin.js';
import type { Dialect } from '../../src/platform/db/database.js';
import { HOST_SERVER, LTP, TRADING_DAY } from './scanner.js';
import { startSandbox, type SandboxHarness } from './sandbox.js';
import { asBrowser, login, type Browser, type TestAppOptions } from './test-app.js';
import { isLegacyTable, legacyRows } from './webhook-rows.js';

export { HOST_SERVER, LTP, TRADING_DAY };
/** `flw_` and 43 base64url characters (32 random bytes). */
export const FLOW_TOKEN = /^flw_[A-Za-z0-9_-]{43}$/;

type Row = Record<string, unknown>;

/** A flow as the session routes show it. */
export interface FlowView {
  id: number;
  name: string;
  definition: { exchange?: string; symbol?: string; nodes: Row[] };
  enabled: boolean;
  created_at: number;
  updated_at: number;
}

/** One node's outcome in an answer or a run. */
export interface NodeOutcome {
  id: string;
  type: string;
  status: 'done' | 'skipped' | 'failed';
  result?: boolean;
  orderid?: string;
  message?: string;
}

/** The webhook's answer. */
export interface FlowAnswer {
  status: 'success' | 'error';
  result: string;
  message: string;
  flow_id?: number;
  run_id?: number;
  nodes?: NodeOutcome[];
}

/** A run as `…/runs` lists it. */
export interface FlowRun {
  id: number;
  ts: number;
  ip: string;
  result: string;
  http_status: number;
  symbol: string | null;
  message: string;
  payload: unknown;
  nodes: NodeOutcome[] | null;
  duration_ms: number;
}

/** What creation (and rotation) shows once. */
export interface Created {
  id: number;
  token: string;
  secret: string;
  url: string;
  view: FlowView;
  res: LightMyRequestResponse;
}

export interface HookOptions {
  /** The `/<symbol>` path segment. */
  symbol?: string;
  /** A raw query string (without `?`), e.g. `secret=…`. */
  query?: string;
  ip?: string;
  /** `null` sends no content type. */
  contentType?: string | null;
}

export interface FlowHarness extends SandboxHarness {
  /** Creates a flow over HTTP (200 expected). */
  create(body: Row, b?: Browser): Promise<Created>;
  /** A session request under `/flow/api/flows` (cookie and CSRF header). */
  manage(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    payload?: unknown,
    b?: Browser,
  ): Promise<LightMyRequestResponse>;
  /** POSTs a delivery (an object is sent as JSON text, a string as is). */
  hook(token: string, body: unknown, opts?: HookOptions): Promise<LightMyRequestResponse>;
  /** The runs route's rows, newest first. */
  runs(id: number, limit?: number): Promise<FlowRun[]>;
  /** Rows of a table, in id order. */
  rows(table: string): Promise<Row[]>;
  /** The analyzer order book (`/api/v1/orderbook`), newest first. */
  orders(): Promise<Row[]>;
  /** The signed net quantity of an NSE position in the analyzer position book (0 when none). */
  position(symbol: string, product?: string): Promise<number>;
  /** Moves the clock on by `ms` and pushes fresh quotes (a MARKET order needs a fresh one). */
  advance(ms: number): Promise<void>;
  /** Moves the clock to `hhmm` IST on `date`, pushes fresh quotes, logs in again when needed. */
  moveTo(date: string, hhmm: string): Promise<void>;
  /** Pushes fresh quotes for the three stocks at {@link LTP}. */
  freshQuotes(): Promise<void>;
  /** `t.services.flow`. */
  flow(): FlowServices;
}

/**
 * The issue's flow: a compare condition on `{{webhook.signal}}` then a place_order of `{{symbol}}`
 * with the body's action and quantity.
 */
export function signalFlow(over: Row = {}): Row {
  return {
    name: 'signal',
    definition: {
      nodes: [
        {
          id: 'gate',
          type: 'condition',
          when: { kind: 'compare', left: '{{webhook.signal}}', op: 'eq', right: 'go' },
        },
        {
          id: 'entry',
          type: 'place_order',
          symbol: '{{symbol}}',
          action: '{{webhook.action}}',
          quantity: '{{webhook.qty}}',
        },
      ],
    },
    ...over,
  };
}

/** A flow of `nodes` (named `name`). */
export const flowOf = (name: string, nodes: Row[], extra: Row = {}): Row => ({
  name,
  definition: { ...extra, nodes },
});

export async function startFlow(
  dialect: Dialect,
  env: Record<string, string> = {},
  opts: Omit<TestAppOptions, 'env'> = {},
): Promise<FlowHarness> {
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
  const manage: FlowHarness['manage'] = (method, path, payload, b = h.admin) =>
    h.t.app.inject({
      method,
      url: `/flow/api/flows${path}`,
      headers: asBrowser(b),
      ...(payload !== undefined ? { payload: payload as object } : {}),
    });
  const extra: Omit<FlowHarness, keyof SandboxHarness> = {
    manage,
    async create(body, b) {
      const res = await manage('POST', '', body, b);
      if (res.statusCode !== 200) throw new Error(`create: ${res.statusCode} ${res.body}`);
      const json = res.json() as {
        data: FlowView;
        webhook_token: string;
        webhook_url: string;
        secret: string;
      };
      return {
        id: json.data.id,
        token: json.webhook_token,
        secret: json.secret,
        url: json.webhook_url,
        view: json.data,
        res,
      };
    },
    hook(token, body, o = {}) {
      const type = o.contentType === undefined ? 'application/json' : o.contentType;
      const path = `/flow/webhook/${token}${o.symbol === undefined ? '' : `/${o.symbol}`}`;
      return h.t.app.inject({
        method: 'POST',
        url: o.query === undefined ? path : `${path}?${o.query}`,
        payload: typeof body === 'string' ? body : JSON.stringify(body),
        headers: type === null ? {} : { 'content-type': type },
        ...(o.ip ? { remoteAddress: o.ip } : {}),
      });
    },
    async runs(id, limit) {
      const res = await manage('GET', `/${id}/runs${limit === undefined ? '' : `?limit=${limit}`}`);
      if (res.statusCode !== 200) throw new Error(`runs: ${res.statusCode} ${res.body}`);
      return (res.json() as { data: FlowRun[] }).data;
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
    async advance(ms) {
      h.t.clock.set(h.t.clock.now() + ms);
      await freshQuotes();
    },
    async moveTo(date, hhmm) {
      const before = h.t.clock.now();
      await h.at(date, hhmm);
      if (h.t.clock.now() - before > 6 * 3_600_000 || h.t.clock.now() < before) h.admin = await login(h.t);
      await freshQuotes();
    },
    freshQuotes,
    flow: () => h.t.services.flow,
  };
  return Object.assign(h, extra);
}

/**
 * Every analyzer order of the account since its reset (not the order book, which is the day's) as
 * `SIDE SYMBOL×QTY PRODUCT`, oldest first.
 */
export async function placed(h: FlowHarness): Promise<string[]> {
  return (await h.rows('sandbox_orders')).map(
    (o) => `${String(o.side)} ${String(o.symbol)}×${String(o.quantity)} ${String(o.product)}`,
  );
}

export const answer = (res: { json(): unknown }): FlowAnswer => res.json() as FlowAnswer;

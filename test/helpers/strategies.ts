/**
 * Builders for the strategy tests: a sandbox harness (analyzer mode, mini contract, scripted
 * quotes) at 10:00 IST on a trading day, strategies created over HTTP, webhook deliveries.
 */
import type { LightMyRequestResponse } from 'fastify';
import type { Dialect } from '../../src/platform/db/database.js';
import { startSandbox, type SandboxHarness } from './sandbox.js';
import { asBrowser, login, type Browser, type TestAppOptions } from './test-app.js';
import { legacyRows } from './webhook-rows.js';

export const HOST_SERVER = 'https://desk.example.com';
export const TRADING_DAY = '2026-08-17';

export interface StrategyHarness extends SandboxHarness {
  create(
    body: Record<string, unknown>,
    b?: Browser,
  ): Promise<{ id: number; token: string; url: string; res: LightMyRequestResponse }>;
  hook(
    token: string,
    body: unknown,
    opts?: { ip?: string; headers?: Record<string, string> },
  ): Promise<LightMyRequestResponse>;
  manage(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    payload?: object,
    b?: Browser,
  ): Promise<LightMyRequestResponse>;
  /** Rows of a table, for assertions. */
  rows(
    table: 'strategy_events' | 'webhook_deliveries' | 'strategy_orders' | 'strategy_runs',
  ): Promise<Record<string, unknown>[]>;
}

export async function startStrategies(
  dialect: Dialect,
  env: Record<string, string> = {},
  opts: Omit<TestAppOptions, 'env'> = {},
): Promise<StrategyHarness> {
  const h = await startSandbox(dialect, {
    ...opts,
    env: { HOST_SERVER, WEBHOOK_RATE_LIMIT: '100000 per second', ...env },
  });
  await h.at(TRADING_DAY, '10:00');
  // The session opened before the clock moved to the trading day has expired.
  h.admin = await login(h.t);
  await h.tick({
    'NSE:SBIN': h.quote(800),
    'NSE:INFY': h.quote(1500),
    'NSE:RELIANCE': h.quote(1400),
    'NSE_INDEX:NIFTY': h.quote(25980),
    'NFO:NIFTY25AUG26FUT': h.quote(26010),
    'NFO:NIFTY18AUG2626000CE': h.quote(120),
  });
  const manage: StrategyHarness['manage'] = (method, path, payload, b = h.admin) =>
    h.t.app.inject({
      method,
      url: `/strategy/api/strategies${path}`,
      headers: asBrowser(b),
      ...(payload ? { payload } : {}),
    });
  return Object.assign(h, {
    manage,
    async create(body: Record<string, unknown>, b?: Browser) {
      const res = await manage('POST', '', body, b);
      if (res.statusCode !== 201) throw new Error(`create: ${res.statusCode} ${res.body}`);
      const data = (res.json() as { data: { id: number; webhook_token: string; webhook_url: string } }).data;
      return { id: data.id, token: data.webhook_token, url: data.webhook_url, res };
    },
    hook: (token: string, body: unknown, opts: { ip?: string; headers?: Record<string, string> } = {}) =>
      h.t.app.inject({
        method: 'POST',
        url: `/strategy/webhook/${token}`,
        payload: typeof body === 'string' ? body : JSON.stringify(body),
        headers: { 'content-type': 'application/json', ...opts.headers },
        ...(opts.ip ? { remoteAddress: opts.ip } : {}),
      }),
    async rows(table: 'strategy_events' | 'webhook_deliveries' | 'strategy_orders' | 'strategy_runs') {
      if (table === 'webhook_deliveries') return legacyRows(h.t.db.database.db, table);
      return (await h.t.db.database.db.selectFrom(table).selectAll().orderBy('id').execute()) as Record<
        string,
        unknown
      >[];
    },
  });
}

export const SIGNAL_SBIN = {
  name: 'sbin signals',
  kind: 'signal',
  product: 'MIS',
  legs: [{ symbol: 'SBIN', exchange: 'NSE', quantity: 1 }],
};

export const BATCH_PAIR = {
  name: 'pair batch',
  kind: 'batch',
  product: 'MIS',
  legs: [
    { symbol: 'INFY', exchange: 'NSE', quantity: 2, side: 'SELL' },
    { symbol: 'SBIN', exchange: 'NSE', quantity: 3, side: 'BUY' },
  ],
};

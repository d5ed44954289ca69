/**
 * The kill tests' world: a database prepared in this process (an administrator with an API key,
 * the mini Kite master contract, analyzer mode on, strategies), then the real server run on it as
 * a child process (helpers/serve-with-kill.ts), killed with SIGKILL, and started again on the
 * same data — as an operator's service would be. Prices come from a scripted feed file whose
 * quotes stay fresh for a day; products are CNC, so no square-off time or session gets in the way
 * whatever the hour the suite runs at.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import type { Dialect } from '../../src/platform/db/database.js';
import { runCliHere } from './cli-process.js';
import { importContract } from './contracts.js';
import { miniKiteContract } from './sandbox.js';
import { createTestDatabase, databaseUrlOf, type TestDatabase } from './test-database.js';
import { createTestServices } from './test-services.js';
import { freePort } from './tunnel-app.js';

/** A signal strategy on one CNC symbol (long only: entries and exits of 1 share). */
export const cncSignal = (name: string, symbol: string) => ({
  name,
  kind: 'signal',
  product: 'CNC',
  direction: 'long_only',
  legs: [{ symbol, exchange: 'NSE', quantity: 1 }],
});

export interface KillWorld {
  db: TestDatabase;
  dialect: Dialect;
  apikey: string;
  /** Webhook tokens by strategy name. */
  tokens: Record<string, string>;
  /** Strategy ids by name. */
  ids: Record<string, number>;
  /**
   * A price script whose quotes are a day old, for `start({ SANDBOX_SCRIPT_FILE })`: MARKET orders
   * rest in that life, and fill in the next one's fresh quotes.
   */
  staleScript: string;
  /** Starts the server on the world's data; `env` adds settings (`KILL_AT_SEAM`). */
  start(env?: Record<string, string>): Promise<ServerProcess>;
  /** The account's net quantity of an NSE CNC symbol (the sandbox's positions table). */
  accountPosition(symbol: string): Promise<number>;
  /** Resolves once the account holds `quantity` of the symbol (a resting order filled). */
  holds(symbol: string, quantity: number): Promise<void>;
  /** A strategy's exposure: its active run's filled net plus working quantity (0 without a run). */
  exposure(name: string): Promise<number>;
  /** Resolves once no strategy order intent is left unsettled (the reconcile pass has run). */
  reconciled(): Promise<void>;
  /**
   * Runs `algodesk sandbox verify` on the world's data as an operator would after a crash
   * (docs/rules/sandbox.md#ledger-check); throws with its report unless every account agrees.
   */
  verifyBooks(): Promise<void>;
  close(): Promise<void>;
}

export interface ServerProcess {
  port: number;
  /** Everything the process wrote (both streams). */
  output(): string;
  /** POSTs JSON; the status and parsed body, or the error when the connection died. */
  post(path: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> } | Error>;
  /** The process has exited (by a signal or on its own): its exit code, null when killed. */
  exited: Promise<number | null>;
  kill(): Promise<void>;
}

const QUOTE_PRICES: Record<string, number> = { SBIN: 800, INFY: 1500, RELIANCE: 1400 };

/** Prepares the data: the world's strategies are created from `strategies`. */
export async function killWorld(dialect: Dialect, strategies: object[]): Promise<KillWorld> {
  const dataDir = mkdtempSync(join(tmpdir(), 'algodesk-kill-'));
  const db = await createTestDatabase(dialect, dataDir);
  // INSTANCE_ID fixed: every start is the same instance restarting on its data.
  const env = { INSTANCE_ID: 'kill-test', HOST_SERVER: 'http://127.0.0.1:5000' };
  const t = await createTestServices(dialect, { db, env });
  const s = t.services;
  const user = await s.auth.users.create({
    username: 'admin',
    password: 'correct horse battery',
    email: 'a@x.io',
  });
  const { apikey } = await s.auth.apiKeys.regenerate(user.id);
  await importContract(t, 'zerodha', miniKiteContract());
  await s.sandbox.mode.set(true);
  const tokens: Record<string, string> = {};
  const ids: Record<string, number> = {};
  for (const body of strategies) {
    const created = await s.strategies.strategies.create(user.id, body as never);
    tokens[created.name] = created.webhook_token;
    ids[created.name] = created.id;
  }
  await t.close(); // stops the services; the database stays (it was handed in)

  const now = Date.now();
  const quotesAt = (timestamp: number) =>
    Object.fromEntries(
      Object.entries(QUOTE_PRICES).map(([symbol, ltp]) => [
        `NSE:${symbol}`,
        { ltp, bid: ltp - 0.05, ask: ltp + 0.05, high: ltp * 1.05, low: ltp * 0.95, timestamp },
      ]),
    );
  const script = join(dataDir, 'prices.json');
  writeFileSync(script, JSON.stringify([{ at: 0, quotes: quotesAt(now + 86_400_000) }]));
  const staleScript = join(dataDir, 'stale-prices.json');
  writeFileSync(staleScript, JSON.stringify([{ at: 0, quotes: quotesAt(now - 86_400_000) }]));
  const url = databaseUrlOf(db);
  const sql = db.database.db;
  const servers: ServerProcess[] = [];

  const world: KillWorld = {
    db,
    dialect,
    apikey,
    tokens,
    ids,
    staleScript,
    async start(extra = {}) {
      const server = await spawnServer({
        ...env,
        DATA_DIR: dataDir,
        DATABASE_URL: url,
        REDIS_URL: '',
        LOG_LEVEL: 'warn',
        SANDBOX_PRICE_SOURCE: 'scripted',
        SANDBOX_SCRIPT_FILE: script,
        // The real clock, any hour: these suites are about crashes, not the exchange's sessions.
        SANDBOX_SESSIONS: 'ignore',
        API_RATE_LIMIT: '100000 per second',
        ORDER_RATE_LIMIT: '100000 per second',
        WEBHOOK_RATE_LIMIT: '100000 per second',
        ...extra,
      });
      servers.push(server);
      return server;
    },
    async accountPosition(symbol) {
      const rows = await sql
        .selectFrom('sandbox_positions')
        .select('quantity')
        .where('user_id', '=', user.id)
        .where('symbol', '=', symbol)
        .where('exchange', '=', 'NSE')
        .where('product', '=', 'CNC')
        .execute();
      return rows.reduce((n, r) => n + Number(r.quantity), 0);
    },
    async holds(symbol, quantity) {
      const deadline = Date.now() + 20_000;
      while ((await world.accountPosition(symbol)) !== quantity) {
        if (Date.now() > deadline) throw new Error(`the account never held ${quantity} ${symbol}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async exposure(name) {
      const s = await sql
        .selectFrom('strategies')
        .select('active_run_id')
        .where('id', '=', ids[name]!)
        .executeTakeFirstOrThrow();
      if (s.active_run_id === null) return 0;
      const rows = await sql
        .selectFrom('strategy_positions')
        .select(['net', 'working'])
        .where('run_id', '=', s.active_run_id)
        .execute();
      return rows.reduce((n, r) => n + Number(r.net) + Number(r.working), 0);
    },
    async reconciled() {
      const deadline = Date.now() + 20_000;
      for (;;) {
        const left = await sql
          .selectFrom('strategy_orders')
          .select('id')
          .where('status', '=', 'recorded')
          .execute();
        if (left.length === 0) return;
        if (Date.now() > deadline)
          throw new Error(`${left.length} strategy order intent(s) never reconciled`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async verifyBooks() {
      const r = await runCliHere(['sandbox', 'verify'], {
        env: {
          PATH: process.env.PATH ?? '',
          ...env,
          DATA_DIR: dataDir,
          DATABASE_URL: url,
          LOG_LEVEL: 'warn',
        },
      });
      if (r.code !== 0) throw new Error(`sandbox verify exited ${String(r.code)}:\n${r.out}${r.err}`);
    },
    async close() {
      for (const server of servers) await server.kill();
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return world;
}

/** Starts `serve-with-kill.ts` with `env` (and nothing of this process's environment but PATH). */
async function spawnServer(env: Record<string, string>): Promise<ServerProcess> {
  const port = await freePort();
  const entry = join(import.meta.dirname, 'serve-with-kill.ts');
  const proc: ChildProcessWithoutNullStreams = spawn(process.execPath, ['--import', 'tsx', entry], {
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: String(port), ...env },
  });
  let out = '';
  proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => proc.on('close', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}`)), 40_000);
    const check = () => {
      if (!out.includes('algodesk is running at')) return;
      clearTimeout(timer);
      proc.stderr.off('data', check);
      resolve();
    };
    proc.stderr.on('data', check);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`server exited before it was ready:\n${out}`));
    });
  });
  const agent = new Agent({ connections: 64, pipelining: 1 });
  return {
    port,
    output: () => out,
    async post(path, body) {
      try {
        const res = await request(`http://127.0.0.1:${port}${path}`, {
          method: 'POST',
          dispatcher: agent,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        const text = await res.body.text();
        return { status: res.statusCode, body: JSON.parse(text) as Record<string, unknown> };
      } catch (err) {
        return err instanceof Error ? err : new Error(String(err));
      }
    },
    exited,
    async kill() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
      await exited;
      await agent.destroy().catch(() => undefined);
    },
  };
}

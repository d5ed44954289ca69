/**
 * `--baseline same-writes` (bench/lib/baseline-same-writes.mjs) is the floor of the durable work of
 * `placeorder-analyze` (one analyzer-mode MARKET order filled at once) and of `webhook-signal` (one
 * `long_entry`/`long_exit` delivery to a signal strategy in analyzer mode) only while it writes what
 * algodesk writes for one such request. Each case warms the real app up as the bench's `ready`
 * does, gives the baseline a copy of the app's database as the bench does (SQLite: `VACUUM INTO`;
 * PostgreSQL: a schema of its own, migrated, into which the baseline copies the app's rows), sends
 * the same request to both and compares, table by table, the rows each added and the rows each
 * inserted, updated and deleted (counted by triggers on every table): a table algodesk starts
 * writing, or stops writing, fails it until the baseline does the same. No timing is asserted.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { afterEach, expect, it } from 'vitest';
import { MINI, startSandbox, type SandboxHarness } from '../helpers/sandbox.js';
import { SIGNAL_SBIN, startStrategies } from '../helpers/strategies.js';
import { createTestDatabase, describeEachDb, pgUrl, type TestDatabase } from '../helpers/test-app.js';
import type { Dialect } from '../../src/platform/db/database.js';

const BASELINE = join(import.meta.dirname, '../../bench/lib/baseline-same-writes.mjs');
const SBIN = `${MINI.SBIN.exchange}:${MINI.SBIN.symbol}`;
/** The bench's order (bench/benches/order-bench.ts, sbinOrder): 1 SBIN MIS MARKET. */
const order = (action: 'BUY' | 'SELL') => ({
  strategy: 'bench',
  symbol: 'SBIN',
  exchange: 'NSE',
  action,
  quantity: 1,
  pricetype: 'MARKET',
  product: 'MIS',
});

/** What every trigger appends to: one row per row written, by table and operation. */
const WRITES_TABLE = 'test_writes';

/** Rows per table, and rows written per `table op`. */
interface Snapshot {
  rows: Record<string, number>;
  writes: Record<string, number>;
}

/** A database whose writes are counted: SQLite's file, or a PostgreSQL schema. */
type Where = { file: string } | { schema: string };

/**
 * Creates {@link WRITES_TABLE} and triggers on every table that record each row inserted, updated
 * or deleted. SQLite's virtual tables (and the shadow tables of full-text indexes, which refuse
 * triggers) are left out: only their rows are counted.
 */
async function countWrites(where: Where): Promise<void> {
  if ('file' in where) {
    const db = new SQLite(where.file);
    try {
      db.exec(`create table ${WRITES_TABLE} (tbl text not null, op text not null)`);
      for (const t of sqliteTables(db))
        for (const op of ['insert', 'update', 'delete'])
          try {
            db.exec(
              `create trigger "test_${t}_${op}" after ${op} on "${t}" begin
                 insert into ${WRITES_TABLE} (tbl, op) values ('${t}', '${op}'); end`,
            );
          } catch {
            // a shadow table: written by its index only
          }
    } finally {
      db.close();
    }
    return;
  }
  await withSchema(where.schema, async (c, s) => {
    await c.query(`create table ${s}.${WRITES_TABLE} (tbl text not null, op text not null)`);
    await c.query(
      `create function ${s}.test_count_write() returns trigger language plpgsql as $$
       begin insert into ${s}.${WRITES_TABLE} (tbl, op) values (tg_table_name, lower(tg_op)); return null; end $$`,
    );
    for (const t of await pgTables(c, where.schema))
      await c.query(
        `create trigger test_count_write after insert or update or delete on ${s}."${t}"
         for each row execute function ${s}.test_count_write()`,
      );
  });
}

function sqliteTables(db: SQLite.Database): string[] {
  return db
    .prepare(
      `select name from sqlite_master where type = 'table' and name not like 'sqlite_%'
         and name <> '${WRITES_TABLE}' and sql not like 'create virtual%' collate nocase`,
    )
    .pluck()
    .all() as string[];
}

async function pgTables(c: pg.Client, schema: string): Promise<string[]> {
  const { rows } = await c.query<{ name: string }>(
    `select table_name as name from information_schema.tables
     where table_schema = $1 and table_type = 'BASE TABLE' and table_name <> $2`,
    [schema, WRITES_TABLE],
  );
  return rows.map((r) => r.name);
}

async function withSchema<T>(schema: string, fn: (c: pg.Client, quoted: string) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: pgUrl });
  await c.connect();
  try {
    return await fn(c, `"${schema}"`);
  } finally {
    await c.end();
  }
}

/** Rows per table, and rows written per `table op`, of the database now. */
async function snapshot(where: Where): Promise<Snapshot> {
  let counts: [string, number][];
  let grouped: { k: string; n: number }[];
  const byTableOp = `select tbl || ' ' || op as k, count(*) as n from ${WRITES_TABLE} group by tbl, op`;
  if ('file' in where) {
    const db = new SQLite(where.file, { readonly: true, fileMustExist: true });
    try {
      const tables = db
        .prepare(`select name from sqlite_master where type = 'table' and name <> '${WRITES_TABLE}'`)
        .pluck()
        .all() as string[];
      counts = tables.map((t) => [t, db.prepare(`select count(*) from "${t}"`).pluck().get() as number]);
      grouped = db.prepare(byTableOp).all() as { k: string; n: number }[];
    } finally {
      db.close();
    }
  } else {
    ({ counts, grouped } = await withSchema(where.schema, async (c, s) => {
      const pgCounts: [string, number][] = [];
      for (const t of await pgTables(c, where.schema))
        pgCounts.push([
          t,
          Number((await c.query<{ n: string }>(`select count(*) as n from ${s}."${t}"`)).rows[0]!.n),
        ]);
      return {
        counts: pgCounts,
        grouped: (
          await c.query<{ k: string; n: string }>(byTableOp.replace(WRITES_TABLE, `${s}.${WRITES_TABLE}`))
        ).rows.map((r) => ({ k: r.k, n: Number(r.n) })),
      };
    }));
  }
  return { rows: Object.fromEntries(counts), writes: Object.fromEntries(grouped.map((r) => [r.k, r.n])) };
}

/** The non-zero differences `after - before`, by key. */
function delta(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  return Object.fromEntries(
    [...keys].map((k) => [k, (after[k] ?? 0) - (before[k] ?? 0)] as const).filter(([, n]) => n !== 0),
  );
}

/**
 * Algodesk writes part of a request's rows after it answers (the log's dispatched mark, the
 * latency and traffic rows, in batches): a snapshot taken once everything buffered is written.
 */
async function settled(h: SandboxHarness, where: Where): Promise<Snapshot> {
  const { t } = h;
  for (let previous = ''; ;) {
    await new Promise((resolve) => setImmediate(resolve));
    await t.services.orders.events.whenIdle();
    await t.services.orders.latency.flush();
    await t.services.observability.traffic.flush();
    await t.services.orders.events.whenIdle();
    const now = await snapshot(where);
    if (JSON.stringify(now) === previous) return now;
    previous = JSON.stringify(now);
  }
}

/** A baseline and the database it writes. */
interface Baseline {
  url: string;
  child: ChildProcess;
  where: Where;
}

let running: { baseline?: ChildProcess; h?: SandboxHarness; db?: TestDatabase; dir?: string } = {};
afterEach(async () => {
  const { baseline, h, db, dir } = running;
  running = {};
  if (baseline && baseline.exitCode === null) {
    const exited = once(baseline, 'exit');
    baseline.kill('SIGTERM');
    await exited;
  }
  await db?.drop();
  await h?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/**
 * The app's database (write counters installed), and a baseline of `kind` on a copy of it as it is
 * now, as the bench makes it once the server is ready: SQLite `VACUUM INTO` a file (counters
 * included); PostgreSQL a schema of its own, migrated, with counters, that the baseline fills with
 * the app's rows when it starts.
 */
async function startBaseline(
  h: SandboxHarness,
  dialect: Dialect,
  kind: 'placeorder' | 'webhook',
  /** The paths it serves (the webhook bench's: one strategy's webhook per connection). */
  paths: string[],
): Promise<Baseline> {
  const dir = (running.dir = mkdtempSync(join(tmpdir(), 'algodesk-same-writes-')));
  const target = h.t.db.target;
  let where: Where;
  let store: Record<string, unknown>;
  if (target.kind === 'sqlite') {
    const file = join(dir, 'baseline.db');
    const db = new SQLite(target.file);
    try {
      db.prepare('vacuum into ?').run(file);
    } finally {
      db.close();
    }
    where = { file };
    store = { dbFile: file };
  } else {
    const copy = (running.db = await createTestDatabase(dialect, dir));
    const schema = copy.target.kind === 'postgres' ? copy.target.schema! : '';
    where = { schema };
    await countWrites(where);
    store = { pgUrl, schema, copyFrom: target.schema, poolSize: 10 };
  }
  const spec = join(dir, 'baseline.json');
  writeFileSync(
    spec,
    JSON.stringify({
      port: 0,
      method: 'POST',
      paths,
      status: 200,
      contentType: 'application/json; charset=utf-8',
      kind,
      userId: 1,
      fill: { BUY: 800.05, SELL: 799.95 },
      ...store,
    }),
  );
  const child = (running.baseline = spawn(process.execPath, [BASELINE, spec], {
    stdio: ['ignore', 'ignore', 'pipe'],
  }));
  let log = '';
  child.stderr!.setEncoding('utf8');
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (chunk: string) => {
      log += chunk;
      const m = /baseline is running at (http:\/\/127\.0\.0\.1:\d+)/.exec(log);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`baseline exited (${code}) during start-up:\n${log}`)));
  });
  return { url, child, where };
}

const appWhere = (h: SandboxHarness): Where => {
  const target = h.t.db.target;
  return target.kind === 'sqlite' ? { file: target.file } : { schema: target.schema! };
};

/** POSTs `body` to the baseline. */
async function post(baseline: Baseline, path: string, body: unknown) {
  const res = await fetch(`${baseline.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, contentType: res.headers.get('content-type'), body: await res.text() };
}

/**
 * Sends one request to each side (`app`, then `base`) and checks that both answered alike (after
 * `normalize`) and wrote the same rows, table by table; returns the app's rows added.
 */
async function sameWrites(
  h: SandboxHarness,
  baseline: Baseline,
  app: () => Promise<{ statusCode: number; body: string; headers: Record<string, unknown> }>,
  base: () => ReturnType<typeof post>,
  normalize: (body: string) => string = (body) => body,
): Promise<Snapshot> {
  const appBefore = await settled(h, appWhere(h));
  const baselineBefore = await snapshot(baseline.where);
  const a = await app();
  expect(a.statusCode, a.body).toBe(200);
  const b = await base();
  const appAfter = await settled(h, appWhere(h));
  const baselineAfter = await snapshot(baseline.where);

  expect(normalize(b.body)).toBe(normalize(a.body));
  expect(b.contentType).toBe(a.headers['content-type']);
  const rows = delta(appBefore.rows, appAfter.rows);
  const writes = delta(appBefore.writes, appAfter.writes);
  expect({
    rows: delta(baselineBefore.rows, baselineAfter.rows),
    writes: delta(baselineBefore.writes, baselineAfter.writes),
  }).toEqual({ rows, writes });
  return { rows, writes };
}

/**
 * Runs the sandbox's day jobs now that the test's clock is set: the engine also runs them every
 * 5 s of real time, and the first pass after the clock moved writes the accounts' equity of the
 * day, a row no request wrote, which would land in a measured window on a slow machine. The next
 * pass writes again only 5 minutes later on the test's clock, which stands still.
 */
const dayJobsDone = (h: SandboxHarness) => h.t.services.sandbox.jobs.run();

describeEachDb('the same-writes baseline', (dialect) => {
  it('placeorder-analyze: writes, table by table, the rows one analyzer-mode MARKET order writes through the app', async () => {
    const h = (running.h = await startSandbox(dialect));
    await countWrites(appWhere(h));
    h.t.clock.set(Date.parse('2026-01-05T10:00:00+05:30'));
    await h.tick({ [SBIN]: h.quote(800) });
    await dayJobsDone(h);
    const placeApp = async (action: 'BUY' | 'SELL') => {
      const res = await h.api('placeorder', order(action));
      expect(res.statusCode, res.body).toBe(200);
      return res;
    };
    // The bench's `ready`: a BUY and a SELL, before the baseline's copy is made.
    await placeApp('BUY');
    await placeApp('SELL');
    await settled(h, appWhere(h));
    const path = '/api/v1/placeorder';
    const baseline = await startBaseline(h, dialect, 'placeorder', [path]);

    const { rows } = await sameWrites(
      h,
      baseline,
      () => placeApp('BUY'),
      () => post(baseline, path, { apikey: h.apikey, ...order('BUY') }),
      // The same answer, but for the order's id.
      (body) => body.replace(/"orderid":"\d+"/, ''),
    );
    // What the test is about: the app's order was measured (its rows are there).
    expect(rows).toMatchObject({ sandbox_orders: 1, analyzer_logs: 1 });
  });

  it('webhook-signal: writes, table by table, the rows each long_entry / long_exit delivery writes through the app', async () => {
    const h = (running.h = await startStrategies(dialect));
    await countWrites(appWhere(h));
    await dayJobsDone(h);
    // The bench gives each connection a strategy of its own: two here, their signals interleaved.
    const tokens = [
      (await h.create({ ...SIGNAL_SBIN, name: 'bench 1' })).token,
      (await h.create({ ...SIGNAL_SBIN, name: 'bench 2' })).token,
    ];
    const paths = tokens.map((token) => `/strategy/webhook/${token}`);
    const hook = async (strategy: number, action: string) => {
      const res = await h.hook(tokens[strategy]!, { action });
      expect(res.statusCode, res.body).toBe(200);
      return res;
    };
    // The bench's `ready`: a test entry and exit on each (the first opens the run).
    for (const strategy of [0, 1]) {
      await hook(strategy, 'long_entry');
      await hook(strategy, 'long_exit');
    }
    await settled(h, appWhere(h));
    const baseline = await startBaseline(h, dialect, 'webhook', paths);

    // Entries and exits that place an order, and the same signals again, which change nothing.
    const added: Record<string, number>[] = [];
    const signals: [number, string][] = [
      [0, 'long_entry'],
      [1, 'long_entry'],
      [0, 'long_entry'],
      [1, 'long_exit'],
      [0, 'long_exit'],
      [1, 'long_exit'],
    ];
    for (const [strategy, action] of signals) {
      const { rows } = await sameWrites(
        h,
        baseline,
        () => hook(strategy, action),
        () => post(baseline, paths[strategy]!, { action }),
        // Each strategy's answer names it and its run.
        (body) => body.replace(/"strategy_id":\d+,"run_id":\d+/, ''),
      );
      added.push(rows);
    }
    // What the test is about: the deliveries were measured (an order each, but for the repeats).
    expect(added.map((r) => [r.webhook_deliveries, r.sandbox_orders ?? 0])).toEqual([
      [1, 1],
      [1, 1],
      [1, 0],
      [1, 1],
      [1, 1],
      [1, 0],
    ]);
  });
});

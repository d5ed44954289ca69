/**
 * `placeorder-analyze --baseline same-writes` (bench/lib/baseline-same-writes.mjs) is the
 * floor of the durable work of one analyzer-mode MARKET order filled at once only while it writes
 * what algodesk writes for one. This test places such an order through the real app and sends one
 * request to the baseline, each after the same warm-up (a BUY and a SELL, as the bench's `ready`
 * does), and compares, table by table, the rows each added and the rows each inserted, updated and
 * deleted (counted by triggers on every table): a table algodesk starts writing, or stops writing,
 * fails it until the baseline does the same. The baseline's database is a copy of the app's after
 * its set-up (user, API key, contract), as the bench makes it. No timing is asserted.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import SQLite from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MINI, startSandbox, type SandboxHarness } from '../helpers/sandbox.js';

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

/**
 * The tables of the database, and triggers on each that record every row inserted, updated or
 * deleted in {@link WRITES_TABLE}. Virtual tables (and the shadow tables of full-text indexes,
 * which refuse triggers) are left out: only their rows are counted.
 */
function countWrites(db: SQLite.Database): void {
  db.exec(`create table ${WRITES_TABLE} (tbl text not null, op text not null)`);
  const tables = db
    .prepare(
      `select name from sqlite_master where type = 'table' and name not like 'sqlite_%'
         and name <> '${WRITES_TABLE}' and sql not like 'create virtual%' collate nocase`,
    )
    .pluck()
    .all() as string[];
  for (const t of tables)
    for (const op of ['insert', 'update', 'delete'])
      try {
        db.exec(
          `create trigger "test_${t}_${op}" after ${op} on "${t}" begin
             insert into ${WRITES_TABLE} (tbl, op) values ('${t}', '${op}'); end`,
        );
      } catch {
        // a shadow table: written by its index only
      }
}

/** Rows per table, and rows written per `table op`, of the database at `file` now. */
function snapshot(file: string): { rows: Record<string, number>; writes: Record<string, number> } {
  const db = new SQLite(file, { readonly: true, fileMustExist: true });
  try {
    const tables = db
      .prepare(`select name from sqlite_master where type = 'table' and name <> '${WRITES_TABLE}'`)
      .pluck()
      .all() as string[];
    const rows = Object.fromEntries(
      tables.map((t) => [t, db.prepare(`select count(*) from "${t}"`).pluck().get() as number]),
    );
    const grouped = db
      .prepare(`select tbl || ' ' || op as k, count(*) as n from ${WRITES_TABLE} group by tbl, op`)
      .all() as { k: string; n: number }[];
    return { rows, writes: Object.fromEntries(grouped.map((r) => [r.k, r.n])) };
  } finally {
    db.close();
  }
}

/** The non-zero differences `after - before`, by key. */
function delta(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  return Object.fromEntries(
    [...keys].map((k) => [k, (after[k] ?? 0) - (before[k] ?? 0)] as const).filter(([, n]) => n !== 0),
  );
}

/** Starts the baseline on `dbFile`; resolves with its URL once it listens. */
async function startBaseline(dir: string, dbFile: string): Promise<{ url: string; child: ChildProcess }> {
  const spec = join(dir, 'baseline.json');
  writeFileSync(
    spec,
    JSON.stringify({
      port: 0,
      method: 'POST',
      path: '/api/v1/placeorder',
      status: 200,
      contentType: 'application/json; charset=utf-8',
      dbFile,
      userId: 1,
      fill: { BUY: 800.05, SELL: 799.95 },
    }),
  );
  const child = spawn(process.execPath, [BASELINE, spec], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr!.setEncoding('utf8');
  const ready = new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (chunk: string) => {
      log += chunk;
      const m = /baseline is running at (http:\/\/127\.0\.0\.1:\d+)/.exec(log);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`baseline exited (${code}) during start-up:\n${log}`)));
  });
  return { url: await ready, child };
}

describe('the same-writes baseline of placeorder-analyze', () => {
  let h: SandboxHarness;
  let dir: string;
  let baseline: ChildProcess | undefined;
  beforeEach(async () => {
    h = await startSandbox('sqlite');
    dir = mkdtempSync(join(tmpdir(), 'algodesk-same-writes-'));
  });
  afterEach(async () => {
    if (baseline && baseline.exitCode === null) {
      const exited = once(baseline, 'exit');
      baseline.kill('SIGTERM');
      await exited;
    }
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes, table by table, the rows one analyzer-mode MARKET order writes through the app', async () => {
    const { t } = h;
    const appFile = t.db.database.file!;
    const appDb = new SQLite(appFile);
    try {
      countWrites(appDb);
      // The bench's copy of the set-up's database (runner.ts), triggers included.
      appDb.prepare('vacuum into ?').run(join(dir, 'baseline.db'));
    } finally {
      appDb.close();
    }
    t.clock.set(Date.parse('2026-01-05T10:00:00+05:30'));
    await h.tick({ [SBIN]: h.quote(800) });

    // Algodesk writes part of an order's rows after it answers (the log's dispatched mark, the
    // latency and traffic rows, in batches): counted once everything buffered is written.
    const settle = async () => {
      await new Promise((resolve) => setImmediate(resolve));
      await t.services.orders.events.whenIdle();
      await t.services.orders.latency.flush();
      await t.services.observability.traffic.flush();
      await t.services.orders.events.whenIdle();
    };
    const settled = async () => {
      for (let previous = ''; ;) {
        await settle();
        const now = snapshot(appFile);
        if (JSON.stringify(now) === previous) return now;
        previous = JSON.stringify(now);
      }
    };
    const placeApp = async (action: 'BUY' | 'SELL') => {
      const res = await h.api('placeorder', order(action));
      expect(res.statusCode, res.body).toBe(200);
      return res;
    };

    const started = await startBaseline(dir, join(dir, 'baseline.db'));
    baseline = started.child;
    const placeBaseline = async (action: 'BUY' | 'SELL') => {
      const res = await fetch(`${started.url}/api/v1/placeorder`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ apikey: h.apikey, ...order(action) }),
      });
      return { status: res.status, contentType: res.headers.get('content-type'), body: await res.text() };
    };

    for (const action of ['BUY', 'SELL'] as const) {
      await placeApp(action);
      expect((await placeBaseline(action)).status).toBe(200);
    }
    const appBefore = await settled();
    const baselineBefore = snapshot(join(dir, 'baseline.db'));

    const app = await placeApp('BUY');
    const base = await placeBaseline('BUY');
    const appAfter = await settled();
    const baselineAfter = snapshot(join(dir, 'baseline.db'));

    // The same answer, but for the order's id.
    const orderid = /"orderid":"\d+"/;
    expect(base.body.replace(orderid, '')).toBe(app.body.replace(orderid, ''));
    expect(base.contentType).toBe(app.headers['content-type']);

    const appRows = delta(appBefore.rows, appAfter.rows);
    const appWrites = delta(appBefore.writes, appAfter.writes);
    // What the test is about: the app's order was measured (its rows are there).
    expect(appRows).toMatchObject({ sandbox_orders: 1, analyzer_logs: 1 });
    expect(delta(baselineBefore.rows, baselineAfter.rows)).toEqual(appRows);
    expect(delta(baselineBefore.writes, baselineAfter.writes)).toEqual(appWrites);
  });
});

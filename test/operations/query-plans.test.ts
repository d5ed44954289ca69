/**
 * No table that grows with use is read whole on a request path (docs/architecture.md, "Costs
 * that stay flat"). The hot reads of a trader and an administrator (the books, the strategy trail,
 * the traffic, latency, security and error pages, search) are sent through the real app while
 * every statement Kysely runs is recorded; each recorded read is then explained by the database
 * itself (`EXPLAIN QUERY PLAN` on SQLite; `EXPLAIN` with sequential scans priced out on
 * PostgreSQL, so a `Seq Scan` left means no index can serve it). A statement that loses its index,
 * or a new hot read without one, fails here with its plan. No timing is asserted.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startStrategies, SIGNAL_SBIN, type StrategyHarness } from '../helpers/strategies.js';
import { asBrowser, describeEachDb } from '../helpers/test-app.js';
import { createTestDatabase, pgUrl, type TestDatabase } from '../helpers/test-database.js';

/**
 * Tables whose rows grow with use (requests, orders, deliveries, log lines, instruments). The
 * others hold configuration or per-user state bounded by the install's size (users, keys,
 * strategies and their legs, watchlists, settings…), which a scan reads in microseconds.
 */
const GROWING = new Set([
  'traffic_log',
  'error_log',
  'order_latency',
  'order_logs',
  'analyzer_logs',
  'sandbox_orders',
  'sandbox_order_events',
  'sandbox_trades',
  'sandbox_positions',
  'sandbox_equity_days',
  'strategy_events',
  'strategy_runs',
  'strategy_orders',
  'webhook_deliveries',
  'scanner_orders',
  'mcp_audit',
  'login_activity',
  'instruments',
  'pending_orders',
]);

/**
 * Reads that must scan candidates by design, each with why the scan is bounded (none today: the
 * error log's counts by level are kept in `error_log_counts` by triggers, one row per level and
 * origin). A text filter cannot use a B-tree index to find its rows: it walks the time index,
 * newest first, until the page is full (the last test below).
 */
const ALLOWED: readonly { label: string; table: string; why: string }[] = [];

interface Recorded {
  label: string;
  sql: string;
  parameters: readonly unknown[];
}

describeEachDb('hot reads use an index', (dialect) => {
  const recorded: Recorded[] = [];
  let label: string | undefined;
  let db: TestDatabase;
  let h: StrategyHarness;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'algodesk-plans-'));
    db = await createTestDatabase(dialect, dir, {
      onQuery: (q) => {
        if (label !== undefined) recorded.push({ label, sql: q.sql, parameters: q.parameters });
      },
    });
    h = await startStrategies(dialect, {}, { db });
    // Something in every log: orders through the API and a strategy, traffic, an error.
    const { id, token } = await h.create(SIGNAL_SBIN);
    for (const action of ['long_entry', 'long_exit']) {
      const res = await h.hook(token, { action });
      if (res.statusCode !== 200) throw new Error(`${action}: ${res.statusCode} ${res.body}`);
    }
    await h.ok('placeorder', {
      strategy: 'plans',
      symbol: 'SBIN',
      exchange: 'NSE',
      action: 'BUY',
      quantity: 1,
      pricetype: 'MARKET',
      product: 'MIS',
    });
    h.t.app.log.error('order 7 failed at the broker');
    await h.t.services.observability.errors.flush();
    await h.t.services.observability.traffic.flush();
    strategyId = id;
    strategyToken = token;
  }, 60_000);
  let strategyId = 0;
  let strategyToken = '';
  afterAll(async () => {
    await h?.close();
    await db?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs `request` with every statement it sends recorded under `name`; it must answer 200. */
  async function hot(name: string, request: () => Promise<{ statusCode: number; body: string }>) {
    label = name;
    try {
      const res = await request();
      expect(res.statusCode, `${name}: ${res.body.slice(0, 300)}`).toBe(200);
    } finally {
      label = undefined;
    }
  }
  const admin = (url: string) => () => h.t.app.inject({ method: 'GET', url, headers: asBrowser(h.admin) });

  it('every statement of the hot reads finds its rows through an index', async () => {
    await hot('orderbook', () => h.api('orderbook'));
    await hot('tradebook', () => h.api('tradebook'));
    await hot('positionbook', () => h.api('positionbook'));
    await hot('orderstatus', () => h.api('orderstatus', { orderid: '1', strategy: 'plans' }));
    await hot('strategy events', () => h.api('strategy/events', { strategy_id: strategyId }));
    // A signal that trades: the strategy's view, the leg's orders and position, the placement.
    for (const action of ['long_entry', 'long_exit'])
      await hot(`strategy signal, ${action}`, () => h.hook(strategyToken, { action }));
    await hot('search', () => h.api('search', { query: 'SBI', exchange: 'NSE' }));
    await hot('traffic list', admin('/logs/api/traffic'));
    await hot('traffic list, filtered', admin('/logs/api/traffic?status=4xx&method=GET&ip=203.0.113.'));
    await hot('traffic stats', admin('/logs/api/traffic/stats'));
    await hot('latency stats', admin('/logs/api/latency/stats'));
    await hot('latency logs', admin('/logs/api/latency/logs'));
    await hot('analyzer log', admin('/logs/api/analyzer'));
    await hot('order log', admin('/logs/api/orders'));
    await hot('security data', admin('/security/api/data'));
    await hot('login activity', admin('/security/api/login-activity'));
    await hot('error log', admin('/admin/api/errors'));
    await hot('error log, text filter', admin('/admin/api/errors?q=broker&limit=20'));
    await hot('error stats', admin('/admin/api/errors/stats'));
    await hot('error groups', admin('/admin/api/errors/groups'));

    // The signals were recorded through the decision to the placement.
    const signal = recorded.filter((r) => r.label.startsWith('strategy signal')).map((r) => r.sql);
    for (const table of ['strategy_positions', 'strategy_orders', 'sandbox_orders'])
      expect(signal.some((q) => q.includes(`"${table}"`) || q.includes(` ${table} `))).toBe(true);
    const reads = unique(recorded.filter((r) => /^\s*(select|with|update|delete)\b/i.test(r.sql)));
    expect(reads.length).toBeGreaterThan(20);
    const explain = dialect === 'sqlite' ? sqlitePlans(db) : await pgPlans(db);
    const found: string[] = [];
    try {
      for (const r of reads) {
        const plan = await explain.plan(r);
        for (const table of plan.scanned) {
          if (!GROWING.has(table)) continue;
          if (ALLOWED.some((a) => a.label === r.label && a.table === table)) continue;
          found.push(`${r.label}: scans ${table}\n  ${r.sql}\n  ${plan.text.replaceAll('\n', '\n  ')}`);
        }
      }
    } finally {
      await explain.close();
    }
    expect(found, found.join('\n\n')).toEqual([]);
  });

  it("the error log's text filter walks the time index with the planner's own estimates", async () => {
    // 5,000 rows, one in ten holding the text, counted by the database's statistics: PostgreSQL
    // estimated a handful of matches for `lower(col) like '%…%'` and chose to read the whole log
    // and sort it, where walking the index from the newest row stops after ~200 rows.
    const k = db.database.db;
    const base = Date.now() - 5_000 * 60_000;
    for (let i = 0; i < 5_000; i += 500) {
      await k
        .insertInto('error_log')
        .values(
          Array.from({ length: 500 }, (_, j) => ({
            created_at: base + (i + j) * 60_000,
            level: 'warn',
            origin: 'server',
            module: 'orders',
            message:
              (i + j) % 10 === 0 ? `order ${i + j} failed: broker timeout` : `quote held for NSE:SBIN ${j}`,
            fingerprint: 'f1',
          })),
        )
        .execute();
    }
    await hot('text filter', admin('/admin/api/errors?q=timeout&limit=20'));
    const [read] = recorded.filter((r) => r.label === 'text filter' && /from "error_log"/.test(r.sql));
    expect(read, 'the text filter read error_log').toBeDefined();
    let plan: string;
    if (db.target.kind === 'sqlite') {
      const conn = new SQLite(db.target.file);
      try {
        conn.exec('analyze');
        const params = read!.parameters.map((p) => (typeof p === 'boolean' ? Number(p) : p));
        plan = (conn.prepare(`explain query plan ${read!.sql}`).all(...params) as { detail: string }[])
          .map((r) => r.detail)
          .join('\n');
      } finally {
        conn.close();
      }
      expect(plan, plan).toMatch(/SCAN error_log USING INDEX error_log_created_at_idx/);
    } else {
      const client = new pg.Client({ connectionString: pgUrl });
      await client.connect();
      try {
        await client.query(`set search_path to ${db.target.schema}`);
        await client.query('analyze error_log');
        const res = await client.query<{ 'QUERY PLAN': string }>(
          `explain ${read!.sql}`,
          read!.parameters as unknown[],
        );
        plan = res.rows.map((r) => r['QUERY PLAN']).join('\n');
      } finally {
        await client.end();
      }
      expect(plan, plan).toMatch(/Index Scan Backward using error_log_created_at_idx on error_log/);
    }
  });
});

/** One entry per SQL text (the first one's parameters). */
function unique(rows: Recorded[]): Recorded[] {
  const seen = new Map<string, Recorded>();
  for (const r of rows) if (!seen.has(r.sql)) seen.set(r.sql, r);
  return [...seen.values()];
}

interface Explainer {
  plan(r: Recorded): Promise<{ scanned: string[]; text: string }>;
  close(): Promise<void>;
}

/** SQLite: `SCAN <table>` without `USING … INDEX` reads every row of it. */
function sqlitePlans(db: TestDatabase): Explainer {
  if (db.target.kind !== 'sqlite') throw new Error('not SQLite');
  const conn = new SQLite(db.target.file, { readonly: true });
  return {
    plan(r) {
      const params = r.parameters.map((p) => (typeof p === 'boolean' ? Number(p) : p));
      const rows = conn.prepare(`explain query plan ${r.sql}`).all(...params) as { detail: string }[];
      // `SCAN t` alone walks the table in rowid order. That is bounded only for the newest rows
      // of the whole table (`order by id desc limit n`, no condition, no sort of its own): with a
      // condition, the walk goes on past every row that fails it.
      const newestOfAll = /order by "id" desc limit/i.test(r.sql) && !/\bwhere\b/i.test(r.sql);
      const sorts = rows.some((row) => row.detail.startsWith('USE TEMP B-TREE FOR ORDER BY'));
      const scanned = rows.flatMap((row) => {
        const m = /^SCAN (\w+)(.*)$/.exec(row.detail);
        if (!m || /USING (COVERING )?INDEX|USING INTEGER PRIMARY KEY/.test(m[2]!)) return [];
        return newestOfAll && !sorts ? [] : [m[1]!];
      });
      return Promise.resolve({ scanned, text: rows.map((row) => row.detail).join('\n') });
    },
    close: async () => void conn.close(),
  };
}

/** PostgreSQL: with sequential scans priced out, a `Seq Scan` left has no index to use. */
async function pgPlans(db: TestDatabase): Promise<Explainer> {
  if (db.target.kind !== 'postgres') throw new Error('not PostgreSQL');
  const client = new pg.Client({ connectionString: pgUrl });
  await client.connect();
  await client.query(`set search_path to ${db.target.schema}`);
  await client.query('set enable_seqscan = off');
  return {
    async plan(r) {
      const res = await client.query<{ 'QUERY PLAN': unknown }>(
        `explain (format json) ${r.sql}`,
        r.parameters as unknown[],
      );
      const scanned: string[] = [];
      const walk = (node: Record<string, unknown>) => {
        if (node['Node Type'] === 'Seq Scan') scanned.push(String(node['Relation Name']));
        for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child);
      };
      const top = (res.rows[0]!['QUERY PLAN'] as { Plan: Record<string, unknown> }[])[0]!.Plan;
      walk(top);
      return { scanned, text: JSON.stringify(top) };
    },
    close: () => client.end(),
  };
}

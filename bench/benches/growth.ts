/**
 * `growth`: what a year of data does to the reads, the start-up and the day-boundary jobs.
 *
 * Two installs are built side by side: one holding a year of use (bench/lib/growth-seed.ts: a
 * million traffic rows, 200,000 orders with their trades, events, log and latency rows across 20
 * users, 100,000 strategy events, 50,000 error-log rows, the full Upstox master) and one holding
 * 1 % of it (the same rates over 1 % of the days, 1 % of the master). Each is set up by the CLI
 * (user, API key, contract import), seeded in bulk by the database, then started as a server:
 * its start-up is timed (to listening, and to its instrument index being ready) and its memory
 * read. Every read is then sent `samples` times to each, alternating (the noise of the shared
 * machine falls on both), and must answer 200. The day-boundary jobs run in process
 * (bench/benches/day-jobs.ts) on 1 % and on all of 5,000 open positions.
 *
 * A read stays flat when its p50 with a year of data is within 2× of its p50 at 1 %, and its p99
 * is under 200 ms. `--fraction` shrinks the "year" (CI's smoke run: 0.02, a week of data against
 * a few hours) without changing what is measured. Timings are reported, never asserted.
 */
import { createReadStream, createWriteStream, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import { performance } from 'node:perf_hooks';
import { openRunDb } from '../lib/growth-db.js';
import { seedStatements, sizesFor, type SeedSizes } from '../lib/growth-seed.js';
import { residentBytes, Workspace, type Child } from '../lib/processes.js';
import { sharedDataOrCut } from '../lib/shared-data.js';
import { verdictWord } from '../lib/report.js';
import { measureDayJobs, type DayJobsResult } from './day-jobs.js';
import { createApiKey, importContract, waitForIndex } from './market-data.js';
import { BENCH_USER } from './order-bench.js';
import { switchToAnalyzeMode } from './placeorder-analyze.js';

export interface GrowthOptions {
  /** The "year" install's share of a real year (1 = the issue's sizes). */
  fraction: number;
  /** Requests per read and install. */
  samples: number;
  jsonFile: string | undefined;
}

const note = (message: string): void => void process.stderr.write(`[bench] ${message}\n`);

/** The year install's share that the small one holds. */
const SMALL_SHARE = 0.01;
const WARMUP = 10;
const FLAT_GROWTH = 2;
const P99_BUDGET_MS = 200;
const STARTUP_BUDGET_MS = 3_000;
/** Open positions at the day boundary with a year's users. */
const DAY_JOB_POSITIONS = 5_000;

/** Both installs run with every row kept: retention and the weekly reset would purge the history. */
const SERVER_ENV = {
  SANDBOX_RESET_DAY: 'never',
  SANDBOX_SESSIONS: 'ignore',
  TRAFFIC_RETENTION_DAYS: '3650',
  ERROR_LOG_RETENTION_DAYS: '3650',
  ERROR_LOG_MAX_ROWS: '10000000',
};

interface Install {
  label: string;
  ws: Workspace;
  sizes: SeedSizes;
  instruments: number;
  seedMs: number;
  server: Child;
  url: string;
  apikey: string;
  cookie: string;
  startup: { listenMs: number; indexMs: number; rssMb: number };
}

/**
 * One read: what is sent, given the install's key and admin cookie. Where a read takes a limit, it
 * is one both installs fill, so the two answers have as many rows and only the lookup differs;
 * the order and trade books list every order since the last reset, so theirs grow with the data.
 */
interface Read {
  name: string;
  send(i: Install): Promise<Response>;
}

const api =
  (path: string, body: Record<string, unknown> = {}) =>
  (i: Install) =>
    fetch(`${i.url}/api/v1/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apikey: i.apikey, ...body }),
    });
const admin = (path: string) => (i: Install) => fetch(`${i.url}${path}`, { headers: { cookie: i.cookie } });

const READS: Read[] = [
  { name: 'traffic stats, 24 h', send: admin('/logs/api/traffic/stats?hours=24') },
  { name: 'traffic stats, 7 days', send: admin('/logs/api/traffic/stats?hours=168') },
  { name: 'traffic list, 4xx, 24 h', send: admin('/logs/api/traffic?hours=24&status=4xx&limit=50') },
  { name: 'traffic list, path, 24 h', send: admin('/logs/api/traffic?hours=24&path=orderbook&limit=50') },
  { name: 'latency stats', send: admin('/logs/api/latency/stats') },
  { name: 'latency log', send: admin('/logs/api/latency/logs') },
  { name: 'security data', send: admin('/security/api/data') },
  { name: 'analyzer log', send: admin('/logs/api/analyzer') },
  { name: 'error log, text filter', send: admin('/admin/api/errors?q=timeout&limit=20') },
  { name: 'error stats', send: admin('/admin/api/errors/stats') },
  { name: 'orderbook, one user', send: api('orderbook') },
  { name: 'tradebook, one user', send: api('tradebook') },
  { name: 'strategy events', send: api('strategy/events', { strategy_id: 1, limit: 50 }) },
  { name: 'search', send: api('search', { query: 'SBIN' }) },
];

export async function runGrowth(opts: GrowthOptions): Promise<number> {
  const installs: Install[] = [];
  const abort = () => {
    for (const i of installs) i.ws.abortSync();
    process.exit(130);
  };
  process.once('SIGINT', abort);
  try {
    const master = await masterLines();
    installs.push(await buildInstall('1 %', opts.fraction * SMALL_SHARE, master));
    installs.push(await buildInstall('year', opts.fraction, master));
    const [small, year] = installs as [Install, Install];
    const rows: ReadFigures[] = [];
    for (const read of READS) rows.push(await measureRead(read, small, year, opts.samples));
    const positions = Math.max(50, Math.round(DAY_JOB_POSITIONS * opts.fraction));
    const dialect = small.ws.database;
    note(
      `day-boundary jobs in process on ${dialect}: ${Math.round(positions * SMALL_SHARE) || 1} and ${positions} positions`,
    );
    const dayJobs = [
      await measureDayJobs({ positions: Math.max(1, Math.round(positions * SMALL_SHARE)), dialect }),
      await measureDayJobs({ positions, dialect }),
    ] as const;
    return report(opts, small, year, rows, dayJobs);
  } finally {
    process.off('SIGINT', abort);
    for (const i of installs) await i.ws.dispose();
  }
}

/** The Upstox master's header and rows (read once; each install imports a share of it). */
async function masterLines(): Promise<{ header: string; rows: string[] }> {
  const file = sharedDataOrCut('upstox', 'upstox_complete_2026-02-05.csv.gz');
  const lines = createInterface({ input: createReadStream(file).pipe(createGunzip()) });
  let header: string | undefined;
  const rows: string[] = [];
  for await (const line of lines) {
    if (header === undefined) header = line;
    else if (line !== '') rows.push(line);
  }
  if (header === undefined) throw new Error('the Upstox master is empty');
  return { header, rows };
}

async function buildInstall(
  label: string,
  fraction: number,
  master: { header: string; rows: string[] },
): Promise<Install> {
  const ws = await Workspace.create();
  const cli = (...args: string[]) => ws.cli(args);
  const apikey = await createApiKey(cli);
  // Every n-th row of the master: the same mix of exchanges and kinds at any share.
  const every = Math.max(1, Math.round(1 / Math.min(1, fraction)));
  const file = join(ws.dir, 'upstox-share.csv');
  await writeLines(file, [master.header, ...master.rows.filter((_, i) => i % every === 0)]);
  const imported = await importContract(cli, 'upstox', file);
  const sizes = sizesFor(fraction);
  const db = await openRunDb(ws);
  const started = performance.now();
  try {
    if ((await db.number('select count(*) from sandbox_orders')) !== 0)
      throw new Error('the install has orders before seeding');
    for (const statement of seedStatements(db.dialect, sizes, Date.now())) await db.exec(statement);
    // A year-old PostgreSQL has been vacuumed and analysed by autovacuum many times (and done now,
    // autovacuum does not wake up on the fresh rows while the servers are measured); SQLite never
    // is by the app.
    if (db.dialect === 'postgres') await db.exec('vacuum analyze');
  } finally {
    await db.close();
  }
  const seedMs = performance.now() - started;
  note(
    `${label}: ${imported.rows} instruments; seeded ${sizes.traffic} traffic rows, ${sizes.orders} orders, ` +
      `${sizes.strategyEvents} strategy events, ${sizes.errors} error rows over ${sizes.days.toFixed(1)} days ` +
      `in ${Math.round(seedMs)} ms`,
  );
  const t0 = performance.now();
  const server = await ws.startServer(label === 'year' ? 'server-year' : 'server-small', SERVER_ENV);
  const listenMs = performance.now() - t0;
  await waitForIndex({ log: () => ws.log(server), exited: () => server.process.exitCode !== null });
  const indexMs = performance.now() - t0;
  const url = `http://127.0.0.1:${server.port}`;
  await switchToAnalyzeMode(url);
  return {
    label,
    ws,
    sizes,
    instruments: imported.rows,
    seedMs,
    server,
    url,
    apikey,
    cookie: await loginCookie(url),
    startup: { listenMs, indexMs, rssMb: residentBytes(server) / 2 ** 20 },
  };
}

async function writeLines(file: string, lines: string[]): Promise<void> {
  const out = createWriteStream(file);
  for (const line of lines)
    if (!out.write(`${line}\n`)) await new Promise<void>((r) => out.once('drain', () => r()));
  await new Promise<void>((resolve, reject) =>
    out.end((err?: Error | null) => (err ? reject(err) : resolve())),
  );
}

async function loginCookie(url: string): Promise<string> {
  const res = await fetch(`${url}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(BENCH_USER),
  });
  const cookie = res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0]!)
    .find((c) => c.startsWith('algodesk_session='));
  if (res.status !== 200 || !cookie) throw new Error(`login answered ${res.status}`);
  return cookie;
}

interface Side {
  p50: number;
  p99: number;
  bytes: number;
}
interface ReadFigures {
  name: string;
  small: Side;
  year: Side;
  growth: number;
  flat: boolean;
}

async function timeOnce(read: Read, install: Install): Promise<{ ms: number; bytes: number }> {
  const t = performance.now();
  const res = await read.send(install);
  const body = await res.text();
  const ms = performance.now() - t;
  if (res.status !== 200)
    throw new Error(
      `${read.name} on the ${install.label} install answered ${res.status}: ${body.slice(0, 300)}`,
    );
  return { ms, bytes: body.length };
}

async function measureRead(read: Read, small: Install, year: Install, samples: number): Promise<ReadFigures> {
  for (let i = 0; i < WARMUP; i++) {
    await timeOnce(read, small);
    await timeOnce(read, year);
  }
  const times: [number[], number[]] = [[], []];
  let bytes: [number, number] = [0, 0];
  for (let i = 0; i < samples; i++) {
    const a = await timeOnce(read, small);
    const b = await timeOnce(read, year);
    times[0].push(a.ms);
    times[1].push(b.ms);
    bytes = [a.bytes, b.bytes];
  }
  const side = (ms: number[], b: number): Side => ({
    p50: percentile(ms, 50),
    p99: percentile(ms, 99),
    bytes: b,
  });
  const s = side(times[0], bytes[0]);
  const y = side(times[1], bytes[1]);
  const growth = y.p50 / s.p50;
  return {
    name: read.name,
    small: s,
    year: y,
    growth,
    flat: growth <= FLAT_GROWTH && y.p99 <= P99_BUDGET_MS,
  };
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const ms = (x: number) => x.toFixed(x < 10 ? 2 : 1);

function report(
  opts: GrowthOptions,
  small: Install,
  year: Install,
  rows: ReadFigures[],
  dayJobs: readonly [DayJobsResult, DayJobsResult],
): number {
  const out: string[] = [];
  out.push(
    `database: ${small.ws.database}; year install: ${year.sizes.traffic} traffic rows, ${year.sizes.orders} orders, ` +
      `${year.instruments} instruments; 1 % install: ${small.sizes.traffic}, ${small.sizes.orders}, ${small.instruments}`,
  );
  out.push(
    `${'read'.padEnd(26)} ${'1 % p50'.padStart(9)} ${'p99'.padStart(8)} ${'year p50'.padStart(9)} ${'p99'.padStart(8)} ${'growth'.padStart(7)} ${'bytes 1 % / year'.padStart(18)}  verdict`,
  );
  for (const r of rows)
    out.push(
      `${r.name.padEnd(26)} ${ms(r.small.p50).padStart(9)} ${ms(r.small.p99).padStart(8)} ${ms(r.year.p50).padStart(9)} ` +
        `${ms(r.year.p99).padStart(8)} ${r.growth.toFixed(2).padStart(7)} ${`${r.small.bytes} / ${r.year.bytes}`.padStart(18)}  ${verdictWord(r.flat)}`,
    );
  const startupMet = year.startup.listenMs <= STARTUP_BUDGET_MS;
  for (const i of [small, year])
    out.push(
      `start-up, ${i.label.padEnd(5)}: listening after ${Math.round(i.startup.listenMs)} ms, index ready after ` +
        `${Math.round(i.startup.indexMs)} ms, RSS ${Math.round(i.startup.rssMb)} MB (seeding took ${Math.round(i.seedMs)} ms)`,
    );
  out.push(
    `  ${verdictWord(startupMet)}  start-up with a year of data <= ${STARTUP_BUDGET_MS} ms to listening`,
  );
  for (const d of dayJobs)
    out.push(
      `day-boundary jobs, ${String(d.positions).padStart(5)} open positions: square-off ${ms(d.squareOffMs)} ms, ` +
        `rollover ${ms(d.rolloverMs)} ms, ${d.ordersPlaced} closing orders`,
    );
  const dayGrowth =
    dayJobs[1].squareOffMs / dayJobs[1].positions / (dayJobs[0].squareOffMs / dayJobs[0].positions);
  out.push(
    `  square-off per position, ${dayJobs[1].positions} vs ${dayJobs[0].positions}: ${dayGrowth.toFixed(2)}x`,
  );
  for (const line of out) console.error(line);
  const worst = rows.reduce((a, b) => (b.growth > a.growth ? b : a));
  const maxP99 = Math.max(...rows.map((r) => r.year.p99));
  const flat = rows.filter((r) => r.flat).length;
  if (opts.jsonFile) {
    mkdirSync(dirname(opts.jsonFile), { recursive: true });
    writeFileSync(
      opts.jsonFile,
      JSON.stringify(
        {
          bench: 'growth',
          database: small.ws.database,
          fraction: opts.fraction,
          samples: opts.samples,
          sizes: { small: small.sizes, year: year.sizes },
          instruments: { small: small.instruments, year: year.instruments },
          reads: rows,
          startup: { small: small.startup, year: year.startup },
          day_jobs: dayJobs,
          node: process.version,
          timestamp: new Date().toISOString(),
        },
        null,
        2,
      ),
    );
  }
  console.log(
    `bench growth: flat ${flat}/${rows.length} worst_growth ${worst.growth.toFixed(2)} (${worst.name}) ` +
      `max_p99_ms ${ms(maxP99)} startup_ms ${Math.round(year.startup.listenMs)} rss_mb ${Math.round(year.startup.rssMb)}`,
  );
  return 0;
}

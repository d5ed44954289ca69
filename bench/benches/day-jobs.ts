/**
 * The sandbox's day-boundary jobs (docs/rules/sandbox.md#day-boundary-jobs) on N open MIS
 * positions, measured in process: the MIS square-off and the day rollover, each as one
 * `engine.tick()` (the jobs the engine runs every 5 s) waited to idle. For a growth bench that
 * compares a fresh install (N = 50) with a year-old one (N = 5,000: 20 active users).
 *
 * - Set-up as bench/benches/sandbox-pass.ts: the real `SandboxEngine` and `SandboxService` built
 *   by `buildSandboxServices` on a database migrated from scratch (SQLite in a temp directory, or
 *   a PostgreSQL schema of the run's own, dropped at the end), a `FakeClock`, a `ScriptedFeed`.
 *   The calendar is the real `MarketCalendar` over the default exchange timings and no holidays,
 *   with `SANDBOX_SESSIONS=enforce` (the default): the square-off and rollover run exactly as
 *   they would on a Tuesday and the Wednesday after.
 * - Instruments: 500 NSE equities parsed from the real Kite NSE snapshot by the Zerodha importer,
 *   picked evenly from the sorted list, each with a seeded price on its tick.
 * - Positions, seeded the honest way: each is opened by a MARKET MIS order placed through
 *   `service.placeOrder` at 10:00 IST against a fresh quote in the feed, so it fills at once and
 *   every row a fill writes (order, event, trade, position, account funds and blocked margin) is
 *   the service's own: the books are consistent by construction, which the ledger check confirms
 *   after seeding. Writing rows through the repository would be faster but would have to
 *   re-implement the ledger (margin, charges) and could drift from it; the placements of the 20
 *   users run side by side (one chain per user), as 20 users' orders would, which lets group
 *   commit batch them, so 5,000 placements take a few seconds. Position i belongs to user
 *   1 + i % 20 and is the only position of that user in its instrument; a third are shorts.
 * - The engine is not started: `tick()` runs the jobs whether or not it matches, and a started
 *   engine also runs them (and a book resync) on real-time timers, which would fall into the
 *   measured windows at random. Matching is not what is measured: every order here is MARKET and
 *   fills at placement.
 * - Timed (each `engine.tick()` + `engine.whenIdle()`, informational, no assertion):
 *   1. a regular tick at 15:14:55 IST, just before the cut-off, with fresh quotes: its work with N
 *      positions open (daily equity of every account, GTT pass, checks of the other jobs);
 *   2. the square-off tick at 15:15 IST (`SANDBOX_SQUARE_OFF` default for NSE), with fresh quotes
 *      for every instrument, each moved up to ±2 %: NSE's (and BSE's, NFO's, BFO's: empty) working
 *      MIS orders are cancelled and every open MIS position is closed by a MARKET order that
 *      fills at once. The daily equity is not due (recorded 5 s before);
 *   3. the rollover tick at 00:05 IST the next day (a Wednesday, not a reset day): the expiry
 *      scan of the new day, the rollover (past days' working orders expire, past MIS positions
 *      still open are closed, past CNC positions settle, the flat positions of the past day —
 *      here all N — are dropped, one transaction per user) and the daily equity of every account.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureInstallSecrets, loadConfig, sqliteFile } from '../../src/config.js';
import {
  DEFAULT_TIMINGS,
  MarketCalendar,
  istDateOf,
  istInstant,
  type TimingView,
} from '../../src/modules/market/timings.service.js';
import { ScriptedFeed } from '../../src/modules/sandbox/prices/price-source.js';
import type { Product, Quote, Side } from '../../src/modules/sandbox/core/types.js';
import { FakeClock } from '../../src/platform/clock.js';
import { openDatabase, type Database, type Dialect } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { seededRandom } from '../../src/platform/seeded-random.js';
import { benchSandbox, kiteInstruments, priced, quoteAt, type Priced } from '../lib/bench-sandbox.js';
import { sharedDataOrCut } from '../lib/shared-data.js';
import { withPg } from '../lib/processes.js';

export interface DayJobsResult {
  positions: number;
  dialect: Dialect;
  users: number;
  instruments: number;
  /** Time to open the N positions by placement (not part of the day jobs). */
  seedMs: number;
  /** A regular tick 5 s before the cut-off with the N positions open. */
  regularTickMs: number;
  /** The square-off tick: tick() + whenIdle(). */
  squareOffMs: number;
  /** The rollover tick at 00:05 IST the next day: tick() + whenIdle(). */
  rolloverMs: number;
  /** Orders the square-off tick placed (the closes). */
  ordersPlaced: number;
  /** Of those, the ones the sandbox rejected. */
  closesRejected: number;
  /** Open MIS positions after the square-off tick (expected 0). */
  positionsLeftOpen: number;
  /** Position rows, open or flat, after the rollover tick (expected 0: the flat ones are dropped). */
  positionRowsAfterRollover: number;
  /** Accounts whose ledger check found a difference, after seeding and at the end (expected 0). */
  ledgerDriftedAfterSeed: number;
  ledgerDriftedAtEnd: number;
}

export interface DayJobsOptions {
  positions: number;
  dialect?: Dialect;
  /** PostgreSQL server; default BENCH_DATABASE_URL, else {@link DEFAULT_PG_URL}. */
  pgUrl?: string;
}

export const DEFAULT_PG_URL = 'postgres://postgres@127.0.0.1:5432/test';

const USERS = 20;
const INSTRUMENTS = 500;
/** A Tuesday (a trading day, no holiday) and the Wednesday after (not the default reset day). */
const DAY = '2026-08-18';
const NEXT_DAY = '2026-08-19';
const OPEN_AT = istInstant(DAY, '10:00');
/** NSE's default MIS square-off time (`SANDBOX_SQUARE_OFF`). */
const SQUARE_OFF_AT = istInstant(DAY, '15:15');
const ROLLOVER_AT = istInstant(NEXT_DAY, '00:05');

const progress = (message: string): void => void process.stderr.write(`[day-jobs] ${message}\n`);
const round1 = (n: number): number => Math.round(n * 10) / 10;
const elapsedMs = (t0: bigint): number => Number(process.hrtime.bigint() - t0) / 1e6;

/** 500 NSE equities from the Kite NSE snapshot (real importer), evenly over the sorted list. */
async function pickInstruments(): Promise<Priced[]> {
  const nse = sharedDataOrCut('zerodha', 'kite_instruments_NSE_2025-10-06.csv');
  const equities = (await kiteInstruments([nse]))
    .filter((i) => i.exchange === 'NSE' && i.instrumenttype === 'EQ' && i.tickSize > 0 && i.lotsize > 0)
    .sort((a, b) => (a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0));
  // The repository's cut (CI without the shared folder) holds fewer: then all of them.
  const count = Math.min(INSTRUMENTS, equities.length);
  const rnd = seededRandom(11);
  return Array.from({ length: count }, (_, i) =>
    priced(equities[Math.floor((i * equities.length) / count)]!, 100 + rnd() * 4_900),
  );
}

function quotesAt(instruments: readonly Priced[], ltps: readonly number[], now: number): Map<string, Quote> {
  return new Map(instruments.map((p, i) => [p.key, quoteAt(p, ltps[i]!, now)]));
}

/** One position to open: its owner, instrument (index), side and quantity. */
interface Seed {
  userId: number;
  instrument: number;
  side: Side;
  quantity: number;
}

/** Position i: user 1 + i % 20, a distinct instrument per user, a third short, 1-50 shares. */
function seeds(positions: number, instruments: number): Seed[] {
  if (positions > USERS * instruments)
    throw new Error(`at most ${USERS * instruments} positions (${USERS} users x ${instruments} instruments)`);
  const rnd = seededRandom(13);
  return Array.from({ length: positions }, (_, i) => {
    const user = i % USERS;
    const slot = Math.floor(i / USERS);
    return {
      userId: 1 + user,
      instrument: (slot + user * 25) % instruments,
      side: i % 3 === 2 ? 'SELL' : 'BUY',
      quantity: 1 + Math.floor(rnd() * 50),
    };
  });
}

/** The real calendar over the default timings, without holidays. */
function defaultCalendar(): MarketCalendar {
  const timings = new Map<string, TimingView>(
    DEFAULT_TIMINGS.map((t) => [t.exchange, { ...t, updated_at: new Date(0).toISOString() }]),
  );
  return new MarketCalendar(
    { timing: (exchange) => timings.get(exchange), exchanges: () => [...timings.keys()] },
    { onDate: () => [] },
  );
}

/**
 * Opens N MIS positions, then times the regular tick, the square-off tick and the rollover tick
 * (see the file comment). Throws when a seeding order does not fill or a check fails to run;
 * positions left open are reported, not thrown.
 */
export async function measureDayJobs(opts: DayJobsOptions): Promise<DayJobsResult> {
  const dialect = opts.dialect ?? 'sqlite';
  const positions = opts.positions;
  if (!Number.isSafeInteger(positions) || positions < 1)
    throw new Error('positions must be a positive integer');
  const dir = mkdtempSync(join(tmpdir(), 'algodesk-day-jobs-'));
  const pgUrl = opts.pgUrl ?? process.env.BENCH_DATABASE_URL ?? DEFAULT_PG_URL;
  const schema = `bench_dayjobs_${process.pid}_${Date.now().toString(36)}`;
  let schemaCreated = false;
  let database: Database | undefined;
  try {
    const env = {
      DATA_DIR: join(dir, 'data'),
      SANDBOX_PRICE_SOURCE: 'scripted',
      SANDBOX_SESSIONS: 'enforce',
      LOG_LEVEL: 'warn',
    };
    const { config } = ensureInstallSecrets(loadConfig(env, { cwd: dir, envFile: false }));
    if (dialect === 'postgres') {
      await withPg(pgUrl, (c) => c.query(`create schema "${schema}"`));
      schemaCreated = true;
      database = openDatabase({ kind: 'postgres', url: pgUrl, schema });
    } else database = openDatabase({ kind: 'sqlite', file: sqliteFile(config) });
    const { db } = database;
    await migrateToLatest(db);

    const instruments = await pickInstruments();
    const byKey = new Map(instruments.map((p) => [p.key, p.instrument]));
    const calendar = defaultCalendar();
    const clock = new FakeClock(OPEN_AT);
    const sandbox = benchSandbox({
      db,
      config,
      clock,
      instruments: byKey,
      sessionOn: (exchange, date) => calendar.sessionOn(exchange, date),
    });
    const { engine, service } = sandbox;
    const feed = new ScriptedFeed();
    await sandbox.usePriceSource(feed);

    const countOrders = async (status?: string): Promise<number> => {
      let q = db.selectFrom('sandbox_orders').select(db.fn.countAll<number>().as('n'));
      if (status !== undefined) q = q.where('status', '=', status);
      return Number((await q.executeTakeFirstOrThrow()).n);
    };
    const openMis = async (): Promise<number> =>
      (await service.repo.allPositions(true)).filter((p) => p.product === ('MIS' satisfies Product)).length;

    // Seeding: MARKET MIS orders at 10:00 IST against fresh quotes, one chain of placements per user.
    const t0 = process.hrtime.bigint();
    const base = instruments.map((p) => p.ltp);
    feed.push(quotesAt(instruments, base, clock.now()));
    const all = seeds(positions, instruments.length);
    const product: Product = 'MIS';
    await Promise.all(
      Array.from({ length: USERS }, async (_, u) => {
        for (const s of all.filter((x) => x.userId === u + 1)) {
          const p = instruments[s.instrument]!;
          const r = await service.placeOrder(s.userId, {
            symbol: p.instrument.symbol,
            exchange: p.instrument.exchange,
            side: s.side,
            priceType: 'MARKET',
            product,
            quantity: s.quantity,
            strategy: 'bench',
          });
          if (!r.ok || r.order.status !== 'complete')
            throw new Error(
              `seeding order of user ${s.userId} on ${p.key} ended ${r.order.status}: ${r.ok ? '' : r.message}`,
            );
        }
      }),
    );
    const seedMs = elapsedMs(t0);
    const opened = await openMis();
    if (opened !== positions)
      throw new Error(`seeding opened ${opened} MIS positions, expected ${positions}`);
    const seededDrift = (await sandbox.verify.run()).drifted;
    progress(`${dialect}: opened ${positions} MIS positions by placement in ${Math.round(seedMs)} ms`);

    // The jobs' catch-up of the day (as a started engine's first tick), not measured.
    await engine.tick();
    await engine.whenIdle();

    const timedTick = async (): Promise<number> => {
      const t = process.hrtime.bigint();
      await engine.tick();
      await engine.whenIdle();
      return elapsedMs(t);
    };

    // Prices of the afternoon: each instrument moved up to ±2 %, on its tick.
    const rnd = seededRandom(17);
    const moved = instruments.map((p) =>
      Math.max(p.tick, Math.round((p.ltp * (1 + (rnd() * 4 - 2) / 100)) / p.tick) * p.tick),
    );

    // 1. A regular tick just before the cut-off.
    clock.set(SQUARE_OFF_AT - 5_000);
    feed.push(quotesAt(instruments, moved, clock.now()));
    const regularTickMs = await timedTick();

    // 2. The square-off tick.
    clock.set(SQUARE_OFF_AT);
    feed.push(quotesAt(instruments, moved, clock.now()));
    const ordersBefore = await countOrders();
    const rejectedBefore = await countOrders('rejected');
    const squareOffMs = await timedTick();
    const ordersPlaced = (await countOrders()) - ordersBefore;
    const closesRejected = (await countOrders('rejected')) - rejectedBefore;
    const positionsLeftOpen = await openMis();
    progress(`${dialect}: square-off tick ${Math.round(squareOffMs)} ms, ${positionsLeftOpen} left open`);

    // 3. The rollover tick, past midnight IST, on the next trading day.
    clock.set(ROLLOVER_AT);
    if (istDateOf(clock.now()) !== NEXT_DAY || !calendar.sessionOn('NSE', NEXT_DAY)?.open)
      throw new Error(`${NEXT_DAY} is not the next trading day`);
    const rolloverMs = await timedTick();
    const positionRowsAfterRollover = (await service.repo.allPositions()).length;
    const endDrift = (await sandbox.verify.run()).drifted;
    progress(`${dialect}: rollover tick ${Math.round(rolloverMs)} ms`);

    return {
      positions,
      dialect,
      users: USERS,
      instruments: new Set(all.map((s) => s.instrument)).size,
      seedMs: round1(seedMs),
      regularTickMs: round1(regularTickMs),
      squareOffMs: round1(squareOffMs),
      rolloverMs: round1(rolloverMs),
      ordersPlaced,
      closesRejected,
      positionsLeftOpen,
      positionRowsAfterRollover,
      ledgerDriftedAfterSeed: seededDrift,
      ledgerDriftedAtEnd: endDrift,
    };
  } finally {
    await database?.close();
    if (schemaCreated)
      await withPg(pgUrl, (c) => c.query(`drop schema if exists "${schema}" cascade`)).catch((err: unknown) =>
        progress(`could not drop schema ${schema}: ${String(err)}`),
      );
    rmSync(dir, { recursive: true, force: true });
  }
}

// `tsx bench/benches/day-jobs.ts <positions> [sqlite|postgres] [pgUrl]`: one run, its result as JSON.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [n = '50', dialect = 'sqlite', pgUrl] = process.argv.slice(2);
  if (dialect !== 'sqlite' && dialect !== 'postgres') {
    console.error(`usage: day-jobs.ts <positions> [sqlite|postgres] [pgUrl]`);
    process.exit(2);
  }
  measureDayJobs({ positions: Number(n), dialect, ...(pgUrl !== undefined ? { pgUrl } : {}) }).then(
    (r) => console.log(JSON.stringify(r, null, 2)),
    (err: unknown) => {
      console.error(`day-jobs: FAILED: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      process.exitCode = 1;
    },
  );
}

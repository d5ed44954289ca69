/**
 * Issue 5's engine target: "with 5,000 resting LIMIT orders across 500 instruments, one price
 * update pass over all of them <= 20 ms". A custom flow, in process (no HTTP, no load generator):
 * the real `SandboxEngine` (built by `buildSandboxServices`) on a SQLite database migrated in a
 * temp directory, its book loaded from the database by `start()`, fed by a `ScriptedFeed`.
 *
 * - Instruments: 250 NSE equities + 250 NFO futures/options (50 + 200) parsed from the real Kite
 *   snapshots by the Zerodha importer, picked evenly from the sorted lists (deterministic).
 *   The snapshots carry no prices, so each instrument gets a seeded reference price on its tick.
 * - Orders: 10 LIMIT orders per instrument (5 BUY at -1..-5 %, 5 SELL at +1..+5 %), written by
 *   `SandboxRepository.insertOrder` in a shuffled order, over 10 users whose accounts block the
 *   orders' margin.
 * - Timed: `engine.pass(quotes)` for one update carrying all 500 instruments, 20 warm-up + 200
 *   measured passes, in two scenarios: nothing fills, and 50 orders (1 %) are marketable. The
 *   pass is pure (it only computes the fills), so repeating it changes nothing.
 * - Baseline, same run: a bare loop over 5,000 plain objects doing one comparison each (the least
 *   any pass must do), measured in blocks alternating with the passes so that the noise of a
 *   shared machine falls on both.
 * - Informative: the engine's whole processing of an update in which 50 orders fill (the pass,
 *   then the fills' transactions, then the book updates), from `feed.push` to `whenIdle`, over
 *   5 updates that each fill 50 other orders.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ensureInstallSecrets, loadConfig, sqliteFile } from '../../src/config.js';
import { istDateOf, istInstant } from '../../src/modules/market/timings.service.js';
import { placementMargin } from '../../src/modules/sandbox/core/margin.js';
import { ScriptedFeed } from '../../src/modules/sandbox/prices/price-source.js';
import { seededRandom } from '../../src/platform/seeded-random.js';
import type { NewOrder } from '../../src/modules/sandbox/store/sandbox.repository.js';
import {
  instrumentKind,
  quoteKey,
  type Product,
  type Quote,
  type Side,
} from '../../src/modules/sandbox/core/types.js';
import { FakeClock } from '../../src/platform/clock.js';
import { openDatabase, type Database } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { benchSandbox, kiteInstruments, priced, quoteAt, type Priced } from '../lib/bench-sandbox.js';
import { verdictWord } from '../lib/report.js';
import { kiteFiles } from './market-data.js';

export interface SandboxPassOptions {
  jsonFile: string | undefined;
}

const EQUITIES = 250;
const FUTURES = 50;
const OPTIONS = 200;
const ORDERS_PER_INSTRUMENT = 10;
const USERS = 10;
const WARMUP = 20;
const PASSES = 200;
/** Measured passes run in this many blocks, each preceded by a block of the baseline. */
const BLOCKS = 4;
/** Updates of the informative full-processing figure; each fills 50 orders not filled before. */
const FILL_ROUNDS = 5;
/** One in this many instruments has a marketable order in the "1 %" updates: 500 / 10 = 50 fills. */
const MARKETABLE_EVERY = 10;
/** Issue 5's target for one pass. */
const TARGET_MS = 20;
/** A run takes 5-15 s; past this it is stopped and fails. */
const DEADLINE_MS = 60_000;
/** A Tuesday in the NFO snapshot's life, 10:00 IST: a trading session, before any MIS square-off. */
const NOW = istInstant('2026-08-18', '10:00');
const MONEY = 10_000;

const progress = (message: string): void => void process.stderr.write(`[bench] ${message}\n`);
const round3 = (n: number): number => Math.round(n * 1000) / 1000;
const round4 = (n: number): number => Math.round(n * 10_000) / 10_000;

/** `count` items spread evenly over `items` (sorted by symbol first). */
function evenly<T extends { symbol: string }>(items: T[], count: number, what: string): T[] {
  const sorted = [...items].sort((a, b) => (a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0));
  if (sorted.length < count) throw new Error(`only ${sorted.length} ${what} in the Kite snapshots`);
  return Array.from({ length: count }, (_, i) => sorted[Math.floor((i * sorted.length) / count)]!);
}

/** Parses both Kite files with the real importer and picks the bench's 500 instruments. */
async function pickInstruments(): Promise<Priced[]> {
  const all = await kiteInstruments(kiteFiles());
  const tradable = all.filter((i) => i.tickSize > 0 && i.lotsize > 0);
  const picked = [
    ...evenly(
      tradable.filter((i) => i.exchange === 'NSE' && i.instrumenttype === 'EQ'),
      EQUITIES,
      'NSE equities',
    ),
    ...evenly(
      tradable.filter((i) => i.exchange === 'NFO' && i.instrumenttype === 'FUT'),
      FUTURES,
      'NFO futures',
    ),
    ...evenly(
      tradable.filter(
        (i) => i.exchange === 'NFO' && (i.instrumenttype === 'CE' || i.instrumenttype === 'PE'),
      ),
      OPTIONS,
      'NFO options',
    ),
  ];
  const rnd = seededRandom(5);
  return picked.map((instrument) => {
    const kind = instrumentKind(instrument.instrumenttype);
    // Synthetic but plausible prices, >= ₹100 so that 1 % is several ticks wide.
    const [lo, hi] = kind === 'future' ? [1_000, 60_000] : kind === 'option' ? [100, 1_000] : [100, 5_000];
    return priced(instrument, lo + rnd() * (hi - lo));
  });
}

/** Limit of the k-th order (1..5) of a side: k % away from the price, rounded away from it onto the tick. */
function limitOf(p: Priced, side: Side, k: number): number {
  const raw = p.ltp * (side === 'BUY' ? 1 - k / 100 : 1 + k / 100);
  return (side === 'BUY' ? Math.floor(raw / p.tick) : Math.ceil(raw / p.tick)) * p.tick;
}

/** The 5,000 orders: 5 BUY below and 5 SELL above the price of each instrument, shuffled. */
function ordersFor(instruments: Priced[], leverage: Parameters<typeof placementMargin>[0]['leverage']) {
  const rnd = seededRandom(7);
  const day = istDateOf(NOW);
  const orders: NewOrder[] = [];
  instruments.forEach((p, i) => {
    const kind = instrumentKind(p.instrument.instrumenttype);
    const product: Product = i % 2 === 0 ? 'MIS' : 'NRML';
    for (let j = 0; j < ORDERS_PER_INSTRUMENT; j++) {
      const side: Side = j % 2 === 0 ? 'BUY' : 'SELL';
      const price = limitOf(p, side, Math.floor(j / 2) + 1);
      const quantity =
        kind === 'equity' ? 1 + Math.floor(rnd() * 50) : p.instrument.lotsize * (1 + Math.floor(rnd() * 3));
      const pm = placementMargin({ kind, product, side, quantity, price, positionQuantity: 0, leverage });
      orders.push({
        user_id: 1 + ((i + j) % USERS),
        symbol: p.instrument.symbol,
        exchange: p.instrument.exchange,
        side,
        price_type: 'LIMIT',
        product,
        kind,
        quantity,
        price,
        trigger_price: 0,
        status: 'open',
        filled_quantity: 0,
        average_price: 0,
        blocked_margin: pm.margin,
        blocked_quantity: pm.openingQuantity,
        reason: null,
        strategy: 'bench',
        day,
        created_at: NOW,
        updated_at: NOW,
      });
    }
  });
  for (let i = orders.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [orders[i], orders[j]] = [orders[j]!, orders[i]!];
  }
  return orders;
}

/**
 * An update carrying all 500 instruments. With `round`, the instruments `i % 10 === round` move
 * 1.5 % (down on even rounds, up on odd ones): exactly one order each becomes marketable — the
 * BUY at -1 % (the ask is below it, the -2 % one stays above) or the SELL at +1 %.
 */
function update(instruments: Priced[], now: number, round?: number): Map<string, Quote> {
  const quotes = new Map<string, Quote>();
  instruments.forEach((p, i) => {
    let ltp = p.ltp;
    if (round !== undefined && i % MARKETABLE_EVERY === round % MARKETABLE_EVERY) {
      const moved = p.ltp * (round % 2 === 0 ? 0.985 : 1.015);
      ltp = Math.round(moved / p.tick) * p.tick;
    }
    quotes.set(p.key, quoteAt(p, ltp, now));
  });
  return quotes;
}

/** Nearest-rank percentile of ascending `sorted`. */
function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

interface Summary {
  n: number;
  p50: number;
  p99: number;
  max: number;
  mean: number;
}

function summarise(ms: number[]): Summary {
  const s = [...ms].sort((a, b) => a - b);
  return {
    n: s.length,
    p50: round4(percentile(s, 50)),
    p99: round4(percentile(s, 99)),
    max: round4(s[s.length - 1]!),
    mean: round4(s.reduce((a, b) => a + b, 0) / s.length),
  };
}

const elapsedMs = (t0: bigint): number => Number(process.hrtime.bigint() - t0) / 1e6;

/** The baseline's data: per order its limit and its instrument's touch price, as plain numbers. */
interface Plain {
  limit: number;
  touch: number;
}

let sink = 0;
/** One comparison per order: the least any matching pass must do. */
function baselinePass(plain: readonly Plain[]): number {
  let n = 0;
  for (let i = 0; i < plain.length; i++) if (plain[i]!.touch <= plain[i]!.limit) n++;
  return n;
}

/**
 * Times `pass()` and the baseline in alternating blocks (warm-up first, not recorded); checks
 * that every pass found exactly `expectFills` fills and held nothing.
 */
function measure(
  pass: () => { fills: unknown[]; held: unknown[] },
  plain: readonly Plain[],
  expectFills: number,
): { pass: number[]; baseline: number[] } {
  const passMs: number[] = [];
  const baseMs: number[] = [];
  const onePass = (record: boolean) => {
    const t0 = process.hrtime.bigint();
    const r = pass();
    const ms = elapsedMs(t0);
    if (r.fills.length !== expectFills || r.held.length !== 0)
      throw new Error(
        `a pass found ${r.fills.length} fills (expected ${expectFills}) and held ${r.held.length}`,
      );
    if (record) passMs.push(ms);
  };
  const oneBaseline = (record: boolean) => {
    const t0 = process.hrtime.bigint();
    sink += baselinePass(plain);
    const ms = elapsedMs(t0);
    if (record) baseMs.push(ms);
  };
  for (let i = 0; i < WARMUP; i++) {
    oneBaseline(false);
    onePass(false);
  }
  for (let b = 0; b < BLOCKS; b++) {
    for (let i = 0; i < PASSES / BLOCKS; i++) oneBaseline(true);
    for (let i = 0; i < PASSES / BLOCKS; i++) onePass(true);
  }
  return { pass: passMs, baseline: baseMs };
}

/** The baseline's 5,000 plain objects for an update (touch: ask for a BUY, bid for a SELL, negated for SELL). */
function plainOf(orders: NewOrder[], quotes: ReadonlyMap<string, Quote>): Plain[] {
  return orders.map((o) => {
    const q = quotes.get(quoteKey(o.exchange, o.symbol))!;
    const touch = Math.round((o.side === 'BUY' ? q.ask! : q.bid!) * MONEY);
    // A SELL is marketable at bid >= limit: negate both so that one comparison serves both sides.
    return o.side === 'BUY' ? { limit: o.price, touch } : { limit: -o.price, touch: -touch };
  });
}

interface Figures {
  instruments: number;
  orders: number;
  noFill: { pass: Summary; baseline: Summary };
  onePct: { pass: Summary; baseline: Summary; fills: number };
  process50: { rounds: number[]; fillsPerRound: number; p50: number; max: number; perFillMs: number };
}

/**
 * Runs the bench: set-up, the two timed scenarios, the informative full processing; prints the
 * table, the verdict against the 20 ms target and a summary line. Exit code 0 unless something
 * failed (a missed target does not fail the run).
 */
export async function runSandboxPass(opts: SandboxPassOptions): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'algodesk-bench-'));
  let database: Database | undefined;
  const deadline = setTimeout(() => {
    console.error(`bench sandbox-pass: FAILED: not finished after ${DEADLINE_MS / 1000} s`);
    rmSync(dir, { recursive: true, force: true });
    process.exit(1);
  }, DEADLINE_MS);
  const onSignal = (signal: NodeJS.Signals): void => {
    rmSync(dir, { recursive: true, force: true });
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const started = Date.now();
  try {
    kiteFiles(); // a missing snapshot fails at once, naming the file
    const env = {
      DATA_DIR: join(dir, 'data'),
      SANDBOX_PRICE_SOURCE: 'scripted',
      SANDBOX_SESSIONS: 'ignore',
      LOG_LEVEL: 'warn',
    };
    const { config } = ensureInstallSecrets(loadConfig(env, { cwd: dir, envFile: false }));
    database = openDatabase({ kind: 'sqlite', file: sqliteFile(config) });
    const { db } = database;
    await migrateToLatest(db);

    let t0 = Date.now();
    const instruments = await pickInstruments();
    const byKey = new Map(instruments.map((p) => [p.key, p.instrument]));
    progress(`picked ${instruments.length} instruments from the Kite snapshots in ${Date.now() - t0} ms`);

    const clock = new FakeClock(NOW);
    const sandbox = benchSandbox({
      db,
      config,
      clock,
      instruments: byKey,
      // No exchange calendar: no MIS square-off (10:00 IST is before every cut-off anyway).
      sessionOn: () => undefined,
    });
    const { engine, service } = sandbox;
    const repo = service.repo;

    t0 = Date.now();
    const orders = ordersFor(instruments, config.sandbox.leverage);
    await repo.transaction(async (trx) => {
      for (let u = 1; u <= USERS; u++) {
        const account = await trx.lockAccount(u, config.sandbox.startingFunds, NOW);
        const blocked = orders
          .filter((o) => o.user_id === u)
          .reduce((s, o) => s + (o.blocked_margin ?? 0), 0);
        await trx.saveAccount({ ...account, available: account.available - blocked, used_margin: blocked });
      }
      for (const o of orders) await trx.insertOrder(o);
    });
    progress(`inserted ${orders.length} resting LIMIT orders through insertOrder in ${Date.now() - t0} ms`);

    const feed = new ScriptedFeed();
    await sandbox.usePriceSource(feed);
    t0 = Date.now();
    await engine.start();
    await engine.whenIdle();
    if (engine.size !== orders.length)
      throw new Error(`the engine loaded ${engine.size} orders from the database, not ${orders.length}`);
    progress(
      `engine started, book of ${engine.size} orders loaded from the database in ${Date.now() - t0} ms`,
    );

    // 1. Nothing marketable.
    const quiet = update(instruments, clock.now());
    const noFill = measure(() => engine.pass(quiet), plainOf(orders, quiet), 0);
    // 2. 1 % marketable (the first round's update; the pass writes nothing, so it stays marketable).
    const onePctQuotes = update(instruments, clock.now(), 0);
    const fills = instruments.length / MARKETABLE_EVERY;
    const onePct = measure(() => engine.pass(onePctQuotes), plainOf(orders, onePctQuotes), fills);
    progress(`timed ${2 * (WARMUP + PASSES)} passes`);

    // 3. Informative: the whole processing of an update in which 50 orders fill.
    const rounds: number[] = [];
    for (let r = 0; r < FILL_ROUNDS; r++) {
      const before = engine.size;
      const quotes = update(instruments, clock.now(), r);
      const t = process.hrtime.bigint();
      feed.push(quotes);
      await engine.whenIdle();
      rounds.push(round3(elapsedMs(t)));
      if (before - engine.size !== fills)
        throw new Error(`update ${r + 1} filled ${before - engine.size} orders, expected ${fills}`);
    }
    const trades = await db
      .selectFrom('sandbox_trades')
      .select(db.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    if (Number(trades.n) !== FILL_ROUNDS * fills)
      throw new Error(`${trades.n} trades written, expected ${FILL_ROUNDS * fills}`);
    await engine.stop();

    const sortedRounds = [...rounds].sort((a, b) => a - b);
    const figures: Figures = {
      instruments: instruments.length,
      orders: orders.length,
      noFill: { pass: summarise(noFill.pass), baseline: summarise(noFill.baseline) },
      onePct: { pass: summarise(onePct.pass), baseline: summarise(onePct.baseline), fills },
      process50: {
        rounds,
        fillsPerRound: fills,
        p50: percentile(sortedRounds, 50),
        max: sortedRounds[sortedRounds.length - 1]!,
        perFillMs: round3(percentile(sortedRounds, 50) / fills),
      },
    };
    report(figures, Date.now() - started);
    if (opts.jsonFile !== undefined) {
      mkdirSync(dirname(opts.jsonFile), { recursive: true });
      const data = {
        name: 'sandbox-pass',
        node: process.version,
        timestamp: new Date().toISOString(),
        warmup: WARMUP,
        passes: PASSES,
        target_ms: TARGET_MS,
        ...figures,
        targets: verdicts(figures).map(({ label, met, actual }) => ({ label, met, actual })),
      };
      writeFileSync(opts.jsonFile, JSON.stringify(data, null, 2) + '\n');
      progress(`figures written to ${opts.jsonFile}`);
    }
    return 0;
  } catch (err) {
    console.error(
      `bench sandbox-pass: FAILED: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
    );
    return 1;
  } finally {
    clearTimeout(deadline);
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    await database?.close();
    rmSync(dir, { recursive: true, force: true });
    if (sink < 0) console.log(sink); // keeps the baseline's result observable
  }
}

const ratio = (a: number, b: number): string => (b > 0 ? `${(a / b).toFixed(0)}x` : '-');

function verdicts(f: Figures) {
  return [
    {
      label: `pass p99 <= ${TARGET_MS} ms (nothing fills)`,
      met: f.noFill.pass.p99 <= TARGET_MS,
      actual: `${f.noFill.pass.p99.toFixed(3)} ms, max ${f.noFill.pass.max.toFixed(3)} ms`,
    },
    {
      label: `pass p99 <= ${TARGET_MS} ms (1 % marketable)`,
      met: f.onePct.pass.p99 <= TARGET_MS,
      actual: `${f.onePct.pass.p99.toFixed(3)} ms, max ${f.onePct.pass.max.toFixed(3)} ms`,
    },
  ];
}

function report(f: Figures, totalMs: number): void {
  console.log(
    `sandbox-pass: ${f.orders} resting LIMIT orders over ${f.instruments} instruments (250 NSE EQ + 250 NFO), ` +
      `update of all ${f.instruments}, ${PASSES} passes after ${WARMUP} warm-up, node ${process.version}, ` +
      `${(totalMs / 1000).toFixed(1)} s`,
  );
  const row = (label: string, cells: string[]) =>
    console.log(label.padEnd(30) + cells.map((c) => c.padStart(10)).join(''));
  row('', ['p50 ms', 'p99 ms', 'max ms', 'mean ms']);
  const line = (label: string, s: Summary) =>
    row(label, [s.p50.toFixed(4), s.p99.toFixed(4), s.max.toFixed(4), s.mean.toFixed(4)]);
  line('baseline (1 compare/order)', f.noFill.baseline);
  line('pass, nothing fills', f.noFill.pass);
  row('pass/baseline', [
    ratio(f.noFill.pass.p50, f.noFill.baseline.p50),
    ratio(f.noFill.pass.p99, f.noFill.baseline.p99),
  ]);
  line('baseline (1 % run)', f.onePct.baseline);
  line(`pass, ${f.onePct.fills} fills (1 %)`, f.onePct.pass);
  row('pass/baseline', [
    ratio(f.onePct.pass.p50, f.onePct.baseline.p50),
    ratio(f.onePct.pass.p99, f.onePct.baseline.p99),
  ]);
  console.log(
    `informative: update with ${f.process50.fillsPerRound} fills, push to idle (pass + fill transactions), ` +
      `${f.process50.rounds.length} updates: p50 ${f.process50.p50.toFixed(1)} ms, max ${f.process50.max.toFixed(1)} ms ` +
      `(${f.process50.perFillMs.toFixed(2)} ms per fill; each: ${f.process50.rounds.map((r) => r.toFixed(1)).join(', ')})`,
  );
  console.log('targets (informational, issue 5):');
  for (const v of verdicts(f)) console.log(`  ${verdictWord(v.met)}  ${v.label}: ${v.actual}`);
  console.log(
    `bench sandbox-pass: pass_p50_ms ${f.noFill.pass.p50.toFixed(3)} pass_p99_ms ${f.noFill.pass.p99.toFixed(3)} ` +
      `pass_max_ms ${f.noFill.pass.max.toFixed(3)} baseline_p50_ms ${f.noFill.baseline.p50.toFixed(4)} ` +
      `ratio ${(f.noFill.pass.p50 / f.noFill.baseline.p50).toFixed(0)} ` +
      `fill1pct_p99_ms ${f.onePct.pass.p99.toFixed(3)} process50_ms ${f.process50.p50.toFixed(1)} ` +
      `target ${f.noFill.pass.p99 <= TARGET_MS && f.onePct.pass.p99 <= TARGET_MS ? 'met' : 'missed'}`,
  );
}

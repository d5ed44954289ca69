import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { emptyStats, runLoad, type SideStats } from './load.js';
import { baselineKind, cpuTime, Workspace, type Child } from './processes.js';
import {
  computeFigures,
  describeNon2xx,
  printTable,
  printVerdicts,
  summaryLine,
  writeJson,
} from './report.js';
import type {
  AfterRunReport,
  BaselineResponse,
  Bench,
  BenchPlan,
  BenchRequest,
  RunConditions,
} from './types.js';

export interface RunOptions {
  /** Measured seconds per side, split evenly over {@link ROUNDS}. */
  durationS: number;
  /** Unmeasured seconds per side before its first round. */
  warmupS: number;
  connections: number;
  /** Where to write the figures as JSON, if anywhere. */
  jsonFile: string | undefined;
}

/**
 * Measurement alternates sides in this many rounds (baseline, server, baseline, server), so
 * that a burst of load from a neighbour on a shared machine hits both sides rather than one.
 */
export const ROUNDS = 2;

type Side = 'baseline' | 'server';

/** A run whose figures would be meaningless (non-2xx answers, errors); the message says why. */
class BenchFailure extends Error {}

const progress = (message: string): void => void process.stderr.write(`[bench] ${message}\n`);

/**
 * What `--baseline same-writes` needs of a bench (`placeorder-analyze` and `webhook-signal` have
 * it): the baseline (`lib/baseline-same-writes.mjs`) writes, per request, the rows algodesk writes
 * for one such request (`kind`: an analyzer-mode MARKET order filled at once, or a signal delivery
 * to the strategy the request's path names), for this user at these fill prices (₹).
 */
export interface SameWritesSpec {
  kind: 'placeorder' | 'webhook';
  userId: number;
  fill: { BUY: number; SELL: number };
}

/** A plan whose bench can be measured against the same-writes baseline. */
export interface SameWritesPlan extends BenchPlan {
  sameWrites: SameWritesSpec;
}

const SAME_WRITES_SERVER = join(dirname(fileURLToPath(import.meta.url)), 'baseline-same-writes.mjs');
/** The app's PostgreSQL pool (src/platform/db/database.ts, openDatabase): the baseline's is as large. */
const APP_PG_POOL_SIZE = 10;

/** `--baseline same-writes` (run.ts sets `BENCH_BASELINE`); the other kinds: processes.ts. */
const sameWrites = (): boolean => process.env.BENCH_BASELINE === 'same-writes';

const BASELINE_LABELS = { node: 'bare node:http', fastify: 'bare Fastify' } as const;
const SAME_WRITES_LABELS = {
  sqlite: "node:http + better-sqlite3 writing the request's rows",
  postgres: `node:http + pg (pool of ${APP_PG_POOL_SIZE}) writing the request's rows`,
} as const;

/**
 * The same-writes baseline's database, given the server's once it is ready (the bench's `ready`
 * made its strategy, its test orders): SQLite, a copy (`VACUUM INTO`, a consistent read) of the
 * server's file, so the app's migrated schema (tables, indexes) and the server's rows; PostgreSQL,
 * `schema` (migrated before the server started), which the baseline fills with the server's rows
 * when it starts. Either way the baseline never writes a row the server reads.
 */
function sameWritesStore(ws: Workspace, schema: string | undefined): Record<string, unknown> {
  const pgRun = ws.postgres;
  if (pgRun === undefined) {
    return { dbFile: ws.copyServerDatabase('baseline-same-writes.db') };
  }
  return { pgUrl: pgRun.baseUrl, schema, copyFrom: pgRun.schema, poolSize: APP_PG_POOL_SIZE };
}

/**
 * Runs one bench end to end: setup, server and baseline start, one probe request to each,
 * warm-up and measured rounds, report. Resolves to the process exit code: 0 when the run is
 * valid (whatever the target verdicts), 1 otherwise. Always stops the children and removes
 * the temp directory, also on SIGINT/SIGTERM.
 */
export async function runBench(name: string, bench: Bench, opts: RunOptions): Promise<number> {
  let ws: Workspace;
  try {
    ws = await Workspace.create();
  } catch (err) {
    return failed(name, err);
  }
  progress(
    `database: ${ws.database}; baseline: ${sameWrites() ? SAME_WRITES_LABELS[ws.database] : BASELINE_LABELS[baselineKind()]}`,
  );
  const onSignal = (signal: NodeJS.Signals): void => {
    ws.abortSync();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  // A bench with a deadline is stopped past it (a hung child or load run must not hang the caller).
  const deadline =
    bench.deadlineS === undefined
      ? undefined
      : setTimeout(() => {
          console.error(`bench ${name}: FAILED: not finished after ${bench.deadlineS} s`);
          ws.abortSync();
          process.exit(1);
        }, bench.deadlineS * 1000);
  deadline?.unref();
  let server: Child | undefined;
  try {
    progress(`setup in ${ws.dir}`);
    const plan = await bench.setup({
      dataDir: ws.dataDir,
      connections: opts.connections,
      cli: (...args) => ws.cli(args),
    });
    let sameWritesSchema: string | undefined;
    if (sameWrites()) {
      if (!('sameWrites' in plan)) throw new Error(`--baseline same-writes does not apply to ${name}`);
      if (ws.database === 'postgres') sameWritesSchema = await ws.migratedSchema('sw');
    }
    server = await ws.startServer('server', plan.serverEnv);
    await whenReady(ws, server, plan);
    let expected: BaselineResponse;
    let baseline: Child;
    if (plan.baselineServerEnv) {
      baseline = await ws.startServer('baseline-server', plan.baselineServerEnv);
      await whenReady(ws, baseline, plan);
      expected = plan.baseline ?? (await capture(server, plan.request));
    } else if (sameWrites()) {
      expected = plan.baseline ?? (await capture(server, plan.request));
      const { method, path } = plan.request;
      baseline = await ws.startScript(
        'baseline',
        SAME_WRITES_SERVER,
        {
          method,
          paths: plan.request.paths ?? [path],
          ...expected,
          ...(plan as SameWritesPlan).sameWrites,
          ...sameWritesStore(ws, sameWritesSchema),
        },
        'baseline is running at',
      );
    } else {
      expected = plan.baseline ?? (await capture(server, plan.request));
      baseline = await ws.startBaseline(plan.request, expected);
    }
    // The same-writes baseline's answer varies per request (an order id, a signal's message), as the server's does.
    await probe(server, baseline, plan.request, expected, plan.normalize, sameWrites());

    const { method, path } = plan.request;
    const roundS = opts.durationS / ROUNDS;
    console.log(
      `${name}: ${method} ${path}, ${opts.connections} connection${opts.connections === 1 ? '' : 's'}, ` +
        `${ROUNDS} rounds x ${roundS} s per side after ${opts.warmupS} s warm-up, node ${process.version}`,
    );

    const children: Record<Side, Child> = { baseline, server };
    const warmup: Record<Side, SideStats> = { baseline: emptyStats(), server: emptyStats() };
    const measured: Record<Side, SideStats> = { baseline: emptyStats(), server: emptyStats() };
    for (let round = 1; round <= ROUNDS; round++) {
      for (const side of ['baseline', 'server'] as const) {
        const load = { port: children[side].port, request: plan.request, connections: opts.connections };
        if (round === 1 && opts.warmupS > 0) {
          progress(`${side}: warm-up, ${opts.warmupS} s`);
          await runLoad({ ...load, durationS: opts.warmupS }, warmup[side]);
        }
        progress(`${side}: round ${round}/${ROUNDS}, ${roundS} s`);
        await measure(children[side], measured[side], () =>
          runLoad({ ...load, durationS: roundS }, measured[side]),
        );
      }
    }
    // Checked for both sides: errors on the baseline mean the load generator or the machine
    // failed, which invalidates the comparison as surely as a 403 from the server.
    const problems = (['server', 'baseline'] as const).flatMap((side) => [
      ...problemsOf(`${side} (warm-up)`, warmup[side], false),
      ...problemsOf(side, measured[side], true),
    ]);
    if (problems.length > 0) throw new BenchFailure(`invalid run:\n  ${problems.join('\n  ')}`);

    let after: AfterRunReport = {};
    if (plan.afterRun) {
      // Stopped first: its log is then flushed and its queues drained (graceful shutdown).
      progress('server: stopping it for the after-run checks');
      await ws.stop(server);
      after = await plan.afterRun(handleOf(ws, server));
    }
    const figures = computeFigures(measured.server, measured.baseline);
    const conditions: RunConditions = {
      connections: opts.connections,
      baseline: sameWrites() ? 'same-writes' : baselineKind(),
      database: ws.database,
    };
    const targets = [
      ...bench.targets.map((t) => ({ label: t.label, ...t.evaluate(figures, conditions) })),
      ...(after.targets ?? []),
    ];
    printTable(figures, measured.server, measured.baseline);
    for (const line of after.lines ?? []) console.log(line);
    printVerdicts(targets);
    if (opts.jsonFile !== undefined) {
      writeJson(opts.jsonFile, {
        name,
        request: plan.request,
        figures,
        server: measured.server,
        baseline: measured.baseline,
        ...(sameWrites() ? {} : { baselineKind: baselineKind() }),
        durationS: opts.durationS,
        warmupS: opts.warmupS,
        rounds: ROUNDS,
        connections: opts.connections,
        targets,
        // report.ts knows the baseline server kinds of processes.ts; this one is named here.
        ...(after.json || sameWrites()
          ? { extra: { ...after.json, ...(sameWrites() ? { baseline_kind: 'same-writes' } : {}) } }
          : {}),
      });
      progress(`figures written to ${opts.jsonFile}`);
    }
    console.log(summaryLine(name, figures));
    return 0;
  } catch (err) {
    if (err instanceof BenchFailure && server !== undefined)
      console.error(`last lines of the server log:\n${ws.logTail(server, 10)}`);
    return failed(name, err);
  } finally {
    clearTimeout(deadline);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await ws.dispose();
  }
}

/** Runs `load` and adds the CPU time `child` used meanwhile to `stats`. */
export async function measure(child: Child, stats: SideStats, load: () => Promise<void>): Promise<void> {
  const before = cpuTime(child);
  await load();
  const after = cpuTime(child);
  if (before === undefined || after === undefined || stats.cpu === undefined) {
    stats.cpu = undefined;
    return;
  }
  stats.cpu.allMs += after.allMs - before.allMs;
  stats.cpu.mainMs += after.mainMs - before.mainMs;
}

function failed(name: string, err: unknown): number {
  console.error(`bench ${name}: FAILED: ${err instanceof Error ? err.message : String(err)}`);
  return 1;
}

/** Runs the plan's `ready` hook, if any, on one algodesk server. */
async function whenReady(ws: Workspace, child: Child, plan: BenchPlan): Promise<void> {
  if (!plan.ready) return;
  progress(`${child.label}: waiting until it is ready`);
  await plan.ready(handleOf(ws, child));
}

function handleOf(ws: Workspace, child: Child) {
  return {
    label: child.label,
    url: `http://127.0.0.1:${child.port}`,
    log: () => ws.log(child),
    exited: () => child.process.exitCode !== null || child.process.signalCode !== null,
  };
}

async function send(child: Child, request: BenchRequest) {
  const res = await fetch(`http://127.0.0.1:${child.port}${request.path}`, {
    method: request.method,
    headers: request.headers,
    body: request.body ?? request.bodies?.[0],
  });
  return { status: res.status, contentType: res.headers.get('content-type'), body: await res.text() };
}

/** The server's own answer to the request, for a plan without a fixed baseline answer. */
async function capture(server: Child, request: BenchRequest): Promise<BaselineResponse> {
  const s = await send(server, request);
  if (s.status < 200 || s.status > 299)
    throw new BenchFailure(`the server answered the probe request with ${s.status}: ${s.body}`);
  return { status: s.status, contentType: s.contentType ?? 'application/octet-stream', body: s.body };
}

/**
 * Sends the bench's request once to each side before any load, so that a wrong key or a
 * changed route fails in a second with the server's own answer instead of after a whole run
 * of 403s. A server body that differs from the baseline's is only a warning: the comparison
 * then no longer sends the same bytes, which the bench author should know about.
 */
async function probe(
  server: Child,
  baseline: Child,
  request: BenchRequest,
  expected: BaselineResponse,
  normalize: (body: string) => string = (body) => body,
  /** The baseline's body is compared normalized too (it varies per request). */
  normalizeBaseline = false,
): Promise<void> {
  const s = await send(server, request);
  if (s.status < 200 || s.status > 299)
    throw new BenchFailure(`the server answered the probe request with ${s.status}: ${s.body}`);
  const b = await send(baseline, request);
  const sameBody = normalizeBaseline
    ? normalize(b.body) === normalize(expected.body)
    : b.body === expected.body;
  if (b.status !== expected.status || !sameBody)
    throw new BenchFailure(`the baseline answered the probe request with ${b.status}: ${b.body}`);
  if (normalize(s.body) !== normalize(b.body) || s.contentType !== expected.contentType)
    progress(
      `warning: the server's answer differs from the baseline's:\n` +
        `  server:   ${s.contentType} ${s.body}\n  baseline: ${expected.contentType} ${b.body}`,
    );
}

/** What makes a side's figures meaningless: non-2xx answers, errors, no response at all. */
function problemsOf(label: string, stats: SideStats, measured: boolean): string[] {
  const problems: string[] = [];
  if (stats.non2xx > 0) problems.push(`${stats.non2xx} non-2xx (${describeNon2xx(stats)})`);
  if (stats.errors > 0) problems.push(`${stats.errors} errors (${stats.timeouts} timeouts)`);
  if (measured && stats.responses === 0) problems.push('no response at all');
  return problems.length > 0 ? [`${label}: ${problems.join(', ')} in ${stats.responses} responses`] : [];
}

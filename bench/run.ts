/**
 * Benchmark entry point: `tsx bench/run.ts <name> [--duration <s>] [--connections <n>] [--db <sqlite|postgres>]
 * [--baseline <node|fastify|same-writes>] [--json <file>]` (normally through `npm run bench -- <name> …`, which builds dist/ first). See
 * bench/README.md.
 */
import { parseArgs } from 'node:util';
import { banCheck } from './benches/ban-check.js';
import { runContracts } from './benches/contracts.js';
import { runFlood } from './benches/flood.js';
import { runGrowth } from './benches/growth.js';
import { runSandboxPass } from './benches/sandbox-pass.js';
import { ping } from './benches/ping.js';
import { placeorderAnalyze } from './benches/placeorder-analyze.js';
import { webhookSignal } from './benches/webhook-signal.js';
import { LIVE_DEFAULT_CONNECTIONS, runPlaceorderLive } from './benches/placeorder-live.js';
import { QUOTES_DEFAULT_CONNECTIONS, runQuotesLive } from './benches/quotes-live.js';
import { searchBnfFut, searchDb, searchNiftyCe, searchSbin } from './benches/search.js';
import { runWsFanout, WS_FANOUT_DEFAULT_SOCKETS } from './benches/ws-fanout.js';
import { runWsOrdersUnderTicks } from './benches/ws-orders-under-ticks.js';
import { ROUNDS, runBench } from './lib/runner.js';
import type { Bench } from './lib/types.js';

/** Every bench, by the name given on the command line. */
const BENCHES = new Map<string, Bench>([
  ['ping', ping],
  ['ban-check', banCheck],
  ['search-sbin', searchSbin],
  ['search-nifty-ce', searchNiftyCe],
  ['search-bnf-fut', searchBnfFut],
  ['search-db', searchDb],
  ['placeorder-analyze', placeorderAnalyze],
  ['webhook-signal', webhookSignal],
]);

const DEFAULTS = { duration: 10, connections: 50 };
/** Bounds that keep a run near a minute (2 x (duration + warm-up) plus set-up and start-up). */
const LIMITS = { duration: [2, 20], connections: [1, 500] } as const;
const WARMUP_S = 2;
/** Requests per read and install in the growth bench. */
const GROWTH_SAMPLES = 100;

/** `--db postgres` without BENCH_DATABASE_URL: the CI's PostgreSQL (trust auth, database `test`). */
const DEFAULT_PG_URL = 'postgres://postgres@127.0.0.1:5432/test';

/** The benches `--baseline same-writes` applies to (their plans say which rows: bench/lib/runner.ts). */
const SAME_WRITES_BENCHES = ['placeorder-analyze', 'webhook-signal'];

const USAGE = `usage: tsx bench/run.ts <name> [--duration <s>] [--connections <n>] [--db <sqlite|postgres>] [--baseline <node|fastify|same-writes>] [--fraction <x>] [--json <file>]
  --duration     measured seconds per side, ${LIMITS.duration[0]}..${LIMITS.duration[1]} (default ${DEFAULTS.duration}), in ${ROUNDS} alternating rounds, after ${WARMUP_S} s of warm-up
  --connections  concurrent connections, ${LIMITS.connections[0]}..${LIMITS.connections[1]} (default ${DEFAULTS.connections}, or the bench's own)
  --db           the server's database: sqlite (default, under the run's temp directory) or postgres
                 (a schema of the run's own at BENCH_DATABASE_URL, default ${DEFAULT_PG_URL})
  --baseline     what the server is measured against: node (default, a bare node:http server),
                 fastify (a bare Fastify route: what algodesk adds above its framework) or, for
                 ${SAME_WRITES_BENCHES.join(' and ')}, same-writes (node:http writing, per request, the
                 rows algodesk writes for it, with better-sqlite3 or, with --db postgres, pg: what
                 algodesk adds above its durable work)
  --fraction     growth only: the share of a year of data the large install holds, 0.001..1 (default 1;
                 the small one holds 1 % of it); CI's smoke run uses 0.02
  --json         also write the figures to this file`;

/** Benches with a flow of their own (not server-versus-baseline on one request). */
const CUSTOM = new Map([
  [
    'growth',
    'a year of data vs 1 % of it: every dashboard, book, log and search read, start-up, RSS, day-boundary jobs',
  ],
  ['flood', '10,000 invalid-key requests from one IP: banned at the threshold, others served'],
  ['contracts', 'import of the Upstox / Zerodha contracts, index build time, memory the index adds'],
  [
    'sandbox-pass',
    'sandbox engine: one matching pass over 5,000 resting orders / 500 instruments (in process)',
  ],
  [
    'placeorder-live',
    'live placeorder through the Zerodha adapter to a loopback Kite stub vs the stub directly (added ms)',
  ],
  [
    'quotes-live',
    '/api/v1/quotes through algodesk to a loopback Kite quote stub vs the stub directly (added ms)',
  ],
  [
    'ws-fanout',
    'live feed: Kite Ticker stub ticks 500 instruments to 200 sockets x 50 (Quote) vs a bare ws server (msgs/s, latency, RSS)',
  ],
  [
    'ws-orders-under-ticks',
    "placeorder-analyze's load while ws-fanout's sockets and ticks run, vs the same orders quiet (order p99)",
  ],
]);

function listBenches(): string {
  return [...[...BENCHES].map(([name, b]) => [name, b.description] as const), ...CUSTOM]
    .map(([name, description]) => `  ${name.padEnd(22)} ${description}`)
    .join('\n');
}

function usageError(message: string): never {
  console.error(`${message}\n${USAGE}\nbenches:\n${listBenches()}`);
  process.exit(1);
}

function intOption(name: keyof typeof LIMITS, raw: string | undefined, fallback = DEFAULTS[name]): number {
  if (raw === undefined) return fallback;
  const [min, max] = LIMITS[name];
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < min || n > max) usageError(`--${name} must be an integer in ${min}..${max}`);
  return n;
}

function parseCommandLine(args: string[]) {
  try {
    return parseArgs({
      args,
      allowPositionals: true,
      options: {
        duration: { type: 'string' },
        connections: { type: 'string' },
        db: { type: 'string' },
        baseline: { type: 'string' },
        json: { type: 'string' },
        fraction: { type: 'string' },
      },
    });
  } catch (err) {
    usageError((err as Error).message);
  }
}

const { positionals, values } = parseCommandLine(process.argv.slice(2));
const [name, ...extra] = positionals;
if (name === undefined) usageError('no bench named');
if (extra.length > 0) usageError(`unexpected arguments: ${extra.join(' ')}`);
if (values.db !== undefined && values.db !== 'sqlite' && values.db !== 'postgres')
  usageError('--db must be sqlite or postgres');
if (values.db === 'postgres') {
  if (name === 'sandbox-pass')
    usageError('sandbox-pass runs in process, without a database: --db does not apply');
  // Read by the workspace (bench/lib/processes.ts): every algodesk process of the run uses it.
  process.env.BENCH_DATABASE_URL ??= DEFAULT_PG_URL;
} else delete process.env.BENCH_DATABASE_URL;
if (values.baseline !== undefined) {
  if (values.baseline !== 'node' && values.baseline !== 'fastify' && values.baseline !== 'same-writes')
    usageError('--baseline must be node, fastify or same-writes');
  if (values.baseline === 'same-writes' && !SAME_WRITES_BENCHES.includes(name))
    usageError(`--baseline same-writes applies to ${SAME_WRITES_BENCHES.join(' and ')} only, not ${name}`);
  if (CUSTOM.has(name))
    usageError(`--baseline applies to the benches measured against a baseline server, not ${name}`);
}
// Read by the workspace (bench/lib/processes.ts) when it starts the baseline.
process.env.BENCH_BASELINE = values.baseline ?? 'node';
if (name === 'flood') {
  process.exitCode = await runFlood({
    durationS: intOption('duration', values.duration),
    connections: intOption('connections', values.connections),
    jsonFile: values.json,
  });
  process.exit();
}
if (values.fraction !== undefined && name !== 'growth') usageError('--fraction applies to growth only');
if (name === 'growth') {
  // Reads timed one at a time against two seeded installs, not a load run: --duration and
  // --connections do not apply.
  const fraction = values.fraction === undefined ? 1 : Number(values.fraction);
  if (!(fraction >= 0.001 && fraction <= 1)) usageError('--fraction must be a number in 0.001..1');
  process.exitCode = await runGrowth({ fraction, samples: GROWTH_SAMPLES, jsonFile: values.json });
  process.exit();
}
if (name === 'contracts') {
  // Times and memory of one import each, not a load run: --duration and --connections do not apply.
  process.exitCode = await runContracts({ jsonFile: values.json });
  process.exit();
}
if (name === 'sandbox-pass') {
  // An in-process timing of the engine's matching pass, not a load run: --duration and
  // --connections do not apply.
  process.exitCode = await runSandboxPass({ jsonFile: values.json });
  process.exit();
}
if (name === 'placeorder-live') {
  // Two targets (the loopback stub and algodesk in front of it), not server versus baseline.
  process.exitCode = await runPlaceorderLive({
    durationS: intOption('duration', values.duration),
    connections: intOption('connections', values.connections, LIVE_DEFAULT_CONNECTIONS),
    jsonFile: values.json,
  });
  process.exit();
}
if (name === 'quotes-live') {
  process.exitCode = await runQuotesLive({
    durationS: intOption('duration', values.duration),
    connections: intOption('connections', values.connections, QUOTES_DEFAULT_CONNECTIONS),
    jsonFile: values.json,
  });
  process.exit();
}
if (name === 'ws-fanout') {
  // Not server versus baseline on one request: --connections is the number of feed sockets per side.
  process.exitCode = await runWsFanout({
    durationS: intOption('duration', values.duration),
    sockets: intOption('connections', values.connections, WS_FANOUT_DEFAULT_SOCKETS),
    jsonFile: values.json,
  });
  process.exit();
}
if (name === 'ws-orders-under-ticks') {
  process.exitCode = await runWsOrdersUnderTicks({
    durationS: intOption('duration', values.duration),
    connections: intOption('connections', values.connections),
    jsonFile: values.json,
  });
  process.exit();
}
const bench = BENCHES.get(name);
if (bench === undefined) usageError(`unknown bench "${name}"`);

process.exitCode = await runBench(name, bench, {
  durationS: intOption('duration', values.duration),
  warmupS: WARMUP_S,
  connections: intOption('connections', values.connections, bench.connections),
  jsonFile: values.json,
});

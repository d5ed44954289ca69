import { emptyStats, runLoad, type SideStats } from '../lib/load.js';
import { Workspace, type Child } from '../lib/processes.js';
import { startLiveFloor } from '../lib/live-floor.js';
import { KiteStub } from '../lib/kite-order-stub.js';
import {
  computeFigures,
  cpuPerResponse,
  describeNon2xx,
  verdictWord,
  writeJson,
  type TargetResult,
} from '../lib/report.js';
import { measure } from '../lib/runner.js';
import type { BenchRequest, Figures } from '../lib/types.js';
import { createApiKey, importContract, waitForIndex } from './market-data.js';
import { setAnalyzeMode } from './placeorder-analyze.js';
import {
  BENCH_USER,
  countLogLines,
  describeCounts,
  DROPPED_MSG,
  kiteNseSnapshot,
  LATENCY_WRITE_FAILED_MSG,
  readOrderRows,
  sbinOrder,
  sum,
} from './order-bench.js';

export interface LiveOptions {
  durationS: number;
  connections: number;
  jsonFile: string | undefined;
}

/** Connections when `--connections` is not given: the stub shares the bench's one thread. */
export const LIVE_DEFAULT_CONNECTIONS = 10;
/** Targets (orders issue, "Performance"). */
const TARGETS = { addedP50Ms: 1, addedP99Ms: 5 };
/** Connections of the adapter's keep-alive pool to one broker origin (order-transport.ts). */
const POOL_CONNECTIONS = 8;
const WARMUP_S = 2;
const ROUNDS = 2;
/** A run takes 35-45 s (about 25 s with the default duration, plus set-up); past this it fails. */
const DEADLINE_MS = 90_000;

const BROKER = {
  apiKey: 'benchkiteapikey',
  apiSecret: 'benchkiteapisecret',
  token: 'benchkiteaccesstoken0123456789',
};

const progress = (message: string): void => void process.stderr.write(`[bench] ${message}\n`);
const round2 = (n: number): number => Math.round(n * 100) / 100;

type Side = 'stub' | 'algodesk' | 'floor';
const SIDES = ['stub', 'algodesk', 'floor'] as const;

/**
 * Orders issue, "Performance": live `POST /api/v1/placeorder` through the Zerodha adapter to a
 * loopback Kite stub, against the same stub called directly with the bytes the adapter sends,
 * in the same run. The difference of their latencies is what algodesk adds to a live order
 * (schema, API key, rate limit, instrument lookup, broker session, mapping, the pooled broker
 * call, event and latency bookkeeping). Also checks that the adapter reuses its pool's
 * connections (the stub counts the TCP connections it accepts).
 */
export async function runPlaceorderLive(opts: LiveOptions): Promise<number> {
  let ws: Workspace;
  try {
    ws = await Workspace.create();
  } catch (err) {
    return failed(err);
  }
  const kiteAuth = `token ${BROKER.apiKey}:${BROKER.token}`;
  const stubs = {
    viaAlgodesk: new KiteStub('via algodesk', kiteAuth),
    direct: new KiteStub('direct', kiteAuth),
    viaFloor: new KiteStub('via the floor', kiteAuth),
  };
  const deadline = setTimeout(() => {
    console.error(`bench placeorder-live: FAILED: not finished after ${DEADLINE_MS / 1000} s`);
    ws.abortSync();
    process.exit(1);
  }, DEADLINE_MS);
  const onSignal = (signal: NodeJS.Signals): void => {
    ws.abortSync();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  let server: Child | undefined;
  try {
    progress(`setup in ${ws.dir}`);
    const snapshot = kiteNseSnapshot(); // fails at once when the shared data is missing
    const cli = (...args: string[]) => ws.cli(args);
    const apikey = await createApiKey(cli);
    const imported = await importContract(cli, 'zerodha', snapshot);
    progress(`imported ${imported.rows} Kite NSE instruments in ${imported.duration_ms} ms`);
    await ws
      .cli(['broker-session', 'set', '--username', BENCH_USER.username, '--broker', 'zerodha'], BROKER.token)
      .catch((err: unknown) => {
        // Known CLI defect: the session is stored, then the invalidation bus's fire-and-forget
        // refresh runs after the CLI has closed the database and the process exits 1. The live
        // test order below proves the session is there (else it answers 403).
        if (!String((err as Error).message).includes('driver has already been destroyed')) throw err;
        progress('warning: "broker-session set" stored the session but exited 1 (driver already destroyed)');
      });

    const stubPort = await stubs.viaAlgodesk.listen();
    const directPort = await stubs.direct.listen();
    const floorStubPort = await stubs.viaFloor.listen();
    server = await ws.startServer('server', {
      BROKER_NAME: 'zerodha',
      BROKER_API_KEY: BROKER.apiKey,
      BROKER_API_SECRET: BROKER.apiSecret,
      BROKER_REDIRECT_URL: 'http://127.0.0.1/cb',
      BROKER_API_BASE_URL: `http://127.0.0.1:${stubPort}`,
      ORDER_RATE_LIMIT: '1000000 per second',
    });
    const srv = server;
    const handle = {
      log: () => ws.log(srv),
      exited: () => srv.process.exitCode !== null || srv.process.signalCode !== null,
    };
    const index = await waitForIndex(handle);
    progress(`server: index of ${index.instruments} instruments built in ${index.ms} ms`);
    // A new install starts in Analyze mode (the sandbox): this bench measures the live path.
    await setAnalyzeMode(`http://127.0.0.1:${server.port}`, false);

    // Probe: one BUY and one SELL through algodesk; the stub keeps the bytes the adapter sent.
    const algodeskBodies = [sbinOrder(apikey, 'BUY'), sbinOrder(apikey, 'SELL')];
    const forms: string[] = [];
    let stubHeaders: Record<string, string> = {};
    for (const body of algodeskBodies) {
      const res = await fetch(`http://127.0.0.1:${server.port}/api/v1/placeorder`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      const text = await res.text();
      if (res.status !== 200 || !stubs.viaAlgodesk.last)
        throw new BenchFailure(`a live test order answered ${res.status}: ${text}`);
      forms.push(stubs.viaAlgodesk.last.body);
      stubHeaders = stubs.viaAlgodesk.last.headers;
    }
    const placeorder: BenchRequest = {
      method: 'POST',
      path: '/api/v1/placeorder',
      headers: { 'content-type': 'application/json' },
      bodies: algodeskBodies,
    };
    const requests: Record<Side, BenchRequest> = {
      algodesk: placeorder,
      floor: placeorder,
      stub: { method: 'POST', path: '/orders/regular', headers: stubHeaders, bodies: forms },
    };
    const floor = await startLiveFloor(ws, {
      brokerPort: floorStubPort,
      headers: stubHeaders,
      forms: { BUY: forms[0]!, SELL: forms[1]! },
      connections: POOL_CONNECTIONS,
    });
    const floorProbe = await fetch(`http://127.0.0.1:${floor.port}/api/v1/placeorder`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: algodeskBodies[0],
    });
    if (floorProbe.status !== 200)
      throw new BenchFailure(`the floor answered its probe ${floorProbe.status}: ${await floorProbe.text()}`);
    const direct = await fetch(`http://127.0.0.1:${directPort}/orders/regular`, {
      method: 'POST',
      headers: stubHeaders,
      body: forms[0],
    });
    if (direct.status !== 200) throw new BenchFailure(`the stub answered the direct probe ${direct.status}`);
    progress(`adapter's form: ${forms[0]}`);

    const roundS = opts.durationS / ROUNDS;
    console.log(
      `placeorder-live: POST /api/v1/placeorder (live, zerodha adapter) -> loopback Kite stub POST /orders/regular, ` +
        `vs the stub called directly and a bare forwarder (the floor); ${opts.connections} connection${opts.connections === 1 ? '' : 's'}, ` +
        `${ROUNDS} rounds x ${roundS} s per side after ${WARMUP_S} s warm-up, node ${process.version}`,
    );
    const ports: Record<Side, number> = { stub: directPort, algodesk: server.port, floor: floor.port };
    const warmup: Record<Side, SideStats> = {
      stub: emptyStats(),
      algodesk: emptyStats(),
      floor: emptyStats(),
    };
    const measured: Record<Side, SideStats> = {
      stub: emptyStats(),
      algodesk: emptyStats(),
      floor: emptyStats(),
    };
    // The stub runs in this process, beside the load generator: its CPU is not told apart.
    measured.stub.cpu = undefined;
    for (let round = 1; round <= ROUNDS; round++) {
      for (const side of SIDES) {
        const load = { port: ports[side], request: requests[side], connections: opts.connections };
        if (round === 1) {
          progress(`${side}: warm-up, ${WARMUP_S} s`);
          await runLoad({ ...load, durationS: WARMUP_S }, warmup[side]);
        }
        progress(`${side}: round ${round}/${ROUNDS}, ${roundS} s`);
        const run = () => runLoad({ ...load, durationS: roundS }, measured[side]);
        await (side === 'algodesk' ? measure(server, measured.algodesk, run) : run());
      }
    }
    const problems = SIDES.flatMap((side) => [
      ...problemsOf(`${side} (warm-up)`, warmup[side], false),
      ...problemsOf(side, measured[side], true),
    ]);
    if (problems.length > 0) throw new BenchFailure(`invalid run:\n  ${problems.join('\n  ')}`);

    // Stopped first: its log is then flushed and its event queue drained (graceful shutdown).
    progress('server: stopping it for the after-run checks');
    await ws.stop(server);
    const log = ws.log(server);
    const dropped = countLogLines(log, DROPPED_MSG);
    const latencyFailures = countLogLines(log, LATENCY_WRITE_FAILED_MSG);
    const rows = await readOrderRows(ws.dataDir);
    const logged = sum(rows.orderLogs);

    const figures = computeFigures(measured.algodesk, measured.stub);
    const added = {
      p50: round2(figures.p50Ms - figures.baselineP50Ms),
      p99: round2(figures.p99Ms - figures.baselineP99Ms),
    };
    const floorFigures = computeFigures(measured.floor, measured.stub);
    const floorAdded = {
      p50: round2(floorFigures.p50Ms - floorFigures.baselineP50Ms),
      p99: round2(floorFigures.p99Ms - floorFigures.baselineP99Ms),
    };
    const conns = { algodesk: stubs.viaAlgodesk.connections, direct: stubs.direct.connections };
    printLiveTable(figures, measured, added, { figures: floorFigures, added: floorAdded });
    const cpu = cpuPerResponse(measured.algodesk);
    if (cpu) console.log(`algodesk CPU µs per order (all threads / main thread): ${cpu.all} / ${cpu.main}`);
    console.log(
      `stub: TCP connections accepted from algodesk ${conns.algodesk} (pool of ${POOL_CONNECTIONS}) for ` +
        `${stubs.viaAlgodesk.orders} orders; from the load generator directly ${conns.direct} ` +
        `(${opts.connections} per autocannon run)`,
    );
    console.log(
      `order-log rows: ${logged} (${describeCounts(rows.orderLogs)}) for ${stubs.viaAlgodesk.orders} orders; ` +
        `order events dropped: ${dropped}; latency rows: ${rows.latencyRows}` +
        (latencyFailures ? ` (${latencyFailures} "${LATENCY_WRITE_FAILED_MSG}" warnings)` : '') +
        (rows.overheadMs
          ? `; algodesk's own overhead_ms (total - broker - validation) p50 ${rows.overheadMs.p50} p99 ${rows.overheadMs.p99}`
          : ''),
    );
    const targets: TargetResult[] = [
      {
        label: `added p50 <= ${TARGETS.addedP50Ms} ms`,
        met: added.p50 <= TARGETS.addedP50Ms,
        actual: `${signed(added.p50)} ms (${figures.p50Ms.toFixed(2)} vs ${figures.baselineP50Ms.toFixed(2)})`,
      },
      {
        label: `added p99 <= ${TARGETS.addedP99Ms} ms`,
        met: added.p99 <= TARGETS.addedP99Ms,
        actual: `${signed(added.p99)} ms (${figures.p99Ms.toFixed(2)} vs ${figures.baselineP99Ms.toFixed(2)})`,
      },
      {
        label: `connections to the broker reused (<= ${POOL_CONNECTIONS})`,
        met: conns.algodesk <= POOL_CONNECTIONS,
        actual: `${conns.algodesk} accepted for ${stubs.viaAlgodesk.orders} orders`,
      },
      {
        label: 'no order event dropped',
        met: dropped === 0 && logged === stubs.viaAlgodesk.orders,
        actual: `${dropped} "${DROPPED_MSG}" lines; ${logged} order-log rows for ${stubs.viaAlgodesk.orders} orders`,
      },
    ];
    console.log('targets (informational):');
    for (const t of targets) console.log(`  ${verdictWord(t.met)}  ${t.label}: ${t.actual}`);
    if (opts.jsonFile !== undefined) {
      writeJson(opts.jsonFile, {
        name: 'placeorder-live',
        request: requests.algodesk,
        figures,
        server: measured.algodesk,
        baseline: measured.stub,
        durationS: opts.durationS,
        warmupS: WARMUP_S,
        rounds: ROUNDS,
        connections: opts.connections,
        targets,
        extra: {
          baseline_is: 'the Kite stub called directly (POST /orders/regular, the adapter’s bytes)',
          added_p50_ms: added.p50,
          added_p99_ms: added.p99,
          stub_connections_from_algodesk: conns.algodesk,
          stub_connections_direct: conns.direct,
          stub_orders_via_algodesk: stubs.viaAlgodesk.orders,
          events_dropped: dropped,
          order_logs: rows.orderLogs,
          latency_rows: rows.latencyRows,
          latency_write_failures: latencyFailures,
          overhead_ms: rows.overheadMs,
          floor_is:
            'a bare node:http forwarder: the same form to a stub of its own, its log and latency rows committed',
          floor_added_p50_ms: floorAdded.p50,
          floor_added_p99_ms: floorAdded.p99,
          floor_rps: floorFigures.rps,
        },
      });
      progress(`figures written to ${opts.jsonFile}`);
    }
    console.log(
      `bench placeorder-live: added_p50_ms ${added.p50.toFixed(2)} added_p99_ms ${added.p99.toFixed(2)} ` +
        `rps ${figures.rps} stub_rps ${figures.baselineRps} p50_ms ${figures.p50Ms.toFixed(2)} ` +
        `stub_p50_ms ${figures.baselineP50Ms.toFixed(2)} p99_ms ${figures.p99Ms.toFixed(2)} ` +
        `stub_p99_ms ${figures.baselineP99Ms.toFixed(2)} stub_connections ${conns.algodesk} ` +
        `floor_added_p50_ms ${floorAdded.p50.toFixed(2)} floor_added_p99_ms ${floorAdded.p99.toFixed(2)}`,
    );
    return 0;
  } catch (err) {
    if (err instanceof BenchFailure && server !== undefined)
      console.error(`last lines of the server log:\n${ws.logTail(server, 10)}`);
    return failed(err);
  } finally {
    clearTimeout(deadline);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await ws.dispose();
    await Promise.all([stubs.viaAlgodesk.close(), stubs.direct.close(), stubs.viaFloor.close()]);
  }
}

/** A run whose figures would be meaningless; the message says why. */
class BenchFailure extends Error {}

function failed(err: unknown): number {
  console.error(`bench placeorder-live: FAILED: ${err instanceof Error ? err.message : String(err)}`);
  return 1;
}

const signed = (n: number): string => (n >= 0 ? `+${n.toFixed(2)}` : n.toFixed(2));

type Added = { p50: number; p99: number };

function printLiveTable(
  f: Figures,
  s: Record<Side, SideStats>,
  added: Added,
  floor: { figures: Figures; added: Added },
): void {
  const row = (label: string, cells: string[]) =>
    console.log(label.padEnd(20) + cells.map((c) => c.padStart(10)).join(''));
  row('', ['req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors']);
  row('stub, direct', [
    String(f.baselineRps),
    f.baselineP50Ms.toFixed(2),
    f.baselineP99Ms.toFixed(2),
    String(s.stub.non2xx),
    String(s.stub.errors),
  ]);
  row('algodesk -> stub', [
    String(f.rps),
    f.p50Ms.toFixed(2),
    f.p99Ms.toFixed(2),
    String(s.algodesk.non2xx),
    String(s.algodesk.errors),
  ]);
  row('floor -> stub', [
    String(floor.figures.rps),
    floor.figures.p50Ms.toFixed(2),
    floor.figures.p99Ms.toFixed(2),
    String(s.floor.non2xx),
    String(s.floor.errors),
  ]);
  row('added by algodesk', ['', signed(added.p50), signed(added.p99)]);
  row('added by the floor', ['', signed(floor.added.p50), signed(floor.added.p99)]);
  const ratio = (a: number, b: number) => (b > 0 ? (a / b).toFixed(2) : '-');
  row('algodesk/stub', [
    f.ratio.toFixed(2),
    ratio(f.p50Ms, f.baselineP50Ms),
    ratio(f.p99Ms, f.baselineP99Ms),
  ]);
}

/** What makes a side's figures meaningless: non-2xx answers, errors, no response at all. */
function problemsOf(label: string, stats: SideStats, measured: boolean): string[] {
  const problems: string[] = [];
  if (stats.non2xx > 0) problems.push(`${stats.non2xx} non-2xx (${describeNon2xx(stats)})`);
  if (stats.errors > 0) problems.push(`${stats.errors} errors (${stats.timeouts} timeouts)`);
  if (measured && stats.responses === 0) problems.push('no response at all');
  return problems.length > 0 ? [`${label}: ${problems.join(', ')} in ${stats.responses} responses`] : [];
}

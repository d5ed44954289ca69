/**
 * `ws-orders-under-ticks` (live feed issue, "Performance"): `placeorder-analyze`'s load (BUY/SELL
 * 1 SBIN MIS MARKET in analyzer mode, the sandbox fills at a scripted quote) on the server while
 * `ws-fanout`'s sockets and ticks run on its feed (200 sockets x 50 of 500 instruments, Quote; the
 * Kite Ticker stub at half the bare `ws` baseline's flat-out messages/s, measured first in the same
 * run), against the same orders with the feed quiet (the sockets connected and subscribed, no
 * ticks). Rounds alternate: quiet, ticking, quiet, ticking. The figure is the order p99 under ticks
 * against the quiet p99.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { KiteTickerStub } from '../lib/kite-ticker-stub.js';
import { emptyStats, runLoad, type SideStats } from '../lib/load.js';
import { Workspace, type Child } from '../lib/processes.js';
import {
  computeFigures,
  cpuPerResponse,
  describeNon2xx,
  verdictWord,
  type TargetResult,
} from '../lib/report.js';
import { measure } from '../lib/runner.js';
import type { BenchRequest } from '../lib/types.js';
import { createApiKey, importContract, waitForIndex } from './market-data.js';
import { kiteNseSnapshot, sbinOrder } from './order-bench.js';
import { switchToAnalyzeMode } from './placeorder-analyze.js';
import {
  addRuns,
  emptyRun,
  FEED_BROKER,
  FEED_SHAPE,
  FeedClients,
  feedServerEnv,
  ms,
  pickInstruments,
  progress,
  rateOf,
  socketSymbols,
  startWsBaseline,
  subscriberCounts,
  TickSource,
  waitForFeedPort,
  type SourceRun,
} from './ws-feed.js';

export interface WsOrdersOptions {
  /** Measured seconds per side (quiet, ticking), in {@link ROUNDS} alternating rounds. */
  durationS: number;
  /** Order connections (autocannon), as `placeorder-analyze`. */
  connections: number;
  jsonFile: string | undefined;
}

const TARGET_P99_FACTOR = 2;
const WARMUP_S = 2;
const ROUNDS = 2;
/** Seconds of the baseline's flat-out run that sets the tick rate (after 1 s of warm-up). */
const BASELINE_PROBE_S = 2;
/** Ticks start this long before the orders of a ticking round (the feed is in its stride). */
const TICK_LEAD_MS = 500;
const DEADLINE_MS = 150_000;
/** SBIN's scripted quote, as placeorder-analyze's. */
const SBIN_QUOTE = { ltp: 800, bid: 799.95, ask: 800.05, high: 810, low: 790 };

type Side = 'quiet' | 'ticking';

class BenchFailure extends Error {}

export async function runWsOrdersUnderTicks(opts: WsOrdersOptions): Promise<number> {
  const ws = await Workspace.create();
  const clients = new FeedClients();
  let stub: KiteTickerStub | undefined;
  const deadline = setTimeout(() => {
    console.error(`bench ws-orders-under-ticks: FAILED: not finished after ${DEADLINE_MS / 1000} s`);
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
    const snapshot = kiteNseSnapshot();
    const instruments = pickInstruments(snapshot, FEED_SHAPE.instruments);
    const cli = (...args: string[]) => ws.cli(args);
    const apikey = await createApiKey(cli);
    const imported = await importContract(cli, 'zerodha', snapshot);
    progress(`imported ${imported.rows} Kite NSE instruments in ${imported.duration_ms} ms`);
    const now = Date.now();
    const script = join(ws.dataDir, 'sandbox-script.json');
    writeFileSync(
      script,
      JSON.stringify([{ at: now, quotes: { 'NSE:SBIN': { ...SBIN_QUOTE, timestamp: now } } }]),
    );
    stub = await KiteTickerStub.start(FEED_BROKER.apiKey, FEED_BROKER.tokens);
    const env = await feedServerEnv(ws, stub);
    server = await ws.startServer('server', {
      ...env,
      // placeorder-analyze's environment: the sandbox prices SBIN from the script, not the feed.
      ORDER_RATE_LIMIT: '1000000 per second',
      SANDBOX_PRICE_SOURCE: 'scripted',
      SANDBOX_SCRIPT_FILE: script,
      SANDBOX_MAX_QUOTE_AGE_SECONDS: '86400',
      SANDBOX_SQUARE_OFF: 'NSE=23:59',
      // Benches run at any hour: the exchange's sessions would refuse their orders at night.
      SANDBOX_SESSIONS: 'ignore',
      SANDBOX_RESET_DAY: 'never',
    });
    const srv = server;
    await waitForIndex({ log: () => ws.log(srv), exited: () => srv.process.exitCode !== null });
    const feedUrl = await waitForFeedPort(ws, server, env.WEBSOCKET_PORT!);
    const url = `http://127.0.0.1:${server.port}`;
    await switchToAnalyzeMode(url);
    const bodies = [sbinOrder(apikey, 'BUY'), sbinOrder(apikey, 'SELL')];
    for (const body of bodies) {
      const res = await fetch(`${url}/api/v1/placeorder`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      const text = await res.text();
      if (res.status !== 200 || !text.includes('"mode":"analyze"'))
        throw new BenchFailure(`a test order in analyzer mode answered ${res.status}: ${text}`);
    }
    progress('server: analyzer mode on, test BUY and SELL filled');

    // The tick rate: half the bare ws baseline's flat-out messages/s, as ws-fanout's latency phase
    // (or WS_FEED_MSGS_S).
    const subsOf = socketSymbols(instruments, FEED_SHAPE.sockets, FEED_SHAPE.perSocket);
    const counts = subscriberCounts(instruments.length, FEED_SHAPE.sockets, FEED_SHAPE.perSocket);
    const baseline = await startWsBaseline(ws, stub, instruments);
    await clients.open('baseline', `ws://127.0.0.1:${baseline.port}`, apikey, subsOf);
    const baseSource = new TickSource(stub, 'baseline', 'baseline', instruments, counts, clients);
    await baseSource.subscribed();
    await baseSource.runMax(1000);
    const baseRun = await baseSource.runMax(BASELINE_PROBE_S * 1000);
    await clients.close('baseline');
    await ws.stop(baseline);
    const avgSubs = counts.reduce((a, b) => a + b, 0) / instruments.length;
    // WS_FEED_MSGS_S sets the delivered rate instead (the issue's 20,000 ticks/s to 200 sockets).
    const wanted = Number(process.env.WS_FEED_MSGS_S ?? '') || rateOf(baseRun) / 2;
    const ticksPerS = Math.max(1, Math.round(wanted / avgSubs));
    progress(
      `baseline: ${Math.round(rateOf(baseRun))} msgs/s flat out; ticks at ${ticksPerS}/s (~${Math.round(ticksPerS * avgSubs)} msgs/s)`,
    );

    const opened = await clients.open('server', feedUrl, apikey, subsOf);
    const source = new TickSource(stub, 'server', 'server', instruments, counts, clients);
    await source.subscribed();
    const probe = await source.probe();
    if (probe.lost > 0)
      throw new BenchFailure(`the probe's ${probe.expected} messages arrived ${probe.received}`);
    progress(
      `server: ${opened.sockets} sockets x ${FEED_SHAPE.perSocket} subscriptions, upstream subscribed`,
    );

    const request: BenchRequest = {
      method: 'POST',
      path: '/api/v1/placeorder',
      headers: { 'content-type': 'application/json' },
      bodies,
    };
    const roundS = opts.durationS / ROUNDS;
    console.log(
      `ws-orders-under-ticks: POST /api/v1/placeorder (analyzer, BUY/SELL 1 SBIN MIS), ${opts.connections} connections; ` +
        `feed: ${opened.sockets} sockets x ${FEED_SHAPE.perSocket} of ${instruments.length} instruments, ${ticksPerS} ticks/s ` +
        `(~${Math.round(ticksPerS * avgSubs)} msgs/s); ${ROUNDS} rounds x ${roundS} s per side after ${WARMUP_S} s warm-up; node ${process.version}`,
    );
    const load = { port: server.port, request, connections: opts.connections };
    const warmup = emptyStats();
    const measured: Record<Side, SideStats> = { quiet: emptyStats(), ticking: emptyStats() };
    let feed: SourceRun = emptyRun();
    for (let round = 1; round <= ROUNDS; round++)
      for (const side of ['quiet', 'ticking'] as const) {
        if (round === 1) {
          progress(`${side}: warm-up, ${WARMUP_S} s`);
          if (side === 'quiet') await runLoad({ ...load, durationS: WARMUP_S }, warmup);
          else
            await Promise.all([
              source.runPaced(WARMUP_S * 1000 + TICK_LEAD_MS, ticksPerS),
              sleep(TICK_LEAD_MS).then(() => runLoad({ ...load, durationS: WARMUP_S }, warmup)),
            ]);
        }
        progress(`${side}: round ${round}/${ROUNDS}, ${roundS} s`);
        if (side === 'quiet') {
          await measure(server, measured.quiet, () =>
            runLoad({ ...load, durationS: roundS }, measured.quiet),
          );
          continue;
        }
        await clients.record('server', 'ticking');
        const [run] = await Promise.all([
          source.runPaced(roundS * 1000 + 2 * TICK_LEAD_MS, ticksPerS),
          sleep(TICK_LEAD_MS).then(() =>
            measure(server!, measured.ticking, () =>
              runLoad({ ...load, durationS: roundS }, measured.ticking),
            ),
          ),
        ]);
        await clients.record('server', null);
        feed = addRuns(feed, run);
      }
    const latency = await clients.histogram('ticking');
    const status = await clients.status('server');
    const problems = [
      ...problemsOf('warm-up', warmup, false),
      ...problemsOf('quiet', measured.quiet, true),
      ...problemsOf('ticking', measured.ticking, true),
    ];
    if (problems.length > 0) throw new BenchFailure(`invalid run:\n  ${problems.join('\n  ')}`);

    // computeFigures(server, baseline): the ticking side as the "server", the quiet as the "baseline".
    const f = computeFigures(measured.ticking, measured.quiet);
    const p99Factor = f.baselineP99Ms > 0 ? Math.round((f.p99Ms / f.baselineP99Ms) * 100) / 100 : 0;
    const row = (label: string, cells: string[]) =>
      console.log(label.padEnd(20) + cells.map((c) => c.padStart(10)).join(''));
    row('', ['orders/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors']);
    row('quiet feed', [
      String(f.baselineRps),
      f.baselineP50Ms.toFixed(2),
      f.baselineP99Ms.toFixed(2),
      String(measured.quiet.non2xx),
      String(measured.quiet.errors),
    ]);
    row('under ticks', [
      String(f.rps),
      f.p50Ms.toFixed(2),
      f.p99Ms.toFixed(2),
      String(measured.ticking.non2xx),
      String(measured.ticking.errors),
    ]);
    row('ticks/quiet', [f.ratio.toFixed(2), ratioOf(f.p50Ms, f.baselineP50Ms), p99Factor.toFixed(2)]);
    const cpu = { quiet: cpuPerResponse(measured.quiet), ticking: cpuPerResponse(measured.ticking) };
    if (cpu.quiet && cpu.ticking)
      console.log(
        `server CPU µs per order (all threads / main thread, the feed's work included under ticks): ` +
          `quiet ${cpu.quiet.all} / ${cpu.quiet.main}, under ticks ${cpu.ticking.all} / ${cpu.ticking.main}`,
      );
    console.log(
      `feed during the ticking rounds: ${Math.round(rateOf(feed))} msgs/s delivered of ${Math.round(feed.expected / (feed.elapsedMs / 1000))} sent, ` +
        `${feed.lost} lost; source-to-socket p50 ${ms(latency.p50)} ms, p99 ${ms(latency.p99)} ms, max ${ms(latency.max)} ms`,
    );
    const closes = Object.entries(status.closes);
    if (closes.length > 0)
      console.log(`sockets closed by the server: ${closes.map(([c, n]) => `${n} x ${c}`).join(', ')}`);
    const targets: TargetResult[] = [
      {
        label: `order p99 under ticks <= ${TARGET_P99_FACTOR}x the quiet p99`,
        met: f.p99Ms <= TARGET_P99_FACTOR * f.baselineP99Ms,
        actual: `${p99Factor.toFixed(2)}x (${f.p99Ms.toFixed(2)} ms vs ${f.baselineP99Ms.toFixed(2)} ms)`,
      },
    ];
    console.log('targets (informational):');
    for (const t of targets) console.log(`  ${verdictWord(t.met)}  ${t.label}: ${t.actual}`);
    if (opts.jsonFile !== undefined) {
      mkdirSync(dirname(opts.jsonFile), { recursive: true });
      writeFileSync(
        opts.jsonFile,
        JSON.stringify(
          {
            name: 'ws-orders-under-ticks',
            connections: opts.connections,
            rps: f.rps,
            quiet_rps: f.baselineRps,
            p50_ms: f.p50Ms,
            quiet_p50_ms: f.baselineP50Ms,
            p99_ms: f.p99Ms,
            quiet_p99_ms: f.baselineP99Ms,
            p99_factor: p99Factor,
            cpu_us_per_order: cpu,
            feed: { sockets: opened.sockets, ticks_s: ticksPerS, run: feed, latency_us: latency },
            baseline_flat_out_msgs_s: Math.round(rateOf(baseRun)),
            duration_s: opts.durationS,
            warmup_s: WARMUP_S,
            rounds: ROUNDS,
            node: process.version,
            timestamp: new Date().toISOString(),
            targets,
          },
          null,
          2,
        ) + '\n',
      );
      progress(`figures written to ${opts.jsonFile}`);
    }
    console.log(
      `bench ws-orders-under-ticks: p99_factor ${p99Factor.toFixed(2)} p99_ms ${f.p99Ms.toFixed(2)} quiet_p99_ms ${f.baselineP99Ms.toFixed(2)} ` +
        `rps ${f.rps} quiet_rps ${f.baselineRps} feed_msgs_s ${Math.round(rateOf(feed))} feed_p99_ms ${ms(latency.p99)}`,
    );
    return 0;
  } catch (err) {
    if (server !== undefined) console.error(`last lines of the server log:\n${ws.logTail(server, 10)}`);
    console.error(`bench ws-orders-under-ticks: FAILED: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  } finally {
    clearTimeout(deadline);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await clients.terminate();
    await ws.dispose();
    await stub?.close();
  }
}

const ratioOf = (a: number, b: number): string => (b > 0 ? (a / b).toFixed(2) : '-');

/** What makes a side's figures meaningless: non-2xx answers, errors, no response at all. */
function problemsOf(label: string, stats: SideStats, measured: boolean): string[] {
  const problems: string[] = [];
  if (stats.non2xx > 0) problems.push(`${stats.non2xx} non-2xx (${describeNon2xx(stats)})`);
  if (stats.errors > 0) problems.push(`${stats.errors} errors (${stats.timeouts} timeouts)`);
  if (measured && stats.responses === 0) problems.push('no response at all');
  return problems.length > 0 ? [`${label}: ${problems.join(', ')} in ${stats.responses} responses`] : [];
}

/**
 * `ws-fanout` (live feed issue, "Performance"): a loopback Kite Ticker emits quote ticks for 500
 * instruments into the real server (`algodesk serve`, Zerodha session, `BROKER_FEED_URL` at the
 * stub); 200 `ws` sockets (in a worker thread of the bench) are each subscribed to 50 of them in
 * Quote mode on the feed's port. Against a bare `ws` server (`bench/lib/baseline-ws.mjs`) fed by
 * the same stub and broadcasting the same bytes to the same sockets, in the same run:
 *
 * 1. flat out (the source keeps {@link MAX_IN_FLIGHT} messages in flight): delivered messages/s;
 * 2. at half the baseline's messages/s: source-to-socket latency p50/p99 (stamped in each packet);
 * 3. the server's RSS with those sockets, then with 1,000 sockets x 100 subscriptions.
 *
 * Rounds alternate sides (baseline, server, baseline, server) as in the runner.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { KiteTickerStub } from '../lib/kite-ticker-stub.js';
import { cpuTime, residentBytes, Workspace, type Child } from '../lib/processes.js';
import { verdictWord, type TargetResult } from '../lib/report.js';
import { createApiKey, importContract, waitForIndex } from './market-data.js';
import { kiteNseSnapshot } from './order-bench.js';
import {
  addRuns,
  emptyRun,
  FEED_BROKER,
  FEED_SHAPE,
  FeedClients,
  feedServerEnv,
  mb,
  MEMORY_SHAPE,
  ms,
  normalizeTick,
  pickInstruments,
  progress,
  rateOf,
  socketSymbols,
  startWsBaseline,
  subscriberCounts,
  TickSource,
  waitForFeedPort,
  type Latency,
  type SourceRun,
} from './ws-feed.js';

export interface WsFanoutOptions {
  /** Measured seconds per side: half flat out, half at half the baseline's rate. */
  durationS: number;
  /** Client sockets per side. */
  sockets: number;
  jsonFile: string | undefined;
}

export const WS_FANOUT_DEFAULT_SOCKETS = FEED_SHAPE.sockets;
const TARGETS = { ratio: 0.5, p99Ms: 10, memoryMb: 300 };
const WARMUP_S = 2;
const ROUNDS = 2;
/** Seconds the memory line's sockets receive ticks before the RSS is read. */
const MEMORY_TICK_S = 3;
const DEADLINE_MS = 150_000;

type Side = 'baseline' | 'server';

class BenchFailure extends Error {}

export async function runWsFanout(opts: WsFanoutOptions): Promise<number> {
  const ws = await Workspace.create();
  const clients = new FeedClients();
  let stub: KiteTickerStub | undefined;
  const deadline = setTimeout(() => {
    console.error(`bench ws-fanout: FAILED: not finished after ${DEADLINE_MS / 1000} s`);
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
    stub = await KiteTickerStub.start(FEED_BROKER.apiKey, FEED_BROKER.tokens);
    const env = await feedServerEnv(ws, stub);
    server = await ws.startServer('server', env);
    const srv = server;
    await waitForIndex({ log: () => ws.log(srv), exited: () => srv.process.exitCode !== null });
    const feedUrl = await waitForFeedPort(ws, server, env.WEBSOCKET_PORT!);
    const rssIdle = residentBytes(server);
    const baseline = await startWsBaseline(ws, stub, instruments);
    const baselineUrl = `ws://127.0.0.1:${baseline.port}`;

    const subsOf = socketSymbols(instruments, opts.sockets, FEED_SHAPE.perSocket);
    const counts = subscriberCounts(instruments.length, opts.sockets, FEED_SHAPE.perSocket);
    const urls: Record<Side, string> = { server: feedUrl, baseline: baselineUrl };
    const children: Record<Side, Child> = { server, baseline };
    const sources = {} as Record<Side, TickSource>;
    for (const side of ['baseline', 'server'] as const) {
      const opened = await clients.open(side, urls[side], apikey, subsOf);
      sources[side] = new TickSource(stub, side, side, instruments, counts, clients);
      await sources[side].subscribed();
      progress(
        `${side}: ${opened.sockets} sockets x ${FEED_SHAPE.perSocket} subscriptions in ${opened.ms} ms; upstream has all ${instruments.length} instruments`,
      );
    }
    // Probe: one tick of every instrument to each side, every message delivered, same bytes.
    for (const side of ['baseline', 'server'] as const) {
      await clients.capture(side);
      const p = await sources[side].probe();
      if (p.lost > 0)
        throw new BenchFailure(
          `${side}: the probe's ${p.expected} messages arrived ${p.received} (${p.lost} missing)`,
        );
    }
    const [sb, ss] = [await clients.sample('baseline'), await clients.sample('server')];
    if (sb === null || ss === null) throw new BenchFailure('the probe captured no message');
    if (normalizeTick(sb) !== normalizeTick(ss))
      progress(
        `warning: the server's message differs from the baseline's:\n  server:   ${ss}\n  baseline: ${sb}`,
      );
    const rssSubscribed = residentBytes(server);

    const subscriptions = opts.sockets * FEED_SHAPE.perSocket;
    const roundS = opts.durationS / 2 / ROUNDS;
    console.log(
      `ws-fanout: ${opts.sockets} sockets x ${FEED_SHAPE.perSocket} instruments (Quote) of ${instruments.length}, ` +
        `Kite Ticker stub -> feed; ${ROUNDS} rounds x ${roundS} s per side flat out after ${WARMUP_S} s warm-up, ` +
        `then ${ROUNDS} rounds x ${roundS} s at half the baseline's rate; node ${process.version}`,
    );

    // 1. Flat out.
    const full: Record<Side, SourceRun> = { baseline: emptyRun(), server: emptyRun() };
    const cpu: Record<Side, { allMs: number; mainMs: number }> = {
      baseline: { allMs: 0, mainMs: 0 },
      server: { allMs: 0, mainMs: 0 },
    };
    /** The client worker's busy and idle time while each side ran flat out. */
    const clientLoop: Record<Side, { idle: number; active: number }> = {
      baseline: { idle: 0, active: 0 },
      server: { idle: 0, active: 0 },
    };
    for (let round = 1; round <= ROUNDS; round++)
      for (const side of ['baseline', 'server'] as const) {
        if (round === 1) {
          progress(`${side}: warm-up, ${WARMUP_S} s flat out`);
          await sources[side].runMax(WARMUP_S * 1000);
        }
        progress(`${side}: flat out, round ${round}/${ROUNDS}, ${roundS} s`);
        const before = cpuTime(children[side]);
        const eluBefore = await clients.elu();
        const run = await sources[side].runMax(roundS * 1000);
        const eluAfter = await clients.elu();
        const after = cpuTime(children[side]);
        clientLoop[side].idle += eluAfter.idle - eluBefore.idle;
        clientLoop[side].active += eluAfter.active - eluBefore.active;
        if (before && after) {
          cpu[side].allMs += after.allMs - before.allMs;
          cpu[side].mainMs += after.mainMs - before.mainMs;
        }
        full[side] = addRuns(full[side], run);
      }
    const fullRate = { baseline: rateOf(full.baseline), server: rateOf(full.server) };

    // 2. Latency at half the baseline's messages/s.
    const avgSubs = subscriptions / instruments.length;
    const halfMsgs = fullRate.baseline / 2;
    const ticksPerS = Math.max(1, Math.round(halfMsgs / avgSubs));
    const paced: Record<Side, SourceRun> = { baseline: emptyRun(), server: emptyRun() };
    let rssTicking = 0;
    for (let round = 1; round <= ROUNDS; round++)
      for (const side of ['baseline', 'server'] as const) {
        progress(
          `${side}: ${ticksPerS} ticks/s (~${Math.round(ticksPerS * avgSubs)} msgs/s), round ${round}/${ROUNDS}, ${roundS} s`,
        );
        await clients.record(side, `paced:${side}`);
        const run = await sources[side].runPaced(roundS * 1000, ticksPerS);
        await clients.record(side, null);
        paced[side] = addRuns(paced[side], run);
        if (side === 'server') rssTicking = Math.max(rssTicking, residentBytes(server));
      }
    const latency: Record<Side, Latency> = {
      baseline: await clients.histogram('paced:baseline'),
      server: await clients.histogram('paced:server'),
    };
    const status = { baseline: await clients.status('baseline'), server: await clients.status('server') };

    // 3. Memory with 1,000 sockets x 100 subscriptions (the 200 closed first).
    await clients.close('server');
    await clients.close('baseline');
    await ws.stop(baseline);
    progress(`memory: ${MEMORY_SHAPE.sockets} sockets x ${MEMORY_SHAPE.perSocket} subscriptions`);
    const memSubs = socketSymbols(instruments, MEMORY_SHAPE.sockets, MEMORY_SHAPE.perSocket);
    const memCounts = subscriberCounts(instruments.length, MEMORY_SHAPE.sockets, MEMORY_SHAPE.perSocket);
    const memOpened = await clients.open('memory', feedUrl, apikey, memSubs);
    const memSource = new TickSource(stub, 'server', 'memory', instruments, memCounts, clients);
    await memSource.subscribed();
    // The same messages/s as the latency phase: ten times the subscribers per instrument.
    const memTicksPerS = Math.max(
      1,
      Math.round(halfMsgs / (memCounts.reduce((a, b) => a + b, 0) / instruments.length)),
    );
    const rssMemorySubscribed = residentBytes(server);
    let rssMemory = rssMemorySubscribed;
    const memRun = memSource.runPaced(MEMORY_TICK_S * 1000, memTicksPerS);
    const sampler = (async () => {
      const end = Date.now() + MEMORY_TICK_S * 1000;
      while (Date.now() < end) {
        rssMemory = Math.max(rssMemory, residentBytes(srv));
        await sleep(250);
      }
    })();
    const [mem] = await Promise.all([memRun, sampler]);
    rssMemory = Math.max(rssMemory, residentBytes(server));
    const memStatus = await clients.status('memory');
    await clients.close('memory');

    // Report.
    const ratio = round2(fullRate.server / fullRate.baseline);
    const p99 = {
      server: round2((latency.server.p99 ?? 0) / 1000),
      baseline: round2((latency.baseline.p99 ?? 0) / 1000),
    };
    const p50 = {
      server: round2((latency.server.p50 ?? 0) / 1000),
      baseline: round2((latency.baseline.p50 ?? 0) / 1000),
    };
    const row = (label: string, cells: string[]) =>
      console.log(label.padEnd(18) + cells.map((c) => c.padStart(11)).join(''));
    console.log('flat out');
    row('', ['msgs/s', 'ticks/s', 'lost']);
    for (const side of ['baseline', 'server'] as const)
      row(side, [
        String(Math.round(fullRate[side])),
        String(Math.round(full[side].ticks / (full[side].elapsedMs / 1000))),
        String(full[side].lost),
      ]);
    row('server/baseline', [ratio.toFixed(2)]);
    const cpuPer = (side: Side) => {
      const n = full[side].received;
      return n > 0
        ? `${((cpu[side].allMs * 1000) / n).toFixed(1)} / ${((cpu[side].mainMs * 1000) / n).toFixed(1)}`
        : '-';
    };
    console.log(
      `CPU µs per delivered message, flat out (all threads / main thread): server ${cpuPer('server')}, baseline ${cpuPer('baseline')}`,
    );
    const busy = (side: Side) =>
      Math.round((100 * clientLoop[side].active) / (clientLoop[side].active + clientLoop[side].idle));
    console.log(
      `client worker busy while flat out (the load generator's share of its thread): server ${busy('server')} %, baseline ${busy('baseline')} %`,
    );
    console.log(
      `at half the baseline's rate: ${ticksPerS} ticks/s, ~${Math.round(ticksPerS * avgSubs)} msgs/s`,
    );
    row('', ['msgs/s', 'p50 ms', 'p99 ms', 'p99.9 ms', 'max ms', 'lost']);
    for (const side of ['baseline', 'server'] as const)
      row(side, [
        String(Math.round(rateOf(paced[side]))),
        ms(latency[side].p50),
        ms(latency[side].p99),
        ms(latency[side].p999),
        ms(latency[side].max),
        String(paced[side].lost),
      ]);
    console.log(
      `server RSS: ${mb(rssIdle)} MB idle, ${mb(rssSubscribed)} MB with ${opts.sockets} sockets x ${FEED_SHAPE.perSocket} subscriptions, ` +
        `${mb(rssTicking)} MB at most while they ticked; with ${memOpened.sockets} sockets x ${MEMORY_SHAPE.perSocket} ` +
        `subscriptions ${mb(rssMemorySubscribed)} MB before ticks, ${mb(rssMemory)} MB at most at ${memTicksPerS} ticks/s ` +
        `(${Math.round(rateOf(mem))} msgs/s delivered, ${mem.lost} lost)`,
    );
    const closes = [status.server, status.baseline, memStatus].flatMap((s) => Object.entries(s.closes));
    if (closes.length > 0)
      console.log(`sockets closed by the far side: ${closes.map(([c, n]) => `${n} x ${c}`).join(', ')}`);
    const targets: TargetResult[] = [
      {
        label: `msgs/s >= ${TARGETS.ratio.toFixed(2)}x the baseline's`,
        met: ratio >= TARGETS.ratio,
        actual: `${ratio.toFixed(2)} (${Math.round(fullRate.server)} vs ${Math.round(fullRate.baseline)} msgs/s)`,
      },
      {
        label: `p99 <= ${TARGETS.p99Ms} ms at half the baseline's rate`,
        met: p99.server <= TARGETS.p99Ms && paced.server.lost === 0,
        actual: `${p99.server.toFixed(2)} ms (baseline ${p99.baseline.toFixed(2)} ms)${paced.server.lost ? `, ${paced.server.lost} messages lost` : ''}`,
      },
      {
        label: `RSS < ${TARGETS.memoryMb} MB with ${MEMORY_SHAPE.sockets} sockets x ${MEMORY_SHAPE.perSocket} subscriptions`,
        met: mb(rssMemory) < TARGETS.memoryMb && memOpened.sockets === MEMORY_SHAPE.sockets,
        actual: `${mb(rssMemory)} MB`,
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
            name: 'ws-fanout',
            sockets: opts.sockets,
            subscriptions_per_socket: FEED_SHAPE.perSocket,
            instruments: instruments.length,
            ratio,
            msgs_s: Math.round(fullRate.server),
            baseline_msgs_s: Math.round(fullRate.baseline),
            flat_out: full,
            paced_ticks_s: ticksPerS,
            paced,
            latency_us: latency,
            rss_mb: {
              memory_line_subscribed: mb(rssMemorySubscribed),
              idle: mb(rssIdle),
              subscribed: mb(rssSubscribed),
              ticking: mb(rssTicking),
              memory_line: mb(rssMemory),
            },
            memory_line: {
              sockets: memOpened.sockets,
              subscriptions_per_socket: MEMORY_SHAPE.perSocket,
              ticks_s: memTicksPerS,
              run: mem,
            },
            cpu_ms: cpu,
            client_worker_busy_pct: { server: busy('server'), baseline: busy('baseline') },
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
      `bench ws-fanout: ratio ${ratio.toFixed(2)} msgs_s ${Math.round(fullRate.server)} baseline_msgs_s ${Math.round(fullRate.baseline)} ` +
        `p50_ms ${p50.server.toFixed(2)} p99_ms ${p99.server.toFixed(2)} baseline_p99_ms ${p99.baseline.toFixed(2)} ` +
        `rss_mb ${mb(rssTicking)} rss_1000x100_mb ${mb(rssMemory)}`,
    );
    return 0;
  } catch (err) {
    if (server !== undefined) console.error(`last lines of the server log:\n${ws.logTail(server, 10)}`);
    console.error(`bench ws-fanout: FAILED: ${err instanceof Error ? err.message : String(err)}`);
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

const round2 = (n: number): number => Math.round(n * 100) / 100;

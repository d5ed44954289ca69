/**
 * The feed benches' client sockets, in a worker thread of the bench process (the tick source and
 * the load generator keep the main thread): `ws` clients speaking OpenAlgo's feed protocol
 * (authenticate, subscribe), grouped (`server`, `baseline`, `memory`). Plain JavaScript, loaded
 * with `new Worker(url)` (no tsx in the worker).
 *
 * Every `market_data` message is counted in the group's slot of a SharedArrayBuffer (the main
 * thread reads it synchronously to pace the source) and, while a phase is recorded for the group,
 * its latency is recorded in that phase's histogram: now minus the send time the source wrote in
 * the tick's `volume` (µs since the run's origin, `process.hrtime()`, which every thread of a
 * process shares). The message is not JSON-parsed: the prefix is compared and `"volume":` looked
 * up in the bytes, so the client's cost per message stays small next to the server's.
 *
 * workerData: { origin: [s, ns] (process.hrtime() at the run's origin), counters: SharedArrayBuffer }.
 * Requests: { id, op, ... }; each is answered { id, ok, ... } or { id, ok: false, error }.
 */
import { Buffer } from 'node:buffer';
import { createHistogram, performance } from 'node:perf_hooks';
import { clearTimeout, setTimeout } from 'node:timers';
import { parentPort, workerData } from 'node:worker_threads';
import WebSocket from 'ws';

const [originS, originNs] = workerData.origin;
const counters = new Int32Array(workerData.counters);
const PREFIX = Buffer.from('{"type":"market_data"');
const VOLUME = Buffer.from('"volume":');
/** Sockets opened at once while a group connects. */
const OPEN_BATCH = 50;
const ACK_TIMEOUT_MS = 15_000;

/** @type {Map<string, {slot: number, sockets: Set<WebSocket>, phase: string | null, capture: string | null, closes: Map<number, number>, errors: number, badStamps: number}>} */
const groups = new Map();
/** @type {Map<string, import('node:perf_hooks').RecordableHistogram>} */
const histograms = new Map();

const nowUs = () => {
  const [s, ns] = process.hrtime();
  return (s - originS) * 1e6 + (ns - originNs) / 1e3;
};

function onMarketData(g, data) {
  Atomics.add(counters, g.slot, 1);
  if (g.capture === '') g.capture = data.toString('utf8');
  if (g.phase === null) return;
  const at = data.indexOf(VOLUME, PREFIX.length);
  if (at < 0) return void g.badStamps++;
  let stamp = 0;
  for (let i = at + VOLUME.length; i < data.length; i++) {
    const c = data[i];
    if (c < 48 || c > 57) break;
    stamp = stamp * 10 + (c - 48);
  }
  // The stamp is a uint32 of µs since the origin: unwrap it against now (runs last minutes, not 71).
  const now = nowUs();
  let sent = stamp + Math.floor(now / 2 ** 32) * 2 ** 32;
  if (sent > now) sent -= 2 ** 32;
  histograms.get(g.phase)?.record(Math.max(1, Math.round(now - sent)));
}

/** Opens one socket, authenticates and subscribes; resolves to the subscribe ack. */
function openSocket(g, url, apiKey, symbols, mode) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false });
    const timer = setTimeout(() => fail(new Error('no auth or subscribe ack within 15 s')), ACK_TIMEOUT_MS);
    let step = 'auth';
    const fail = (err) => {
      clearTimeout(timer);
      ws.terminate();
      reject(err);
    };
    ws.on('open', () => ws.send(JSON.stringify({ action: 'authenticate', api_key: apiKey })));
    ws.on('message', (data, isBinary) => {
      if (
        !isBinary &&
        data.length > PREFIX.length &&
        data.compare(PREFIX, 0, PREFIX.length, 0, PREFIX.length) === 0
      )
        return onMarketData(g, data);
      let msg;
      try {
        msg = JSON.parse(data.toString('utf8'));
      } catch {
        return;
      }
      if (step === 'auth' && msg.type === 'auth') {
        if (msg.status !== 'success') return fail(new Error(`authenticate answered ${JSON.stringify(msg)}`));
        step = 'subscribe';
        ws.send(JSON.stringify({ action: 'subscribe', symbols, mode }));
      } else if (step === 'subscribe' && msg.type === 'subscribe') {
        step = 'open';
        clearTimeout(timer);
        resolve(msg);
      } else if (msg.status === 'error' && step !== 'open')
        fail(new Error(`the feed answered ${JSON.stringify(msg)}`));
    });
    ws.on('error', (err) => {
      g.errors++;
      if (step !== 'open') fail(err);
    });
    ws.on('unexpected-response', (_req, res) => {
      res.resume();
      fail(new Error(`the upgrade was answered HTTP ${res.statusCode}`));
    });
    ws.on('close', (code) => {
      g.sockets.delete(ws);
      if (g.closing) return;
      g.closes.set(code, (g.closes.get(code) ?? 0) + 1);
    });
    g.sockets.add(ws);
  });
}

const ops = {
  /** {group, slot, url, apiKey, sockets: [[{symbol, exchange}]], mode}: connects every socket. */
  async open({ group, slot, url, apiKey, sockets, mode }) {
    const g = groups.get(group) ?? {
      slot,
      sockets: new Set(),
      phase: null,
      capture: null,
      closes: new Map(),
      errors: 0,
      badStamps: 0,
      closing: false,
    };
    groups.set(group, g);
    const started = Date.now();
    let failedEntries = 0;
    const examples = [];
    for (let i = 0; i < sockets.length; i += OPEN_BATCH) {
      const acks = await Promise.all(
        sockets.slice(i, i + OPEN_BATCH).map((symbols) => openSocket(g, url, apiKey, symbols, mode)),
      );
      for (const ack of acks)
        for (const s of ack.subscriptions ?? [])
          if (s.status !== 'success') {
            failedEntries++;
            if (examples.length < 3) examples.push(`${s.exchange}:${s.symbol} ${s.message}`);
          }
    }
    return { sockets: g.sockets.size, failedEntries, examples, ms: Date.now() - started };
  },
  /** {group, phase}: records the group's latencies in `phase` (null: count only). */
  record({ group, phase }) {
    const g = groups.get(group);
    if (!g) throw new Error(`no group ${group}`);
    if (phase !== null && !histograms.has(phase)) histograms.set(phase, createHistogram());
    g.phase = phase;
    return {};
  },
  /** {group}: keeps the next market_data message of the group (read it with `sample`). */
  capture({ group }) {
    groups.get(group).capture = '';
    return {};
  },
  sample({ group }) {
    return { message: groups.get(group)?.capture ?? null };
  },
  /** {phase}: the phase's latency percentiles in µs. */
  histogram({ phase }) {
    const h = histograms.get(phase);
    if (!h || h.count === 0) return { count: 0 };
    return {
      count: h.count,
      p50: h.percentile(50),
      p90: h.percentile(90),
      p99: h.percentile(99),
      p999: h.percentile(99.9),
      max: h.max,
      mean: h.mean,
    };
  },
  /** {group}: sockets open, unexpected closes by code, socket errors, messages without a stamp. */
  status({ group }) {
    const g = groups.get(group);
    if (!g) return { sockets: 0, closes: {}, errors: 0, badStamps: 0 };
    return {
      sockets: g.sockets.size,
      closes: Object.fromEntries(g.closes),
      errors: g.errors,
      badStamps: g.badStamps,
    };
  },
  /** This thread's event-loop utilization so far (`performance.eventLoopUtilization()`). */
  elu() {
    const { idle, active } = performance.eventLoopUtilization();
    return { idle, active };
  },
  /** {group}: closes the group's sockets and waits until they are closed. */
  async close({ group }) {
    const g = groups.get(group);
    if (!g) return {};
    g.closing = true;
    const all = [...g.sockets].map(
      (ws) =>
        new Promise((resolve) => {
          if (ws.readyState === WebSocket.CLOSED) return resolve();
          ws.once('close', () => resolve());
          ws.close(1000);
          setTimeout(() => ws.terminate(), 2000).unref();
        }),
    );
    await Promise.all(all);
    groups.delete(group);
    return {};
  },
};

parentPort.on('message', async (req) => {
  try {
    const out = await ops[req.op](req);
    parentPort.postMessage({ id: req.id, ok: true, ...out });
  } catch (err) {
    parentPort.postMessage({
      id: req.id,
      ok: false,
      error: err instanceof Error ? err.message : String(err),
    });
  }
});

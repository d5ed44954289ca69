/**
 * What the live-feed benches (`ws-fanout`, `ws-orders-under-ticks`) share: the instruments (500
 * plain NSE equities of the Kite NSE file), the sockets' subscriptions, the server's feed
 * environment (a Zerodha broker session whose Kite Ticker is the loopback stub of
 * `bench/lib/kite-ticker-stub.ts`), the client worker (`bench/lib/ws-clients.mjs`), the tick source
 * that stamps each packet with its send time and paces it (flat out under a window of messages in
 * flight, or at a fixed rate), and the bare `ws` baseline (`bench/lib/baseline-ws.mjs`).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import type { KiteTickerStub } from '../lib/kite-ticker-stub.js';
import { encodeQuoteEntry, QUOTE_ENTRY_BYTES, QUOTE_OFFSETS } from '../lib/kite-ticker-stub.js';
import type { Child, Workspace } from '../lib/processes.js';
import { BENCH_USER } from './order-bench.js';

export const progress = (message: string): void => void process.stderr.write(`[bench] ${message}\n`);

/** The shape: 500 instruments, 200 sockets each subscribed to 50 of them, Quote mode. */
export const FEED_SHAPE = { instruments: 500, sockets: 200, perSocket: 50 } as const;
/** The memory line's shape: 1,000 sockets x 100 subscriptions (of the same 500 instruments). */
export const MEMORY_SHAPE = { sockets: 1000, perSocket: 100 } as const;
/** Packets per binary frame (Kite batches the ticks of many instruments in one frame). */
export const PACKETS_PER_FRAME = 50;
/**
 * Messages the flat-out source lets be in flight (sent as ticks, not yet received by a socket):
 * about 20 frames. It bounds the queues (and what is left to drain after a round) without starving
 * a server that reads in bursts; well under the 1 MiB a socket may buffer before the feed conflates.
 */
export const MAX_IN_FLIGHT = 20_000;

/** The Kite app and the two access tokens (the token names the stub's connection). */
export const FEED_BROKER = {
  apiKey: 'benchkiteapikey',
  apiSecret: 'benchkiteapisecret',
  tokens: { server: 'benchkitefeedtoken-server-0001', baseline: 'benchkitefeedtoken-baseline-01' },
} as const;

/** Shared counters of the client worker: received `market_data` messages per group. */
export const SLOTS = { server: 0, baseline: 1, memory: 2 } as const;
export type Group = keyof typeof SLOTS;

export interface Instrument {
  token: number;
  symbol: string;
  exchange: 'NSE';
  /** The price ticks move around, in paise. */
  basePaise: number;
}

/**
 * The first `n` NSE equities of a Kite instrument file whose trading symbol has no series suffix
 * (`SBIN`, not `GODHA-BE`): their OpenAlgo symbol is the trading symbol.
 */
export function pickInstruments(file: string, n: number): Instrument[] {
  const out: Instrument[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n').slice(1)) {
    const f = line.split(',');
    // instrument_token,exchange_token,tradingsymbol,name,last_price,expiry,strike,tick_size,lot_size,instrument_type,segment,exchange
    if (f.length !== 12 || f[9] !== 'EQ' || f[10] !== 'NSE' || !/^[A-Z][A-Z0-9]*$/.test(f[2]!)) continue;
    out.push({ token: Number(f[0]), symbol: f[2]!, exchange: 'NSE', basePaise: 10_000 + 50 * out.length });
    if (out.length === n) return out;
  }
  throw new Error(`${file} has only ${out.length} plain NSE equities; the feed benches need ${n}`);
}

/** Socket i subscribes `perSocket` consecutive instruments from i x perSocket (wrapping). */
export function socketSymbols(
  instruments: readonly Instrument[],
  sockets: number,
  perSocket: number,
): { symbol: string; exchange: string }[][] {
  return Array.from({ length: sockets }, (_, i) =>
    Array.from({ length: perSocket }, (_, j) => {
      const ins = instruments[(i * perSocket + j) % instruments.length]!;
      return { symbol: ins.symbol, exchange: ins.exchange };
    }),
  );
}

/** Subscriptions of each instrument (by index) under {@link socketSymbols}. */
export function subscriberCounts(instruments: number, sockets: number, perSocket: number): number[] {
  const counts = new Array<number>(instruments).fill(0);
  for (let i = 0; i < sockets; i++)
    for (let j = 0; j < Math.min(perSocket, instruments); j++) counts[(i * perSocket + j) % instruments]!++;
  return counts;
}

/**
 * Stores the bench user's Zerodha session (the CLI, token on stdin) and returns the server's feed
 * environment: the Kite Ticker at the stub, the feed on a free port, connection bounds far above
 * the bench's sockets, and no stall detection (a quiet phase must not restart the upstream).
 */
export async function feedServerEnv(ws: Workspace, stub: KiteTickerStub): Promise<Record<string, string>> {
  await ws
    .cli(
      ['broker-session', 'set', '--username', BENCH_USER.username, '--broker', 'zerodha'],
      FEED_BROKER.tokens.server,
    )
    .catch((err: unknown) => {
      // The CLI stores the session and may then exit 1 (see placeorder-live); the upstream proves it.
      if (!String((err as Error).message).includes('driver has already been destroyed')) throw err;
    });
  return {
    BROKER_NAME: 'zerodha',
    BROKER_API_KEY: FEED_BROKER.apiKey,
    BROKER_API_SECRET: FEED_BROKER.apiSecret,
    BROKER_REDIRECT_URL: 'http://127.0.0.1/cb',
    BROKER_FEED_URL: stub.url,
    WEBSOCKET_HOST: '127.0.0.1',
    WEBSOCKET_PORT: String(await ws.freePort()),
    FEED_CONNECT_RATE_LIMIT: '100000 per second',
    FEED_MAX_CONNECTIONS: '2000',
    FEED_STALE_SECONDS: '3600',
  };
}

/** Waits for the server's "live feed listening" line; the feed's `ws://` URL. */
export async function waitForFeedPort(ws: Workspace, server: Child, port: string): Promise<string> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const log = ws.log(server);
    if (log.includes('live feed listening') && log.includes(`"port":${port}`))
      return `ws://127.0.0.1:${port}`;
    if (log.includes('the live feed could not listen'))
      throw new Error(`the server's feed could not listen:\n${ws.logTail(server)}`);
    if (Date.now() > deadline) throw new Error(`the server's feed did not listen:\n${ws.logTail(server)}`);
    await sleep(50);
  }
}

/** Starts the bare `ws` baseline on the stub's `baseline` connection. */
export function startWsBaseline(
  ws: Workspace,
  stub: KiteTickerStub,
  instruments: readonly Instrument[],
): Promise<Child> {
  const script = fileURLToPath(new URL('../lib/baseline-ws.mjs', import.meta.url));
  return ws.startScript(
    'baseline',
    script,
    {
      upstreamUrl: stub.url,
      apiKey: FEED_BROKER.apiKey,
      accessToken: FEED_BROKER.tokens.baseline,
      instruments: instruments.map(({ token, symbol, exchange }) => ({ token, symbol, exchange })),
    },
    'baseline is running at',
  );
}

/** Latency percentiles of one phase, in µs, as the worker reports them. */
export interface Latency {
  count: number;
  p50?: number;
  p90?: number;
  p99?: number;
  p999?: number;
  max?: number;
  mean?: number;
}

/** The client sockets, in a worker thread (bench/lib/ws-clients.mjs). */
export class FeedClients {
  private readonly origin = process.hrtime();
  private readonly counters = new Int32Array(new SharedArrayBuffer(4 * Object.keys(SLOTS).length));
  private readonly worker: Worker;
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();

  constructor() {
    this.worker = new Worker(new URL('../lib/ws-clients.mjs', import.meta.url), {
      workerData: { origin: this.origin, counters: this.counters.buffer },
    });
    this.worker.on('message', (m: { id: number; ok: boolean; error?: string }) => {
      const w = this.waiting.get(m.id);
      this.waiting.delete(m.id);
      if (m.ok) w?.resolve(m);
      else w?.reject(new Error(`client worker: ${m.error}`));
    });
    this.worker.on('error', (err) => {
      for (const w of this.waiting.values()) w.reject(err);
      this.waiting.clear();
    });
  }

  /** µs since the origin the worker measures from (the stamps' clock). */
  nowUs(): number {
    const [s, ns] = process.hrtime(this.origin);
    return s * 1e6 + ns / 1e3;
  }

  /** `market_data` messages the group's sockets have received so far. */
  received(group: Group): number {
    return Atomics.load(this.counters, SLOTS[group]);
  }

  /** Connects `sockets` (one list of symbols each) to `url`, authenticated, subscribed in Quote mode. */
  async open(
    group: Group,
    url: string,
    apiKey: string,
    sockets: { symbol: string; exchange: string }[][],
  ): Promise<{ sockets: number; ms: number }> {
    const r = await this.request<{ sockets: number; failedEntries: number; examples: string[]; ms: number }>(
      'open',
      { group, slot: SLOTS[group], url, apiKey, sockets, mode: 'Quote' },
    );
    if (r.failedEntries > 0)
      throw new Error(
        `${r.failedEntries} subscriptions refused by the ${group}, e.g. ${r.examples.join('; ')}`,
      );
    return r;
  }

  /** From now on the group's latencies go to `phase` (null: counted only). */
  record(group: Group, phase: string | null): Promise<unknown> {
    return this.request('record', { group, phase });
  }

  capture(group: Group): Promise<unknown> {
    return this.request('capture', { group });
  }

  async sample(group: Group): Promise<string | null> {
    return (await this.request<{ message: string | null }>('sample', { group })).message;
  }

  histogram(phase: string): Promise<Latency> {
    return this.request<Latency>('histogram', { phase });
  }

  status(
    group: Group,
  ): Promise<{ sockets: number; closes: Record<string, number>; errors: number; badStamps: number }> {
    return this.request('status', { group });
  }

  /** The worker's event-loop time so far, ms: busy (`active`) and idle. */
  elu(): Promise<{ idle: number; active: number }> {
    return this.request('elu', {});
  }

  close(group: Group): Promise<unknown> {
    return this.request('close', { group });
  }

  async terminate(): Promise<void> {
    await this.worker.terminate();
  }

  private request<T>(op: string, args: Record<string, unknown>): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.worker.postMessage({ id, op, ...args });
    });
  }
}

/** What one run of the source did, and what the sockets received meanwhile. */
export interface SourceRun {
  ticks: number;
  /** Messages the ticks should make (each tick once per subscription of its instrument). */
  expected: number;
  /** Messages received while the source ran (counted at the sockets). */
  received: number;
  elapsedMs: number;
  /** Messages never received after the drain (conflated by the feed, or lost). */
  lost: number;
}

/**
 * The tick source: frames of quote packets, round-robin over the instruments, each packet's
 * `volume` the send time (µs since the clients' origin, uint32) and its last price moving a little
 * from tick to tick. Sent on one stub connection (`server` or `baseline`), whose sockets' messages
 * are counted in the client group of the same name.
 */
export class TickSource {
  private readonly templates: Buffer;
  private next = 0;
  private seq = 0;

  constructor(
    private readonly stub: KiteTickerStub,
    /** The stub connection the ticks go to (`server` or `baseline`). */
    private readonly label: 'server' | 'baseline',
    /** The client group whose sockets receive them. */
    private readonly group: Group,
    private readonly instruments: readonly Instrument[],
    /** Subscriptions of each instrument, by index: the messages one of its ticks makes. */
    private readonly subscribers: readonly number[],
    private readonly clients: FeedClients,
  ) {
    this.templates = Buffer.concat(
      instruments.map((ins) =>
        encodeQuoteEntry({
          token: ins.token,
          lastPrice: ins.basePaise,
          lastQuantity: 10,
          averagePrice: ins.basePaise,
          volume: 0,
          buyQuantity: 5000,
          sellQuantity: 7000,
          open: ins.basePaise - 100,
          high: ins.basePaise + 500,
          low: ins.basePaise - 500,
          close: ins.basePaise - 200,
        }),
      ),
    );
  }

  /** Waits until the connection has every instrument subscribed in quote mode. */
  async subscribed(timeoutMs = 15_000): Promise<void> {
    const label = this.label;
    const deadline = Date.now() + timeoutMs;
    const done = () => {
      const subs = this.stub.subscriptions(label);
      return this.instruments.every((i) => subs.get(i.token) === 'quote');
    };
    while (!done()) {
      if (Date.now() > deadline)
        throw new Error(
          `the ${label}'s upstream subscribed ${this.stub.subscriptions(label).size} of ${this.instruments.length} instruments in ${timeoutMs} ms`,
        );
      await sleep(20);
    }
  }

  /** One tick of every instrument, sent at once; resolves once every socket got its messages. */
  async probe(timeoutMs = 5000): Promise<SourceRun> {
    const before = this.clients.received(this.group);
    const started = performance.now();
    let expected = 0;
    for (let i = 0; i < this.instruments.length; i += PACKETS_PER_FRAME)
      expected += this.sendFrame(Math.min(PACKETS_PER_FRAME, this.instruments.length - i));
    const lost = await this.drain(before + expected, timeoutMs);
    return {
      ticks: this.instruments.length,
      expected,
      received: expected - lost,
      elapsedMs: performance.now() - started,
      lost,
    };
  }

  /**
   * Flat out for `ms`: frames are sent while fewer than {@link MAX_IN_FLIGHT} messages are in
   * flight, looked at every millisecond (a timer, so the bench's thread is not spun). Messages the
   * feed never delivers (conflated) are written off after 200 ms without progress.
   */
  async runMax(ms: number): Promise<SourceRun> {
    const group = this.group;
    const start = this.clients.received(group);
    let expected = 0;
    let ticks = 0;
    let written = 0;
    let lastSeen = start;
    let lastProgress = performance.now();
    const started = performance.now();
    while (performance.now() - started < ms) {
      const got = this.clients.received(group);
      const now = performance.now();
      if (got !== lastSeen) {
        lastSeen = got;
        lastProgress = now;
      } else if (now - lastProgress > 200) {
        written = expected - (got - start);
        lastProgress = now;
      }
      while (expected - written - (this.clients.received(group) - start) < MAX_IN_FLIGHT) {
        expected += this.sendFrame(PACKETS_PER_FRAME);
        ticks += PACKETS_PER_FRAME;
      }
      await sleep(1);
    }
    const elapsedMs = performance.now() - started;
    const received = this.clients.received(group) - start;
    const lost = await this.drain(start + expected);
    return { ticks, expected, received, elapsedMs, lost };
  }

  /** `ticksPerS` ticks a second for `ms`, sent every 2 ms in frames of at most 50 packets. */
  async runPaced(ms: number, ticksPerS: number): Promise<SourceRun> {
    const start = this.clients.received(this.group);
    let expected = 0;
    let ticks = 0;
    const started = performance.now();
    for (;;) {
      const elapsed = performance.now() - started;
      const due = Math.min(
        Math.floor((ticksPerS * Math.min(elapsed, ms)) / 1000),
        Math.ceil((ticksPerS * ms) / 1000),
      );
      while (ticks < due) {
        const n = Math.min(PACKETS_PER_FRAME, due - ticks);
        expected += this.sendFrame(n);
        ticks += n;
      }
      if (elapsed >= ms) break;
      await sleep(2);
    }
    const elapsedMs = performance.now() - started;
    const received = this.clients.received(this.group) - start;
    const lost = await this.drain(start + expected);
    return { ticks, expected, received, elapsedMs, lost };
  }

  /**
   * Waits until the group has received `target` messages in all, or until 300 ms pass without
   * progress (`timeoutMs` at most); the messages short of `target`.
   */
  async drain(target: number, timeoutMs = 5000): Promise<number> {
    const group = this.group;
    const deadline = performance.now() + timeoutMs;
    let last = this.clients.received(group);
    let lastProgress = performance.now();
    while (this.clients.received(group) < target && performance.now() < deadline) {
      await sleep(5);
      const got = this.clients.received(group);
      if (got !== last) {
        last = got;
        lastProgress = performance.now();
      } else if (performance.now() - lastProgress > 300) break;
    }
    return Math.max(0, target - this.clients.received(group));
  }

  /** Builds and sends one frame of `n` packets; the messages it should make. */
  private sendFrame(n: number): number {
    const frame = Buffer.allocUnsafe(2 + n * QUOTE_ENTRY_BYTES);
    frame.writeUInt16BE(n, 0);
    const stamp = Math.floor(this.clients.nowUs()) >>> 0;
    let expected = 0;
    for (let k = 0; k < n; k++) {
      const i = this.next;
      this.next = (this.next + 1) % this.instruments.length;
      const at = 2 + k * QUOTE_ENTRY_BYTES;
      this.templates.copy(frame, at, i * QUOTE_ENTRY_BYTES, (i + 1) * QUOTE_ENTRY_BYTES);
      frame.writeUInt32BE(
        this.instruments[i]!.basePaise + 5 * (this.seq++ % 40),
        at + 2 + QUOTE_OFFSETS.lastPrice,
      );
      frame.writeUInt32BE(stamp, at + 2 + QUOTE_OFFSETS.volume);
      expected += this.subscribers[i]!;
    }
    if (!this.stub.send(this.label, frame))
      throw new Error(`the ${this.label}'s upstream is not connected to the stub`);
    return expected;
  }
}

/** Messages per second of a run (received while the source ran). */
export const rateOf = (r: SourceRun): number => r.received / (r.elapsedMs / 1000);

/** `a` and `b` summed. */
export function addRuns(a: SourceRun, b: SourceRun): SourceRun {
  return {
    ticks: a.ticks + b.ticks,
    expected: a.expected + b.expected,
    received: a.received + b.received,
    elapsedMs: a.elapsedMs + b.elapsedMs,
    lost: a.lost + b.lost,
  };
}

export const emptyRun = (): SourceRun => ({ ticks: 0, expected: 0, received: 0, elapsedMs: 0, lost: 0 });

export const ms = (us: number | undefined): string => (us === undefined ? '-' : (us / 1000).toFixed(2));
export const mb = (bytes: number): number => Math.round(bytes / 1024 / 1024);

/** The message with the values that differ per tick (send stamp, receive time) replaced. */
export const normalizeTick = (m: string): string =>
  m.replace(/"timestamp":\d+/, '"timestamp":0').replace(/"volume":\d+/, '"volume":0');

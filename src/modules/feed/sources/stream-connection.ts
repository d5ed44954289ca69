/**
 * The connection lifecycle the broker tick streams share (./kite-ticker.ts, ./dhan-feed.ts,
 * ./angel-stream.ts; docs/rules/market-data.md#feed-sources): a base class owning one `ws` socket
 * to the broker, so each stream keeps only its own subscriptions, requests and packets.
 *
 * - Connects on the first subscription (after {@link StreamConnection.start}); the subscription
 *   changes of one event-loop turn reach {@link StreamConnection.sync} as one flush (./reconnect.ts).
 * - The opening handshake has a time limit (10 s). Once open, the stream is told to subscribe
 *   everything (what the last one was told is forgotten); an optional text heartbeat is sent
 *   at a fixed interval while open.
 * - A lost connection is reopened after a capped exponential backoff (1 s doubling to 30 s), reset
 *   by the first frame after a handshake (or, for a stream that says so, by the frame it calls
 *   {@link StreamConnection.connectionProved} for). A handshake refused with HTTP 400/401/403, or
 *   a connection the stream ends as fatal ({@link StreamConnection.endConnection}), leaves it
 *   `down` without retrying: a new session means a new source.
 * - `stop()` closes normally (code 1000, after an optional farewell text), forcing the close after 2 s.
 * - Only the endpoint's host is ever logged, and any text logged is masked of the stream's secrets.
 */
import type { Logger } from 'pino';
import WebSocket, { type ClientOptions, type RawData } from 'ws';
import type { FeedMode, Tick, TickListener } from '../feed.types.js';
import { backoffDelay, RepeatTimer, TurnBatch } from './reconnect.js';

/** `live` while connected, `connecting` during a handshake, else `down`. */
export type StreamStatus = 'connecting' | 'live' | 'down';

/** The options every stream takes besides its credentials. */
export interface StreamOptions {
  /** The endpoint (the broker's by default; a loopback stub in tests); Kite and Dhan add a query. */
  url?: string;
  logger: Logger;
  reconnect?: {
    /** First wait after a lost connection (1 s). */
    initialDelayMs?: number;
    /** The longest wait (30 s). */
    maxDelayMs?: number;
    /** Growth per failed attempt (2). */
    factor?: number;
  };
  /** The opening handshake's time limit (10 s). */
  handshakeTimeoutMs?: number;
  /** Epoch ms now (a tick without the exchange's timestamp is stamped with it). */
  now?: () => number;
}

/** What a stream tells the base about itself, fixed for its life. */
export interface StreamProfile {
  /** How log lines name the stream (`kite ticker`). */
  label: string;
  /** The broker's endpoint, when the options name none (ws: or wss:, as is any other). */
  defaultUrl: string;
  /** How the error for a URL of another protocol names it (`Kite Ticker URL`). */
  urlName: string;
  /** Blotted out of any text logged, in this order. */
  secrets: readonly string[];
  /** What a refused handshake is logged as not accepting (`API key or access token`). */
  credentials: string;
  /** The name the `connected` line counts the subscriptions under (`instruments`). */
  countedAs?: string;
  /** A text sent every `everyMs` while open (Angel's `ping`). */
  heartbeat?: { text: string; everyMs: number };
  /** A text sent on stop just before the normal close (Dhan's disconnect request). */
  farewell?: string;
  /** Whether any frame resets the backoff (true), or only the stream's `connectionProved()`. */
  anyFrameResetsBackoff?: boolean;
}

/** Handshake answers that mean the credentials (or the request) will not be accepted by retrying. */
const REFUSALS = new Set([400, 401, 403]);

/** A `ws` message as one Buffer (it may arrive as a Buffer, an ArrayBuffer or fragments). */
export function frameBytes(data: RawData): Buffer {
  return Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
}

/** Hands one tick to every listener; one that throws is reported to `failed` and the rest still get it. */
export function tellListeners(
  listeners: Iterable<TickListener>,
  key: string,
  mode: FeedMode,
  tick: Tick,
  failed: (err: unknown) => void,
): void {
  for (const l of listeners) {
    try {
      l(key, mode, tick);
    } catch (err) {
      failed(err);
    }
  }
}

/**
 * The base of a stream: `Key` names an instrument on the broker's side, `Told` what the open
 * connection has been told of it (its subscribed mode, say).
 */
export abstract class StreamConnection<Key, Told> {
  /** What the open connection has been told, by instrument; forgotten with each new or lost one. */
  protected sent = new Map<Key, Told>();
  protected readonly logger: Logger;
  /** The endpoint's host: the only part of it ever logged. */
  protected readonly host: string;
  protected readonly now: () => number;
  private readonly base: URL;
  private readonly listeners = new Set<TickListener>();
  private readonly batch = new TurnBatch(() => this.flush());
  private readonly heartbeat = new RepeatTimer();
  private ws: WebSocket | undefined;
  private retry: NodeJS.Timeout | undefined;
  private attempts = 0;
  private stopped = false;
  private refused = false;
  /** Why the stream ended the connection for good (`feed disconnect`), logged when it closes. */
  private fatalCause: string | undefined;
  private state: StreamStatus = 'down';
  private lastAt: number | null = null;

  constructor(
    private readonly options: StreamOptions,
    private readonly profile: StreamProfile,
  ) {
    this.base = new URL(options.url ?? profile.defaultUrl);
    if (this.base.protocol !== 'wss:' && this.base.protocol !== 'ws:')
      throw new Error(`${profile.urlName} must be ws: or wss: (got ${this.base.protocol})`);
    this.host = this.base.host;
    this.logger = options.logger;
    this.now = options.now ?? Date.now;
  }

  // ---- what the stream implements ----

  /** The subscribed instruments (none: no connection is opened); their count is logged. */
  protected abstract readonly subs: { readonly size: number };
  /** The URL to open (from the configured endpoint) and any handshake headers. */
  protected abstract endpoint(base: URL): { url: URL; headers?: Record<string, string> };
  /** Tells the open connection the difference between what is wanted and what it was told. */
  protected abstract sync(ws: WebSocket): void;
  /** A binary frame from the open connection (market data). */
  protected abstract readBinary(frame: Buffer): void;
  /** A text frame from the open connection (answers, errors, Kite's order postbacks, `pong`). */
  protected abstract readText(text: string): void;

  // ---- TickSource ----

  /** `live` while connected, `connecting` during a handshake, else `down`. */
  get status(): StreamStatus {
    return this.state;
  }

  /** When the last frame of any kind (heartbeats and `pong`s too) arrived, epoch ms; null before the first. */
  get lastMessageAt(): number | null {
    return this.lastAt;
  }

  onTick(listener: TickListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Connecting waits for the first subscription; a stopped source may be started again. */
  start(): void {
    this.stopped = false;
    if (this.subs.size > 0) this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.batch.cancel();
    clearTimeout(this.retry);
    this.retry = undefined;
    const ws = this.ws;
    if (ws) {
      await new Promise<void>((resolve) => {
        ws.once('close', () => resolve());
        const force = setTimeout(() => ws.terminate(), 2000);
        force.unref();
        ws.once('close', () => clearTimeout(force));
        if (ws.readyState === WebSocket.OPEN) {
          if (this.profile.farewell !== undefined) ws.send(this.profile.farewell);
          ws.close(1000, 'client stopping');
        } else ws.terminate();
      });
    }
    this.heartbeat.stop();
    this.state = 'down';
  }

  // ---- for the stream ----

  /** Asks for a flush at the end of this turn (connecting first when there is no connection). */
  protected schedule(): void {
    if (this.stopped) return;
    this.batch.request();
  }

  /** Hands a packet's tick to each of our keys on it, at its mode or the packet's, the lower. */
  protected emit(keys: Map<string, FeedMode>, packetMode: FeedMode, tick: Tick): void {
    for (const [key, mode] of keys)
      tellListeners(this.listeners, key, Math.min(mode, packetMode) as FeedMode, tick, (err) =>
        this.logger.error({ err, key }, `${this.profile.label}: tick listener failed`),
      );
  }

  /** A frame showing the connection works: the backoff starts over. */
  protected connectionProved(): void {
    this.attempts = 0;
  }

  /** Ends the connection: reopened as after a drop, or, given a cause, left `down` for good. */
  protected endConnection(fatalCause?: string): void {
    if (fatalCause !== undefined) {
      this.refused = true;
      this.fatalCause = fatalCause;
    }
    this.ws?.terminate();
  }

  /** `text` with the stream's secrets blotted out. */
  protected mask(text: string): string {
    let out = text;
    for (const secret of this.profile.secrets) if (secret) out = out.split(secret).join('***');
    return out;
  }

  // ---- the connection ----

  private flush(): void {
    const ws = this.ws;
    if (!ws) {
      if (!this.retry && !this.refused && !this.stopped && this.subs.size > 0) this.connect();
      return;
    }
    if (ws.readyState !== WebSocket.OPEN) return; // the open handler flushes
    this.sync(ws);
  }

  private connect(): void {
    const { label } = this.profile;
    const { url, headers } = this.endpoint(this.base);
    this.state = 'connecting';
    this.sent = new Map();
    let ws: WebSocket;
    try {
      const options: ClientOptions = { handshakeTimeout: this.options.handshakeTimeoutMs ?? 10_000 };
      if (headers) options.headers = headers;
      ws = new WebSocket(url, options);
    } catch (err) {
      this.refused = true;
      this.state = 'down';
      const error = this.mask(err instanceof Error ? err.message : String(err));
      this.logger.error({ host: this.host, error }, `${label}: cannot connect`);
      return;
    }
    this.ws = ws;
    let httpStatus: number | undefined;
    let failure: string | undefined;
    ws.on('unexpected-response', (_req, res) => {
      httpStatus = res.statusCode;
      res.resume();
      ws.terminate();
    });
    ws.on('open', () => {
      if (this.ws !== ws) return;
      this.state = 'live';
      const count = { [this.profile.countedAs ?? 'instruments']: this.subs.size };
      this.logger.info({ host: this.host, ...count }, `${label} connected`);
      const beat = this.profile.heartbeat;
      if (beat)
        this.heartbeat.start(beat.everyMs, () => {
          if (ws.readyState === WebSocket.OPEN) ws.send(beat.text);
        });
      this.flush();
    });
    ws.on('message', (data, isBinary) => this.receive(ws, data, isBinary));
    ws.on('error', (err) => (failure = this.mask(err.message)));
    ws.on('close', (code, reason) =>
      this.closed(ws, code, this.mask(reason.toString()), httpStatus, failure),
    );
  }

  private closed(ws: WebSocket, code: number, reason: string, httpStatus?: number, failure?: string): void {
    if (this.ws !== ws) return;
    const { label } = this.profile;
    this.ws = undefined;
    this.sent = new Map();
    this.state = 'down';
    this.heartbeat.stop();
    if (this.stopped) {
      this.logger.info({ host: this.host }, `${label} closed`);
      return;
    }
    if (this.fatalCause !== undefined) {
      this.logger.warn(
        { host: this.host },
        `${label}: closed after a fatal ${this.fatalCause}; not retrying`,
      );
      return;
    }
    if (httpStatus !== undefined && REFUSALS.has(httpStatus)) {
      this.refused = true;
      this.logger.warn(
        { host: this.host, httpStatus },
        `${label}: connection refused (${this.profile.credentials} not accepted); not retrying`,
      );
      return;
    }
    const r = this.options.reconnect ?? {};
    const delay = backoffDelay(this.attempts, {
      initialMs: r.initialDelayMs ?? 1000,
      maxMs: r.maxDelayMs ?? 30_000,
      factor: r.factor ?? 2,
      jitter: 0,
    });
    this.attempts++;
    this.logger.warn(
      { host: this.host, code, reason, httpStatus, error: failure, retryInMs: delay, attempt: this.attempts },
      `${label} disconnected; reconnecting`,
    );
    this.retry = setTimeout(() => {
      this.retry = undefined;
      if (!this.stopped && this.subs.size > 0) this.connect();
    }, delay);
    this.retry.unref();
  }

  private receive(ws: WebSocket, data: RawData, isBinary: boolean): void {
    if (this.ws !== ws) return;
    this.lastAt = this.now();
    // A frame after a successful handshake: the backoff starts over (a server that accepts and
    // drops at once is retried with growing waits, not hammered).
    if (this.profile.anyFrameResetsBackoff ?? true) this.attempts = 0;
    const buf = frameBytes(data);
    if (isBinary) this.readBinary(buf);
    else this.readText(buf.toString('utf8'));
  }
}

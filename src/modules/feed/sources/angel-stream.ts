/**
 * Angel One's SmartStream as a live-feed {@link TickSource} (docs/rules/market-data.md#feed-sources):
 * SmartAPI WebSocket 2.0 (smartapi.angelone.in/docs/WebSocket2), one connection to
 * `wss://smartapisocket.angelone.in/smart-stream`, up to 1,000 token subscriptions on it.
 *
 * - The handshake carries the session in HTTP headers: `Authorization: Bearer <jwt>`, `x-api-key`,
 *   `x-client-code`, `x-feed-token` (nothing in the URL).
 * - Requests are JSON text (./angel-stream-decode.ts): subscribe (`action` 1) and unsubscribe (0)
 *   per mode, the tokens grouped by exchange type. A mode is its own subscription on Angel's side,
 *   so a token changing mode is unsubscribed at the old one and subscribed at the new one. Every
 *   change of one event-loop turn goes out as at most one unsubscribe and one subscribe per mode.
 * - The client sends the text `ping` every 30 s; the server answers `pong`. Market data is one
 *   binary packet per frame; error answers are JSON text, logged.
 *
 * Instruments are Angel `symboltoken`s in `FeedInstrument.token`, streamed on the exchange type of
 * our `FeedInstrument.exchange`; ticks go out under our `EXCHANGE:SYMBOL`, at the subscribed mode
 * (or the packet's, when lower).
 *
 * Connects on the first subscribe; after a lost connection it reconnects with capped exponential
 * backoff (./reconnect.ts) and subscribes everything again. Credentials refused at the handshake
 * (HTTP 400/401/403) leave it `down` without retrying: a new session means a new source. The JWT,
 * feed token, API key and client code are never logged, and any text logged is masked.
 */
import type { Logger } from 'pino';
import WebSocket, { type RawData } from 'ws';
import {
  feedKey,
  type FeedInstrument,
  type FeedMode,
  type Tick,
  type TickListener,
  type TickSource,
} from '../feed.types.js';
import {
  ACTION,
  exchangeTypeOf,
  groupTokens,
  indexTick,
  isStreamToken,
  readPacket,
  readStreamError,
  streamRequest,
  type StreamAction,
  type StreamPacket,
} from './angel-stream-decode.js';
import { backoffDelay, TurnBatch } from './reconnect.js';
import { INDEX_EXCHANGES } from '../../../domain/exchanges.js';

export const ANGEL_STREAM_URL = 'wss://smartapisocket.angelone.in/smart-stream';
/** Token subscriptions one SmartStream session may hold (WebSocket 2.0 page; error E1002 beyond). */
export const ANGEL_STREAM_MAX_TOKENS = 1000;

export type AngelStreamStatus = 'connecting' | 'live' | 'down';

export interface AngelStreamOptions {
  apiKey: string;
  /** The Angel One account id (`x-client-code`). */
  clientCode: string;
  /** The session's JWT (sent as `Authorization: Bearer …`; a leading `Bearer ` is not doubled). */
  jwt: string;
  feedToken: string;
  /** The endpoint (`wss://smartapisocket.angelone.in/smart-stream` by default; a loopback stub in tests). */
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
  /** How often the text `ping` is sent (30 s, as the page asks). */
  heartbeatMs?: number;
  /** Epoch ms now (a tick without the exchange's timestamp is stamped with it). */
  now?: () => number;
}

/** One streamed (exchange type, token) and our keys on it. */
interface Stream {
  exchangeType: number;
  token: string;
  /** An index: its packets' trade fields are zeros, left out of the tick. */
  index: boolean;
  /** Our keys on it and the mode each is subscribed at. */
  keys: Map<string, FeedMode>;
}

/** What the open connection holds: the mode a (exchange type, token) is subscribed at. */
type Held = { exchangeType: number; token: string; mode: FeedMode };

/** Handshake answers that mean the credentials (or the request) will not be accepted by retrying. */
const REFUSALS = new Set([400, 401, 403]);
const MODES = [1, 2, 3] as const;

const streamKey = (exchangeType: number, token: string) => `${exchangeType}|${token}`;
const topMode = (keys: Map<string, FeedMode>) => Math.max(...keys.values()) as FeedMode;

export class AngelStreamSource implements TickSource {
  readonly name = 'angel';
  readonly maxSubscriptions = ANGEL_STREAM_MAX_TOKENS;

  private readonly subs = new Map<string, Stream>();
  private sent = new Map<string, Held>();
  private readonly listeners = new Set<TickListener>();
  private ws: WebSocket | undefined;
  private readonly batch = new TurnBatch(() => this.flush());
  private retry: NodeJS.Timeout | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private attempts = 0;
  private requests = 0;
  private stopped = false;
  private refused = false;
  private state: AngelStreamStatus = 'down';
  private lastAt: number | null = null;
  private readonly url: URL;
  private readonly host: string;
  private readonly now: () => number;

  constructor(private readonly opts: AngelStreamOptions) {
    this.url = new URL(opts.url ?? ANGEL_STREAM_URL);
    if (this.url.protocol !== 'wss:' && this.url.protocol !== 'ws:')
      throw new Error(`SmartStream URL must be ws: or wss: (got ${this.url.protocol})`);
    this.host = this.url.host;
    this.now = opts.now ?? Date.now;
  }

  /** `live` while connected, `connecting` during a handshake, else `down`. */
  get status(): AngelStreamStatus {
    return this.state;
  }

  /** When the last frame of any kind (`pong` too) arrived, epoch ms; null before the first. */
  get lastMessageAt(): number | null {
    return this.lastAt;
  }

  subscribe(instrument: FeedInstrument, mode: FeedMode): void {
    const key = feedKey(instrument.exchange, instrument.symbol);
    const exchangeType = exchangeTypeOf(instrument.exchange);
    if (exchangeType === undefined || !isStreamToken(instrument.token)) {
      const why = exchangeType === undefined ? 'no SmartStream exchange type' : 'no numeric symboltoken';
      this.opts.logger.warn({ key }, `angel stream: ${why}; not subscribed`);
      return;
    }
    const sk = streamKey(exchangeType, instrument.token);
    let stream = this.subs.get(sk);
    if (!stream) {
      if (this.subs.size >= this.maxSubscriptions) {
        this.opts.logger.warn({ key, max: this.maxSubscriptions }, 'angel stream: token limit reached');
        return;
      }
      const index = INDEX_EXCHANGES.has(instrument.exchange);
      this.subs.set(sk, (stream = { exchangeType, token: instrument.token, index, keys: new Map() }));
    }
    stream.keys.set(key, mode);
    this.schedule();
  }

  unsubscribe(instrument: FeedInstrument, mode: FeedMode): void {
    const exchangeType = exchangeTypeOf(instrument.exchange);
    if (exchangeType === undefined) return;
    const sk = streamKey(exchangeType, instrument.token);
    const stream = this.subs.get(sk);
    const key = feedKey(instrument.exchange, instrument.symbol);
    if (!stream || stream.keys.get(key) !== mode) return;
    stream.keys.delete(key);
    if (stream.keys.size === 0) this.subs.delete(sk);
    this.schedule();
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
        if (ws.readyState === WebSocket.OPEN) ws.close(1000, 'client stopping');
        else ws.terminate();
      });
    }
    this.stopHeartbeat();
    this.state = 'down';
  }

  // ---- requests ----

  private schedule(): void {
    if (this.stopped) return;
    this.batch.request();
  }

  /**
   * Tells the connection the difference between what is wanted and what it holds: unsubscribes
   * first (a re-mode's old mode, dropped tokens), so a re-mode never counts twice against the
   * session's quota, then subscribes; one request per (action, mode), tokens grouped by exchange.
   */
  private flush(): void {
    const ws = this.ws;
    if (!ws) {
      if (!this.retry && !this.refused && !this.stopped && this.subs.size > 0) this.connect();
      return;
    }
    if (ws.readyState !== WebSocket.OPEN) return; // the open handler flushes
    const drop: Record<FeedMode, Held[]> = { 1: [], 2: [], 3: [] };
    const add: Record<FeedMode, Held[]> = { 1: [], 2: [], 3: [] };
    for (const [sk, held] of this.sent) {
      const stream = this.subs.get(sk);
      if (!stream || topMode(stream.keys) !== held.mode) drop[held.mode].push(held);
    }
    for (const [sk, { exchangeType, token, keys }] of this.subs) {
      const mode = topMode(keys);
      if (this.sent.get(sk)?.mode !== mode) add[mode].push({ exchangeType, token, mode });
    }
    const send = (action: StreamAction, mode: FeedMode, list: Held[]) => {
      if (list.length === 0) return;
      const groups = groupTokens(list.map((h) => [h.exchangeType, h.token] as const));
      ws.send(streamRequest(this.correlationId(), action, mode, groups));
    };
    for (const m of MODES) send(ACTION.unsubscribe, m, drop[m]);
    for (const m of MODES) send(ACTION.subscribe, m, add[m]);
    for (const m of MODES) for (const h of drop[m]) this.sent.delete(streamKey(h.exchangeType, h.token));
    for (const m of MODES) for (const h of add[m]) this.sent.set(streamKey(h.exchangeType, h.token), h);
  }

  /** The page's 10-character alphanumeric correlation id, echoed in error answers. */
  private correlationId(): string {
    return `ad${(++this.requests).toString(36).padStart(8, '0')}`;
  }

  // ---- connection ----

  private connect(): void {
    const jwt = this.opts.jwt.replace(/^Bearer\s+/i, '');
    this.state = 'connecting';
    this.sent = new Map();
    let ws: WebSocket;
    try {
      ws = new WebSocket(this.url, {
        handshakeTimeout: this.opts.handshakeTimeoutMs ?? 10_000,
        headers: {
          Authorization: `Bearer ${jwt}`,
          'x-api-key': this.opts.apiKey,
          'x-client-code': this.opts.clientCode,
          'x-feed-token': this.opts.feedToken,
        },
      });
    } catch (err) {
      this.refused = true;
      this.state = 'down';
      this.opts.logger.error(
        { host: this.host, error: this.mask(err instanceof Error ? err.message : String(err)) },
        'angel stream: cannot connect',
      );
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
      this.opts.logger.info({ host: this.host, tokens: this.subs.size }, 'angel stream connected');
      this.startHeartbeat(ws);
      this.flush();
    });
    ws.on('message', (data, isBinary) => this.receive(ws, data, isBinary));
    ws.on('error', (err) => (failure = this.mask(err.message)));
    ws.on('close', (code, reason) =>
      this.closed(ws, code, this.mask(reason.toString()), httpStatus, failure),
    );
  }

  private startHeartbeat(ws: WebSocket): void {
    this.stopHeartbeat();
    this.heartbeat = setInterval(() => {
      if (ws.readyState === WebSocket.OPEN) ws.send('ping');
    }, this.opts.heartbeatMs ?? 30_000);
    this.heartbeat.unref();
  }

  private stopHeartbeat(): void {
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
  }

  private closed(ws: WebSocket, code: number, reason: string, httpStatus?: number, failure?: string): void {
    if (this.ws !== ws) return;
    this.ws = undefined;
    this.sent = new Map();
    this.state = 'down';
    this.stopHeartbeat();
    if (this.stopped) {
      this.opts.logger.info({ host: this.host }, 'angel stream closed');
      return;
    }
    if (httpStatus !== undefined && REFUSALS.has(httpStatus)) {
      this.refused = true;
      this.opts.logger.warn(
        { host: this.host, httpStatus },
        'angel stream: connection refused (JWT, API key, client code or feed token not accepted); not retrying',
      );
      return;
    }
    const r = this.opts.reconnect ?? {};
    const delay = backoffDelay(this.attempts, {
      initialMs: r.initialDelayMs ?? 1000,
      maxMs: r.maxDelayMs ?? 30_000,
      factor: r.factor ?? 2,
      jitter: 0,
    });
    this.attempts++;
    this.opts.logger.warn(
      { host: this.host, code, reason, httpStatus, error: failure, retryInMs: delay, attempt: this.attempts },
      'angel stream disconnected; reconnecting',
    );
    this.retry = setTimeout(() => {
      this.retry = undefined;
      if (!this.stopped && this.subs.size > 0) this.connect();
    }, delay);
    this.retry.unref();
  }

  // ---- incoming ----

  private receive(ws: WebSocket, data: RawData, isBinary: boolean): void {
    if (this.ws !== ws) return;
    this.lastAt = this.now();
    // A frame after a successful handshake: the backoff starts over.
    this.attempts = 0;
    const buf = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
    if (!isBinary) return this.text(buf.toString('utf8'));
    const frame = readPacket(buf, this.now);
    if (frame.kind === 'packet') this.emit(frame.packet);
    // Depth-20 (mode 4, never asked) or a packet shorter than its mode.
    else this.opts.logger.debug({ ...frame }, 'angel stream: packet not read; skipped');
  }

  private emit(packet: StreamPacket): void {
    const stream = this.subs.get(streamKey(packet.exchangeType, packet.token));
    if (!stream) return;
    const tick: Tick = stream.index ? indexTick(packet.tick) : packet.tick;
    for (const [key, mode] of stream.keys) {
      const m = Math.min(mode, packet.mode) as FeedMode;
      for (const l of this.listeners) {
        try {
          l(key, m, tick);
        } catch (err) {
          this.opts.logger.error({ err, key }, 'angel stream: tick listener failed');
        }
      }
    }
  }

  private text(raw: string): void {
    if (raw === 'pong') return;
    const error = readStreamError(raw);
    const masked = error && { ...error, errorMessage: this.mask(error.errorMessage ?? '') };
    if (masked) this.opts.logger.warn({ host: this.host, ...masked }, 'angel stream: error answer');
    else this.opts.logger.debug({ bytes: raw.length }, 'angel stream: text frame not used by the feed');
  }

  /** `text` with the JWT, feed token, API key and client code blotted out. */
  private mask(text: string): string {
    let out = text;
    const { jwt, feedToken, apiKey, clientCode } = this.opts;
    for (const secret of [jwt, jwt.replace(/^Bearer\s+/i, ''), feedToken, apiKey, clientCode])
      if (secret) out = out.split(secret).join('***');
    return out;
  }
}

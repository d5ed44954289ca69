/**
 * Zerodha's Kite Ticker as a live-feed {@link TickSource} (docs/rules/market-data.md#feed-sources):
 * Kite Connect v3 WebSocket streaming (kite.trade/docs/connect/v3/websocket), one connection to
 * `wss://ws.kite.trade?api_key=…&access_token=…`, up to 3,000 instruments on it.
 *
 * - Requests are JSON text: `{"a":"subscribe","v":[tokens]}`, `{"a":"unsubscribe","v":[…]}`,
 *   `{"a":"mode","v":["ltp"|"quote"|"full",[tokens]]}`. Our modes map 1→ltp, 2→quote, 3→full.
 *   Every subscribe, unsubscribe and mode change of one event-loop turn goes out as one message
 *   of each kind (the hub's re-mode, a subscribe at the new mode and an unsubscribe at the old,
 *   becomes a single `mode`).
 * - Market data is binary packets (a 1-byte frame is a heartbeat), read into ticks by
 *   ./kite-ticker-decode.ts. Text frames are JSON `{"type":"order"|"error"|"message","data":…}`.
 *
 * Instruments are Kite `instrument_token`s in `FeedInstrument.token`; ticks go out under our
 * `EXCHANGE:SYMBOL`, at the subscribed mode (or the packet's, when lower).
 *
 * Connects on the first subscribe; after a lost connection it reconnects with capped exponential
 * backoff (./reconnect.ts) and subscribes everything again. Credentials refused at the handshake
 * (HTTP 400/401/403) leave it `down` without retrying: a new session means a new source. The URL
 * holds the API key and access token, so only its host is ever logged, and any text logged is
 * masked.
 */
import { DERIVATIVE_EXCHANGES } from '../../../domain/exchanges.js';
import type { Logger } from 'pino';
import WebSocket, { type RawData } from 'ws';
import {
  feedKey,
  type FeedInstrument,
  type FeedMode,
  type Tick,
  type BrokerOrderUpdate,
  type TickListener,
  type TickSource,
} from '../feed.types.js';
import { kiteOrderUpdate, readFrame } from './kite-ticker-decode.js';
import { backoffDelay, TurnBatch } from './reconnect.js';

export const KITE_TICKER_URL = 'wss://ws.kite.trade';
/** Instruments one Kite Ticker connection may subscribe (websocket page, first section). */
export const KITE_TICKER_MAX_INSTRUMENTS = 3000;

export type KiteTickerStatus = 'connecting' | 'live' | 'down';

export interface KiteTickerOptions {
  apiKey: string;
  accessToken: string;
  /** The endpoint without query (`wss://ws.kite.trade` by default; a loopback stub in tests). */
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

type KiteMode = 'ltp' | 'quote' | 'full';
const KITE_MODE: Readonly<Record<FeedMode, KiteMode>> = { 1: 'ltp', 2: 'quote', 3: 'full' };

/**
 * Kite's mode for a token held at `mode`: OpenAlgo's Quote carries open interest, which Kite's
 * quote packet (44 bytes) lacks and its full packet has, so a derivative's Quote is asked in full;
 * its ticks then arrive as Depth ticks, which reach every Quote subscriber (a higher mode carries
 * everything a lower one does).
 */
function kiteModeOf(mode: FeedMode, keys: Iterable<string>): KiteMode {
  if (mode !== 2) return KITE_MODE[mode];
  for (const key of keys) if (DERIVATIVE_EXCHANGES.has(key.slice(0, key.indexOf(':')))) return 'full';
  return 'quote';
}
/** Handshake answers that mean the credentials (or the request) will not be accepted by retrying. */
const REFUSALS = new Set([400, 401, 403]);

export class KiteTickerSource implements TickSource {
  readonly name = 'zerodha';
  readonly maxSubscriptions = KITE_TICKER_MAX_INSTRUMENTS;

  /** instrument_token → our keys on it and the mode each is subscribed at. */
  private readonly subs = new Map<number, Map<string, FeedMode>>();
  /** What the open connection has been told: instrument_token → Kite mode set. */
  private sent = new Map<number, FeedMode>();
  private readonly listeners = new Set<TickListener>();
  private readonly orderListeners = new Set<(u: BrokerOrderUpdate) => void>();
  private ws: WebSocket | undefined;
  private readonly batch = new TurnBatch(() => this.flush());
  private retry: NodeJS.Timeout | undefined;
  private attempts = 0;
  private stopped = false;
  private refused = false;
  private state: KiteTickerStatus = 'down';
  private lastAt: number | null = null;
  private readonly base: URL;
  private readonly host: string;
  private readonly now: () => number;

  constructor(private readonly opts: KiteTickerOptions) {
    this.base = new URL(opts.url ?? KITE_TICKER_URL);
    if (this.base.protocol !== 'wss:' && this.base.protocol !== 'ws:')
      throw new Error(`Kite Ticker URL must be ws: or wss: (got ${this.base.protocol})`);
    this.host = this.base.host;
    this.now = opts.now ?? Date.now;
  }

  /** `live` while connected, `connecting` during a handshake, else `down`. */
  get status(): KiteTickerStatus {
    return this.state;
  }

  /** When the last frame of any kind (heartbeats too) arrived, epoch ms; null before the first. */
  get lastMessageAt(): number | null {
    return this.lastAt;
  }

  subscribe(instrument: FeedInstrument, mode: FeedMode): void {
    const token = kiteToken(instrument.token);
    const key = feedKey(instrument.exchange, instrument.symbol);
    if (token === undefined) {
      this.opts.logger.warn(
        { key },
        'kite ticker: instrument has no numeric instrument_token; not subscribed',
      );
      return;
    }
    let keys = this.subs.get(token);
    if (!keys) {
      if (this.subs.size >= this.maxSubscriptions) {
        this.opts.logger.warn({ key, max: this.maxSubscriptions }, 'kite ticker: instrument limit reached');
        return;
      }
      this.subs.set(token, (keys = new Map()));
    }
    keys.set(key, mode);
    this.schedule();
  }

  unsubscribe(instrument: FeedInstrument, mode: FeedMode): void {
    const token = kiteToken(instrument.token);
    const keys = token === undefined ? undefined : this.subs.get(token);
    const key = feedKey(instrument.exchange, instrument.symbol);
    if (!keys || keys.get(key) !== mode) return;
    keys.delete(key);
    if (keys.size === 0) this.subs.delete(token!);
    this.schedule();
  }

  onTick(listener: TickListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The session user's order postbacks the stream carries (`{"type":"order","data":…}`). */
  onOrder(listener: (update: BrokerOrderUpdate) => void): () => void {
    this.orderListeners.add(listener);
    return () => this.orderListeners.delete(listener);
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
    this.state = 'down';
  }

  // ---- requests ----

  private schedule(): void {
    if (this.stopped) return;
    this.batch.request();
  }

  /** Tells the connection the difference between what is wanted and what it was told. */
  private flush(): void {
    const ws = this.ws;
    if (!ws) {
      if (!this.retry && !this.refused && !this.stopped && this.subs.size > 0) this.connect();
      return;
    }
    if (ws.readyState !== WebSocket.OPEN) return; // the open handler flushes
    const unsubscribe = [...this.sent.keys()].filter((t) => !this.subs.has(t));
    const subscribe: number[] = [];
    const modes: Record<FeedMode, number[]> = { 1: [], 2: [], 3: [] };
    const asked: Record<KiteMode, number[]> = { ltp: [], quote: [], full: [] };
    for (const [token, keys] of this.subs) {
      const mode = Math.max(...keys.values()) as FeedMode;
      if (!this.sent.has(token)) subscribe.push(token);
      if (this.sent.get(token) === mode) continue;
      modes[mode].push(token);
      asked[kiteModeOf(mode, keys.keys())].push(token);
    }
    const send = (a: string, v: unknown) => ws.send(JSON.stringify({ a, v }));
    if (unsubscribe.length > 0) send('unsubscribe', unsubscribe);
    // Kite subscribes in quote mode; a mode is set only on a subscribed token, so subscribe first.
    if (subscribe.length > 0) send('subscribe', subscribe);
    for (const m of ['ltp', 'quote', 'full'] as const) if (asked[m].length > 0) send('mode', [m, asked[m]]);
    for (const t of unsubscribe) this.sent.delete(t);
    for (const m of [1, 2, 3] as const) for (const t of modes[m]) this.sent.set(t, m);
  }

  // ---- connection ----

  private connect(): void {
    const url = new URL(this.base);
    url.searchParams.set('api_key', this.opts.apiKey);
    url.searchParams.set('access_token', this.opts.accessToken);
    this.state = 'connecting';
    this.sent = new Map();
    let ws: WebSocket;
    try {
      ws = new WebSocket(url, { handshakeTimeout: this.opts.handshakeTimeoutMs ?? 10_000 });
    } catch (err) {
      this.refused = true;
      this.state = 'down';
      this.opts.logger.error(
        { host: this.host, error: this.mask(errorText(err)) },
        'kite ticker: cannot connect',
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
      this.opts.logger.info({ host: this.host, instruments: this.subs.size }, 'kite ticker connected');
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
    this.ws = undefined;
    this.sent = new Map();
    this.state = 'down';
    if (this.stopped) {
      this.opts.logger.info({ host: this.host }, 'kite ticker closed');
      return;
    }
    if (httpStatus !== undefined && REFUSALS.has(httpStatus)) {
      this.refused = true;
      this.opts.logger.warn(
        { host: this.host, httpStatus },
        'kite ticker: connection refused (API key or access token not accepted); not retrying',
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
      'kite ticker disconnected; reconnecting',
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
    // A frame after a successful handshake: the backoff starts over (a server that accepts and
    // drops at once is retried with growing waits, not hammered).
    this.attempts = 0;
    const buf = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
    if (!isBinary) return this.text(buf.toString('utf8'));
    // Read lazily: each packet reaches the listeners before the next one is parsed.
    for (const part of readFrame(buf, this.now)) {
      if (part.kind === 'packet') this.emit(part.packet.token, part.packet.mode, part.packet.tick);
      else if (part.kind === 'unknown')
        this.opts.logger.debug({ length: part.length }, 'kite ticker: packet of unknown length skipped');
      else
        this.opts.logger.debug(
          { bytes: part.bytes, packet: part.packet, count: part.count },
          'kite ticker: truncated frame; rest skipped',
        );
    }
  }

  private emit(token: number, packetMode: FeedMode, tick: Tick): void {
    const keys = this.subs.get(token);
    if (!keys) return;
    for (const [key, mode] of keys) {
      const m = Math.min(mode, packetMode) as FeedMode;
      for (const l of this.listeners) {
        try {
          l(key, m, tick);
        } catch (err) {
          this.opts.logger.error({ err, key }, 'kite ticker: tick listener failed');
        }
      }
    }
  }

  private text(raw: string): void {
    let msg: { type?: unknown; data?: unknown };
    try {
      msg = JSON.parse(raw) as typeof msg;
    } catch {
      this.opts.logger.debug({ bytes: raw.length }, 'kite ticker: text frame not JSON; ignored');
      return;
    }
    const data = typeof msg.data === 'string' ? this.mask(msg.data) : undefined;
    if (msg.type === 'error')
      this.opts.logger.warn({ host: this.host, kiteError: data }, 'kite ticker: error');
    else if (msg.type === 'order') {
      const update = kiteOrderUpdate(msg.data);
      if (!update) this.opts.logger.debug('kite ticker: order update without the fields it needs; ignored');
      else for (const l of this.orderListeners) l(update);
    } else if (msg.type === 'message')
      this.opts.logger.info({ kiteMessage: data }, 'kite ticker: broker message');
    else this.opts.logger.debug({ type: String(msg.type) }, 'kite ticker: text update not used by the feed');
  }

  /** `text` with the API key and the access token blotted out. */
  private mask(text: string): string {
    let out = text;
    for (const secret of [this.opts.accessToken, this.opts.apiKey])
      if (secret) out = out.split(secret).join('***');
    return out;
  }
}

/** A Kite instrument_token (a positive uint32 in decimal), or undefined. */
function kiteToken(token: string): number | undefined {
  if (!/^\d{1,10}$/.test(token)) return undefined;
  const n = Number(token);
  return n > 0 && n <= 0xffff_ffff ? n : undefined;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

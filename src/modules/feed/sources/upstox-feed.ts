/**
 * Upstox's Market Data Feed V3 as a {@link TickSource} (docs/rules/market-data.md#feed-sources),
 * written from Upstox's documentation (upstox.com/developer/api-documentation/v3/get-market-data-feed):
 *
 * - `GET /v3/feed/market-data-feed/authorize` with `Authorization: Bearer <access token>` answers
 *   `{status: "success", data: {authorized_redirect_uri}}`: a `wss://` URL whose `code` query
 *   parameter is a single-use credential. Each connection is authorized afresh.
 * - Client messages are JSON `{guid, method: "sub" | "change_mode" | "unsub", data: {mode,
 *   instrumentKeys}}`, sent as binary frames. Server frames are protobuf `FeedResponse`s
 *   (./upstox-feed-v3-proto.ts), decoded and mapped to ticks in ./upstox-feed-decode.ts.
 * - Limits: one connection per app and user; with LTPC alone 5000 instrument keys, with Full alone
 *   2000, and when both are used at once 2000 LTPC and 1500 Full. The hub subscribes each instrument
 *   once, at one mode, so {@link UPSTOX_MAX_INSTRUMENTS} (1500) keeps either mix within them.
 *
 * Our modes map to Upstox's: 1 (LTP) → `ltpc`, 2 (Quote) and 3 (Depth) → `full` (five levels of
 * the book; `full_d30` is not used). `FeedInstrument.token` is the Upstox instrument key
 * (`NSE_EQ|INE062A01020`); ticks go out under our `EXCHANGE:SYMBOL`.
 *
 * The connection is made when there is something to subscribe, after {@link UpstoxFeedSource.start};
 * the subscribe/unsubscribe calls of one turn go out as one message per method and mode. After a
 * drop it authorizes again (exponential backoff, capped, with jitter: ./reconnect.ts) and
 * subscribes everything again. Neither the access token nor the authorized URL's query is ever
 * logged. Its lifecycle differs from ./stream-connection.ts's (an authorize step before each
 * connection, retries after any refusal, a `stale` status, `ws` pings that must be answered), so
 * it keeps its own and shares only that module's frame and listener helpers.
 */
import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import {
  feedKey,
  type FeedInstrument,
  type BrokerOrderUpdate,
  type FeedMode,
  type SourceStatus,
  type TickListener,
  type TickSource,
} from '../feed.types.js';
import { backoffDelay, RepeatTimer, TurnBatch } from './reconnect.js';
import { frameBytes, tellListeners } from './stream-connection.js';
import { decodeFeedResponse, feedToTick, type UpstoxFeedResponse } from './upstox-feed-decode.js';
import { UpstoxOrderLink } from './upstox-orders.js';
import type { UpstoxFeedOptions } from './upstox-options.js';
import { authorizeUpstoxStream, AuthorizeError, scrub } from './upstox-authorize.js';

/** Upstox's subscription modes this source uses. */
export type UpstoxMode = 'ltpc' | 'full';

/** Upstox's documented per-mode limits (instrument keys): alone, and when modes are combined. */
export const UPSTOX_FEED_LIMITS = {
  ltpc: { alone: 5000, combined: 2000 },
  option_greeks: { alone: 3000, combined: 2000 },
  full: { alone: 2000, combined: 1500 },
} as const;

/** Instruments at once: Full's combined limit, which holds whatever mix of LTPC and Full is asked. */
export const UPSTOX_MAX_INSTRUMENTS = UPSTOX_FEED_LIMITS.full.combined;

export const UPSTOX_AUTHORIZE_PATH = '/v3/feed/market-data-feed/authorize';

const MODE_OF: Readonly<Record<FeedMode, UpstoxMode>> = { 1: 'ltpc', 2: 'full', 3: 'full' };

export type { UpstoxBackoff, UpstoxFeedOptions } from './upstox-options.js';

interface Subscription {
  instrument: FeedInstrument;
  mode: FeedMode;
}

export class UpstoxFeedSource implements TickSource {
  readonly name = 'upstox';
  readonly maxSubscriptions: number;
  /** When the last frame arrived, epoch ms (null before the first). */
  lastMessageAt: number | null = null;

  /** Ours, by `EXCHANGE:SYMBOL`. */
  private readonly subs = new Map<string, Subscription>();
  /** Our keys by Upstox instrument key (one key may serve two of our symbols). */
  private readonly byToken = new Map<string, Set<string>>();
  /** What the open socket is subscribed to, by instrument key. */
  private readonly sent = new Map<string, UpstoxMode>();
  private readonly listeners = new Set<TickListener>();
  private readonly statusListeners = new Set<(s: SourceStatus) => void>();
  private readonly now: () => number;
  private ws: WebSocket | undefined;
  /** A socket still in its handshake (stop() ends it). */
  private pending: WebSocket | undefined;
  private openedAt = 0;
  private running = false;
  private connecting = false;
  /** Raised by stop(): an authorize or handshake of an older generation is dropped. */
  private generation = 0;
  private attempt = 0;
  private readonly batch = new TurnBatch(() => this.flush());
  private reconnectTimer: NodeJS.Timeout | undefined;
  private readonly pinger = new RepeatTimer();
  private lastStatus: SourceStatus = 'down';
  /** The current authorized URL and token, to scrub from anything logged. */
  private secrets: string[] = [];
  /** The order updates of the portfolio stream (./upstox-orders.ts). */
  private readonly orders: UpstoxOrderLink;

  constructor(private readonly opts: UpstoxFeedOptions) {
    this.maxSubscriptions = opts.maxSubscriptions ?? UPSTOX_MAX_INSTRUMENTS;
    this.orders = new UpstoxOrderLink(opts);
    this.now = opts.now ?? Date.now;
  }

  /** `live` with an open socket that had a frame lately, `stale` when it went quiet, else `down`. */
  get status(): SourceStatus {
    if (this.ws?.readyState !== WebSocket.OPEN) return 'down';
    const last = Math.max(this.lastMessageAt ?? 0, this.openedAt);
    return this.now() - last > (this.opts.staleAfterMs ?? 60_000) ? 'stale' : 'live';
  }

  /** Told of each change between `live` and `down` (connect, drop, stop). */
  onStatus(listener: (s: SourceStatus) => void): () => void {
    this.statusListeners.add(listener);
    return () => this.statusListeners.delete(listener);
  }

  subscribe(instrument: FeedInstrument, mode: FeedMode): void {
    const key = feedKey(instrument.exchange, instrument.symbol);
    if (!instrument.token) {
      this.opts.logger.warn({ key }, 'feed: no Upstox instrument key for this instrument; not subscribed');
      return;
    }
    const prev = this.subs.get(key);
    if (prev && prev.instrument.token !== instrument.token) this.unindex(key, prev.instrument.token);
    this.subs.set(key, { instrument, mode });
    let keys = this.byToken.get(instrument.token);
    if (!keys) this.byToken.set(instrument.token, (keys = new Set()));
    keys.add(key);
    this.queueFlush();
  }

  unsubscribe(instrument: FeedInstrument, mode: FeedMode): void {
    const key = feedKey(instrument.exchange, instrument.symbol);
    const sub = this.subs.get(key);
    if (sub?.mode !== mode) return;
    this.subs.delete(key);
    this.unindex(key, sub.instrument.token);
    this.queueFlush();
  }

  onTick(listener: TickListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The session user's order updates, from the portfolio stream (opened for the first listener). */
  onOrder(listener: (update: BrokerOrderUpdate) => void): () => void {
    return this.orders.add(listener);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.orders.start();
    this.queueFlush();
  }

  async stop(): Promise<void> {
    this.running = false;
    const orders = this.orders.stop();
    this.generation++;
    this.connecting = false;
    this.pending?.terminate();
    this.pending = undefined;
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
    this.pinger.stop();
    const ws = this.ws;
    this.ws = undefined;
    this.sent.clear();
    if (ws && ws.readyState !== WebSocket.CLOSED) {
      const closed = new Promise<void>((resolve) => ws.once('close', () => resolve()));
      ws.close(1000, 'stop');
      const timer = setTimeout(() => ws.terminate(), 2_000);
      await closed;
      clearTimeout(timer);
    }
    await orders;
    this.setStatus('down');
  }

  private unindex(key: string, token: string): void {
    const keys = this.byToken.get(token);
    keys?.delete(key);
    if (keys?.size === 0) this.byToken.delete(token);
  }

  /** What the socket should be subscribed to: each instrument key at the mode its highest asks. */
  private desired(): Map<string, UpstoxMode> {
    const out = new Map<string, UpstoxMode>();
    for (const { instrument, mode } of this.subs.values()) {
      const m = MODE_OF[mode];
      if (out.get(instrument.token) !== 'full') out.set(instrument.token, m);
    }
    return out;
  }

  private queueFlush(): void {
    this.batch.request();
  }

  /** Sends what changed since the last flush: unsubscribes first (they free capacity), then the rest. */
  private flush(): void {
    if (!this.running) return;
    const ws = this.ws;
    if (ws?.readyState !== WebSocket.OPEN) {
      if (this.subs.size > 0 && !this.reconnectTimer) void this.connect();
      return;
    }
    const want = this.desired();
    const unsub: string[] = [];
    const change: Record<UpstoxMode, string[]> = { ltpc: [], full: [] };
    const sub: Record<UpstoxMode, string[]> = { ltpc: [], full: [] };
    for (const token of this.sent.keys()) if (!want.has(token)) unsub.push(token);
    for (const [token, mode] of want) {
      const had = this.sent.get(token);
      if (had === undefined) sub[mode].push(token);
      else if (had !== mode) change[mode].push(token);
    }
    if (unsub.length > 0) this.send(ws, 'unsub', undefined, unsub);
    for (const mode of ['ltpc', 'full'] as const) {
      if (change[mode].length > 0) this.send(ws, 'change_mode', mode, change[mode]);
      if (sub[mode].length > 0) this.send(ws, 'sub', mode, sub[mode]);
    }
    this.sent.clear();
    for (const [token, mode] of want) this.sent.set(token, mode);
  }

  private send(
    ws: WebSocket,
    method: 'sub' | 'unsub' | 'change_mode',
    mode: UpstoxMode | undefined,
    keys: string[],
  ) {
    const data = mode === undefined ? { instrumentKeys: keys } : { mode, instrumentKeys: keys };
    // Upstox wants the JSON in a binary frame (a Buffer is sent as one).
    ws.send(Buffer.from(JSON.stringify({ guid: randomUUID(), method, data })));
    this.opts.logger.debug({ method, mode, count: keys.length }, 'feed: upstox subscription message sent');
  }

  private async connect(): Promise<void> {
    if (this.ws || this.connecting || !this.running) return;
    this.connecting = true;
    const generation = this.generation;
    try {
      const url = await this.authorize();
      if (generation !== this.generation) return;
      await this.open(url, generation);
    } catch (err) {
      if (generation !== this.generation) return;
      const status = err instanceof AuthorizeError ? err.status : null;
      this.opts.logger.warn(
        { status, error: scrub(err instanceof Error ? err.message : String(err), this.secrets) },
        'feed: upstox connection failed',
      );
      this.scheduleReconnect();
    } finally {
      if (generation === this.generation) this.connecting = false;
    }
  }

  /** The single-use feed URL from Upstox's authorize endpoint. */
  private authorize(): Promise<string> {
    return authorizeUpstoxStream(this.opts, UPSTOX_AUTHORIZE_PATH, (s) => (this.secrets = s));
  }

  /** Opens the socket; resolves once it is open (then subscribes everything), rejects if it cannot. */
  private open(url: string, generation: number): Promise<void> {
    const { origin, pathname } = new URL(url); // logged without the query (its `code`)
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, {
        handshakeTimeout: this.opts.timeoutMs ?? 10_000,
        maxPayload: 16 * 1024 * 1024,
        perMessageDeflate: false,
      });
      this.pending = ws;
      let opened = false;
      ws.once('unexpected-response', (_req, res) => {
        ws.terminate();
        reject(new Error(`feed upgrade refused with HTTP ${res.statusCode ?? '?'}`));
      });
      ws.on('error', (err) => {
        if (!opened) reject(err);
        else this.opts.logger.warn({ error: scrub(err.message, this.secrets) }, 'feed: upstox socket error');
      });
      ws.once('open', () => {
        if (this.pending === ws) this.pending = undefined;
        if (generation !== this.generation || !this.running) {
          ws.close(1000, 'stop');
          resolve();
          return;
        }
        opened = true;
        this.ws = ws;
        this.connecting = false;
        this.openedAt = this.now();
        this.sent.clear();
        this.opts.logger.info({ url: `${origin}${pathname}` }, 'feed: upstox connected');
        this.startPing(ws);
        this.setStatus('live');
        this.flush();
        resolve();
      });
      ws.on('message', (data, isBinary) => this.onFrame(data, isBinary));
      ws.on('close', (code) => {
        if (this.pending === ws) this.pending = undefined;
        if (!opened) {
          reject(new Error(`feed socket closed before opening (${code})`));
          return;
        }
        if (this.ws !== ws) return;
        this.ws = undefined;
        this.sent.clear();
        this.pinger.stop();
        this.opts.logger.warn({ code }, 'feed: upstox connection dropped');
        this.setStatus('down');
        this.scheduleReconnect();
      });
    });
  }

  private startPing(ws: WebSocket): void {
    let answered = true;
    ws.on('pong', () => (answered = true));
    this.pinger.start(this.opts.pingIntervalMs ?? 30_000, () => {
      if (!answered) {
        this.opts.logger.warn('feed: upstox did not answer a ping; reconnecting');
        ws.terminate();
        return;
      }
      answered = false;
      ws.ping();
    });
  }

  private scheduleReconnect(): void {
    if (!this.running || this.reconnectTimer) return;
    const b = this.opts.backoff ?? {};
    const wait = backoffDelay(this.attempt, {
      initialMs: b.initialMs ?? 1_000,
      maxMs: b.maxMs ?? 30_000,
      factor: b.factor ?? 2,
      jitter: b.jitter ?? 0.2,
    });
    this.attempt++;
    this.opts.logger.info(
      { inMs: Math.round(wait), attempt: this.attempt },
      'feed: upstox reconnect scheduled',
    );
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      // Nothing to subscribe any more: the next subscribe connects.
      if (this.subs.size > 0) void this.connect();
    }, wait);
    this.reconnectTimer.unref();
  }

  private onFrame(data: WebSocket.RawData, isBinary: boolean): void {
    this.lastMessageAt = this.now();
    if (!isBinary) return; // Upstox sends protobuf only
    const frame = frameBytes(data);
    let response: UpstoxFeedResponse;
    try {
      response = decodeFeedResponse(frame);
    } catch (err) {
      this.opts.logger.warn(
        { bytes: frame.length, error: (err as Error).message },
        'feed: upstox frame not decoded',
      );
      return;
    }
    // A connection that delivers frames is a good one: the next failure starts the backoff over.
    this.attempt = 0;
    if (response.type === 'market_info' || !response.feeds) return;
    const timestamp = response.currentTs ?? this.now();
    for (const [token, feed] of Object.entries(response.feeds)) {
      const keys = this.byToken.get(token);
      if (!keys) continue;
      for (const key of keys) {
        const out = feedToTick(feed, timestamp, this.subs.get(key)?.mode);
        if (!out) continue;
        tellListeners(this.listeners, key, out.mode, out.tick, (err) =>
          this.opts.logger.error({ err, key }, 'feed: a tick listener failed'),
        );
      }
    }
  }

  private setStatus(s: SourceStatus): void {
    if (s === this.lastStatus) return;
    this.lastStatus = s;
    for (const l of this.statusListeners) l(s);
  }
}

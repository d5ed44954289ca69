/**
 * Dhan's Live Market Feed (DhanHQ v2) as a live-feed {@link TickSource}
 * (docs/rules/market-data.md#feed-sources), per dhanhq.co/docs/v2/live-market-feed: one
 * connection to `wss://api-feed.dhan.co?version=2&token=…&clientId=…&authType=2`, up to 5,000
 * instruments on it.
 *
 * - Requests are JSON text (./dhan-feed-decode.ts): our modes map 1 → Ticker (15), 2 → Quote (17),
 *   3 → Full (21), unsubscribed with 16, 18, 22. Each event-loop turn's changes go out as one
 *   message per request code (100 instruments at most a message); a mode change unsubscribes the
 *   old code before subscribing the new.
 * - Market data is binary packets, read into ticks by ./dhan-feed-decode.ts. The previous close
 *   (its own packet) and open interest (the OI packet, or the full packet) are kept per instrument
 *   and carried by the quote and full ticks. A Feed Disconnect packet (50) is logged with its
 *   reason; the connection is then closed and reopened, unless the reason is one retrying cannot
 *   cure (data plan, token or client id: then `down`).
 * - Dhan pings; `ws` answers with pongs by itself.
 *
 * Instruments are Dhan security ids in `FeedInstrument.token` on our exchange (mapped to Dhan's
 * segment); ticks go out under our `EXCHANGE:SYMBOL`, at the subscribed mode (or the packet's,
 * when lower).
 *
 * Connects on the first subscribe; after a lost connection it reconnects with capped exponential
 * backoff (./reconnect.ts) and subscribes everything again. Credentials refused at the handshake
 * (HTTP 400/401/403) leave it `down` without retrying: a new session means a new source. The URL
 * holds the access token, so only its host is ever logged, and any text logged is masked.
 */
import type { Logger } from 'pino';
import WebSocket, { type RawData } from 'ws';
import {
  feedKey,
  type FeedInstrument,
  type FeedMode,
  type TickListener,
  type TickSource,
} from '../feed.types.js';
import {
  DHAN_DISCONNECT_REASONS,
  DHAN_FATAL_DISCONNECTS,
  DHAN_SEGMENT_CODE,
  DHAN_SUBSCRIBE_CODE,
  DHAN_UNSUBSCRIBE_CODE,
  dhanRequests,
  dhanSegmentOf,
  dhanTick,
  readDhanFrame,
  type DhanInstrumentRef,
  type DhanInstrumentState,
} from './dhan-feed-decode.js';
import { backoffDelay, TurnBatch } from './reconnect.js';

export const DHAN_FEED_URL = 'wss://api-feed.dhan.co';
/** Instruments one Live Market Feed connection may subscribe ("Adding Instruments"). */
export const DHAN_FEED_MAX_INSTRUMENTS = 5000;

export type DhanFeedStatus = 'connecting' | 'live' | 'down';

export interface DhanFeedOptions {
  clientId: string;
  accessToken: string;
  /** The endpoint without query (`wss://api-feed.dhan.co` by default; a loopback stub in tests). */
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
  /** Epoch ms now (ticks are stamped with it: Dhan's packets carry no exchange timestamp). */
  now?: () => number;
}

/** Handshake answers that mean the credentials (or the request) will not be accepted by retrying. */
const REFUSALS = new Set([400, 401, 403]);

/** One subscribed instrument: Dhan's reference, our keys on it with their modes, what is known of it. */
interface Sub {
  ref: DhanInstrumentRef;
  keys: Map<string, FeedMode>;
  state: DhanInstrumentState;
}

export class DhanFeedSource implements TickSource {
  readonly name = 'dhan';
  readonly maxSubscriptions = DHAN_FEED_MAX_INSTRUMENTS;

  /** `<segment enum>:<security id>` (as a response header names it) → the subscription. */
  private readonly subs = new Map<string, Sub>();
  /** What the open connection has been told: instrument → the mode subscribed at. */
  private sent = new Map<string, { ref: DhanInstrumentRef; mode: FeedMode }>();
  private readonly listeners = new Set<TickListener>();
  private ws: WebSocket | undefined;
  private readonly batch = new TurnBatch(() => this.flush());
  private retry: NodeJS.Timeout | undefined;
  private attempts = 0;
  private stopped = false;
  private refused = false;
  private state: DhanFeedStatus = 'down';
  private lastAt: number | null = null;
  private readonly base: URL;
  private readonly host: string;
  private readonly now: () => number;

  constructor(private readonly opts: DhanFeedOptions) {
    this.base = new URL(opts.url ?? DHAN_FEED_URL);
    if (this.base.protocol !== 'wss:' && this.base.protocol !== 'ws:')
      throw new Error(`Dhan feed URL must be ws: or wss: (got ${this.base.protocol})`);
    this.host = this.base.host;
    this.now = opts.now ?? Date.now;
  }

  /** `live` while connected, `connecting` during a handshake, else `down`. */
  get status(): DhanFeedStatus {
    return this.state;
  }

  /** When the last frame arrived, epoch ms; null before the first. */
  get lastMessageAt(): number | null {
    return this.lastAt;
  }

  subscribe(instrument: FeedInstrument, mode: FeedMode): void {
    const key = feedKey(instrument.exchange, instrument.symbol);
    const segment = dhanSegmentOf(instrument.exchange);
    if (segment === undefined || !isSecurityId(instrument.token)) {
      this.opts.logger.warn(
        { key },
        'dhan feed: instrument has no Dhan segment or numeric security id; not subscribed',
      );
      return;
    }
    const id = `${DHAN_SEGMENT_CODE[segment]}:${Number(instrument.token)}`;
    let sub = this.subs.get(id);
    if (!sub) {
      if (this.subs.size >= this.maxSubscriptions) {
        this.opts.logger.warn({ key, max: this.maxSubscriptions }, 'dhan feed: instrument limit reached');
        return;
      }
      sub = {
        ref: { ExchangeSegment: segment, SecurityId: String(Number(instrument.token)) },
        keys: new Map(),
        state: { prevClose: null, oi: null },
      };
      this.subs.set(id, sub);
    }
    sub.keys.set(key, mode);
    this.schedule();
  }

  unsubscribe(instrument: FeedInstrument, mode: FeedMode): void {
    const segment = dhanSegmentOf(instrument.exchange);
    if (segment === undefined || !isSecurityId(instrument.token)) return;
    const id = `${DHAN_SEGMENT_CODE[segment]}:${Number(instrument.token)}`;
    const sub = this.subs.get(id);
    const key = feedKey(instrument.exchange, instrument.symbol);
    if (!sub || sub.keys.get(key) !== mode) return;
    sub.keys.delete(key);
    if (sub.keys.size === 0) this.subs.delete(id);
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
        if (ws.readyState === WebSocket.OPEN) {
          ws.send(JSON.stringify({ RequestCode: 12 }));
          ws.close(1000, 'client stopping');
        } else ws.terminate();
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
    const drop: Record<FeedMode, DhanInstrumentRef[]> = { 1: [], 2: [], 3: [] };
    const add: Record<FeedMode, DhanInstrumentRef[]> = { 1: [], 2: [], 3: [] };
    for (const [id, was] of this.sent) {
      const sub = this.subs.get(id);
      if (!sub || wantedMode(sub) !== was.mode) drop[was.mode].push(was.ref);
    }
    for (const [id, sub] of this.subs) {
      const mode = wantedMode(sub);
      if (this.sent.get(id)?.mode !== mode) add[mode].push(sub.ref);
    }
    // Unsubscribe first: a re-mode then never loses the new subscription to the old one's removal.
    for (const m of [1, 2, 3] as const)
      for (const msg of dhanRequests(DHAN_UNSUBSCRIBE_CODE[m], drop[m])) ws.send(msg);
    for (const m of [1, 2, 3] as const)
      for (const msg of dhanRequests(DHAN_SUBSCRIBE_CODE[m], add[m])) ws.send(msg);
    const sent = new Map<string, { ref: DhanInstrumentRef; mode: FeedMode }>();
    for (const [id, sub] of this.subs) sent.set(id, { ref: sub.ref, mode: wantedMode(sub) });
    this.sent = sent;
  }

  // ---- connection ----

  private connect(): void {
    const url = new URL(this.base);
    url.searchParams.set('version', '2');
    url.searchParams.set('token', this.opts.accessToken);
    url.searchParams.set('clientId', this.opts.clientId);
    url.searchParams.set('authType', '2');
    this.state = 'connecting';
    this.sent = new Map();
    let ws: WebSocket;
    try {
      ws = new WebSocket(url, { handshakeTimeout: this.opts.handshakeTimeoutMs ?? 10_000 });
    } catch (err) {
      this.refused = true;
      this.state = 'down';
      this.opts.logger.error(
        { host: this.host, error: this.mask(err instanceof Error ? err.message : String(err)) },
        'dhan feed: cannot connect',
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
      this.opts.logger.info({ host: this.host, instruments: this.subs.size }, 'dhan feed connected');
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
      this.opts.logger.info({ host: this.host }, 'dhan feed closed');
      return;
    }
    if (this.refused) {
      this.opts.logger.warn(
        { host: this.host },
        'dhan feed: closed after a fatal feed disconnect; not retrying',
      );
      return;
    }
    if (httpStatus !== undefined && REFUSALS.has(httpStatus)) {
      this.refused = true;
      this.opts.logger.warn(
        { host: this.host, httpStatus },
        'dhan feed: connection refused (client id or access token not accepted); not retrying',
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
      'dhan feed disconnected; reconnecting',
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
    const buf = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
    if (!isBinary) {
      this.opts.logger.debug(
        { text: this.mask(buf.toString('utf8').slice(0, 200)) },
        'dhan feed: text frame',
      );
      return;
    }
    for (const packet of readDhanFrame(buf)) {
      if (packet.kind === 'unknown' || packet.kind === 'truncated') {
        this.opts.logger.debug({ packet }, 'dhan feed: packet not read');
        continue;
      }
      if (packet.kind === 'disconnect') return this.disconnected(ws, packet.reason);
      // A market packet after a successful handshake: the backoff starts over.
      this.attempts = 0;
      const sub = this.subs.get(`${packet.segment}:${packet.securityId}`);
      if (!sub) continue;
      const made = dhanTick(packet, sub.state, this.now());
      if (!made) continue;
      for (const [key, mode] of sub.keys) {
        const m = Math.min(mode, made.mode) as FeedMode;
        for (const l of this.listeners) {
          try {
            l(key, m, made.tick);
          } catch (err) {
            this.opts.logger.error({ err, key }, 'dhan feed: tick listener failed');
          }
        }
      }
    }
  }

  /** Dhan's Feed Disconnect: logged with its reason, then the connection is closed (and reopened unless fatal). */
  private disconnected(ws: WebSocket, reason: number): void {
    const fatal = DHAN_FATAL_DISCONNECTS.has(reason);
    this.opts.logger.warn(
      { host: this.host, reason, reasonText: DHAN_DISCONNECT_REASONS[reason] ?? 'unknown', retrying: !fatal },
      'dhan feed: server sent a feed disconnect',
    );
    if (fatal) this.refused = true;
    ws.terminate();
  }

  /** `text` with the access token and client id blotted out. */
  private mask(text: string): string {
    let out = text;
    for (const secret of [this.opts.accessToken, this.opts.clientId])
      if (secret) out = out.split(secret).join('***');
    return out;
  }
}

/** The highest mode any of our keys holds the instrument at. */
function wantedMode(sub: Sub): FeedMode {
  return Math.max(...sub.keys.values()) as FeedMode;
}

/** A Dhan security id: a positive uint32 in decimal. */
function isSecurityId(token: string): boolean {
  if (!/^\d{1,10}$/.test(token)) return false;
  const n = Number(token);
  return n > 0 && n <= 0xffff_ffff;
}

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
 * The connection's lifecycle is ./stream-connection.ts's: it connects on the first subscribe,
 * sends the heartbeat, reconnects with capped exponential backoff after a lost connection and
 * subscribes everything again, and stays `down` when the handshake refuses the credentials (HTTP
 * 400/401/403). The JWT, feed token, API key and client code are never logged, and any text logged
 * is masked.
 */
import type WebSocket from 'ws';
import { feedKey, type FeedInstrument, type FeedMode, type Tick, type TickSource } from '../feed.types.js';
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
import { StreamConnection, type StreamOptions, type StreamStatus } from './stream-connection.js';
import { INDEX_EXCHANGES } from '../../../domain/exchanges.js';

export const ANGEL_STREAM_URL = 'wss://smartapisocket.angelone.in/smart-stream';
/** Token subscriptions one SmartStream session may hold (WebSocket 2.0 page; error E1002 beyond). */
export const ANGEL_STREAM_MAX_TOKENS = 1000;

export type AngelStreamStatus = StreamStatus;

export interface AngelStreamOptions extends StreamOptions {
  apiKey: string;
  /** The Angel One account id (`x-client-code`). */
  clientCode: string;
  /** The session's JWT (sent as `Authorization: Bearer …`; a leading `Bearer ` is not doubled). */
  jwt: string;
  feedToken: string;
  /** How often the text `ping` is sent (30 s, as the page asks). */
  heartbeatMs?: number;
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

const MODES = [1, 2, 3] as const;

const streamKey = (exchangeType: number, token: string) => `${exchangeType}|${token}`;
const topMode = (keys: Map<string, FeedMode>) => Math.max(...keys.values()) as FeedMode;

/** Instruments are `<exchange type>|<token>`; each was told the mode it is subscribed at. */
export class AngelStreamSource extends StreamConnection<string, Held> implements TickSource {
  readonly name = 'angel';
  readonly maxSubscriptions = ANGEL_STREAM_MAX_TOKENS;

  protected readonly subs = new Map<string, Stream>();
  private requests = 0;

  constructor(private readonly opts: AngelStreamOptions) {
    super(opts, {
      label: 'angel stream',
      defaultUrl: ANGEL_STREAM_URL,
      urlName: 'SmartStream URL',
      secrets: [opts.jwt, opts.jwt.replace(/^Bearer\s+/i, ''), opts.feedToken, opts.apiKey, opts.clientCode],
      credentials: 'JWT, API key, client code or feed token',
      countedAs: 'tokens',
      heartbeat: { text: 'ping', everyMs: opts.heartbeatMs ?? 30_000 },
    });
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

  // ---- StreamConnection ----

  /** The session goes in the handshake's headers; the URL is the configured one. */
  protected endpoint(url: URL): { url: URL; headers: Record<string, string> } {
    const jwt = this.opts.jwt.replace(/^Bearer\s+/i, '');
    return {
      url,
      headers: {
        Authorization: `Bearer ${jwt}`,
        'x-api-key': this.opts.apiKey,
        'x-client-code': this.opts.clientCode,
        'x-feed-token': this.opts.feedToken,
      },
    };
  }

  /**
   * Tells the connection the difference between what is wanted and what it holds: unsubscribes
   * first (a re-mode's old mode, dropped tokens), so a re-mode never counts twice against the
   * session's quota, then subscribes; one request per (action, mode), tokens grouped by exchange.
   */
  protected sync(ws: WebSocket): void {
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

  // ---- incoming ----

  protected readBinary(buf: Buffer): void {
    const frame = readPacket(buf, this.now);
    if (frame.kind === 'packet') this.emitPacket(frame.packet);
    // Depth-20 (mode 4, never asked) or a packet shorter than its mode.
    else this.opts.logger.debug({ ...frame }, 'angel stream: packet not read; skipped');
  }

  private emitPacket(packet: StreamPacket): void {
    const stream = this.subs.get(streamKey(packet.exchangeType, packet.token));
    if (!stream) return;
    const tick: Tick = stream.index ? indexTick(packet.tick) : packet.tick;
    this.emit(stream.keys, packet.mode, tick);
  }

  protected readText(raw: string): void {
    if (raw === 'pong') return;
    const error = readStreamError(raw);
    const masked = error && { ...error, errorMessage: this.mask(error.errorMessage ?? '') };
    if (masked) this.opts.logger.warn({ host: this.host, ...masked }, 'angel stream: error answer');
    else this.opts.logger.debug({ bytes: raw.length }, 'angel stream: text frame not used by the feed');
  }
}

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
 * The connection's lifecycle is ./stream-connection.ts's: it connects on the first subscribe,
 * reconnects with capped exponential backoff after a lost connection and subscribes everything
 * again, and stays `down` when the handshake refuses the credentials (HTTP 400/401/403). The URL
 * holds the API key and access token, so only its host is ever logged, and any text logged is
 * masked.
 */
import { DERIVATIVE_EXCHANGES } from '../../../domain/exchanges.js';
import type WebSocket from 'ws';
import {
  feedKey,
  type FeedInstrument,
  type FeedMode,
  type Tick,
  type BrokerOrderUpdate,
  type TickSource,
} from '../feed.types.js';
import { kiteOrderUpdate, readFrame } from './kite-ticker-decode.js';
import { StreamConnection, type StreamOptions, type StreamStatus } from './stream-connection.js';

export const KITE_TICKER_URL = 'wss://ws.kite.trade';
/** Instruments one Kite Ticker connection may subscribe (websocket page, first section). */
export const KITE_TICKER_MAX_INSTRUMENTS = 3000;

export type KiteTickerStatus = StreamStatus;

export interface KiteTickerOptions extends StreamOptions {
  apiKey: string;
  accessToken: string;
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

/** Instruments are Kite's instrument_tokens; each was told the mode (ours) it is set to. */
export class KiteTickerSource extends StreamConnection<number, FeedMode> implements TickSource {
  readonly name = 'zerodha';
  readonly maxSubscriptions = KITE_TICKER_MAX_INSTRUMENTS;

  /** instrument_token → our keys on it and the mode each is subscribed at. */
  protected readonly subs = new Map<number, Map<string, FeedMode>>();
  private readonly orderListeners = new Set<(u: BrokerOrderUpdate) => void>();

  constructor(private readonly opts: KiteTickerOptions) {
    super(opts, {
      label: 'kite ticker',
      defaultUrl: KITE_TICKER_URL,
      urlName: 'Kite Ticker URL',
      secrets: [opts.accessToken, opts.apiKey],
      credentials: 'API key or access token',
    });
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

  /** The session user's order postbacks the stream carries (`{"type":"order","data":…}`). */
  onOrder(listener: (update: BrokerOrderUpdate) => void): () => void {
    this.orderListeners.add(listener);
    return () => this.orderListeners.delete(listener);
  }

  // ---- StreamConnection ----

  protected endpoint(base: URL): { url: URL } {
    const url = new URL(base);
    url.searchParams.set('api_key', this.opts.apiKey);
    url.searchParams.set('access_token', this.opts.accessToken);
    return { url };
  }

  /** Tells the connection the difference between what is wanted and what it was told. */
  protected sync(ws: WebSocket): void {
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

  // ---- incoming ----

  protected readBinary(buf: Buffer): void {
    // Read lazily: each packet reaches the listeners before the next one is parsed.
    for (const part of readFrame(buf, this.now)) {
      if (part.kind === 'packet') this.emitPacket(part.packet.token, part.packet.mode, part.packet.tick);
      else if (part.kind === 'unknown')
        this.opts.logger.debug({ length: part.length }, 'kite ticker: packet of unknown length skipped');
      else
        this.opts.logger.debug(
          { bytes: part.bytes, packet: part.packet, count: part.count },
          'kite ticker: truncated frame; rest skipped',
        );
    }
  }

  private emitPacket(token: number, packetMode: FeedMode, tick: Tick): void {
    const keys = this.subs.get(token);
    if (keys) this.emit(keys, packetMode, tick);
  }

  protected readText(raw: string): void {
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
}

/** A Kite instrument_token (a positive uint32 in decimal), or undefined. */
function kiteToken(token: string): number | undefined {
  if (!/^\d{1,10}$/.test(token)) return undefined;
  const n = Number(token);
  return n > 0 && n <= 0xffff_ffff ? n : undefined;
}

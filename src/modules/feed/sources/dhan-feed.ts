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
 *   and carried by the quote and full ticks, stamped with `now` (Dhan's packets carry no exchange
 *   timestamp). A Feed Disconnect packet (50) is logged with its
 *   reason; the connection is then closed and reopened, unless the reason is one retrying cannot
 *   cure (data plan, token or client id: then `down`).
 * - Dhan pings; `ws` answers with pongs by itself.
 *
 * Instruments are Dhan security ids in `FeedInstrument.token` on our exchange (mapped to Dhan's
 * segment); ticks go out under our `EXCHANGE:SYMBOL`, at the subscribed mode (or the packet's,
 * when lower).
 *
 * The connection's lifecycle is ./stream-connection.ts's: it connects on the first subscribe,
 * reconnects with capped exponential backoff after a lost connection (the backoff reset by the
 * first market packet) and subscribes everything again, stays `down` when the handshake refuses
 * the credentials (HTTP 400/401/403), and sends Dhan's disconnect request before closing on stop.
 * The URL holds the access token, so only its host is ever logged, and any text logged is masked.
 */
import type WebSocket from 'ws';
import { feedKey, type FeedInstrument, type FeedMode, type TickSource } from '../feed.types.js';
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
import { StreamConnection, type StreamOptions, type StreamStatus } from './stream-connection.js';

export const DHAN_FEED_URL = 'wss://api-feed.dhan.co';
/** Instruments one Live Market Feed connection may subscribe ("Adding Instruments"). */
export const DHAN_FEED_MAX_INSTRUMENTS = 5000;

export type DhanFeedStatus = StreamStatus;

export interface DhanFeedOptions extends StreamOptions {
  clientId: string;
  accessToken: string;
}

/** One subscribed instrument: Dhan's reference, our keys on it with their modes, what is known of it. */
interface Sub {
  ref: DhanInstrumentRef;
  keys: Map<string, FeedMode>;
  state: DhanInstrumentState;
}

/** Instruments are `<segment enum>:<security id>`; each was told its mode at Dhan's reference. */
export class DhanFeedSource
  extends StreamConnection<string, { ref: DhanInstrumentRef; mode: FeedMode }>
  implements TickSource
{
  readonly name = 'dhan';
  readonly maxSubscriptions = DHAN_FEED_MAX_INSTRUMENTS;

  /** `<segment enum>:<security id>` (as a response header names it) → the subscription. */
  protected readonly subs = new Map<string, Sub>();

  constructor(private readonly opts: DhanFeedOptions) {
    super(opts, {
      label: 'dhan feed',
      defaultUrl: DHAN_FEED_URL,
      urlName: 'Dhan feed URL',
      secrets: [opts.accessToken, opts.clientId],
      credentials: 'client id or access token',
      // Dhan's Disconnect Feed request (RequestCode 12), sent before the normal close.
      farewell: JSON.stringify({ RequestCode: 12 }),
      // Only a market packet resets the backoff (a text frame or a Feed Disconnect does not).
      anyFrameResetsBackoff: false,
    });
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

  // ---- StreamConnection ----

  protected endpoint(base: URL): { url: URL } {
    const url = new URL(base);
    url.searchParams.set('version', '2');
    url.searchParams.set('token', this.opts.accessToken);
    url.searchParams.set('clientId', this.opts.clientId);
    url.searchParams.set('authType', '2');
    return { url };
  }

  /** Tells the connection the difference between what is wanted and what it was told. */
  protected sync(ws: WebSocket): void {
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

  // ---- incoming ----

  protected readText(text: string): void {
    this.opts.logger.debug({ text: this.mask(text.slice(0, 200)) }, 'dhan feed: text frame');
  }

  protected readBinary(buf: Buffer): void {
    for (const packet of readDhanFrame(buf)) {
      if (packet.kind === 'unknown' || packet.kind === 'truncated') {
        this.opts.logger.debug({ packet }, 'dhan feed: packet not read');
        continue;
      }
      if (packet.kind === 'disconnect') return this.disconnected(packet.reason);
      // A market packet after a successful handshake: the backoff starts over.
      this.connectionProved();
      const sub = this.subs.get(`${packet.segment}:${packet.securityId}`);
      if (!sub) continue;
      const made = dhanTick(packet, sub.state, this.now());
      if (!made) continue;
      this.emit(sub.keys, made.mode, made.tick);
    }
  }

  /** Dhan's Feed Disconnect: logged with its reason, then the connection is closed (and reopened unless fatal). */
  private disconnected(reason: number): void {
    const fatal = DHAN_FATAL_DISCONNECTS.has(reason);
    this.opts.logger.warn(
      { host: this.host, reason, reasonText: DHAN_DISCONNECT_REASONS[reason] ?? 'unknown', retrying: !fatal },
      'dhan feed: server sent a feed disconnect',
    );
    this.endConnection(fatal ? 'feed disconnect' : undefined);
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

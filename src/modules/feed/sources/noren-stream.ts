/**
 * The Noren OMS WebSocket (Shoonya, Flattrade) as a live-feed {@link TickSource}
 * (docs/rules/market-data.md#feed-sources), per kambalatech/NorenApi-Py's README ("start_websocket",
 * "subscribe"), Shoonya's "Web Socket API" page and Flattrade's Pi Connect WebSocket pages (the
 * wire is in ./noren-stream-decode.ts). One connection per session: Shoonya
 * `wss://api.shoonya.com/NorenWSTP/`, Flattrade `wss://piconnect.flattrade.in/PiConnectWSTp/`
 * (the endpoints of the `…TP` REST bases algodesk's Noren adapter calls; see {@link NOREN_STREAM_URLS}).
 *
 * - The session is an application message, not HTTP: once open, the connect request (user id as
 *   `uid` and `actid`, the session token) is sent and nothing else until its acknowledgement says
 *   OK. A `Not_Ok` ends the connection as fatal: `down`, not retried (a new session means a new
 *   source). The OK resets the reconnect backoff.
 * - Modes: LTP and Quote are the touchline (`t`, unsubscribed `u`), Depth is depth (`d`, `ud`).
 *   Each event-loop turn's changes go out as at most one unsubscribe and one subscribe per kind
 *   (`k` lists the scrips `EXCH|token` joined by `#`); a kind change unsubscribes the old first.
 * - The acknowledgement (`tk`, `dk`) is the full snapshot of an instrument and is kept; each
 *   update (`tf`, `df`) carries only the fields that changed and is merged into it, and the tick
 *   is made of the merged snapshot (touchline at Quote, depth at Depth, or the held mode if lower).
 * - `{"t":"h"}` is sent every 30 s (Flattrade's Heartbeat page).
 *
 * Instruments are the Noren `Token` and `Exchange` of the symbol files (`FeedInstrument.token`,
 * `brexchange`; src/modules/market/importers/noren.ts); ticks go out under our `EXCHANGE:SYMBOL`.
 * The lifecycle (connect on first subscribe, reconnect with backoff and subscribe everything
 * again, refused HTTP handshake, stop) is ./stream-connection.ts's. The session token and user
 * id are never logged; any text logged is masked.
 */
import type WebSocket from 'ws';
import { feedKey, type FeedInstrument, type FeedMode, type TickSource } from '../feed.types.js';
import {
  NOREN_HEARTBEAT,
  NOREN_REQUEST,
  mergeSnapshot,
  norenConnect,
  norenRequest,
  norenTick,
  readNorenFrame,
  scripKey,
  type NorenDialect,
  type NorenKind,
} from './noren-stream-decode.js';
import { StreamConnection, type StreamOptions, type StreamStatus } from './stream-connection.js';

/** The market-data endpoints, by broker id, of the `…TP` API generation algodesk's REST calls use. */
export const NOREN_STREAM_URLS: Readonly<Record<string, string>> = {
  shoonya: 'wss://api.shoonya.com/NorenWSTP/',
  flattrade: 'wss://piconnect.flattrade.in/PiConnectWSTp/',
};

/**
 * Instruments one connection subscribes at most. No Noren page states a limit; this cap keeps one
 * session's `k` lists and snapshots bounded.
 */
export const NOREN_STREAM_MAX_SCRIPS = 1000;

export type NorenStreamStatus = StreamStatus;

export interface NorenStreamOptions extends StreamOptions {
  /** The broker id (`shoonya`, `flattrade`): the source's name, and its endpoint when `url` is absent. */
  name: string;
  /** The Noren user id (sent as `uid` and, unless `accountId` is given, `actid`). */
  userId: string;
  /** The session token (`susertoken`, the REST calls' `jKey`). */
  token: string;
  /** The account id, when it differs from the user id. */
  accountId?: string;
  /** The connect request's dialect (`susertoken`: `t:"c"`, the TP endpoints; `accesstoken`: `t:"a"`). */
  dialect?: NorenDialect;
  /** How often `{"t":"h"}` is sent (30 s). */
  heartbeatMs?: number;
}

/** One subscribed scrip: our keys on it with their modes, and its last full snapshot. */
interface Sub {
  scrip: string;
  keys: Map<string, FeedMode>;
  snapshot: Record<string, string> | undefined;
}

const kindOf = (keys: Map<string, FeedMode>): NorenKind => (Math.max(...keys.values()) === 3 ? 'd' : 't');
const KINDS = ['t', 'd'] as const;

/** Instruments are `EXCH|token`; each was told the kind it is subscribed at. */
export class NorenStreamSource extends StreamConnection<string, NorenKind> implements TickSource {
  readonly name: string;
  readonly maxSubscriptions = NOREN_STREAM_MAX_SCRIPS;

  protected readonly subs = new Map<string, Sub>();
  private readonly dialect: NorenDialect;
  /** The connection the connect request went out on, and the one whose acknowledgement said OK. */
  private helloOn: WebSocket | undefined;
  private authedOn: WebSocket | undefined;

  constructor(private readonly opts: NorenStreamOptions) {
    const defaultUrl = NOREN_STREAM_URLS[opts.name];
    if (!opts.url && !defaultUrl) throw new Error(`no Noren stream endpoint is known for ${opts.name}`);
    super(opts, {
      label: `${opts.name} stream`,
      defaultUrl: defaultUrl ?? '',
      urlName: 'Noren stream URL',
      secrets: [opts.token, opts.userId, opts.accountId ?? ''],
      credentials: 'user id or session token',
      countedAs: 'scrips',
      heartbeat: { text: NOREN_HEARTBEAT, everyMs: opts.heartbeatMs ?? 30_000 },
      // Only the connect acknowledgement's OK resets the backoff.
      anyFrameResetsBackoff: false,
    });
    this.name = opts.name;
    this.dialect = opts.dialect ?? 'susertoken';
  }

  subscribe(instrument: FeedInstrument, mode: FeedMode): void {
    const key = feedKey(instrument.exchange, instrument.symbol);
    const scrip = scripKey(instrument.brexchange, instrument.token);
    if (scrip === undefined) {
      this.opts.logger.warn({ key }, `${this.name} stream: no Noren exchange and token; not subscribed`);
      return;
    }
    let sub = this.subs.get(scrip);
    if (!sub) {
      if (this.subs.size >= this.maxSubscriptions) {
        this.opts.logger.warn(
          { key, max: this.maxSubscriptions },
          `${this.name} stream: scrip limit reached`,
        );
        return;
      }
      this.subs.set(scrip, (sub = { scrip, keys: new Map(), snapshot: undefined }));
    }
    sub.keys.set(key, mode);
    this.schedule();
  }

  unsubscribe(instrument: FeedInstrument, mode: FeedMode): void {
    const scrip = scripKey(instrument.brexchange, instrument.token);
    const sub = scrip === undefined ? undefined : this.subs.get(scrip);
    const key = feedKey(instrument.exchange, instrument.symbol);
    if (!sub || sub.keys.get(key) !== mode) return;
    sub.keys.delete(key);
    if (sub.keys.size === 0) this.subs.delete(sub.scrip);
    this.schedule();
  }

  // ---- StreamConnection ----

  protected endpoint(url: URL): { url: URL } {
    return { url };
  }

  /**
   * Before the connect acknowledgement: sends the connect request once. After it: tells the
   * connection the difference between what is wanted and what it holds, unsubscribes first.
   */
  protected sync(ws: WebSocket): void {
    if (this.authedOn !== ws) {
      if (this.helloOn !== ws) {
        this.helloOn = ws;
        const { userId, accountId, token } = this.opts;
        ws.send(norenConnect(this.dialect, userId, accountId ?? userId, token));
      }
      return;
    }
    const drop: Record<NorenKind, string[]> = { t: [], d: [] };
    const add: Record<NorenKind, string[]> = { t: [], d: [] };
    for (const [scrip, kind] of this.sent) {
      const sub = this.subs.get(scrip);
      if (!sub || kindOf(sub.keys) !== kind) drop[kind].push(scrip);
    }
    for (const [scrip, sub] of this.subs) {
      const kind = kindOf(sub.keys);
      if (this.sent.get(scrip) !== kind) add[kind].push(scrip);
    }
    for (const k of KINDS)
      if (drop[k].length > 0) ws.send(norenRequest(NOREN_REQUEST[k].unsubscribe, drop[k]));
    for (const k of KINDS) if (add[k].length > 0) ws.send(norenRequest(NOREN_REQUEST[k].subscribe, add[k]));
    for (const k of KINDS) for (const scrip of drop[k]) this.sent.delete(scrip);
    for (const k of KINDS) for (const scrip of add[k]) this.sent.set(scrip, k);
  }

  protected readBinary(frame: Buffer): void {
    this.opts.logger.debug(
      { bytes: frame.length },
      `${this.name} stream: binary frame not expected; skipped`,
    );
  }

  protected readText(text: string): void {
    const frame = readNorenFrame(text, this.dialect);
    if (frame.kind === 'connect') {
      if (frame.ok) {
        this.authedOn = this.helloOn;
        this.connectionProved();
        this.opts.logger.info({ host: this.host }, `${this.name} stream: session accepted`);
        this.schedule();
        return;
      }
      this.opts.logger.warn(
        { host: this.host, reason: this.mask(frame.reason ?? '') },
        `${this.name} stream: connect refused (user id or session token not accepted)`,
      );
      this.endConnection('connect refusal');
      return;
    }
    if (frame.kind === 'other') {
      this.opts.logger.debug({ t: frame.t }, `${this.name} stream: frame not used by the feed`);
      return;
    }
    const sub = this.subs.get(frame.scrip);
    if (!sub) return;
    sub.snapshot = mergeSnapshot(sub.snapshot, frame.t, frame.fields);
    const depth = frame.t === 'dk' || frame.t === 'df';
    const tick = norenTick(sub.snapshot, depth, this.now());
    if (tick) this.emit(sub.keys, depth ? 3 : 2, tick);
  }
}

/**
 * Fyers' data socket v3 (HSM, `wss://socket.fyers.in/hsm/v1-5/prod`) as a live-feed
 * {@link TickSource} (docs/rules/market-data.md#feed-sources), per fyers-apiv3's
 * `FyersWebsocket/data_ws.py` (`__on_open`, `subscribe`, `__datafeed_resp`, `__ping`) and OpenAlgo's
 * client (broker/fyers/streaming/fyers_hsm_websocket.py); the wire is ./fyers-stream-decode.ts.
 *
 * - The session is an application message: once open, the authentication request (the `hsm_key`
 *   claim of the access token) and full mode on channel 11 are sent, and nothing else until the
 *   answer says `K`. A refusal, or a token without a usable `hsm_key`, ends the connection as
 *   fatal: `down`, not retried (a new session means a new source). The `K` resets the backoff.
 * - Modes: LTP and Quote subscribe the SymbolUpdate topic (`sf|segment|token`); Depth adds the
 *   DepthUpdate topic (`dp|…`), whose packets carry only the book, so a Depth tick is the
 *   SymbolUpdate's fields with the book. Each event-loop turn's changes go out as at most one
 *   unsubscribe and one subscribe (1,500 topics a frame, as the SDK chunks them).
 * - Snapshot packets (83) give a topic's id on this connection, its fields and its price scale;
 *   updates (85) carry the fields again, "no value" where unchanged, and are merged in.
 * - Every `ack_count` (the authentication answer's) data messages, the last one's number is
 *   acknowledged; the SDK's binary keep-alive `00 01 0b` is sent every 10 s.
 * - The handshake carries `Authorization: <app id>:<access token>`, as OpenAlgo's client sends it.
 *
 * Instruments are fytokens (`FeedInstrument.token`, src/modules/market/importers/fyers.ts); indices
 * are not streamed yet (their topics are named from the SDK's `index_dict`). Ticks go out under our
 * `EXCHANGE:SYMBOL`. The lifecycle (connect on first subscribe, reconnect with backoff and subscribe
 * everything again, refused HTTP handshake, stop) is ./stream-connection.ts's. The access token and
 * HSM key are never logged; any text logged is masked.
 */
import type WebSocket from 'ws';
import { feedKey, type FeedInstrument, type FeedMode, type TickSource } from '../feed.types.js';
import {
  FYERS_HSM_URL,
  HSM_DATA_FRAME,
  HSM_PING,
  HSM_REQUEST,
  hsmAck,
  hsmAnswerOk,
  hsmAuth,
  hsmDepth,
  hsmFrameType,
  hsmFullMode,
  hsmKeyOf,
  hsmScripTick,
  hsmTopic,
  hsmTopics,
  mergeHsm,
  readHsmAuth,
  readHsmData,
  type HsmTopicState,
} from './fyers-stream-decode.js';
import { StreamConnection, type StreamOptions } from './stream-connection.js';

/** The SDK's limit is 5,000 topics; a Depth instrument takes two. */
export const FYERS_STREAM_MAX_INSTRUMENTS = 2500;
/** Topics in one subscribe request (the SDK's chunk). */
const TOPICS_PER_REQUEST = 1500;
/** What the authentication request names as its source. */
const SOURCE = 'algodesk';

export interface FyersStreamOptions extends StreamOptions {
  /** The Fyers app id (`XXXX-100`), sent with the token in the handshake's Authorization. */
  appId: string;
  /** The session's access token (the JWT, or `app_id:jwt`). */
  accessToken: string;
  /** How often the keep-alive is sent (10 s). */
  pingMs?: number;
}

/** One subscribed fytoken: our keys on it, its topics, and their states on this connection. */
interface Sub {
  sf: string;
  dp: string;
  keys: Map<string, FeedMode>;
  scrip: HsmTopicState | undefined;
  depth: HsmTopicState | undefined;
}

const wantsDepth = (sub: Sub): boolean => Math.max(...sub.keys.values()) === 3;

/** Instruments are fytokens; the connection is told topics. */
export class FyersStreamSource extends StreamConnection<string, true> implements TickSource {
  readonly name = 'fyers';
  readonly maxSubscriptions = FYERS_STREAM_MAX_INSTRUMENTS;

  protected readonly subs = new Map<string, Sub>();
  /** Topic name → its instrument. */
  private readonly owners = new Map<string, Sub>();
  /** Topic id (this connection's) → state. */
  private states = new Map<number, HsmTopicState>();
  private helloOn: WebSocket | undefined;
  private authedOn: WebSocket | undefined;
  private ackCount = 0;
  private unacked = 0;
  private ping: NodeJS.Timeout | undefined;

  constructor(private readonly opts: FyersStreamOptions) {
    const key = hsmKeyOf(opts.accessToken, 0);
    super(opts, {
      label: 'fyers stream',
      defaultUrl: FYERS_HSM_URL,
      urlName: 'Fyers data socket URL',
      secrets: [opts.accessToken, 'key' in key ? key.key : ''],
      credentials: 'access token',
      countedAs: 'instruments',
      anyFrameResetsBackoff: false,
    });
  }

  subscribe(instrument: FeedInstrument, mode: FeedMode): void {
    const key = feedKey(instrument.exchange, instrument.symbol);
    const sf = hsmTopic('sf', instrument.token);
    const dp = hsmTopic('dp', instrument.token);
    if (sf === undefined || dp === undefined || instrument.brsymbol.endsWith('-INDEX')) {
      this.logger.warn(
        { key },
        'fyers stream: no HSM topic for this instrument (or an index); not subscribed',
      );
      return;
    }
    let sub = this.subs.get(instrument.token);
    if (!sub) {
      if (this.subs.size >= this.maxSubscriptions) {
        this.logger.warn({ key, max: this.maxSubscriptions }, 'fyers stream: instrument limit reached');
        return;
      }
      sub = { sf, dp, keys: new Map(), scrip: undefined, depth: undefined };
      this.subs.set(instrument.token, sub);
      this.owners.set(sf, sub).set(dp, sub);
    }
    sub.keys.set(key, mode);
    this.schedule();
  }

  unsubscribe(instrument: FeedInstrument, mode: FeedMode): void {
    const sub = this.subs.get(instrument.token);
    const key = feedKey(instrument.exchange, instrument.symbol);
    if (!sub || sub.keys.get(key) !== mode) return;
    sub.keys.delete(key);
    if (sub.keys.size === 0) {
      this.subs.delete(instrument.token);
      this.owners.delete(sub.sf);
      this.owners.delete(sub.dp);
    }
    this.schedule();
  }

  override async stop(): Promise<void> {
    clearInterval(this.ping);
    await super.stop();
  }

  // ---- StreamConnection ----

  protected endpoint(url: URL): { url: URL; headers: Record<string, string> } {
    const { appId, accessToken } = this.opts;
    return {
      url,
      headers: { Authorization: accessToken.includes(':') ? accessToken : `${appId}:${accessToken}` },
    };
  }

  /** Before the `K`: authenticates once. After it: unsubscribes, then subscribes, the difference. */
  protected sync(ws: WebSocket): void {
    if (this.authedOn !== ws) {
      if (this.helloOn === ws) return;
      this.helloOn = ws;
      const key = hsmKeyOf(this.opts.accessToken, this.now());
      if ('error' in key) {
        this.logger.error({ host: this.host, error: key.error }, 'fyers stream: access token unusable');
        this.endConnection('unusable access token');
        return;
      }
      ws.send(hsmAuth(key.key, SOURCE));
      ws.send(hsmFullMode());
      return;
    }
    const wanted = new Set<string>();
    for (const sub of this.subs.values()) {
      wanted.add(sub.sf);
      if (wantsDepth(sub)) wanted.add(sub.dp);
      else sub.depth = undefined;
    }
    const drop = [...this.sent.keys()].filter((t) => !wanted.has(t));
    const add = [...wanted].filter((t) => !this.sent.has(t));
    for (let i = 0; i < drop.length; i += TOPICS_PER_REQUEST)
      ws.send(hsmTopics(HSM_REQUEST.unsubscribe, drop.slice(i, i + TOPICS_PER_REQUEST)));
    for (let i = 0; i < add.length; i += TOPICS_PER_REQUEST)
      ws.send(hsmTopics(HSM_REQUEST.subscribe, add.slice(i, i + TOPICS_PER_REQUEST)));
    for (const t of drop) this.sent.delete(t);
    for (const t of add) this.sent.set(t, true);
    if (drop.length > 0) {
      const gone = new Set(drop);
      for (const [id, s] of this.states) if (gone.has(s.topic)) this.states.delete(id);
    }
  }

  protected readBinary(frame: Buffer): void {
    const type = hsmFrameType(frame);
    if (type === HSM_REQUEST.auth) this.authAnswer(frame);
    else if (type === HSM_DATA_FRAME) this.data(frame);
    else if (
      type === HSM_REQUEST.subscribe ||
      type === HSM_REQUEST.unsubscribe ||
      type === HSM_REQUEST.mode
    ) {
      if (!hsmAnswerOk(frame))
        this.logger.warn({ host: this.host, type }, 'fyers stream: request not accepted');
    } else this.logger.debug({ type, bytes: frame.length }, 'fyers stream: frame not used by the feed');
  }

  protected readText(text: string): void {
    this.logger.debug({ text: this.mask(text).slice(0, 200) }, 'fyers stream: text frame not expected');
  }

  // ---- the protocol ----

  private authAnswer(frame: Buffer): void {
    const answer = readHsmAuth(frame);
    if (!answer) return;
    if (!answer.ok) {
      this.logger.warn(
        { host: this.host },
        'fyers stream: authentication refused (access token not accepted)',
      );
      this.endConnection('authentication refusal');
      return;
    }
    const ws = this.helloOn;
    this.authedOn = ws;
    this.ackCount = answer.ackCount;
    this.unacked = 0;
    this.states = new Map();
    for (const sub of this.subs.values()) sub.scrip = sub.depth = undefined;
    this.connectionProved();
    this.logger.info({ host: this.host, ackCount: answer.ackCount }, 'fyers stream: session accepted');
    clearInterval(this.ping);
    this.ping = setInterval(() => {
      if (ws && this.authedOn === ws && ws.readyState === ws.OPEN) ws.send(HSM_PING);
      else clearInterval(this.ping);
    }, this.opts.pingMs ?? 10_000);
    this.ping.unref();
    this.schedule();
  }

  private data(frame: Buffer): void {
    const msg = readHsmData(frame);
    if (!msg) return;
    if (this.ackCount > 0 && ++this.unacked >= this.ackCount) {
      this.unacked = 0;
      const ws = this.authedOn;
      if (ws && ws.readyState === ws.OPEN) ws.send(hsmAck(msg.messageNumber));
    }
    for (const p of msg.packets) {
      let state = this.states.get(p.topicId);
      if (p.kind === 'snapshot') {
        const { topic, values, multiplier, precision } = p;
        this.states.set(p.topicId, (state = { topic, values, multiplier, precision }));
      } else if (state) mergeHsm(state, p.values);
      if (state) this.tell(state);
    }
  }

  /** Hands the instrument of a changed topic its tick: with the book when it wants and has one. */
  private tell(state: HsmTopicState): void {
    const sub = this.owners.get(state.topic);
    if (!sub) return;
    const depthTopic = state.topic === sub.dp;
    if (depthTopic) sub.depth = state;
    else sub.scrip = state;
    if (depthTopic && !wantsDepth(sub)) return;
    const tick = sub.scrip && hsmScripTick(sub.scrip, this.now());
    if (!tick) return;
    if (wantsDepth(sub) && sub.depth) this.emit(sub.keys, 3, { ...tick, depth: hsmDepth(sub.depth) });
    else this.emit(sub.keys, 2, tick);
  }
}

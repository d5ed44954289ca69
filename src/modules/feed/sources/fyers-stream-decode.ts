/**
 * Fyers' data socket v3 ("HSM", `wss://socket.fyers.in/hsm/v1-5/prod`): its binary protocol as pure
 * functions (docs/rules/market-data.md#feed-sources). Read from Fyers' own Python SDK, fyers-apiv3
 * `FyersWebsocket/data_ws.py` (`SymbolConversion`, `access_token_to_hsmtoken`, `__access_token_msg`,
 * `__full_mode_msg`, `__channel_resume_msg`, `__subscription_msg`, `__ackowledgement_msg`,
 * `__auth_resp`, `__subscribe_resp`, `__datafeed_resp`, `__response_output`, `__response_msg`,
 * `__ping`) and its `map.json` (`data_val`, `index_val`, `depthvalue`, `exch_seg_dict`), checked
 * against OpenAlgo's production client (broker/fyers/streaming/fyers_hsm_websocket.py).
 *
 * - Every request is `[length uint16 BE][request type u8][field count u8]` then fields
 *   `[id u8][size uint16 BE][value]`. The session is not the access token but the `hsm_key` claim
 *   of its JWT payload ({@link hsmKeyOf}).
 * - Authentication (type 1): fields 1 the HSM key, 2 mode `P`, 3 the byte 1, 4 the source name;
 *   the length is the bytes after it. The answer's first field is `K` when accepted, its second
 *   the `ack_count`: every that many data messages the client sends an acknowledgement (type 3,
 *   field 1 the number of the message that completed the count, uint32 BE).
 * - Full mode (type 12): field 1 the channel bitmask (uint64 BE, bit `channel`), field 2 the byte
 *   70 (lite mode: 76); resume (type 8): field 1 the bitmask; the SDK writes 0 as both frames'
 *   length. The SDK uses channel 11. Its keep-alive is the binary frame `00 01 0b` every 10 s.
 * - Subscribe (4) / unsubscribe (5): field 1 `[count uint16 BE]` then `[len u8][topic ASCII]` per
 *   topic, field 2 the channel. The length prefix is not checked by the server, it seems: the SDK
 *   sends more than the frame (it adds the token's and source's lengths), OpenAlgo 3 bytes less;
 *   here the frame's own. Answers (4, 5, 12, 8) carry `K` at byte 7 when accepted.
 * - Data (type 6): `[len][6][message number uint32 BE][packet count uint16 BE]` then packets:
 *   snapshot `83` `[topic id u16][name len u8][topic][n u8][n × int32 BE][2 bytes][multiplier
 *   uint16 BE][precision u8]` and three `[len u8][text]` (exchange, exchange token, symbol);
 *   update `85` `[topic id][n u8][n × int32 BE]` (fields in the snapshot's order, merged into it);
 *   lite `76` `[topic id][int32 ltp]`. `-2147483648` means "no value". The topic id is read in the
 *   machine's order by the SDK (`struct "H"`): it is an opaque key, read little-endian here.
 * - A price is the integer / (10^precision × multiplier), the snapshot's; quantities and times
 *   (epoch seconds) are as sent.
 * - Topics: `sf|<segment>|<exchange token>` (SymbolUpdate), `dp|…` (DepthUpdate), from a fytoken:
 *   its first four digits name the segment, the digits from the eleventh on are the exchange token.
 *   Indices (`if|<segment>|<name>`, the SDK's `index_dict`) are not here.
 */
import type { DepthLevel, Tick } from '../feed.types.js';

/** Fyers' data socket endpoint. */
export const FYERS_HSM_URL = 'wss://socket.fyers.in/hsm/v1-5/prod';
/** The REST call turning `NSE:SBIN-EQ` into its fytoken (`validSymbol`); the session token authorizes it. */
export const FYERS_SYMBOL_TOKEN_URL = 'https://api-t1.fyers.in/data/symbol-token';
/** The channel the SDK subscribes on. */
export const FYERS_CHANNEL = 11;

/** Request types. */
export const HSM_REQUEST = { auth: 1, ack: 3, subscribe: 4, unsubscribe: 5, resume: 8, mode: 12 } as const;

/** Fytoken segment prefix → HSM segment (OpenAlgo's table of the SDK's `exch_seg_dict`). */
export const FYERS_HSM_SEGMENTS: Readonly<Record<string, string>> = {
  '1010': 'nse_cm',
  '1011': 'nse_fo',
  '1012': 'cde_fo',
  '1020': 'nse_com',
  '1120': 'mcx_fo',
  '1210': 'bse_cm',
  '1211': 'bse_fo',
  '1212': 'bcs_fo',
};

/** The `hsm_key` claim of a Fyers access token (`app_id:jwt` or the bare JWT), or why there is none. */
export function hsmKeyOf(accessToken: string, nowMs: number): { key: string } | { error: string } {
  const jwt = accessToken.includes(':') ? accessToken.slice(accessToken.indexOf(':') + 1) : accessToken;
  const parts = jwt.split('.');
  if (parts.length !== 3) return { error: 'not a JWT' };
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8'));
  } catch {
    return { error: 'unreadable JWT payload' };
  }
  const p = (payload ?? {}) as { hsm_key?: unknown; exp?: unknown };
  if (typeof p.exp === 'number' && p.exp * 1000 < nowMs) return { error: 'access token expired' };
  return typeof p.hsm_key === 'string' && p.hsm_key !== ''
    ? { key: p.hsm_key }
    : { error: 'no hsm_key claim' };
}

/** One `[id][size][value]` field. */
function field(id: number, value: Buffer): Buffer {
  const head = Buffer.alloc(3);
  head.writeUInt8(id, 0);
  head.writeUInt16BE(value.length, 1);
  return Buffer.concat([head, value]);
}

/** A request: the length of what follows it, the type, the field count, the fields. */
function request(type: number, fields: readonly Buffer[], length?: number): Buffer {
  const body = Buffer.concat([Buffer.from([type, fields.length]), ...fields]);
  const len = Buffer.alloc(2);
  len.writeUInt16BE(length ?? body.length, 0);
  return Buffer.concat([len, body]);
}

const byte = (n: number) => Buffer.from([n]);

/** The authentication request. */
export function hsmAuth(hsmKey: string, source: string): Buffer {
  return request(HSM_REQUEST.auth, [
    field(1, Buffer.from(hsmKey, 'utf8')),
    field(2, Buffer.from('P', 'utf8')),
    field(3, byte(1)),
    field(4, Buffer.from(source, 'utf8')),
  ]);
}

/** A channel bitmask field: uint64 BE with bit `channel` set. */
function channelBits(channel: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(1n << BigInt(channel), 0);
  return field(1, b);
}

/** Full mode on a channel (70; lite 76), byte for byte as the SDK sends it: 0 in the length prefix. */
export function hsmFullMode(channel = FYERS_CHANNEL): Buffer {
  return request(HSM_REQUEST.mode, [channelBits(channel), field(2, byte(70))], 0);
}

/** Resumes a channel, as the SDK sends it (0 in the length prefix). */
export function hsmResume(channel = FYERS_CHANNEL): Buffer {
  return request(HSM_REQUEST.resume, [channelBits(channel)], 0);
}

/** A subscribe or unsubscribe request for topics on a channel. */
export function hsmTopics(type: 4 | 5, topics: readonly string[], channel = FYERS_CHANNEL): Buffer {
  const count = Buffer.alloc(2);
  count.writeUInt16BE(topics.length, 0);
  const list = topics.map((t) => {
    const name = Buffer.from(t, 'ascii');
    return Buffer.concat([byte(name.length), name]);
  });
  return request(type, [field(1, Buffer.concat([count, ...list])), field(2, byte(channel))]);
}

/** The acknowledgement of data message number `n`. */
export function hsmAck(n: number): Buffer {
  const v = Buffer.alloc(4);
  v.writeUInt32BE(n, 0);
  return request(HSM_REQUEST.ack, [field(1, v)]);
}

/** The request type of a server frame (its third byte), or undefined when shorter. */
export const hsmFrameType = (frame: Buffer): number | undefined => (frame.length >= 3 ? frame[2] : undefined);

/** The authentication answer: accepted (`K`) and the `ack_count`, as the SDK's `__auth_resp` reads it. */
export function readHsmAuth(frame: Buffer): { ok: boolean; ackCount: number } | undefined {
  if (frame.length < 7) return undefined;
  const len = frame.readUInt16BE(5);
  if (frame.length < 7 + len) return undefined;
  const ok = frame.toString('utf8', 7, 7 + len) === 'K';
  const at = 7 + len + 1;
  const ackCount = frame.length >= at + 6 ? frame.readUInt32BE(at + 2) : 0;
  return { ok, ackCount };
}

/**
 * The HSM topic of a fytoken (SymbolUpdate `sf`, DepthUpdate `dp`), or undefined when its segment
 * is not known. Not for indices: their topics are `if|<segment>|<Fyers index name>`.
 */
export function hsmTopic(kind: 'sf' | 'dp', fytoken: string): string | undefined {
  if (!/^\d{11,}$/.test(fytoken)) return undefined;
  const segment = FYERS_HSM_SEGMENTS[fytoken.slice(0, 4)];
  return segment === undefined ? undefined : `${kind}|${segment}|${fytoken.slice(10)}`;
}

// ---- answers and data ----

/** Server frame types: the answers to the requests, and data (6). */
export const HSM_DATA_FRAME = 6;
/** The keep-alive the SDK sends every 10 s (`__ping`). */
export const HSM_PING = Buffer.from([0, 1, 11]);
/** The integer meaning "no value". */
export const HSM_NO_VALUE = -2147483648;

/** Whether an answer (subscribe, unsubscribe, mode, resume) says `K`, as `__subscribe_resp` reads it (byte 7). */
export const hsmAnswerOk = (frame: Buffer): boolean => frame.length >= 8 && frame[7] === 0x4b;

/** `map.json` `data_val` (SymbolUpdate fields, by position; `type`, `symbol` are not on the wire). */
export const HSM_SCRIP_FIELDS = [
  ...['ltp', 'vol_traded_today', 'last_traded_time', 'exch_feed_time', 'bid_size', 'ask_size'],
  ...['bid_price', 'ask_price', 'last_traded_qty', 'tot_buy_qty', 'tot_sell_qty', 'avg_trade_price'],
  ...['OI', 'low_price', 'high_price', 'Yhigh', 'Ylow', 'lower_ckt', 'upper_ckt', 'open_price'],
  'prev_close_price',
] as const;
/** `map.json` `depthvalue`: five bid prices, five ask prices, then sizes and orders likewise. */
export const HSM_DEPTH_FIELDS = ['price', 'size', 'order'].flatMap((f) =>
  ['bid', 'ask'].flatMap((side) => [1, 2, 3, 4, 5].map((i) => `${side}_${f}${i}`)),
);
/** The scrip fields `__response_output` scales as prices. */
const SCRIP_PRICES = new Set([
  'ltp',
  'bid_price',
  'ask_price',
  'avg_trade_price',
  'low_price',
  'high_price',
  'open_price',
  'prev_close_price',
]);

/** One packet of a data frame; `values` by field position, undefined where there is no value. */
export type HsmPacket =
  | {
      kind: 'snapshot';
      topicId: number;
      topic: string;
      values: (number | undefined)[];
      multiplier: number;
      precision: number;
    }
  | { kind: 'update'; topicId: number; values: (number | undefined)[] };

/** Reads `n` int32 BE from `at`, or undefined when the frame is too short. */
function ints(frame: Buffer, at: number, n: number): (number | undefined)[] | undefined {
  if (frame.length < at + 4 * n) return undefined;
  const out: (number | undefined)[] = [];
  for (let i = 0; i < n; i++) {
    const v = frame.readInt32BE(at + 4 * i);
    out.push(v === HSM_NO_VALUE ? undefined : v);
  }
  return out;
}

/**
 * A data frame (type 6): its message number and packets, as `__datafeed_resp` reads it. A packet
 * of an unknown code, or one cut short, ends the reading (its length is not known).
 */
export function readHsmData(frame: Buffer): { messageNumber: number; packets: HsmPacket[] } | undefined {
  if (frame.length < 9 || frame[2] !== HSM_DATA_FRAME) return undefined;
  const messageNumber = frame.readUInt32BE(3);
  const count = frame.readUInt16BE(7);
  const packets: HsmPacket[] = [];
  let at = 9;
  for (let p = 0; p < count && at + 3 <= frame.length; p++) {
    const code = frame[at]!;
    const topicId = frame.readUInt16LE(at + 1);
    at += 3;
    if (code === 83) {
      const nameLen = frame[at] ?? 0;
      const topic = frame.toString('utf8', at + 1, at + 1 + nameLen);
      at += 1 + nameLen;
      const n = frame[at] ?? 0;
      const values = ints(frame, at + 1, n);
      at += 1 + 4 * n + 2;
      if (!values || frame.length < at + 3) break;
      const multiplier = frame.readUInt16BE(at);
      const precision = frame[at + 2]!;
      at += 3;
      for (let s = 0; s < 3; s++) at += 1 + (frame[at] ?? 0);
      packets.push({ kind: 'snapshot', topicId, topic, values, multiplier, precision });
    } else if (code === 85) {
      const n = frame[at] ?? 0;
      const values = ints(frame, at + 1, n);
      if (!values) break;
      at += 1 + 4 * n;
      packets.push({ kind: 'update', topicId, values });
    } else if (code === 76) {
      const values = ints(frame, at, 1);
      if (!values) break;
      at += 4;
      packets.push({ kind: 'update', topicId, values });
    } else break;
  }
  return { messageNumber, packets };
}

/** A topic's state on one connection: its snapshot with the updates merged in. */
export interface HsmTopicState {
  topic: string;
  values: (number | undefined)[];
  multiplier: number;
  precision: number;
}

/** Merges an update into a snapshot (a field without a value keeps the last one). */
export function mergeHsm(state: HsmTopicState, values: readonly (number | undefined)[]): void {
  values.forEach((v, i) => {
    if (v !== undefined) state.values[i] = v;
  });
}

const scale = (s: HsmTopicState) => 10 ** s.precision * (s.multiplier || 1);
const epochMs = (secs: number | undefined) => (secs === undefined || secs <= 0 ? null : secs * 1000);

/** A SymbolUpdate state as a tick (prices scaled); undefined before its first ltp. */
export function hsmScripTick(s: HsmTopicState, now: number): Tick | undefined {
  const f: Record<string, number | undefined> = {};
  HSM_SCRIP_FIELDS.forEach((name, i) => {
    const v = s.values[i];
    f[name] = v === undefined || !SCRIP_PRICES.has(name) ? v : v / scale(s);
  });
  if (f.ltp === undefined) return undefined;
  const orNull = (v: number | undefined) => v ?? null;
  return {
    ltp: f.ltp,
    ltt: epochMs(f.last_traded_time),
    timestamp: epochMs(f.exch_feed_time) ?? now,
    open: orNull(f.open_price),
    high: orNull(f.high_price),
    low: orNull(f.low_price),
    close: orNull(f.prev_close_price),
    volume: orNull(f.vol_traded_today),
    average_price: orNull(f.avg_trade_price),
    last_quantity: orNull(f.last_traded_qty),
    total_buy_quantity: orNull(f.tot_buy_qty),
    total_sell_quantity: orNull(f.tot_sell_qty),
  };
}

/** A DepthUpdate state as five levels a side (the first ten fields are prices, scaled). */
export function hsmDepth(s: HsmTopicState): { buy: DepthLevel[]; sell: DepthLevel[] } {
  const level = (side: 0 | 1, i: number): DepthLevel => {
    const price = s.values[side * 5 + i];
    return {
      price: price === undefined ? 0 : price / scale(s),
      quantity: s.values[10 + side * 5 + i] ?? null,
      orders: s.values[20 + side * 5 + i] ?? null,
    };
  };
  const side = (n: 0 | 1) => [0, 1, 2, 3, 4].map((i) => level(n, i));
  return { buy: side(0), sell: side(1) };
}

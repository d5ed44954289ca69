/**
 * Fyers' data socket v3 ("HSM", `wss://socket.fyers.in/hsm/v1-5/prod`) — the parts of its binary
 * protocol confirmed so far, as pure functions (docs/rules/market-data.md#feed-sources). Read from
 * Fyers' own Python SDK, fyers-apiv3 `FyersWebsocket/data_ws.py` (`SymbolConversion`,
 * `access_token_to_hsmtoken`, `__access_token_msg`, `__full_mode_msg`, `__channel_resume_msg`,
 * `__subscription_msg`, `__unsubscription_msg`, `__ackowledgement_msg`, `__auth_resp`), checked
 * against OpenAlgo's production client (broker/fyers/streaming/fyers_hsm_websocket.py).
 *
 * NOT here yet (so there is no Fyers tick source): the data messages (type 6: snapshot 83 and
 * update 85 packets, topic ids, the field tables of the SDK's `map.json`, price multiplier and
 * precision), the index topic names (`if|nse_cm|Nifty 50`, from the SDK's `index_dict`), and the
 * connection itself.
 *
 * - Every request is `[length uint16 BE][request type u8][field count u8]` then fields
 *   `[id u8][size uint16 BE][value]`. The session is not the access token but the `hsm_key` claim
 *   of its JWT payload ({@link hsmKeyOf}).
 * - Authentication (type 1): fields 1 the HSM key, 2 mode `P`, 3 the byte 1, 4 the source name;
 *   the length is the bytes after it. The answer's first field is `K` when accepted, its second
 *   the `ack_count`: every that many data messages the client sends an acknowledgement (type 3,
 *   field 1 the message number, uint32 BE).
 * - Full mode (type 12): field 1 the channel bitmask (uint64 BE, bit `channel`), field 2 the byte
 *   70 (lite mode: 76); resume (type 8): field 1 the bitmask; the SDK writes 0 as both frames'
 *   length. The SDK uses channel 11.
 * - Subscribe (4) / unsubscribe (5): field 1 `[count uint16 BE]` then `[len u8][topic ASCII]` per
 *   topic, field 2 the channel. The SDK's length prefix here is larger than the frame (it adds the
 *   access token's and source's lengths); OpenAlgo sends the frame's own length, as here.
 * - Topics: `sf|<segment>|<exchange token>` (SymbolUpdate), `dp|…` (DepthUpdate), from a fytoken:
 *   its first four digits name the segment, the digits from the eleventh on are the exchange token.
 */

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

/**
 * Angel One SmartStream (SmartAPI WebSocket 2.0, smartapi.angelone.in/docs/WebSocket2) as bytes
 * and JSON (docs/rules/market-data.md#feed-sources): the request a subscription is, the binary
 * packet a tick is, the exchange types and the price units. Pure (no socket, no logger), apart
 * from the connection in ./angel-stream.ts, so the layouts can be checked against Angel's page on
 * their own. Where the page is terse, Angel's own clients (smartapi-python `smartWebSocketV2.py`,
 * smartapi-javascript `websocket2.0.js`, smartapi-java `SmartStreamTicker`) were read for the wire.
 *
 * - A request is JSON text: `{"correlationID":"…","action":1|0,"params":{"mode":1|2|3,
 *   "tokenList":[{"exchangeType":1,"tokens":["26009"]}]}}` (1 subscribe, 0 unsubscribe; mode 1 LTP,
 *   2 Quote, 3 SnapQuote with five levels of depth). Our modes map 1→1, 2→2, 3→3.
 * - Exchange types: 1 nse_cm, 2 nse_fo, 3 bse_cm, 4 bse_fo, 5 mcx_fo, 7 ncx_fo, 13 cde_fo; an
 *   index streams on its cash segment. BSE currency (BCD) has no exchange type.
 * - A response is one little-endian packet per binary frame: [0] mode, [1] exchange type, [2–27)
 *   token (ASCII, NUL-padded), [27] sequence int64, [35] exchange timestamp int64 (epoch ms), [43]
 *   LTP int64 — 51 bytes for LTP. Quote (123 bytes) adds [51] last traded qty, [59] average price,
 *   [67] volume (int64), [75] total buy qty, [83] total sell qty (double), [91] open, [99] high,
 *   [107] low, [115] close (int64; the previous session's close). SnapQuote (379 bytes) adds [123]
 *   last traded time int64, [131] OI int64, [139] OI change % double, [147] ten 20-byte depth
 *   entries (flag int16, qty int64, price int64, orders int16; flag 0 a bid, else an offer, as
 *   smartapi-python reads it), [347] upper and [355] lower circuit, [363] 52-week high, [371] low.
 * - Prices are integers in paise (÷100); on the currency segment (13) in 1/10,000,000 of a rupee.
 */
import { INDEX_EXCHANGE_OF } from '../../../domain/exchanges.js';
import type { DepthLevel, FeedMode, Tick } from '../feed.types.js';

/** SmartStream's `action`. */
export const ACTION = { unsubscribe: 0, subscribe: 1 } as const;
export type StreamAction = (typeof ACTION)[keyof typeof ACTION];

/** Bytes of each mode's packet (LTP, Quote, SnapQuote). */
export const PACKET_BYTES: Readonly<Record<FeedMode, number>> = { 1: 51, 2: 123, 3: 379 };

/** The currency segment (cde_fo), whose prices carry seven decimals. */
export const CURRENCY_EXCHANGE_TYPE = 13;

/**
 * Our exchange → SmartStream's `exchangeType`. Indices stream on their cash segment; BCD and NCO
 * have none (the instrument cannot be streamed).
 */
const EXCHANGE_TYPE: Readonly<Record<string, number>> = {
  NSE: 1,
  [INDEX_EXCHANGE_OF.NSE]: 1,
  NFO: 2,
  BSE: 3,
  [INDEX_EXCHANGE_OF.BSE]: 3,
  BFO: 4,
  MCX: 5,
  NCDEX: 7,
  CDS: CURRENCY_EXCHANGE_TYPE,
};

/** The exchange type an instrument of our `exchange` streams on, or undefined when none. */
export function exchangeTypeOf(exchange: string): number | undefined {
  return Object.hasOwn(EXCHANGE_TYPE, exchange) ? EXCHANGE_TYPE[exchange] : undefined;
}

/** The integer a price is multiplied by on the wire. */
export function priceDivisor(exchangeType: number): number {
  return exchangeType === CURRENCY_EXCHANGE_TYPE ? 10_000_000 : 100;
}

/** A symboltoken as SmartStream takes it: digits, at most the 25 bytes of the packet's field. */
export function isStreamToken(token: string): boolean {
  return /^\d{1,25}$/.test(token);
}

/** One `tokenList` entry. */
export interface TokenGroup {
  exchangeType: number;
  tokens: string[];
}

/** Groups (exchangeType, token) pairs into `tokenList` entries, by ascending exchange type. */
export function groupTokens(pairs: Iterable<readonly [exchangeType: number, token: string]>): TokenGroup[] {
  const by = new Map<number, string[]>();
  for (const [exchangeType, token] of pairs) {
    const list = by.get(exchangeType);
    if (list) list.push(token);
    else by.set(exchangeType, [token]);
  }
  return [...by.entries()]
    .sort(([a], [b]) => a - b)
    .map(([exchangeType, tokens]) => ({ exchangeType, tokens }));
}

/** The JSON text of a subscribe or unsubscribe request. */
export function streamRequest(
  correlationID: string,
  action: StreamAction,
  mode: FeedMode,
  tokenList: readonly TokenGroup[],
): string {
  return JSON.stringify({ correlationID, action, params: { mode, tokenList } });
}

/** One packet read: where it is from, its mode, Angel's sequence number, the tick. */
export interface StreamPacket {
  mode: FeedMode;
  exchangeType: number;
  token: string;
  sequence: number;
  tick: Tick;
}

/** A binary frame read: a packet, a mode we do not read (Depth-20 …), or too few bytes for its mode. */
export type StreamFrame =
  | { kind: 'packet'; packet: StreamPacket }
  | { kind: 'unknown'; mode: number; bytes: number }
  | { kind: 'short'; mode: number; bytes: number; need: number };

/**
 * One binary frame as a tick. A zero exchange timestamp is "not given" (the tick is stamped with
 * `now`); the last trade time (SnapQuote) is read as epoch seconds when below 10^11, else ms.
 */
export function readPacket(buf: Buffer, now: () => number): StreamFrame {
  const mode = buf.length > 0 ? buf.readUInt8(0) : 0;
  if (mode !== 1 && mode !== 2 && mode !== 3) return { kind: 'unknown', mode, bytes: buf.length };
  const need = PACKET_BYTES[mode];
  if (buf.length < need) return { kind: 'short', mode, bytes: buf.length, need };
  const exchangeType = buf.readUInt8(1);
  const divisor = priceDivisor(exchangeType);
  const int = (at: number) => Number(buf.readBigInt64LE(at));
  const price = (at: number) => int(at) / divisor;
  const nul = buf.indexOf(0, 2);
  const token = buf.toString('latin1', 2, nul >= 2 && nul < 27 ? nul : 27);
  const exchangeTime = int(35);
  const tick: Tick = { ltp: price(43), ltt: null, timestamp: exchangeTime > 0 ? exchangeTime : now() };
  if (mode >= 2) {
    tick.last_quantity = int(51);
    tick.average_price = price(59);
    tick.volume = int(67);
    tick.total_buy_quantity = buf.readDoubleLE(75);
    tick.total_sell_quantity = buf.readDoubleLE(83);
    tick.open = price(91);
    tick.high = price(99);
    tick.low = price(107);
    tick.close = price(115);
  }
  if (mode === 3) {
    const ltt = int(123);
    tick.ltt = ltt <= 0 ? null : ltt < 1e11 ? ltt * 1000 : ltt;
    tick.oi = int(131);
    tick.depth = readDepth(buf, divisor);
  }
  return { kind: 'packet', packet: { mode, exchangeType, token, sequence: int(27), tick } };
}

/** The ten 20-byte best-five entries from byte 147; an all-zero entry is no level. */
function readDepth(buf: Buffer, divisor: number): { buy: DepthLevel[]; sell: DepthLevel[] } {
  const buy: DepthLevel[] = [];
  const sell: DepthLevel[] = [];
  for (let at = 147; at < 347; at += 20) {
    const flag = buf.readInt16LE(at);
    const quantity = Number(buf.readBigInt64LE(at + 2));
    const raw = Number(buf.readBigInt64LE(at + 10));
    const orders = buf.readInt16LE(at + 18);
    if (quantity === 0 && raw === 0 && orders === 0) continue;
    (flag === 0 ? buy : sell).push({ price: raw / divisor, quantity, orders });
  }
  return { buy, sell };
}

/**
 * An index's tick: SmartStream sends an index in the same layout as a stock, with zeros where an
 * index has no trades (quantities, volume, average price, OI, depth); those are left out, not 0.
 */
export function indexTick(tick: Tick): Tick {
  const { ltp, ltt, timestamp, open, high, low, close } = tick;
  const out: Tick = { ltp, ltt, timestamp };
  if (open !== undefined) Object.assign(out, { open, high, low, close });
  return out;
}

/** An error answer (a JSON text frame: `correlationID`, `errorCode`, `errorMessage`), or undefined. */
export function readStreamError(
  text: string,
): { correlationID?: string; errorCode?: string; errorMessage?: string } | undefined {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof json !== 'object' || json === null) return undefined;
  const o = json as Record<string, unknown>;
  const s = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const out = {
    correlationID: s(o.correlationID),
    errorCode: s(o.errorCode),
    errorMessage: s(o.errorMessage),
  };
  return out.errorCode !== undefined || out.errorMessage !== undefined ? out : undefined;
}

/**
 * DhanHQ v2 Live Market Feed on the wire (docs/rules/market-data.md#feed-sources), from
 * dhanhq.co/docs/v2/live-market-feed and dhanhq.co/docs/v2/annexure: the JSON requests, the
 * binary response packets, our exchanges' Dhan exchange segments, and the mapping to our
 * {@link Tick}. Pure (no socket, no logger), apart from the connection in ./dhan-feed.ts, so the
 * byte layouts can be read and checked against Dhan's pages on their own.
 *
 * - Requests are JSON text: `{"RequestCode":15,"InstrumentCount":n,"InstrumentList":[{"ExchangeSegment":
 *   "NSE_EQ","SecurityId":"1333"}]}`, at most 100 instruments a message. Request codes (annexure
 *   "Feed Request Code"): 15/16 subscribe/unsubscribe Ticker, 17/18 Quote, 21/22 Full, 12 disconnect.
 * - Responses are binary, little-endian, each packet opening with an 8-byte header: response code
 *   (byte), message length (int16), exchange segment (byte, the annexure's numeric enum), security
 *   id (int32). Response codes (annexure "Feed Response Code"): 2 Ticker (16 bytes: LTP float32, LTT
 *   int32), 4 Quote (50), 5 OI (12), 6 Prev Close (16), 8 Full (162, with five 20-byte depth levels),
 *   50 Feed Disconnect (10: a reason code int16). Packets are read by their documented size; a frame
 *   may hold several. Other codes (1 index, 7 market status) are skipped by their length field.
 * - Prices are rupees as float32: rounded to 2 decimals (4 on the currency segments) so float32
 *   noise (801.25 arrives as 801.2500000001…) does not leak. Quantities, volume, OI and order counts
 *   are unsigned; times epoch seconds (0 is "not given").
 */
import { INDEX_EXCHANGE_OF, type Exchange } from '../../../domain/exchanges.js';
import type { DepthLevel, FeedMode, Tick } from '../feed.types.js';

/** Dhan's exchange segment of each of our exchanges (annexure "Exchange Segment"); indices share `IDX_I`. */
export const DHAN_FEED_SEGMENT: Readonly<Partial<Record<Exchange, string>>> = {
  NSE: 'NSE_EQ',
  BSE: 'BSE_EQ',
  NFO: 'NSE_FNO',
  BFO: 'BSE_FNO',
  CDS: 'NSE_CURRENCY',
  BCD: 'BSE_CURRENCY',
  MCX: 'MCX_COMM',
  [INDEX_EXCHANGE_OF.NSE]: 'IDX_I',
  [INDEX_EXCHANGE_OF.BSE]: 'IDX_I',
};

/** The annexure's numeric enum of each segment: what a response header carries. */
export const DHAN_SEGMENT_CODE: Readonly<Record<string, number>> = {
  IDX_I: 0,
  NSE_EQ: 1,
  NSE_FNO: 2,
  NSE_CURRENCY: 3,
  BSE_EQ: 4,
  MCX_COMM: 5,
  BSE_CURRENCY: 7,
  BSE_FNO: 8,
};

/** Segments quoted to four decimals (currency derivatives). */
const FOUR_DECIMAL_SEGMENTS: ReadonlySet<number> = new Set([3, 7]);

/** Dhan's segment of our exchange, or undefined when the feed has none. */
export function dhanSegmentOf(exchange: string): string | undefined {
  return (DHAN_FEED_SEGMENT as Readonly<Record<string, string | undefined>>)[exchange];
}

/** Subscribe and unsubscribe request codes by our mode: 1 → Ticker, 2 → Quote, 3 → Full. */
export const DHAN_SUBSCRIBE_CODE: Readonly<Record<FeedMode, number>> = { 1: 15, 2: 17, 3: 21 };
export const DHAN_UNSUBSCRIBE_CODE: Readonly<Record<FeedMode, number>> = { 1: 16, 2: 18, 3: 22 };
/** "Disconnect Feed". */
export const DHAN_DISCONNECT_CODE = 12;
/** Instruments one request message may carry (live-market-feed, "Adding Instruments"). */
export const DHAN_INSTRUMENTS_PER_MESSAGE = 100;

export interface DhanInstrumentRef {
  ExchangeSegment: string;
  SecurityId: string;
}

/** The JSON messages asking `code` for `list`, at most 100 instruments each. */
export function dhanRequests(code: number, list: readonly DhanInstrumentRef[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < list.length; i += DHAN_INSTRUMENTS_PER_MESSAGE) {
    const part = list.slice(i, i + DHAN_INSTRUMENTS_PER_MESSAGE);
    out.push(JSON.stringify({ RequestCode: code, InstrumentCount: part.length, InstrumentList: part }));
  }
  return out;
}

/** Reason codes a Feed Disconnect packet may carry (annexure "Data API Error"). */
export const DHAN_DISCONNECT_REASONS: Readonly<Record<number, string>> = {
  800: 'internal server error',
  804: 'requested number of instruments exceeds limit',
  805: 'too many requests or connections',
  806: 'data APIs not subscribed',
  807: 'access token expired',
  808: 'authentication failed (client id or access token invalid)',
  809: 'access token invalid',
  810: 'client id invalid',
  814: 'invalid request',
};
/** Reasons retrying with the same credentials cannot cure. */
export const DHAN_FATAL_DISCONNECTS: ReadonlySet<number> = new Set([806, 807, 808, 809, 810]);

interface Header {
  segment: number;
  securityId: number;
}
export interface DhanQuoteFields {
  ltp: number;
  lastQuantity: number;
  ltt: number | null;
  averagePrice: number;
  volume: number;
  totalSellQuantity: number;
  totalBuyQuantity: number;
  open: number;
  /** The day's close (not the previous close, which comes in its own packet). */
  dayClose: number;
  high: number;
  low: number;
}

/** One packet read from a frame. */
export type DhanPacket =
  | (Header & { kind: 'ticker'; ltp: number; ltt: number | null })
  | (Header & { kind: 'quote' } & DhanQuoteFields)
  | (Header & { kind: 'oi'; oi: number })
  | (Header & { kind: 'prevClose'; prevClose: number; prevOi: number })
  | (Header & {
      kind: 'full';
      oi: number;
      depth: { buy: DepthLevel[]; sell: DepthLevel[] };
    } & DhanQuoteFields)
  | (Header & { kind: 'disconnect'; reason: number })
  | { kind: 'unknown'; code: number; length: number }
  | { kind: 'truncated'; code: number; bytes: number };

/** Documented packet sizes, header included, by response code. */
const SIZE: Readonly<Record<number, number>> = { 2: 16, 4: 50, 5: 12, 6: 16, 8: 162, 50: 10 };

/** `v` rounded to the segment's decimals. */
export function roundPrice(v: number, segment: number): number {
  const f = FOUR_DECIMAL_SEGMENTS.has(segment) ? 10_000 : 100;
  return Math.round(v * f) / f;
}

/** The packets of one binary frame, read as they are asked for; a cut-off rest ends it. */
export function* readDhanFrame(buf: Buffer): Generator<DhanPacket> {
  let at = 0;
  while (at < buf.length) {
    if (at + 8 > buf.length) return yield { kind: 'truncated', code: buf[at]!, bytes: buf.length - at };
    const code = buf.readUInt8(at);
    const length = buf.readUInt16LE(at + 1);
    const size = SIZE[code];
    if (size === undefined) {
      yield { kind: 'unknown', code, length };
      if (length < 8) return; // no way to find the next packet
      at += length;
      continue;
    }
    if (at + size > buf.length) return yield { kind: 'truncated', code, bytes: buf.length - at };
    yield readPacket(buf.subarray(at, at + size), code);
    at += size;
  }
}

function readPacket(p: Buffer, code: number): DhanPacket {
  const h: Header = { segment: p.readUInt8(3), securityId: p.readUInt32LE(4) };
  const price = (o: number) => roundPrice(p.readFloatLE(o), h.segment);
  const u32 = (o: number) => p.readUInt32LE(o);
  const time = (o: number) => (u32(o) > 0 ? u32(o) * 1000 : null);
  switch (code) {
    case 2:
      return { ...h, kind: 'ticker', ltp: price(8), ltt: time(12) };
    case 5:
      return { ...h, kind: 'oi', oi: u32(8) };
    case 6:
      return { ...h, kind: 'prevClose', prevClose: price(8), prevOi: u32(12) };
    case 50:
      return { ...h, kind: 'disconnect', reason: p.readUInt16LE(8) };
    case 4:
    case 8: {
      const full = code === 8;
      // The full packet puts OI, OI high and OI low (12 bytes) between the quantities and OHLC.
      const ohlc = full ? 46 : 34;
      const fields: DhanQuoteFields = {
        ltp: price(8),
        lastQuantity: p.readUInt16LE(12),
        ltt: time(14),
        averagePrice: price(18),
        volume: u32(22),
        totalSellQuantity: u32(26),
        totalBuyQuantity: u32(30),
        open: price(ohlc),
        dayClose: price(ohlc + 4),
        high: price(ohlc + 8),
        low: price(ohlc + 12),
      };
      if (!full) return { ...h, kind: 'quote', ...fields };
      return { ...h, kind: 'full', ...fields, oi: u32(34), depth: readDepth(p, 62, h.segment) };
    }
    default:
      throw new Error(`dhan feed: no layout for response code ${code}`);
  }
}

/**
 * Five 20-byte levels from `from`: bid quantity int32, ask quantity int32, bid orders int16, ask
 * orders int16, bid price float32, ask price float32. An empty side of a level (nothing on it) is
 * left out, not given as a level at price 0.
 */
function readDepth(p: Buffer, from: number, segment: number): { buy: DepthLevel[]; sell: DepthLevel[] } {
  const buy: DepthLevel[] = [];
  const sell: DepthLevel[] = [];
  for (let at = from; at < from + 100; at += 20) {
    const bidQty = p.readUInt32LE(at);
    const askQty = p.readUInt32LE(at + 4);
    const bidOrders = p.readUInt16LE(at + 8);
    const askOrders = p.readUInt16LE(at + 10);
    const bid = roundPrice(p.readFloatLE(at + 12), segment);
    const ask = roundPrice(p.readFloatLE(at + 16), segment);
    if (bidQty > 0 || bid !== 0) buy.push({ price: bid, quantity: bidQty, orders: bidOrders });
    if (askQty > 0 || ask !== 0) sell.push({ price: ask, quantity: askQty, orders: askOrders });
  }
  return { buy, sell };
}

/** What is kept per instrument between packets: the previous close and the last open interest. */
export interface DhanInstrumentState {
  prevClose: number | null;
  oi: number | null;
}

/**
 * The tick a market packet makes, with the mode it carries (ticker 1, quote 2, full 3), given
 * what is known of the instrument; undefined for a packet that is no tick (OI, prev close: they
 * only update `state`). Dhan gives no exchange timestamp: a tick is stamped `now`.
 */
export function dhanTick(
  packet: DhanPacket,
  state: DhanInstrumentState,
  now: number,
): { mode: FeedMode; tick: Tick } | undefined {
  switch (packet.kind) {
    case 'prevClose':
      state.prevClose = packet.prevClose;
      return undefined;
    case 'oi':
      state.oi = packet.oi;
      return undefined;
    case 'ticker':
      return { mode: 1, tick: { ltp: packet.ltp, ltt: packet.ltt, timestamp: now } };
    case 'quote':
    case 'full': {
      if (packet.kind === 'full') state.oi = packet.oi;
      const tick: Tick = {
        ltp: packet.ltp,
        ltt: packet.ltt,
        timestamp: now,
        open: packet.open,
        high: packet.high,
        low: packet.low,
        close: state.prevClose,
        volume: packet.volume,
        average_price: packet.averagePrice,
        last_quantity: packet.lastQuantity,
        total_buy_quantity: packet.totalBuyQuantity,
        total_sell_quantity: packet.totalSellQuantity,
      };
      if (state.oi !== null) tick.oi = state.oi;
      if (packet.kind === 'quote') return { mode: 2, tick };
      tick.depth = packet.depth;
      return { mode: 3, tick };
    }
    default:
      return undefined;
  }
}

/**
 * Kite Ticker's binary market data as ticks (docs/rules/market-data.md#feed-sources), from Kite
 * Connect v3 WebSocket streaming (kite.trade/docs/connect/v3/websocket): frame and packet layouts,
 * the price divisor of each exchange segment, and the mapping to our {@link Tick}. Pure (no
 * socket, no logger), apart from the connection in ./kite-ticker.ts, so the byte layouts can be
 * read and checked against Kite's page on their own.
 *
 * A frame is an int16 packet count, then per packet an int16 length and the packet (LTP 8 bytes;
 * quote 44; full 184 with five bid and five offer depth entries of 12 bytes; indices 28 in quote
 * mode and 32 in full). A frame shorter than 2 bytes is a heartbeat. Prices are integers: divided
 * by 10,000,000 for CDS, 10,000 for BCD (Kite's own clients) and 100 for everything else, the
 * segment being the low byte of the instrument token.
 *
 * A tick carries what its packet carries: a field the mode does not send stays absent (never an
 * invented 0), the last trade time only in full mode, the exchange's timestamp in full mode (else
 * the time of receipt). The order postbacks the stream carries as text are mapped here too
 * ({@link kiteOrderUpdate}): also Kite's shapes in OpenAlgo's words, without I/O.
 */
import type { BrokerOrderUpdate, DepthLevel, FeedMode, Tick } from '../feed.types.js';

/** One packet read: the instrument_token it is for, the mode its length means, the tick. */
export interface KitePacket {
  token: number;
  mode: FeedMode;
  tick: Tick;
}

/** What a frame holds, in order: packets, a packet of a length no mode has, or a cut-off rest. */
export type KiteFramePart =
  | { kind: 'packet'; packet: KitePacket }
  | { kind: 'unknown'; length: number }
  | { kind: 'truncated'; bytes: number; packet: number; count: number };

/**
 * The parts of one binary frame, read as they are asked for (nothing for a heartbeat). A packet
 * whose length or body runs past the frame ends it: the rest is reported as truncated, not read.
 */
export function* readFrame(buf: Buffer, now: () => number): Generator<KiteFramePart> {
  if (buf.length < 2) return; // heartbeat
  const count = buf.readUInt16BE(0);
  let at = 2;
  for (let i = 0; i < count; i++) {
    if (at + 2 > buf.length) return yield { kind: 'truncated', bytes: buf.length, packet: i, count };
    const length = buf.readUInt16BE(at);
    const start = at + 2;
    at = start + length;
    if (at > buf.length) return yield { kind: 'truncated', bytes: buf.length, packet: i, count };
    const packet = readPacket(buf.subarray(start, at), now);
    yield packet ? { kind: 'packet', packet } : { kind: 'unknown', length };
  }
}

/** Price divisor by exchange segment, the low byte of the token (3 = CDS, 6 = BCD). */
function divisorOf(token: number): number {
  const segment = token & 0xff;
  return segment === 3 ? 10_000_000 : segment === 6 ? 10_000 : 100;
}

/**
 * One packet as a tick, by its length (8 LTP, 28/32 index quote/full, 44/184 quote/full).
 * Prices are int32; quantities, volume, OI, order counts and timestamps unsigned (as Kite's own
 * clients read them). A zero timestamp is "not given".
 */
function readPacket(p: Buffer, now: () => number): KitePacket | undefined {
  if (p.length < 8) return undefined;
  const token = p.readUInt32BE(0);
  const divisor = divisorOf(token);
  const price = (at: number) => p.readInt32BE(at) / divisor;
  const count = (at: number) => p.readUInt32BE(at);
  const epochMs = (at: number) => {
    const s = p.readUInt32BE(at);
    return s > 0 ? s * 1000 : null;
  };
  const ltp = price(4);
  switch (p.length) {
    case 8:
      return { token, mode: 1, tick: { ltp, ltt: null, timestamp: now() } };
    case 28:
    case 32: {
      const full = p.length === 32;
      const tick: Tick = {
        ltp,
        ltt: null,
        timestamp: (full ? epochMs(28) : null) ?? now(),
        high: price(8),
        low: price(12),
        open: price(16),
        close: price(20),
      };
      return { token, mode: full ? 3 : 2, tick };
    }
    case 44:
    case 184: {
      const full = p.length === 184;
      const tick: Tick = {
        ltp,
        ltt: full ? epochMs(44) : null,
        timestamp: (full ? epochMs(60) : null) ?? now(),
        last_quantity: count(8),
        average_price: price(12),
        volume: count(16),
        total_buy_quantity: count(20),
        total_sell_quantity: count(24),
        open: price(28),
        high: price(32),
        low: price(36),
        close: price(40),
      };
      if (full) {
        tick.oi = count(48);
        tick.depth = { buy: depthSide(p, 64, divisor), sell: depthSide(p, 124, divisor) };
      }
      return { token, mode: full ? 3 : 2, tick };
    }
    default:
      return undefined;
  }
}

/** Five 12-byte entries (quantity int32, price int32, orders int16, 2 padding); empty levels left out. */
function depthSide(p: Buffer, from: number, divisor: number): DepthLevel[] {
  const levels: DepthLevel[] = [];
  for (let at = from; at < from + 60; at += 12) {
    const quantity = p.readUInt32BE(at);
    const raw = p.readInt32BE(at + 4);
    const orders = p.readUInt16BE(at + 8);
    if (quantity === 0 && raw === 0 && orders === 0) continue;
    levels.push({ price: raw / divisor, quantity, orders });
  }
  return levels;
}

/** Kite's order statuses in OpenAlgo's words (an `UPDATE`, a modification or partial fill, is still open). */
const KITE_STATUS: Readonly<Record<string, string>> = {
  OPEN: 'open',
  UPDATE: 'open',
  COMPLETE: 'complete',
  CANCELLED: 'cancelled',
  REJECTED: 'rejected',
  'TRIGGER PENDING': 'trigger pending',
};

/**
 * A Kite order postback (Kite Connect "Postbacks": order_id, status, status_message, exchange,
 * tradingsymbol, instrument_token, transaction_type, order_type, product, quantity, price,
 * trigger_price, average_price, filled_quantity, pending_quantity) as a {@link BrokerOrderUpdate};
 * undefined when the fields that name the order are missing.
 */
export function kiteOrderUpdate(data: unknown): BrokerOrderUpdate | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const d = data as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  const orderid = str(d.order_id);
  const status = str(d.status).toUpperCase();
  if (!orderid || !status || !str(d.tradingsymbol)) return undefined;
  const orderStatus = KITE_STATUS[status] ?? status.toLowerCase();
  return {
    orderid,
    token: str(d.instrument_token),
    brsymbol: str(d.tradingsymbol),
    brexchange: str(d.exchange),
    action: str(d.transaction_type),
    quantity: num(d.quantity),
    price: num(d.price),
    trigger_price: num(d.trigger_price),
    pricetype: str(d.order_type),
    product: str(d.product),
    order_status: orderStatus,
    filled_quantity: num(d.filled_quantity),
    pending_quantity: num(d.pending_quantity),
    average_price: num(d.average_price),
    rejection_reason: orderStatus === 'rejected' ? str(d.status_message) : '',
  };
}

/**
 * OpenAlgo's orderstatus answer. As OpenAlgo answers it, from the day's order book
 * ({@link orderStatusFromBook}: the adapter's book row, its symbol mapped to algodesk's by the
 * broker's instrument file); when the book does not list the order, from the order record the
 * broker returns ({@link orderStatusOf}: Kite's last history entry, Upstox's order details, the
 * fields both name alike, Upstox's segment mapped to the exchange and its product codes to
 * OpenAlgo's).
 */
import type { BookOrder } from '../brokers/broker-adapter.js';
import type { Mapped } from '../brokers/live-book-format.js';
import { UPSTOX_SEGMENTS } from '../brokers/upstox/upstox.books.js';

/** OpenAlgo's orderstatus fields from an order book row, in algodesk's symbol and exchange. */
export function orderStatusFromBook(o: Mapped<BookOrder>): Record<string, unknown> {
  return {
    orderid: o.orderid,
    symbol: o.symbol,
    exchange: o.exchange,
    action: o.action,
    quantity: o.quantity,
    price: o.price,
    trigger_price: o.trigger_price,
    pricetype: o.pricetype,
    product: o.product,
    order_status: o.order_status,
    average_price: o.average_price,
    filled_quantity: o.filled_quantity,
    pending_quantity: o.pending_quantity,
    rejection_reason: o.rejection_reason,
    timestamp: o.timestamp,
    strategy: o.strategy,
  };
}

const KNOWN_STATUSES: Record<string, string> = {
  COMPLETE: 'complete',
  OPEN: 'open',
  CANCELLED: 'cancelled',
  REJECTED: 'rejected',
  'TRIGGER PENDING': 'trigger pending',
};

/** OpenAlgo's orderstatus fields from a Kite or Upstox order record (they share most names). */
export function orderStatusOf(orderid: string, raw: unknown): Record<string, unknown> {
  const r = (Array.isArray(raw) ? raw[raw.length - 1] : raw) as Record<string, unknown> | null;
  const rec = r ?? {};
  const str = (v: unknown) => (v === undefined || v === null ? '' : String(v));
  const num = (v: unknown) => (typeof v === 'number' ? v : Number(v) || 0);
  const status = str(rec.status).toUpperCase();
  const product = str(rec.product);
  return {
    orderid,
    symbol: str(rec.tradingsymbol ?? rec.trading_symbol),
    exchange: UPSTOX_SEGMENTS[str(rec.exchange)] ?? str(rec.exchange),
    action: str(rec.transaction_type),
    quantity: num(rec.quantity),
    price: num(rec.price),
    trigger_price: num(rec.trigger_price),
    pricetype: str(rec.order_type),
    product: product === 'D' ? 'CNC' : product === 'I' ? 'MIS' : product,
    order_status: KNOWN_STATUSES[status] ?? status.toLowerCase(),
    average_price: num(rec.average_price),
    filled_quantity: num(rec.filled_quantity),
    pending_quantity: num(rec.pending_quantity),
    rejection_reason: str(rec.status_message),
    timestamp: str(rec.order_timestamp ?? rec.exchange_timestamp),
    strategy: str(rec.tag),
  };
}

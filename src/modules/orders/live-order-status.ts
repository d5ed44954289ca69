/**
 * OpenAlgo's orderstatus answer from the order record a live broker returns (Kite's last history
 * entry or Upstox's order details): the fields both brokers name alike, Upstox's segment mapped to
 * the exchange (Kite already reports the exchange) and its product codes to OpenAlgo's.
 */
import { UPSTOX_SEGMENTS } from '../brokers/upstox/upstox.books.js';

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

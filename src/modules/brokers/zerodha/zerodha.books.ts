/**
 * Kite Connect v3 books → the broker contract's neutral rows, as OpenAlgo's
 * broker/zerodha/mapping/order_data.py and broker/zerodha/api/funds.py read them:
 *
 * - `GET /orders` (kite.trade/docs/connect/v3/orders): each order's current record; `price` is 0
 *   for MARKET and SL-M (OpenAlgo forces it), the status in OpenAlgo's words;
 * - `GET /trades`: `trade_id`, `order_id`, `average_price`, `fill_timestamp`;
 * - `GET /portfolio/positions` (kite.trade/docs/connect/v3/portfolio): the `net` positions;
 * - `GET /portfolio/holdings`: quantity is `quantity + t1_quantity` (shares bought yesterday and
 *   not yet delivered are held);
 * - `GET /user/margins` (kite.trade/docs/connect/v3/user): equity and commodity summed —
 *   `net` is the cash available, `available.collateral`, `utilised.debits`,
 *   `utilised.m2m_realised` and `m2m_unrealised`.
 *
 * Kite's `exchange` is already the exchange algodesk uses (NSE, NFO, CDS, …).
 */
import type { BookFunds, BookHolding, BookOrder, BookPosition, BookTrade } from '../broker-adapter.js';
import {
  action,
  holdingRow,
  positionRow,
  isRec,
  num,
  orderStatus,
  priceType,
  product,
  records,
  str,
  type Rec,
} from '../http/book-fields.js';
import { hasLimitPrice, hasTriggerPrice } from '../../../domain/orders.js';

const instrument = (r: Rec) => ({
  brsymbol: str(r.tradingsymbol),
  exchange: str(r.exchange),
  brexchange: str(r.exchange),
  token: r.instrument_token === undefined || r.instrument_token === null ? '' : str(r.instrument_token),
});

/** The tag of a Kite order: `tag`, else the first of `tags`. */
const tagOf = (r: Rec) => str(r.tag, Array.isArray(r.tags) ? r.tags[0] : undefined);

export function kiteOrders(data: unknown): BookOrder[] {
  return records(data).map((r) => {
    const i = instrument(r);
    const pricetype = priceType(r.order_type);
    const status = orderStatus(r.status);
    const quantity = num(r.quantity);
    const filled = num(r.filled_quantity);
    return {
      ...i,
      orderid: str(r.order_id),
      action: action(r.transaction_type),
      quantity,
      price: hasLimitPrice(pricetype) ? num(r.price) : 0,
      trigger_price: hasTriggerPrice(pricetype) ? num(r.trigger_price) : 0,
      pricetype,
      product: product(r.product, i.exchange),
      order_status: status,
      average_price: num(r.average_price),
      filled_quantity: filled,
      pending_quantity: status === 'open' || status === 'trigger pending' ? num(r.pending_quantity) : 0,
      rejection_reason: status === 'rejected' || status === 'cancelled' ? str(r.status_message) : '',
      timestamp: str(r.order_timestamp, r.exchange_timestamp),
      strategy: tagOf(r),
    };
  });
}

export function kiteTrades(data: unknown): BookTrade[] {
  return records(data).map((r) => {
    const i = instrument(r);
    return {
      ...i,
      tradeid: str(r.trade_id),
      orderid: str(r.order_id),
      action: action(r.transaction_type),
      quantity: num(r.quantity),
      average_price: num(r.average_price),
      product: product(r.product, i.exchange),
      timestamp: str(r.fill_timestamp, r.exchange_timestamp, r.order_timestamp),
      strategy: '',
    };
  });
}

export function kitePositions(data: unknown): BookPosition[] {
  return records(isRec(data) ? data.net : undefined).map((r) => positionRow(r, instrument(r)));
}

export function kiteHoldings(data: unknown): BookHolding[] {
  return records(data).map((r) => holdingRow(r, instrument(r)));
}

export function kiteFunds(data: unknown): BookFunds {
  const segs = isRec(data) ? [data.equity, data.commodity].filter(isRec) : [];
  const sum = (f: (s: Rec) => unknown) => segs.reduce((a, s) => a + num(f(s)), 0);
  const part = (s: Rec, k: 'available' | 'utilised') => (isRec(s[k]) ? (s[k] as Rec) : {});
  return {
    availablecash: sum((s) => s.net),
    collateral: sum((s) => part(s, 'available').collateral),
    m2mrealized: sum((s) => part(s, 'utilised').m2m_realised),
    m2munrealized: sum((s) => part(s, 'utilised').m2m_unrealised),
    utiliseddebits: sum((s) => part(s, 'utilised').debits),
  };
}

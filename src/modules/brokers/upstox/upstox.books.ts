/**
 * Upstox v2 books → the broker contract's neutral rows, as OpenAlgo's
 * broker/upstox/mapping/order_data.py and broker/upstox/api/funds.py read them:
 *
 * - `GET /v2/order/retrieve-all` (upstox.com/developer/api-documentation/get-order-book);
 * - `GET /v2/order/trades/get-trades-for-day` (get-trades-for-day);
 * - `GET /v2/portfolio/short-term-positions` (get-positions);
 * - `GET /v2/portfolio/long-term-holdings` (get-holdings): quantity is `quantity + t1_quantity`;
 * - `GET /v2/user/get-funds-and-margin` (get-user-fund-margin): `available_margin` and
 *   `used_margin` of equity and commodity summed; Upstox reports no collateral there and no M2M,
 *   so the adapter adds the positions' `realised` and `unrealised` (as OpenAlgo does).
 *
 * The exchange is read from the instrument key's segment (`NSE_FO|…` → NFO), the product `D`
 * is CNC on cash exchanges and NRML on derivatives, `I` is MIS.
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

/** Upstox segments → algodesk's exchanges. */
export const UPSTOX_SEGMENTS: Readonly<Record<string, string>> = {
  NSE_EQ: 'NSE',
  BSE_EQ: 'BSE',
  NSE_FO: 'NFO',
  BSE_FO: 'BFO',
  NCD_FO: 'CDS',
  BCD_FO: 'BCD',
  MCX_FO: 'MCX',
  NSE_INDEX: 'NSE_INDEX',
  BSE_INDEX: 'BSE_INDEX',
};

const instrument = (r: Rec) => {
  const token = str(r.instrument_token, r.instrument_key);
  const segment = token.includes('|') ? token.slice(0, token.indexOf('|')) : '';
  const exchange = UPSTOX_SEGMENTS[segment] ?? UPSTOX_SEGMENTS[str(r.exchange)] ?? str(r.exchange);
  return {
    brsymbol: str(r.trading_symbol, r.tradingsymbol),
    exchange,
    brexchange: segment || str(r.exchange),
    token,
  };
};

export function upstoxOrders(data: unknown): BookOrder[] {
  return records(data).map((r) => {
    const i = instrument(r);
    const pricetype = priceType(r.order_type);
    const status = orderStatus(r.status);
    return {
      ...i,
      orderid: str(r.order_id),
      action: action(r.transaction_type),
      quantity: num(r.quantity),
      price: hasLimitPrice(pricetype) ? num(r.price) : 0,
      trigger_price: hasTriggerPrice(pricetype) ? num(r.trigger_price) : 0,
      pricetype,
      product: product(r.product, i.exchange),
      order_status: status,
      average_price: num(r.average_price),
      filled_quantity: num(r.filled_quantity),
      pending_quantity: status === 'open' || status === 'trigger pending' ? num(r.pending_quantity) : 0,
      rejection_reason: status === 'rejected' || status === 'cancelled' ? str(r.status_message) : '',
      timestamp: str(r.order_timestamp, r.exchange_timestamp),
      strategy: str(r.tag),
    };
  });
}

export function upstoxTrades(data: unknown): BookTrade[] {
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
      timestamp: str(r.exchange_timestamp, r.order_timestamp),
      strategy: str(r.tag),
    };
  });
}

export function upstoxPositions(data: unknown): BookPosition[] {
  return records(data).map((r) => positionRow(r, instrument(r)));
}

export function upstoxHoldings(data: unknown): BookHolding[] {
  return records(data).map((r) => holdingRow(r, instrument(r)));
}

/** Funds from the margin answer, with M2M from the day's positions. */
export function upstoxFunds(data: unknown, positions: readonly BookPosition[]): BookFunds {
  const segs = isRec(data) ? [data.equity, data.commodity].filter(isRec) : [];
  const sum = (k: string) => segs.reduce((a, s) => a + num(s[k]), 0);
  return {
    availablecash: sum('available_margin'),
    collateral: 0,
    m2mrealized: positions.reduce((a, p) => a + p.realized_pnl, 0),
    m2munrealized: positions.reduce((a, p) => a + p.unrealized_pnl, 0),
    utiliseddebits: sum('used_margin'),
  };
}

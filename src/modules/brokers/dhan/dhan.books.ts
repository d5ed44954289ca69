/**
 * DhanHQ v2 books → the broker contract's neutral rows (dhanhq.co/docs/v2/orders, …/portfolio,
 * …/funds), as OpenAlgo's broker/dhan/mapping/order_data.py and broker/dhan/api/funds.py read
 * them:
 *
 * - `GET /orders`: each order's current record (`orderId`, `correlationId`, `orderStatus`,
 *   `transactionType`, `exchangeSegment`, `productType`, `orderType`, `tradingSymbol`,
 *   `securityId`, `quantity`, `price`, `triggerPrice`, `filledQty`, `remainingQuantity`,
 *   `averageTradedPrice`, `omsErrorDescription`, `createTime`, `updateTime`); statuses
 *   (annexure "Order Status") TRADED → complete, CANCELLED and EXPIRED → cancelled, REJECTED →
 *   rejected, TRANSIT, PENDING and PART_TRADED (still working) → open;
 * - `GET /trades`: `exchangeTradeId`, `orderId`, `tradedQuantity`, `tradedPrice`, `updateTime`;
 * - `GET /positions`: `netQty`, `costPrice` (OpenAlgo's average), `realizedProfit`,
 *   `unrealizedProfit`. Dhan's positions carry no last price: `ltp` is 0;
 * - `GET /holdings`: `totalQty`, `avgCostPrice`; the exchange is `NSE`, `BSE` or `ALL` (read as
 *   NSE, whose security id Dhan reports for a share listed on both); a `lastTradedPrice` is read
 *   when present, else `ltp` and `pnl` are 0. Dhan answers an empty demat with an error ("No
 *   holdings available"), which the adapter reads as no rows;
 * - `GET /fundlimit`: `availabelBalance` (sic; `availableBalance` also read), `collateralAmount`,
 *   `utilizedAmount`; M2M is summed from the positions, as OpenAlgo does.
 *
 * Times are Dhan's `YYYY-MM-DD HH:MM:SS` (IST) as written.
 */
import type {
  BookFunds,
  BookHolding,
  BookOrder,
  BookOrderStatus,
  BookPosition,
  BookTrade,
} from '../broker-adapter.js';
import { action, isRec, num, type Rec, records, sharedOrderRecord, str } from '../http/book-fields.js';
import { hasLimitPrice, hasTriggerPrice } from '../../../domain/orders.js';
import { exchangeOfSegment, priceTypeOf, productOf } from './dhan.mapping.js';

/** The instrument of a Dhan record: its trading symbol, segment and security id. */
const instrument = (r: Rec, segment = str(r.exchangeSegment)) => ({
  brsymbol: str(r.tradingSymbol),
  exchange: exchangeOfSegment(segment),
  brexchange: segment,
  token: str(r.securityId),
});

/** Dhan's order statuses in OpenAlgo's words (unknown and in-flight ones are `open`). */
const STATUS: Readonly<Record<string, BookOrderStatus>> = {
  TRADED: 'complete',
  CANCELLED: 'cancelled',
  EXPIRED: 'cancelled',
  REJECTED: 'rejected',
};

/** OpenAlgo's status of a Dhan order status. */
export function dhanOrderStatus(v: unknown): BookOrderStatus {
  return STATUS[str(v).toUpperCase()] ?? 'open';
}

export function dhanOrders(data: unknown): BookOrder[] {
  return records(data).map((r) => {
    const i = instrument(r);
    const pricetype = priceTypeOf(str(r.orderType));
    const status = dhanOrderStatus(r.orderStatus);
    const working = status === 'open' || status === 'trigger pending';
    return {
      ...i,
      orderid: str(r.orderId),
      action: action(r.transactionType),
      quantity: num(r.quantity),
      price: hasLimitPrice(pricetype) ? num(r.price) : 0,
      trigger_price: hasTriggerPrice(pricetype) ? num(r.triggerPrice) : 0,
      pricetype,
      product: productOf(str(r.productType), i.exchange),
      order_status: status,
      average_price: num(r.averageTradedPrice),
      filled_quantity: num(r.filledQty),
      pending_quantity: working ? num(r.remainingQuantity) : 0,
      rejection_reason: status === 'rejected' || status === 'cancelled' ? str(r.omsErrorDescription) : '',
      timestamp: str(r.updateTime, r.createTime, r.exchangeTime),
      strategy: str(r.correlationId),
    };
  });
}

export function dhanTrades(data: unknown): BookTrade[] {
  return records(data).map((r) => {
    const i = instrument(r);
    return {
      ...i,
      tradeid: str(r.exchangeTradeId),
      orderid: str(r.orderId),
      action: action(r.transactionType),
      quantity: num(r.tradedQuantity),
      average_price: num(r.tradedPrice),
      product: productOf(str(r.productType), i.exchange),
      timestamp: str(r.updateTime, r.exchangeTime, r.createTime),
      strategy: '',
    };
  });
}

export function dhanPositions(data: unknown): BookPosition[] {
  return records(data).map((r) => {
    const i = instrument(r);
    const realized = num(r.realizedProfit);
    const unrealized = num(r.unrealizedProfit);
    return {
      ...i,
      product: productOf(str(r.productType), i.exchange),
      quantity: num(r.netQty),
      average_price: num(r.costPrice),
      ltp: 0,
      pnl: realized + unrealized,
      realized_pnl: realized,
      unrealized_pnl: unrealized,
    };
  });
}

/** A holding's Dhan segment from its `exchange` (`NSE`, `BSE`, or `ALL`: NSE's). */
const holdingSegment = (r: Rec) => (str(r.exchange).toUpperCase() === 'BSE' ? 'BSE_EQ' : 'NSE_EQ');

export function dhanHoldings(data: unknown): BookHolding[] {
  return records(data).map((r) => {
    const quantity = num(r.totalQty);
    const average = num(r.avgCostPrice);
    const ltp = num(r.lastTradedPrice);
    return {
      ...instrument(r, holdingSegment(r)),
      quantity,
      average_price: average,
      ltp,
      pnl: ltp > 0 ? Math.round((ltp - average) * quantity * 100) / 100 : 0,
    };
  });
}

export function dhanFunds(data: unknown, positions: readonly BookPosition[]): BookFunds {
  const d = isRec(data) ? data : {};
  return {
    availablecash: num(d.availabelBalance ?? d.availableBalance),
    collateral: num(d.collateralAmount),
    m2mrealized: positions.reduce((a, p) => a + p.realized_pnl, 0),
    m2munrealized: positions.reduce((a, p) => a + p.unrealized_pnl, 0),
    utiliseddebits: num(d.utilizedAmount),
  };
}

/**
 * A Dhan order record in the field names the Kite and Upstox records share (`order_id`,
 * `tradingsymbol`, `exchange`, `transaction_type`, `status` in Kite's words, `tag`, …), which
 * the orders module's orderstatus reader (orders/live-order-status.ts) takes; Dhan's own record
 * rides along as `dhan`. `orderStatus` and `ordersByTag` answer with these.
 */
export function dhanOrderRecord(r: Rec): Rec {
  const [o] = dhanOrders([r]);
  if (!o) return { dhan: r };
  return { ...sharedOrderRecord(o), dhan: r };
}

/**
 * The sandbox's stored records as the service hands them out: what the read APIs
 * format into OpenAlgo's wire shapes (book-format.ts). Amounts are {@link Money}; times epoch ms.
 */
import type { Money } from './money.js';
import type { Holding, Position } from './positions.js';
import type { OrderRow } from '../store/rows.js';
import type { OrderStatus, PriceType, Product, RestingOrder, Side } from './types.js';

/** One sandbox order. */
export interface OrderRecord {
  /** Order id as clients see it (a decimal string). */
  orderId: string;
  userId: number;
  symbol: string;
  exchange: string;
  side: Side;
  priceType: PriceType;
  product: Product;
  quantity: number;
  /** Limit price (LIMIT, SL), else 0. */
  price: Money;
  /** Trigger price (SL, SL-M), else 0. */
  triggerPrice: Money;
  status: OrderStatus;
  /** Quantity filled so far (0 or the whole quantity: fills are never partial). */
  filledQuantity: number;
  /** Average fill price, 0 until filled. */
  averagePrice: Money;
  /** Why the order was rejected or cancelled by the system; null otherwise. */
  reason: string | null;
  /** The strategy tag of the placeorder request. */
  strategy: string | null;
  createdAt: number;
  updatedAt: number;
}

/** One execution (a fill of an order). */
export interface TradeRecord {
  tradeId: string;
  orderId: string;
  userId: number;
  symbol: string;
  exchange: string;
  side: Side;
  product: Product;
  quantity: number;
  price: Money;
  strategy: string | null;
  createdAt: number;
  /** The fill's charges (docs/rules/sandbox.md#charges-booked). */
  charges: Money;
}

/** A net position with its latest mark (the LTP from the price source, when there is one). */
export interface PositionRecord extends Position {
  userId: number;
  /** Latest LTP known for the instrument; undefined when the price source has none. */
  ltp: Money | undefined;
  updatedAt: number;
}

/** A delivery holding with its latest mark. */
export interface HoldingRecord extends Holding {
  userId: number;
  ltp: Money | undefined;
  updatedAt: number;
}

/** A sandbox account's money. `available` already includes realised P&L. */
export interface AccountRecord {
  userId: number;
  /** What the account started with at its last reset. */
  startingFunds: Money;
  available: Money;
  usedMargin: Money;
  realisedPnl: Money;
  /** Charges every fill since the last reset paid (docs/rules/sandbox.md#charges-booked). */
  charges: Money;
  /** Mark-to-market P&L of the open positions (computed when read). */
  unrealisedPnl: Money;
  /** When the account was last reset (or created). */
  resetAt: number;
}

export function toOrderRecord(r: OrderRow): OrderRecord {
  return {
    orderId: String(r.id),
    userId: r.user_id,
    symbol: r.symbol,
    exchange: r.exchange,
    side: r.side as Side,
    priceType: r.price_type as PriceType,
    product: r.product as Product,
    quantity: r.quantity,
    price: r.price,
    triggerPrice: r.trigger_price,
    status: r.status as OrderStatus,
    filledQuantity: r.filled_quantity,
    averagePrice: r.average_price,
    reason: r.reason,
    strategy: r.strategy,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export function toResting(r: OrderRow): RestingOrder {
  return {
    id: String(r.id),
    symbol: r.symbol,
    exchange: r.exchange,
    side: r.side as Side,
    priceType: r.price_type as PriceType,
    quantity: r.quantity,
    price: r.price,
    triggerPrice: r.trigger_price,
    status: r.status as OrderStatus,
  };
}

/**
 * The rules an order is checked against before it is placed (spec "Order placement rules"),
 * shared by the placeorder route, the Action Center and the pipeline: prices by price type, lot
 * multiples on F&O exchanges, and how a quantity splits into child orders (at most
 * {@link MAX_SPLIT_ORDERS}).
 */
import type { Instrument } from '../market/instrument.js';
import { tryRupeesToMoney } from '../../domain/money.js';
import { FNO_ORDER_EXCHANGES } from '../../domain/exchanges.js';
import {
  hasLimitPrice,
  hasTriggerPrice,
  type Action,
  type PriceType,
  type Product,
} from '../../domain/orders.js';

/** A placeorder request after the schema: fields normalised (upper-case action, defaults applied). */
export interface OrderInput {
  strategy: string;
  symbol: string;
  exchange: string;
  action: Action;
  quantity: number;
  pricetype: PriceType;
  product: Product;
  price: string;
  trigger_price: string;
  disclosed_quantity: string;
  /** An after-market order (LIMIT or SL only): enters the book at the next open. */
  amo?: boolean;
}

/**
 * Most child orders one request may turn into (splitorder, or freeze-quantity splitting), as
 * OpenAlgo caps it: a larger split is refused before anything is sent, so one request can neither
 * flood the broker nor exhaust the server's memory.
 */
export const MAX_SPLIT_ORDERS = 100;
export const TOO_MANY_SPLITS = `Total number of orders would exceed maximum limit of ${MAX_SPLIT_ORDERS}`;

/** Prices by price type: LIMIT needs price > 0, SL price and trigger, SL-M trigger. */
export function checkPrices(o: OrderInput): string | undefined {
  const positive = (v: string) => {
    const m = tryRupeesToMoney(v);
    return m !== undefined && m > 0;
  };
  if (hasLimitPrice(o.pricetype) && !positive(o.price))
    return `price must be greater than 0 for ${o.pricetype} orders`;
  if (hasTriggerPrice(o.pricetype) && !positive(o.trigger_price))
    return `trigger_price must be greater than 0 for ${o.pricetype} orders`;
  // An after-market order waits for the next open at its price: a MARKET one has none to wait at.
  if (o.amo === true && !hasLimitPrice(o.pricetype))
    return `amo orders must be LIMIT or SL: a ${o.pricetype} order has no price to wait at until the open`;
  return undefined;
}

/** F&O quantity must be a whole number of lots. */
export function lotProblem(o: OrderInput, inst: Instrument): string | undefined {
  if (FNO_ORDER_EXCHANGES.has(o.exchange) && inst.lotsize > 1 && o.quantity % inst.lotsize !== 0)
    return `quantity must be a multiple of the lot size ${inst.lotsize}`;
  return undefined;
}

/** How many child orders {@link splitSizes} makes, computed without building them. */
export function splitCount(quantity: number, chunk: number | undefined, lotsize: number): number {
  if (!chunk || quantity <= chunk) return 1;
  const lot = Math.max(1, lotsize);
  return Math.ceil(quantity / Math.max(lot, Math.floor(chunk / lot) * lot));
}

/**
 * Child-order sizes: `quantity` in pieces of at most `chunk`, each a whole number of lots (the
 * chunk rounds down to a lot multiple; a chunk smaller than a lot becomes one lot). No chunk, or
 * a quantity within it: one order.
 */
export function splitSizes(quantity: number, chunk: number | undefined, lotsize: number): number[] {
  if (!chunk || quantity <= chunk) return [quantity];
  const lot = Math.max(1, lotsize);
  const size = Math.max(lot, Math.floor(chunk / lot) * lot);
  const out: number[] = [];
  for (let left = quantity; left > 0; left -= size) out.push(Math.min(size, left));
  return out;
}

/**
 * The sandbox's rules for one order (named apart from orders/order-rules.ts, the rules an order
 * is checked against before it is placed anywhere): placement validation, quote sanity, trigger and
 * fill rules for one order, and the matching pass over many resting orders for one price update.
 * Pure and synchronous: time, positions, holdings and the session phase are arguments.
 */
import { isOnTick, moneyToRupees, tryRupeesToMoney, type Money } from './money.js';
import {
  instrumentKind,
  quoteKey,
  type OrderStatus,
  type PriceType,
  type Product,
  type Quote,
  type RestingOrder,
  type SandboxInstrument,
  type Side,
} from './types.js';
import { hasLimitPrice, hasTriggerPrice, isMarketPriced } from '../../../domain/orders.js';

// ---- Placement validation ----

/** A placeorder request after schema validation; prices in rupees as the client sent them. */
export interface OrderRequest {
  side: Side;
  priceType: PriceType;
  product: Product;
  quantity: number;
  /** Limit price (₹); read for LIMIT and SL only. */
  price?: number | string;
  /** Trigger price (₹); read for SL and SL-M only. */
  triggerPrice?: number | string;
}

/**
 * Where the trading day stands for MIS (computed by the caller from `MarketCalendar`):
 * `after-square-off` once the MIS square-off time has passed.
 */
export type SessionPhase = 'regular' | 'after-square-off';

/** What placement validation needs to know besides the request. */
export interface PlacementContext {
  instrument: SandboxInstrument;
  /** Signed net quantity of the (symbol, exchange, product) position. */
  positionQuantity: number;
  /**
   * CNC SELL only: shares this account may sell — holdings plus a long CNC position, less
   * quantity already committed to open CNC SELL orders. Absent means 0.
   */
  sellableQuantity?: number;
  session: SessionPhase;
}

/** Why an order was rejected: a stable code beside the human-readable reason. */
export type RejectCode =
  'instrument' | 'product' | 'quantity' | 'lot' | 'price' | 'trigger' | 'holdings' | 'square-off';

/** An order that passed validation: prices in {@link Money}, 0 where the price type has none. */
export interface ValidOrder {
  side: Side;
  priceType: PriceType;
  product: Product;
  quantity: number;
  price: Money;
  triggerPrice: Money;
  /** `trigger pending` for SL / SL-M, `open` otherwise (a MARKET order fills at once). */
  status: Extract<OrderStatus, 'open' | 'trigger pending'>;
}

export type Validation = { ok: true; order: ValidOrder } | { ok: false; code: RejectCode; reason: string };

const reject = (code: RejectCode, reason: string): Validation => ({ ok: false, code, reason });

/** A price field read as a positive amount on the tick grid, or the reason it is not. */
function readPrice(value: number | string | undefined, field: string, tick: Money): Money | string {
  const m = value === undefined ? 0 : tryRupeesToMoney(value);
  if (m === undefined) return `${field} must be an amount in rupees`;
  if (m <= 0) return `${field} must be greater than 0`;
  if (tick > 0 && !isOnTick(m, tick))
    return `${field} must be a multiple of the tick size ${moneyToRupees(tick)}`;
  return m;
}

/**
 * Validates a new order (docs/rules/sandbox.md#order-validation), in this order:
 * 1. the instrument is tradable (not an index); CNC only on cash equity (delivery);
 * 2. quantity a positive integer; for futures and options a multiple of the lot size;
 * 3. LIMIT needs a price, SL a price and a trigger, SL-M a trigger, each > 0 and on the tick grid;
 *    an SL BUY's limit is at or above its trigger, an SL SELL's at or below (the order would
 *    otherwise be unfillable once triggered). Prices the type does not use are ignored (as 0);
 * 4. a CNC SELL needs `sellableQuantity` ≥ quantity (holdings or a long position);
 * 5. after the MIS square-off time an MIS order is accepted only when it reduces the position
 *    (opposite side, quantity ≤ |position|); CNC and NRML are not affected by this rule.
 */
export function validateOrder(req: OrderRequest, ctx: PlacementContext): Validation {
  const { instrument } = ctx;
  const kind = instrumentKind(instrument.instrumenttype);
  if (kind === 'index') return reject('instrument', `${instrument.symbol} is an index and cannot be traded`);
  if (req.product === 'CNC' && kind !== 'equity')
    return reject('product', 'CNC is for cash equity; use NRML or MIS for futures and options');

  const q = req.quantity;
  if (!Number.isSafeInteger(q) || q <= 0) return reject('quantity', 'quantity must be a positive integer');
  if (kind !== 'equity' && instrument.lotsize > 0 && q % instrument.lotsize !== 0)
    return reject('lot', `quantity must be a multiple of the lot size ${instrument.lotsize}`);

  const tick = tryRupeesToMoney(instrument.tickSize) ?? 0;
  let price: Money = 0;
  let triggerPrice: Money = 0;
  if (hasLimitPrice(req.priceType)) {
    const p = readPrice(req.price, 'price', tick);
    if (typeof p === 'string') return reject('price', p);
    price = p;
  }
  if (hasTriggerPrice(req.priceType)) {
    const t = readPrice(req.triggerPrice, 'trigger_price', tick);
    if (typeof t === 'string') return reject('trigger', t);
    triggerPrice = t;
  }
  if (req.priceType === 'SL') {
    if (req.side === 'BUY' && price < triggerPrice)
      return reject('price', 'price of an SL BUY must be at or above its trigger_price');
    if (req.side === 'SELL' && price > triggerPrice)
      return reject('price', 'price of an SL SELL must be at or below its trigger_price');
  }

  if (req.product === 'CNC' && req.side === 'SELL' && (ctx.sellableQuantity ?? 0) < q)
    return reject('holdings', `CNC SELL of ${q} exceeds the ${ctx.sellableQuantity ?? 0} shares held`);

  if (ctx.session === 'after-square-off' && req.product === 'MIS') {
    const reduces = (req.side === 'SELL' ? ctx.positionQuantity : -ctx.positionQuantity) >= q;
    if (!reduces)
      return reject(
        'square-off',
        'after the MIS square-off time only orders reducing a position are accepted',
      );
  }

  const status = hasTriggerPrice(req.priceType) ? 'trigger pending' : 'open';
  return {
    ok: true,
    order: {
      side: req.side,
      priceType: req.priceType,
      product: req.product,
      quantity: q,
      price,
      triggerPrice,
      status,
    },
  };
}

// ---- Quotes ----

/** Why a resting order did not fill on a price update. */
export type NoFillReason =
  | 'no quote'
  | 'stale quote'
  | 'quote outside day range'
  | 'no price'
  | 'not resting'
  | 'trigger not reached'
  | 'not marketable';

/** A quote that passed {@link checkQuote}, in {@link Money}; `bid`/`ask` 0 when absent. */
export interface MarketPrices {
  ltp: Money;
  bid: Money;
  ask: Money;
}

/** Feed numbers are not client input: round to the money unit (absorbs float noise). */
const feed = (x: number | undefined): number =>
  x !== undefined && Number.isFinite(x) ? Math.round(x * 10_000) : 0;

/**
 * Whether a quote may fill anything (docs/rules/sandbox.md#stale-quotes): not when it is missing,
 * older than `maxAgeMs` at `now`, without a positive LTP, or when its LTP lies outside its own
 * day's `[low, high]` (a bad print or a quote from another day). A negative or zero bid/ask counts
 * as absent.
 */
export function checkQuote(
  quote: Quote | undefined,
  now: number,
  maxAgeMs: number,
): { ok: true; prices: MarketPrices } | { ok: false; reason: NoFillReason } {
  if (!quote) return { ok: false, reason: 'no quote' };
  if (!Number.isFinite(quote.timestamp) || now - quote.timestamp > maxAgeMs)
    return { ok: false, reason: 'stale quote' };
  const ltp = feed(quote.ltp);
  if (ltp <= 0) return { ok: false, reason: 'no price' };
  if (ltp < feed(quote.low) || ltp > feed(quote.high))
    return { ok: false, reason: 'quote outside day range' };
  return { ok: true, prices: { ltp, bid: Math.max(0, feed(quote.bid)), ask: Math.max(0, feed(quote.ask)) } };
}

/** The price a marketable order of `side` trades at: the ask for a BUY, the bid for a SELL, else the LTP. */
export function executionPrice(side: Side, p: MarketPrices): Money {
  const touch = side === 'BUY' ? p.ask : p.bid;
  return touch > 0 ? touch : p.ltp;
}

/** Stop trigger on the LTP: a BUY stop at LTP ≥ trigger, a SELL stop at LTP ≤ trigger. */
export function isTriggered(side: Side, triggerPrice: Money, ltp: Money): boolean {
  return side === 'BUY' ? ltp >= triggerPrice : ltp <= triggerPrice;
}

/**
 * The price margin is computed at when an order is placed: the execution price for MARKET (needs
 * a checked quote), the limit for LIMIT and SL, the trigger for SL-M.
 */
export function placementPrice(
  order: Pick<ValidOrder, 'side' | 'priceType' | 'price' | 'triggerPrice'>,
  prices: MarketPrices | undefined,
): Money | undefined {
  switch (order.priceType) {
    case 'MARKET':
      return prices ? executionPrice(order.side, prices) : undefined;
    case 'SL-M':
      return order.triggerPrice;
    default:
      return order.price;
  }
}

// ---- Matching ----

/** The outcome for one order on one price update. `triggered` is true when an SL/SL-M triggered now. */
export type MatchResult =
  | { fill: true; price: Money; triggered: boolean }
  | { fill: false; triggered: boolean; reason: NoFillReason };

/**
 * One order against checked prices (docs/rules/sandbox.md#fills):
 * - `trigger pending` (SL, SL-M): waits until {@link isTriggered}; once triggered an SL-M behaves
 *   as MARKET and an SL as LIMIT at its price, in the same step;
 * - MARKET fills at the {@link executionPrice};
 * - LIMIT fills when marketable — BUY when the execution price ≤ limit, SELL when ≥ limit — at the
 *   execution price, which is then the same or better for the order than its limit;
 *   otherwise it rests (`not marketable`).
 * All fills are for the whole quantity.
 */
export function matchPrices(order: RestingOrder, p: MarketPrices): MatchResult {
  let triggered = false;
  if (order.status === 'trigger pending') {
    if (!isTriggered(order.side, order.triggerPrice, p.ltp))
      return { fill: false, triggered: false, reason: 'trigger not reached' };
    triggered = true;
  } else if (order.status !== 'open') return { fill: false, triggered: false, reason: 'not resting' };
  const px = executionPrice(order.side, p);
  if (isMarketPriced(order.priceType)) return { fill: true, price: px, triggered };
  const marketable = order.side === 'BUY' ? px <= order.price : px >= order.price;
  return marketable
    ? { fill: true, price: px, triggered }
    : { fill: false, triggered, reason: 'not marketable' };
}

/** Options of a match: the current instant and the oldest quote that may still fill. */
export interface MatchOptions {
  now: number;
  maxQuoteAgeMs: number;
}

/** One order against a raw quote: {@link checkQuote}, then {@link matchPrices}. */
export function matchOrder(order: RestingOrder, quote: Quote | undefined, opts: MatchOptions): MatchResult {
  const c = checkQuote(quote, opts.now, opts.maxQuoteAgeMs);
  return c.ok ? matchPrices(order, c.prices) : { fill: false, triggered: false, reason: c.reason };
}

/** A fill of a matching pass (whole quantity). */
export interface PassFill {
  orderId: string;
  price: Money;
  quantity: number;
  /** The order was an SL / SL-M that triggered in this pass. */
  triggered: boolean;
}

/** What one price update does to the resting orders. */
export interface PassResult {
  fills: PassFill[];
  /** SL orders that triggered but did not fill: now `open`, resting as LIMIT. */
  triggered: string[];
  /** Orders whose instrument's quote may not fill anything (stale, outside day range, no price). */
  held: { orderId: string; reason: NoFillReason }[];
}

/**
 * The matching pass for one price update (docs/rules/sandbox.md#matching-engine): every resting
 * order whose instrument appears in `quotes` (keyed by {@link quoteKey}) is matched by
 * {@link matchPrices}; orders of instruments absent from the update are left alone. Each quote is
 * checked once; the pass is one loop, O(orders). Orders are visited in the given order, so the
 * caller decides priority (e.g. by placement time).
 */
export function matchPass(
  orders: Iterable<RestingOrder>,
  quotes: ReadonlyMap<string, Quote>,
  opts: MatchOptions,
): PassResult {
  const checked = new Map<string, ReturnType<typeof checkQuote>>();
  const result: PassResult = { fills: [], triggered: [], held: [] };
  for (const order of orders) {
    const key = quoteKey(order.exchange, order.symbol);
    let c = checked.get(key);
    if (c === undefined) {
      const q = quotes.get(key);
      if (q === undefined) continue;
      c = checkQuote(q, opts.now, opts.maxQuoteAgeMs);
      checked.set(key, c);
    }
    matchInto(result, order, c);
  }
  return result;
}

/** Records what one order does against its instrument's checked quote. */
function matchInto(result: PassResult, order: RestingOrder, c: ReturnType<typeof checkQuote>): void {
  if (!c.ok) {
    result.held.push({ orderId: order.id, reason: c.reason });
    return;
  }
  const m = matchPrices(order, c.prices);
  if (m.fill)
    result.fills.push({
      orderId: order.id,
      price: m.price,
      quantity: order.quantity,
      triggered: m.triggered,
    });
  else if (m.triggered) result.triggered.push(order.id);
}

/**
 * The matching pass over orders already grouped by instrument (the engine's book): each group's
 * quote is checked once and its orders matched by {@link matchPrices}, in the given order.
 * Same outcome as {@link matchPass}, without a key per order.
 */
export function matchGroups(
  groups: Iterable<readonly [Quote, Iterable<RestingOrder>]>,
  opts: MatchOptions,
): PassResult {
  const result: PassResult = { fills: [], triggered: [], held: [] };
  for (const [quote, orders] of groups) {
    const c = checkQuote(quote, opts.now, opts.maxQuoteAgeMs);
    for (const order of orders) matchInto(result, order, c);
  }
  return result;
}

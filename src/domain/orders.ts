/**
 * The vocabulary of an order (OpenAlgo's order constants), written once: actions, price types,
 * products, and which prices each price type carries. `src/domain/domain.test.ts` fails when one
 * of these lists is written out anywhere else in `src/`.
 */

/** An order's side (`action`). */
export const ACTIONS = ['BUY', 'SELL'] as const;
export type Action = (typeof ACTIONS)[number];

/** Price types (`pricetype`): market, limit, stop-loss limit, stop-loss market. */
export const PRICE_TYPES = ['MARKET', 'LIMIT', 'SL', 'SL-M'] as const;
export type PriceType = (typeof PRICE_TYPES)[number];

/** Products: delivery (CNC), carry-forward (NRML), intraday (MIS). */
export const PRODUCTS = ['CNC', 'NRML', 'MIS'] as const;
export type Product = (typeof PRODUCTS)[number];

/** A GTT's products: it outlives the day, so delivery and carry-forward only (docs/rules/orders.md#gtt-orders). */
export type GttProduct = Exclude<Product, 'MIS'>;

/** A GTT's price types: the order it places is a limit or a market order. */
export type GttPriceType = Extract<PriceType, 'LIMIT' | 'MARKET'>;

/** Whether an order of this price type carries a limit price (LIMIT, SL). */
export const hasLimitPrice = (t: PriceType): boolean => t === 'LIMIT' || t === 'SL';

/** Whether an order of this price type carries a trigger price (SL, SL-M). */
export const hasTriggerPrice = (t: PriceType): boolean => t === 'SL' || t === 'SL-M';

/** Whether an order of this price type fills at the market once live (MARKET, a triggered SL-M). */
export const isMarketPriced = (t: PriceType): boolean => t === 'MARKET' || t === 'SL-M';

/** The side that closes a signed position (a long is closed by a SELL). */
export const closingAction = (quantity: number): Action => (quantity > 0 ? 'SELL' : 'BUY');

/** The side that opens a signed quantity (positive buys). */
export const openingAction = (quantity: number): Action => (quantity > 0 ? 'BUY' : 'SELL');

/**
 * SmartAPI's margin calculator (smartapi.angelone.in/docs/Margin):
 * `POST /rest/secure/angelbroking/margin/v1/batch` with `{"positions":[{"exchange","qty","price",
 * "productType","token","tradeType","orderType"}]}` (qty and price as numbers, the instrument by
 * its symbol token, products and order types in Angel's words), as OpenAlgo's
 * broker/angel/mapping/margin_data.py sends it. The answer's `data` holds `totalMarginRequired`
 * (the basket with its hedge benefit) and `marginComponents` (`netPremium`, `spanMargin`,
 * `marginBenefit`, `deliveryMargin`). Angel states no exposure figure: `exposure` is 0, as
 * OpenAlgo reports it; `initialTotal` (before the hedge) is the total plus `marginBenefit`.
 *
 * At most {@link ANGEL_MARGIN_MAX} positions a request: a larger basket is refused before
 * anything is sent (a basket's benefit cannot be summed over separate requests).
 */
import type { BasketMargin, BrokerOrder } from '../broker-adapter.js';
import { isRec, num } from '../http/book-fields.js';
import { hasLimitPrice } from '../../../domain/orders.js';
import { ANGEL_ORDER_TYPE, ANGEL_PRODUCT } from './angel.mapping.js';

/** The most positions one margin request carries (as the quote API's 50 instruments). */
export const ANGEL_MARGIN_MAX = 50;

/** The request body: one Angel position per basket leg. */
export function angelMarginBody(orders: readonly BrokerOrder[]): { positions: Record<string, unknown>[] } {
  return {
    positions: orders.map((o) => ({
      exchange: o.brexchange,
      qty: o.quantity,
      price: hasLimitPrice(o.priceType) ? Number(o.price) : 0,
      productType: ANGEL_PRODUCT[o.product],
      token: o.token,
      tradeType: o.side,
      orderType: ANGEL_ORDER_TYPE[o.priceType],
    })),
  };
}

/** The answer's `data` as a {@link BasketMargin} (absent parts read as 0). */
export function angelBasketMargin(data: unknown): BasketMargin {
  const d = isRec(data) ? data : {};
  const parts = isRec(d.marginComponents) ? d.marginComponents : {};
  const total = num(d.totalMarginRequired);
  return {
    total,
    span: num(parts.spanMargin),
    exposure: 0,
    initialTotal: Math.round((total + num(parts.marginBenefit)) * 100) / 100,
  };
}

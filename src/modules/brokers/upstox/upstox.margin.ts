/**
 * Upstox v2's margin calculator (upstox.com/developer/api-documentation/margin):
 * `POST /v2/charges/margin` with `{"instruments":[{instrument_key, quantity, transaction_type,
 * product, price?}]}`, at most {@link UPSTOX_MARGIN_MAX} instruments per request. The answer's
 * `data.margins[]` give each instrument's `span_margin`, `exposure_margin`, `total_margin`;
 * `required_margin` is the basket before the hedge benefit and `final_margin` after it.
 *
 * A basket larger than the limit goes as several requests whose figures are added: the benefit
 * between legs in different requests is then not counted, so the sum can only overstate the
 * margin, never understate it (docs/rules/orders.md#margin-calculator).
 */
import type { BasketMargin, BrokerOrder } from '../broker-adapter.js';
import { isRec, num, records } from '../http/book-fields.js';
import { hasLimitPrice } from '../../../domain/orders.js';
import { UPSTOX_PRODUCT } from './upstox.mapping.js';

/** Upstox's documented limit of instruments per margin request. */
export const UPSTOX_MARGIN_MAX = 20;

/** The request bodies: the basket in slices of at most {@link UPSTOX_MARGIN_MAX}. */
export function upstoxMarginBodies(orders: readonly BrokerOrder[]): Array<{ instruments: unknown[] }> {
  const instruments = orders.map((o) => ({
    instrument_key: o.token,
    quantity: o.quantity,
    transaction_type: o.side,
    product: UPSTOX_PRODUCT[o.product],
    ...(hasLimitPrice(o.priceType) ? { price: Number(o.price) } : {}),
  }));
  const bodies: Array<{ instruments: unknown[] }> = [];
  for (let i = 0; i < instruments.length; i += UPSTOX_MARGIN_MAX)
    bodies.push({ instruments: instruments.slice(i, i + UPSTOX_MARGIN_MAX) });
  return bodies;
}

/** One answer's `data` as a {@link BasketMargin}. */
export function upstoxBasketMargin(data: unknown): BasketMargin {
  const d = isRec(data) ? data : {};
  const margins = records(d.margins);
  return {
    total: num(d.final_margin),
    span: margins.reduce((a, m) => a + num(m.span_margin), 0),
    exposure: margins.reduce((a, m) => a + num(m.exposure_margin), 0),
    initialTotal: num(d.required_margin),
  };
}

/** The figures of several slices added up. */
export function addMargins(parts: readonly BasketMargin[]): BasketMargin {
  return parts.reduce(
    (a, m) => ({
      total: a.total + m.total,
      span: a.span + m.span,
      exposure: a.exposure + m.exposure,
      initialTotal: a.initialTotal + m.initialTotal,
    }),
    { total: 0, span: 0, exposure: 0, initialTotal: 0 },
  );
}

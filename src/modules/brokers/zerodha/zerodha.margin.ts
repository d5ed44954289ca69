/**
 * Kite Connect v3's basket margin calculator (kite.trade/docs/connect/v3/margins):
 * `POST /margins/basket?consider_positions=true` with a JSON array of orders (`exchange`,
 * `tradingsymbol`, `transaction_type`, `variety`, `product`, `order_type`, `quantity`, `price`,
 * `trigger_price`, numbers as numbers). The answer's `initial` is the basket before the spread
 * benefit and `final` after it; each has `span`, `exposure` and `total`. The basket's margin is
 * `final.total`, as OpenAlgo's broker/zerodha/mapping/margin_data.py reads it and Kite's own
 * basket screen shows it.
 */
import type { BasketMargin, BrokerOrder } from '../broker-adapter.js';
import { isRec, num } from '../http/book-fields.js';
import { hasLimitPrice, hasTriggerPrice } from '../../../domain/orders.js';

/** The request body: one Kite order per basket leg. */
export function kiteBasketBody(orders: readonly BrokerOrder[]): Record<string, unknown>[] {
  return orders.map((o) => ({
    exchange: o.brexchange,
    tradingsymbol: o.brsymbol,
    transaction_type: o.side,
    variety: 'regular',
    product: o.product,
    order_type: o.priceType,
    quantity: o.quantity,
    price: hasLimitPrice(o.priceType) ? Number(o.price) : 0,
    trigger_price: hasTriggerPrice(o.priceType) ? Number(o.triggerPrice) : 0,
  }));
}

/** The answer's `data` as a {@link BasketMargin} (absent parts read as 0). */
export function kiteBasketMargin(data: unknown): BasketMargin {
  const part = (k: 'initial' | 'final') => (isRec(data) && isRec(data[k]) ? data[k] : {});
  const initial = part('initial');
  const final = part('final');
  return {
    total: num(final.total),
    span: num(final.span),
    exposure: num(final.exposure),
    initialTotal: num(initial.total),
  };
}

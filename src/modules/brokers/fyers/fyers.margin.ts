/**
 * Fyers API v3's margin calculator (myapi.fyers.in/docsv3 "Multiorder Margin Calculator"):
 * `POST /api/v3/multiorder/margin` with `{"data":[{"symbol","qty","side","type","productType",
 * "limitPrice","stopLoss","stopPrice","takeProfit"}]}` (the order fields of fyers.mapping.ts), as
 * OpenAlgo's broker/fyers/mapping/margin_data.py sends it. The answer's `data` holds
 * `margin_total` ("approximate margin required for the order"), `margin_new_order` (the same
 * with the account's existing positions) and `margin_avail`.
 *
 * `total` is `margin_total`: the basket's own requirement, which the other brokers' figures
 * also are (OpenAlgo reports `margin_new_order`, which counts the positions already held). Fyers
 * states no SPAN/exposure split and no figure before the hedge benefit: `span` and `exposure`
 * are 0, as OpenAlgo reports them, and `initialTotal` equals `total`.
 */
import type { BasketMargin, BrokerOrder } from '../broker-adapter.js';
import { isRec, num } from '../http/book-fields.js';
import { fyersPlaceBody } from './fyers.mapping.js';

/** The request body: each basket leg as the order fields Fyers' calculator takes. */
export function fyersMarginBody(orders: readonly BrokerOrder[]): { data: Record<string, unknown>[] } {
  return {
    data: orders.map((o) => {
      const b = fyersPlaceBody(o);
      return {
        symbol: b.symbol,
        qty: b.qty,
        side: b.side,
        type: b.type,
        productType: b.productType,
        limitPrice: b.limitPrice,
        stopLoss: 0,
        stopPrice: b.stopPrice,
        takeProfit: 0,
      };
    }),
  };
}

/** The answer (its `data`, or the body holding it) as a {@link BasketMargin}. */
export function fyersBasketMargin(body: unknown): BasketMargin {
  const d = isRec(body) && isRec(body.data) ? body.data : isRec(body) ? body : {};
  const total = num(d.margin_total);
  return { total, span: 0, exposure: 0, initialTotal: total };
}

/**
 * DhanHQ v2's margin calculator (dhanhq.co/docs/v2/funds): `POST /margincalculator` takes ONE
 * order (`dhanClientId`, `exchangeSegment`, `transactionType`, `quantity`, `productType`,
 * `securityId`, `price`, `triggerPrice` for stop-loss orders) and answers `totalMargin`,
 * `spanMargin`, `exposureMargin`, `availableBalance`, `variableMargin`, `insufficientBalance`,
 * `brokerage`, `leverage`.
 *
 * A basket is asked leg by leg and the figures are added, as OpenAlgo's
 * broker/dhan/api/margin_api.py does: no hedge benefit between legs is counted, so the sum can
 * only overstate the margin, never understate it (docs/rules/orders.md#margin-calculator);
 * `initialTotal` equals `total`. Dhan also documents `POST /margincalculator/multi`, but its own
 * pages name the request's list two ways (`scripts`, `scripList`) and its answer has no
 * before-benefit figure, so it is not used until that is settled against the real API.
 * A MARKET or SL-M leg goes with price 0 (the order has none), as OpenAlgo sends it.
 */
import type { BasketMargin, BrokerOrder } from '../broker-adapter.js';
import { isRec, num } from '../http/book-fields.js';
import { hasLimitPrice, hasTriggerPrice } from '../../../domain/orders.js';
import { DHAN_PRODUCT } from './dhan.mapping.js';

/** The request body of one leg. */
export function dhanMarginBody(o: BrokerOrder, clientId: string): Record<string, unknown> {
  return {
    dhanClientId: clientId,
    exchangeSegment: o.brexchange,
    transactionType: o.side,
    quantity: o.quantity,
    productType: DHAN_PRODUCT[o.product],
    securityId: o.token,
    price: hasLimitPrice(o.priceType) ? Number(o.price) : 0,
    ...(hasTriggerPrice(o.priceType) ? { triggerPrice: Number(o.triggerPrice) } : {}),
  };
}

/** One leg's answer as a {@link BasketMargin} (no benefit: initial = total). */
export function dhanLegMargin(data: unknown): BasketMargin {
  const d = isRec(data) ? data : {};
  const total = num(d.totalMargin);
  return { total, span: num(d.spanMargin), exposure: num(d.exposureMargin), initialTotal: total };
}

/** The legs' figures added up. */
export function addDhanMargins(parts: readonly BasketMargin[]): BasketMargin {
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

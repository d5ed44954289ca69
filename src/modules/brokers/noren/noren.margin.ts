/**
 * Noren's basket margin calculator, `POST <base>/GetBasketMargin` (OpenAlgo
 * broker/flattrade/api/margin_api.py and mapping/margin_data.py; Shoonya serves the same
 * endpoint): the first leg's order fields at the top level of jData (`exch`, `tsym`, `qty`, `prc`,
 * `trgprc`, `prd`, `trantype`, `prctyp`) beside `uid` and `actid`, the other legs in
 * `basketlists[]` with the same fields. The answer is `{"stat":"Ok","marginused","marginusedtrade"}`:
 * `marginused` is the basket's total margin, `marginusedtrade` the account's margin after the
 * trade; no SPAN or exposure split is given, so both are 0 and `initialTotal` is the total, as
 * OpenAlgo reports it.
 *
 * OpenAlgo notes that the calculator takes LMT/SL-LMT with a non-zero price only and rewrites
 * MARKET legs into protected limits from a fresh quote; here legs go as the order would (MKT with
 * price 0), and a refusal comes back with Noren's message.
 */
import type { BasketMargin, BrokerOrder } from '../broker-adapter.js';
import { isRec, num } from '../http/book-fields.js';
import { norenPlaceData, type NorenData } from './noren.mapping.js';

/** The most legs one request carries (none is documented; the Angel calculator's 50). */
export const NOREN_MARGIN_MAX = 50;

/** One leg's order fields, as `PlaceOrder` would carry them. */
function leg(order: BrokerOrder, uid: string): NorenData {
  const d = norenPlaceData(order, uid);
  return {
    exch: d.exch,
    tsym: d.tsym,
    qty: d.qty,
    prc: d.prc,
    trgprc: d.trgprc,
    prd: d.prd,
    trantype: d.trantype,
    prctyp: d.prctyp,
  };
}

/** The jData of GetBasketMargin for a non-empty basket. */
export function norenMarginData(orders: readonly BrokerOrder[], uid: string): NorenData {
  const [first, ...rest] = orders;
  return { uid, actid: uid, ...leg(first!, uid), basketlists: rest.map((o) => leg(o, uid)) };
}

/** The answer as a {@link BasketMargin}. */
export function norenBasketMargin(data: unknown): BasketMargin {
  const d = isRec(data) ? data : {};
  const total = num(d.marginused);
  return { total, span: 0, exposure: 0, initialTotal: total };
}

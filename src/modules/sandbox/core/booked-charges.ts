/**
 * What a sandbox fill books in charges (docs/rules/sandbox.md#charges-booked): the contract
 * note's charges of src/domain/charges.ts for the order's exchange, product and kind of
 * instrument, under the configured brokerage plan, at the rates in force when it filled. A fill
 * on an exchange without rates (NCO) books none rather than failing the fill.
 */
import {
  chargeSegmentOf,
  chargesOf,
  exerciseChargesOf,
  NO_CHARGES,
  type BrokeragePlan,
  type Charges,
} from '../../../domain/charges.js';
import type { Money } from './money.js';
import type { InstrumentKind, Side } from './types.js';

/** The instrument type charges are keyed by, per kind (a CE and a PE pay alike). */
const TYPE_OF_KIND: Readonly<Record<string, string>> = { equity: 'EQ', future: 'FUT', option: 'CE' };

/** The order fields a fill's charges depend on. */
export interface ChargedOrder {
  exchange: string;
  product: string;
  kind: string;
  side: string;
  quantity: number;
}

function chargeable(order: ChargedOrder, price: Money, at: number) {
  return {
    exchange: order.exchange,
    product: order.product,
    instrumentType: TYPE_OF_KIND[order.kind as InstrumentKind] ?? '',
    side: order.side as Side,
    quantity: order.quantity,
    price,
    at,
  };
}

/** The charges of `order` filled whole at `price` at `at` (epoch ms): one executed order. */
export function fillCharges(
  order: ChargedOrder,
  price: Money,
  at: number,
  plan: Readonly<BrokeragePlan>,
): Charges {
  const fill = chargeable(order, price, at);
  if (chargeSegmentOf(fill.exchange, fill.product, fill.instrumentType) === undefined)
    return { ...NO_CHARGES };
  return chargesOf(fill, plan);
}

/** The charges of an expiry settlement's closing trade (docs/rules/sandbox.md#expiry-settlement). */
export function settlementCharges(order: ChargedOrder, price: Money, at: number): Charges {
  return exerciseChargesOf(chargeable(order, price, at));
}

/** A {@link Charges} as the trade row's columns. */
export function chargeColumns(c: Charges) {
  return {
    brokerage: c.brokerage,
    stt: c.stt,
    exchange_charges: c.exchange,
    sebi_fee: c.sebi,
    stamp_duty: c.stamp,
    gst: c.gst,
    charges: c.total,
  };
}

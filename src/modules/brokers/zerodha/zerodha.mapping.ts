/**
 * algodesk order → Kite Connect v3 regular-order fields (kite.trade/docs/connect/v3/orders),
 * as OpenAlgo's broker/zerodha/mapping/transform_data.py maps them: the master contract's
 * trading symbol and exchange, price type and product unchanged (MARKET/LIMIT/SL/SL-M,
 * CNC/NRML/MIS), validity DAY.
 *
 * Where this differs from OpenAlgo:
 * - `market_protection=-1` (Kite's automatic protection) goes with MARKET and SL-M orders only,
 *   on place and modify: Kite refuses those order types over the API without it ("Market orders
 *   without market protection are not allowed via API"), and it means nothing to LIMIT/SL.
 *   OpenAlgo sends it on every placement and never on a modification.
 * - The price of MARKET/SL-M and the trigger of MARKET/LIMIT are sent as 0, whatever came in
 *   (OpenAlgo's Upstox mapping does this; its Kite mapping passes them through).
 * - `tag` is the strategy's tag cut to Kite's 20 characters (Kite rejects longer tags rather than
 *   truncating them); OpenAlgo always sends `openalgo`. No tag, no field.
 */
import type { BrokerOrder } from '../broker-adapter.js';
import { hasLimitPrice, hasTriggerPrice, isMarketPriced } from '../../../domain/orders.js';

/** Kite's longest order tag. */
export const KITE_TAG_MAX = 20;

/** Fields of a Kite form body (undefined fields are left out). */
export type KiteForm = Record<string, string | number | undefined>;

/** The strategy tag as Kite takes it: trimmed, at most 20 characters; undefined when empty. */
export function kiteTag(tag: string | undefined): string | undefined {
  const t = tag?.trim().slice(0, KITE_TAG_MAX);
  return t ? t : undefined;
}

/** Price, trigger and market protection for the order's price type. */
function priceFields(order: BrokerOrder): KiteForm {
  const t = order.priceType;
  return {
    price: hasLimitPrice(t) ? order.price : '0',
    trigger_price: hasTriggerPrice(t) ? order.triggerPrice : '0',
    market_protection: isMarketPriced(t) ? '-1' : undefined,
  };
}

/** The form of `POST /orders/regular`. */
export function kitePlaceForm(order: BrokerOrder): KiteForm {
  const { price, trigger_price, market_protection } = priceFields(order);
  return {
    tradingsymbol: order.brsymbol,
    exchange: order.brexchange,
    transaction_type: order.side,
    order_type: order.priceType,
    quantity: order.quantity,
    product: order.product,
    price,
    trigger_price,
    disclosed_quantity: order.disclosedQuantity,
    validity: 'DAY',
    market_protection,
    tag: kiteTag(order.tag),
  };
}

/** The form of `PUT /orders/regular/:order_id` (the fields Kite lets a regular order change). */
export function kiteModifyForm(order: BrokerOrder): KiteForm {
  const { price, trigger_price, market_protection } = priceFields(order);
  return {
    order_type: order.priceType,
    quantity: order.quantity,
    price,
    trigger_price,
    disclosed_quantity: order.disclosedQuantity,
    validity: 'DAY',
    market_protection,
  };
}

/** Kite's error body (kite.trade/docs/connect/v3/exceptions): `message` and `error_type`. */
export function readKiteError(json: unknown): { code?: string; message?: string } {
  const body = json as { message?: unknown; error_type?: unknown };
  return {
    code: typeof body.error_type === 'string' && body.error_type !== '' ? body.error_type : undefined,
    message: typeof body.message === 'string' && body.message !== '' ? body.message : undefined,
  };
}

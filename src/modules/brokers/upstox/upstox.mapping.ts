/**
 * algodesk order → Upstox v2 order bodies (upstox.com/developer/api-documentation/place-order,
 * modify-order), as OpenAlgo's broker/upstox/mapping/transform_data.py maps them: product
 * CNC → D, NRML → D (Upstox has no NRML; carry-forward F&O is D), MIS → I; the instrument is the
 * master contract's instrument key (`NSE_EQ|INE062A01020`); validity DAY; `is_amo` only for an after-market order; the
 * price of MARKET/SL-M and the trigger of MARKET/LIMIT are 0 (Upstox refuses a price it does
 * not need: UDAPI1040 "Price not required").
 *
 * Where this differs from OpenAlgo: numbers go as JSON numbers, as the documentation types them
 * (OpenAlgo sends strings); `tag` is the strategy's tag, omitted when there is none (OpenAlgo
 * always sends `openalgo`); a modification leaves `disclosed_quantity` out when it is 0 ("If
 * provided, this value must be non-zero").
 */
import type { BrokerOrder } from '../broker-adapter.js';
import { hasLimitPrice, hasTriggerPrice } from '../../../domain/orders.js';

/** Upstox's product codes. */
export const UPSTOX_PRODUCT: Readonly<Record<BrokerOrder['product'], 'D' | 'I'>> = {
  CNC: 'D',
  NRML: 'D',
  MIS: 'I',
};

/** Price and trigger, zero where the price type has none. */
function prices(order: BrokerOrder): { price: number; trigger_price: number } {
  const t = order.priceType;
  return {
    price: hasLimitPrice(t) ? Number(order.price) : 0,
    trigger_price: hasTriggerPrice(t) ? Number(order.triggerPrice) : 0,
  };
}

/** The body of `POST /v2/order/place`, fields in the documented order. */
export function upstoxPlaceBody(order: BrokerOrder): Record<string, unknown> {
  const { price, trigger_price } = prices(order);
  const tag = order.tag?.trim();
  return {
    quantity: order.quantity,
    product: UPSTOX_PRODUCT[order.product],
    validity: 'DAY',
    price,
    ...(tag ? { tag } : {}),
    instrument_token: order.token,
    order_type: order.priceType,
    transaction_type: order.side,
    disclosed_quantity: order.disclosedQuantity,
    trigger_price,
    is_amo: order.amo === true,
  };
}

/** The body of `PUT /v2/order/modify`. */
export function upstoxModifyBody(orderId: string, order: BrokerOrder): Record<string, unknown> {
  const { price, trigger_price } = prices(order);
  return {
    quantity: order.quantity,
    validity: 'DAY',
    price,
    order_id: orderId,
    order_type: order.priceType,
    ...(order.disclosedQuantity > 0 ? { disclosed_quantity: order.disclosedQuantity } : {}),
    trigger_price,
  };
}

/**
 * Upstox's error body (`{"status":"error","errors":[{"errorCode","message",…}]}`): the code of
 * the first error, and every error as `CODE: message` joined by ` | ` (OpenAlgo's
 * `_extract_error`); a top-level `message` when there is no list.
 */
export function readUpstoxError(json: unknown): { code?: string; message?: string } {
  const body = json as { errors?: unknown; message?: unknown };
  const str = (...vs: unknown[]) => vs.find((v): v is string => typeof v === 'string' && v !== '');
  const parts: string[] = [];
  let code: string | undefined;
  if (Array.isArray(body.errors))
    for (const e of body.errors as unknown[]) {
      if (typeof e !== 'object' || e === null) continue;
      const r = e as Record<string, unknown>;
      const c = str(r.errorCode, r.error_code);
      const m = str(r.message) ?? 'Unknown error';
      code ??= c;
      parts.push(c ? `${c}: ${m}` : m);
    }
  return { code, message: parts.length > 0 ? parts.join(' | ') : str(body.message) };
}

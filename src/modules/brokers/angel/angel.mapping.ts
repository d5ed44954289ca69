/**
 * algodesk order → Angel One SmartAPI order bodies (smartapi.angelone.in/docs/Orders), and the
 * reading of SmartAPI's answer envelope, as OpenAlgo's broker/angel/mapping/transform_data.py and
 * broker/angel/api/order_api.py use them:
 *
 * - products: CNC → DELIVERY, MIS → INTRADAY, NRML → CARRYFORWARD;
 * - price types: MARKET, LIMIT, SL → STOPLOSS_LIMIT and SL-M → STOPLOSS_MARKET, the stop-loss
 *   ones with variety STOPLOSS (else NORMAL; an after-market order is variety AMO);
 * - the instrument is the master contract's: `tradingsymbol` = brsymbol (`SBIN-EQ`),
 *   `symboltoken` = token (`3045`), `exchange` = brexchange (`NSE`, `NFO`, …: Angel's `exch_seg`);
 * - every value is a JSON string, as the documented examples send them (`"quantity":"1"`);
 * - `ordertag` carries the strategy tag, cut to Angel's 20 characters (longer tags are refused
 *   with AB4008 since 15 Nov 2024, SmartAPI forum topic 4859); no tag, no field.
 *
 * Where this differs from OpenAlgo: the price of MARKET/SL-M and the trigger of MARKET/LIMIT are
 * sent as "0" whatever came in (as the Zerodha adapter does); `squareoff`/`stoploss` (ROBO-order
 * fields) are not sent; `disclosedquantity` only when positive.
 *
 * The envelope of every SmartAPI answer is `{"status":true|false,"message","errorcode","data"}`,
 * and most refusals come with HTTP 200 and `"status":false` (the gateway's session errors are
 * `{"success":false,"message":"Invalid Token","errorCode":"AG8001","data":""}`):
 * {@link angelErrorStatus} gives such a refusal an HTTP status by its error code.
 */
import type { BrokerOrder } from '../broker-adapter.js';
import { CASH_EXCHANGES } from '../../../domain/exchanges.js';
import { hasLimitPrice, hasTriggerPrice, type PriceType, type Product } from '../../../domain/orders.js';
import { str } from '../http/book-fields.js';

/** Angel's longest order tag. */
export const ANGEL_TAG_MAX = 20;

/** A SmartAPI JSON body (undefined fields are left out by JSON.stringify). */
export type AngelBody = Record<string, string | undefined>;

/** OpenAlgo's product → Angel's `producttype`. */
export const ANGEL_PRODUCT: Readonly<Record<Product, string>> = {
  CNC: 'DELIVERY',
  NRML: 'CARRYFORWARD',
  MIS: 'INTRADAY',
};

/** OpenAlgo's price type → Angel's `ordertype`. */
export const ANGEL_ORDER_TYPE: Readonly<Record<PriceType, string>> = {
  MARKET: 'MARKET',
  LIMIT: 'LIMIT',
  SL: 'STOPLOSS_LIMIT',
  'SL-M': 'STOPLOSS_MARKET',
};

/** The strategy tag as Angel takes it: trimmed, at most 20 characters; undefined when empty. */
export function angelTag(tag: string | undefined): string | undefined {
  const t = tag?.trim().slice(0, ANGEL_TAG_MAX);
  return t ? t : undefined;
}

/** The order's variety: AMO after hours, STOPLOSS for the stop-loss types, else NORMAL. */
export function angelVariety(order: Pick<BrokerOrder, 'priceType' | 'amo'>): string {
  if (order.amo === true) return 'AMO';
  return hasTriggerPrice(order.priceType) ? 'STOPLOSS' : 'NORMAL';
}

/** The fields place and modify share: instrument, type, product, prices, quantity. */
function orderFields(order: BrokerOrder): AngelBody {
  const t = order.priceType;
  return {
    variety: angelVariety(order),
    tradingsymbol: order.brsymbol,
    symboltoken: order.token,
    exchange: order.brexchange,
    ordertype: ANGEL_ORDER_TYPE[t],
    producttype: ANGEL_PRODUCT[order.product],
    duration: 'DAY',
    price: hasLimitPrice(t) ? order.price : '0',
    triggerprice: hasTriggerPrice(t) ? order.triggerPrice : '0',
    quantity: String(order.quantity),
    disclosedquantity: order.disclosedQuantity > 0 ? String(order.disclosedQuantity) : undefined,
  };
}

/** The body of `POST …/order/v1/placeOrder`. */
export function angelPlaceBody(order: BrokerOrder): AngelBody {
  return { ...orderFields(order), transactiontype: order.side, ordertag: angelTag(order.tag) };
}

/** The body of `POST …/order/v1/modifyOrder` (the order id and the fields Angel lets change). */
export function angelModifyBody(orderId: string, order: BrokerOrder): AngelBody {
  return { ...orderFields(order), orderid: orderId };
}

/**
 * The body of `POST …/order/v1/cancelOrder`. The contract's cancel knows only the order id, so
 * the variety is NORMAL, as OpenAlgo sends it for every order (its cancel-all cancels trigger
 * pending orders that way).
 */
export function angelCancelBody(orderId: string): AngelBody {
  return { variety: 'NORMAL', orderid: orderId };
}

/** Angel's `ordertype` → OpenAlgo's price type (an unknown one reads as LIMIT: it has a price). */
export function angelPriceType(v: unknown): PriceType {
  const s = str(v).toUpperCase();
  const found = (Object.keys(ANGEL_ORDER_TYPE) as PriceType[]).find((t) => ANGEL_ORDER_TYPE[t] === s);
  return found ?? 'LIMIT';
}

/**
 * Angel's `producttype` → OpenAlgo's product: DELIVERY is CNC on a cash exchange (NRML on a
 * derivative one, where Angel should not send it), CARRYFORWARD and MARGIN are NRML, INTRADAY
 * (and the bracket/cover BO, CO) MIS.
 */
export function angelProduct(v: unknown, exchange: string): Product {
  const p = str(v).toUpperCase();
  if (p === 'DELIVERY') return CASH_EXCHANGES.has(exchange) ? 'CNC' : 'NRML';
  if (p === 'CARRYFORWARD' || p === 'MARGIN') return 'NRML';
  return 'MIS';
}

/** SmartAPI's error fields: `errorcode` (`errorCode` from the gateway) and `message`. */
export function readAngelError(json: unknown): { code?: string; message?: string } {
  const body = (typeof json === 'object' && json !== null ? json : {}) as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v : undefined);
  return { code: text(body.errorcode) ?? text(body.errorCode), message: text(body.message) };
}

/** Whether an answer body is a SmartAPI success (`"status":true`). */
export function isAngelSuccess(json: unknown): json is { status: true; data?: unknown } {
  return typeof json === 'object' && json !== null && (json as { status?: unknown }).status === true;
}

/**
 * Credential and session errors (docs "Exceptions"): invalid, expired or missing token; invalid or
 * expired refresh token; AMX session expired; client not logged in; wrong client code or PIN
 * (AB1000) or TOTP (AB1050, SmartAPI forum topic 5277).
 */
const SESSION_CODES = new Set([
  'AG8001',
  'AG8002',
  'AG8003',
  'AB8050',
  'AB8051',
  'AB1010',
  'AB1011',
  'AB1000',
  'AB1050',
]);
/** Angel's own failures ("Something Went Wrong", "Internal Error", AMX error, unspecified). */
const BROKER_FAULT_CODES = new Set(['AB1004', 'AB1007', 'AB2000', 'AB2001']);
/** Not found: order, trade, holding, position. */
const NOT_FOUND_CODES = new Set(['AB1013', 'AB1014', 'AB1015', 'AB1016']);

/** The plain-text answer of Angel's rate limiter ("Access denied because of exceeding access rate"). */
export const isAngelRateLimitText = (text: string): boolean => /exceeding access rate/i.test(text);

/**
 * The HTTP status of an Angel refusal that came with HTTP 200: 401 for a credential or session
 * error (log in again), 404 for an unknown order/trade/holding/position, 502 for Angel's own failure (AB1004 and
 * kin: the request may or may not have been carried out), 400 for everything else (the
 * request's fault: invalid variety, symbol, product, tag, quantity, funds, …).
 */
export function angelErrorStatus(code: string | undefined): number {
  if (code === undefined) return 400;
  if (SESSION_CODES.has(code)) return 401;
  if (NOT_FOUND_CODES.has(code)) return 404;
  if (BROKER_FAULT_CODES.has(code)) return 502;
  return 400;
}

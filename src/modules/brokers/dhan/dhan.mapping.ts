/**
 * algodesk order ↔ DhanHQ v2 order fields (dhanhq.co/docs/v2/orders, …/annexure), as OpenAlgo's
 * broker/dhan/mapping/transform_data.py maps them:
 *
 * - the instrument is the master contract's security id (`token`) on Dhan's exchange segment
 *   (`brexchange`: `NSE_EQ`, `NSE_FNO`, …; market/importers/dhan.ts);
 * - products CNC → `CNC`, MIS → `INTRADAY`, NRML → `MARGIN`; price types MARKET and LIMIT as
 *   they are, SL → `STOP_LOSS`, SL-M → `STOP_LOSS_MARKET`; validity `DAY`;
 * - `dhanClientId` is the session's broker user id (the Dhan client id);
 * - `correlationId` carries algodesk's reference (the strategy tag): Dhan takes at most 30
 *   characters of letters, digits, spaces, `_` and `-`, so other characters become `_` and the
 *   rest is cut ({@link dhanTag}); `ordersByTag` compares with the same form.
 *
 * Where this differs from OpenAlgo: numbers go as JSON numbers (the documentation's example
 * writes strings, its parameter table types them as numbers, as OpenAlgo sends them); `price` is
 * sent with every order, 0 for MARKET and SL-M, and `triggerPrice` only for SL and SL-M (OpenAlgo
 * leaves `price` out of a MARKET order); `disclosedQuantity` only when it is above 0; an
 * after-market order sends `afterMarketOrder: true` with `amoTime: "OPEN"` (the documented
 * default moment) where OpenAlgo sends no time.
 */
import type { BrokerOrder } from '../broker-adapter.js';
import {
  hasLimitPrice,
  hasTriggerPrice,
  PRICE_TYPES,
  PRODUCTS,
  type PriceType,
  type Product,
} from '../../../domain/orders.js';
import { CASH_EXCHANGES, INDEX_EXCHANGE_OF } from '../../../domain/exchanges.js';

/** Dhan's longest `correlationId`. */
export const DHAN_TAG_MAX = 30;

/** Dhan's product types by algodesk product. */
export const DHAN_PRODUCT: Readonly<Record<Product, string>> = {
  CNC: 'CNC',
  MIS: 'INTRADAY',
  NRML: 'MARGIN',
};

/** Dhan's order types by algodesk price type. */
export const DHAN_ORDER_TYPE: Readonly<Record<PriceType, string>> = {
  MARKET: 'MARKET',
  LIMIT: 'LIMIT',
  SL: 'STOP_LOSS',
  'SL-M': 'STOP_LOSS_MARKET',
};

const invert = <K extends string>(m: Readonly<Record<K, string>>, keys: readonly K[]) =>
  new Map<string, K>(keys.map((k) => [m[k], k]));
const PRODUCT_OF = invert(DHAN_PRODUCT, PRODUCTS);
const PRICE_TYPE_OF = invert(DHAN_ORDER_TYPE, PRICE_TYPES);

/**
 * Dhan's exchange segments (annexure "Exchange Segment") and algodesk's exchange of each; `IDX_I`
 * holds both exchanges' indices (the security id tells which), read as NSE's index exchange.
 */
export const DHAN_SEGMENT_EXCHANGE: Readonly<Record<string, string>> = {
  NSE_EQ: 'NSE',
  BSE_EQ: 'BSE',
  NSE_FNO: 'NFO',
  BSE_FNO: 'BFO',
  NSE_CURRENCY: 'CDS',
  BSE_CURRENCY: 'BCD',
  MCX_COMM: 'MCX',
  IDX_I: INDEX_EXCHANGE_OF.NSE,
};

/** algodesk's exchange of a Dhan segment; an unknown segment is kept as it came. */
export function exchangeOfSegment(segment: string): string {
  return DHAN_SEGMENT_EXCHANGE[segment] ?? segment;
}

/** algodesk's product of a Dhan product type: MTF is delivery (CNC on cash, NRML on F&O); CO/BO intraday. */
export function productOf(v: string, exchange: string): Product {
  const p = PRODUCT_OF.get(v.toUpperCase());
  if (p) return p;
  if (v.toUpperCase() === 'MTF') return CASH_EXCHANGES.has(exchange) ? 'CNC' : 'NRML';
  return 'MIS';
}

/** algodesk's price type of a Dhan order type; an unknown one is read as LIMIT (it has a price). */
export function priceTypeOf(v: string): PriceType {
  return PRICE_TYPE_OF.get(v.toUpperCase()) ?? 'LIMIT';
}

/** The tag as Dhan's `correlationId` takes it; undefined when empty. */
export function dhanTag(tag: string | undefined): string | undefined {
  const t = tag
    ?.trim()
    .replace(/[^A-Za-z0-9 _-]/g, '_')
    .slice(0, DHAN_TAG_MAX)
    .trim();
  return t ? t : undefined;
}

/** Price (0 without a limit) and, for stop-loss orders, the trigger, as numbers. */
function prices(order: BrokerOrder): { price: number; triggerPrice?: number } {
  const t = order.priceType;
  return {
    price: hasLimitPrice(t) ? Number(order.price) : 0,
    ...(hasTriggerPrice(t) ? { triggerPrice: Number(order.triggerPrice) } : {}),
  };
}

const disclosed = (order: BrokerOrder) =>
  order.disclosedQuantity > 0 ? { disclosedQuantity: order.disclosedQuantity } : {};

/** The body of `POST /orders`, fields in the documented order. */
export function dhanPlaceBody(order: BrokerOrder, clientId: string): Record<string, unknown> {
  const tag = dhanTag(order.tag);
  return {
    dhanClientId: clientId,
    ...(tag ? { correlationId: tag } : {}),
    transactionType: order.side,
    exchangeSegment: order.brexchange,
    productType: DHAN_PRODUCT[order.product],
    orderType: DHAN_ORDER_TYPE[order.priceType],
    validity: 'DAY',
    securityId: order.token,
    quantity: order.quantity,
    ...disclosed(order),
    ...prices(order),
    afterMarketOrder: order.amo === true,
    ...(order.amo === true ? { amoTime: 'OPEN' } : {}),
  };
}

/**
 * The body of `PUT /orders/{order-id}`: the fields Dhan lets a pending order change (order type,
 * quantity, price, trigger, disclosed quantity, validity); `legName` is `ENTRY_LEG` as the
 * documentation's example and OpenAlgo send it (it matters only to CO/BO orders).
 */
export function dhanModifyBody(
  orderId: string,
  order: BrokerOrder,
  clientId: string,
): Record<string, unknown> {
  return {
    dhanClientId: clientId,
    orderId,
    orderType: DHAN_ORDER_TYPE[order.priceType],
    legName: 'ENTRY_LEG',
    quantity: order.quantity,
    ...prices(order),
    ...disclosed(order),
    validity: 'DAY',
  };
}

/**
 * Dhan's error body: `{"errorType","errorCode","errorMessage"}` (docs "Errors"; codes DH-901…910
 * in the annexure's "Trading API Error"). The Data APIs (market quote) may instead answer
 * `{"status":"failed","data":{"<code>":"<message>"}}` with their numeric codes (800…814); both
 * are read.
 */
export function readDhanError(json: unknown): { code?: string; message?: string } {
  if (typeof json !== 'object' || json === null) return {};
  const body = json as Record<string, unknown>;
  const s = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  const code = s(body.errorCode) ?? s(body.internalErrorCode);
  const message = s(body.errorMessage) ?? s(body.internalErrorMessage) ?? s(body.message);
  if (code || message) return { code, message: message && code ? `${code}: ${message}` : message };
  const data = body.data;
  if (body.status === 'failed' && typeof data === 'object' && data !== null) {
    const first = Object.entries(data as Record<string, unknown>)[0];
    if (first && s(first[1])) return { code: first[0], message: `${first[0]}: ${String(first[1])}` };
  }
  return {};
}

/** Whether a parsed body is Dhan's error envelope (a 2xx answer may carry one). */
export function isDhanError(json: unknown): boolean {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return false;
  const body = json as Record<string, unknown>;
  return typeof body.errorCode === 'string' || typeof body.errorType === 'string' || body.status === 'failed';
}

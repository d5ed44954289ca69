/**
 * algodesk order ↔ Fyers API v3 order fields (myapi.fyers.in/docsv3: "Order Placement Guide",
 * "Single Order", "Modify Orders", "Cancel Order", "Orders"), as OpenAlgo's
 * broker/fyers/mapping/transform_data.py maps them:
 *
 * - the instrument is the master contract's Fyers symbol (`brsymbol`: `NSE:SBIN-EQ`,
 *   market/importers/fyers.ts), which every order and data call takes as `symbol`;
 * - `type` 1 LIMIT, 2 MARKET, 3 SL-M (stop), 4 SL (stop-limit); `side` 1 BUY, -1 SELL; products
 *   CNC → `CNC`, MIS → `INTRADAY`, NRML → `MARGIN`; validity `DAY`; an after-market order is
 *   `offlineOrder: true`;
 * - `limitPrice` only for LIMIT and SL, `stopPrice` only for SL and SL-M, else 0 (the guide's
 *   samples); `stopLoss`/`takeProfit` (CO/BO only) are 0;
 * - `orderTag` carries algodesk's reference. The guide ("Order Tag"): alphanumeric only (no
 *   space or special character), 1 to 30 characters, not the client id nor `Untagged`, not for
 *   CO/BO. {@link fyersTag} keeps the letters and digits, cut to 30. The books echo it as
 *   `1:<tag>` (`1:` a user's tag, `2:` one Fyers made, `2:Untagged` none), which
 *   {@link bookTag} strips.
 *
 * Answers are `{"s":"ok"|"error","code","message",…}`; a refusal keeps Fyers' HTTP status, and
 * an `"s":"error"` that came with a 2xx gets one by its code ({@link fyersErrorStatus}: the
 * documented -8/-15/-16/-17 token errors 401, -429 rate limit 429, -51/-53 unknown order or
 * position 404, others 400).
 *
 * Where this differs from OpenAlgo: the tag is the caller's (OpenAlgo sends "openalgo"); a
 * modification sends only the prices its type carries (OpenAlgo always sends `limitPrice`).
 */
import type { BrokerOrder } from '../broker-adapter.js';
import {
  hasLimitPrice,
  hasTriggerPrice,
  PRICE_TYPES,
  PRODUCTS,
  type Action,
  type PriceType,
  type Product,
} from '../../../domain/orders.js';
import { INDEX_EXCHANGE_OF } from '../../../domain/exchanges.js';

/** Fyers' REST origin: trading under `/api/v3`, market data under `/data`. */
export const FYERS_BASE_URL = 'https://api-t1.fyers.in';
/** The trading API's path below the origin. */
export const FYERS_API = '/api/v3';

/** Fyers' longest order tag ("Order Tag": at most 30 characters). */
export const FYERS_TAG_MAX = 30;

/** Fyers' product types by algodesk product. */
export const FYERS_PRODUCT: Readonly<Record<Product, string>> = {
  CNC: 'CNC',
  MIS: 'INTRADAY',
  NRML: 'MARGIN',
};

/** Fyers' order `type` codes by algodesk price type. */
export const FYERS_ORDER_TYPE: Readonly<Record<PriceType, number>> = {
  LIMIT: 1,
  MARKET: 2,
  'SL-M': 3,
  SL: 4,
};

const PRODUCT_OF = new Map<string, Product>(PRODUCTS.map((p) => [FYERS_PRODUCT[p], p]));
const PRICE_TYPE_OF = new Map<number, PriceType>(PRICE_TYPES.map((t) => [FYERS_ORDER_TYPE[t], t]));

/** Fyers' `side` of an action. */
export const fyersSide = (a: Action): number => (a === 'BUY' ? 1 : -1);

/** algodesk's action of a Fyers `side` (-1 sells, anything else buys). */
export const actionOf = (side: unknown): Action => (Number(side) === -1 ? 'SELL' : 'BUY');

/** algodesk's product of a Fyers product type: CO/BO are intraday, MTF is delivery. */
export function productOf(v: unknown): Product {
  const p = String(v ?? '').toUpperCase();
  return PRODUCT_OF.get(p) ?? (p === 'MTF' ? 'CNC' : 'MIS');
}

/** algodesk's price type of a Fyers order `type`; an unknown one is read as LIMIT (it has a price). */
export function priceTypeOf(v: unknown): PriceType {
  return PRICE_TYPE_OF.get(Number(v)) ?? 'LIMIT';
}

/**
 * The segments of Fyers' symbol masters (market/importers/fyers.ts keeps the file name as
 * brexchange) by exchange prefix and segment code (docs "Segment": 10 capital market, 11 equity
 * derivatives, 12 currency, 20 commodity), with algodesk's exchange of each.
 */
const SEGMENTS: Readonly<Record<string, { brexchange: string; exchange: string }>> = {
  'NSE|10': { brexchange: 'NSE_CM', exchange: 'NSE' },
  'NSE|11': { brexchange: 'NSE_FO', exchange: 'NFO' },
  'NSE|12': { brexchange: 'NSE_CD', exchange: 'CDS' },
  'BSE|10': { brexchange: 'BSE_CM', exchange: 'BSE' },
  'BSE|11': { brexchange: 'BSE_FO', exchange: 'BFO' },
  'MCX|20': { brexchange: 'MCX_COM', exchange: 'MCX' },
};

/** The master's segment files that Fyers' data APIs serve (its brexchange values). */
export const FYERS_SEGMENT_FILES: ReadonlySet<string> = new Set(
  Object.values(SEGMENTS).map((s) => s.brexchange),
);

/**
 * A book row's instrument: the Fyers symbol, algodesk's exchange and the segment file named by
 * the symbol's prefix (`NSE:`, `BSE:`, `MCX:`) and the row's `segment` code. The prefix decides
 * over the `exchange` code (the docs' own position sample pairs exchange 10 with an MCX symbol);
 * an index symbol (`-INDEX`) is on the index exchange; an unknown pair keeps the prefix.
 */
export function fyersInstrument(symbol: string, segment: unknown, fyToken: unknown) {
  const prefix = symbol.includes(':') ? symbol.slice(0, symbol.indexOf(':')).toUpperCase() : '';
  const seg = prefix === 'MCX' ? '20' : String(segment ?? '10');
  const known = SEGMENTS[`${prefix}|${seg}`];
  const index = /-INDEX$/.test(symbol) && (prefix === 'NSE' || prefix === 'BSE');
  return {
    brsymbol: symbol,
    exchange: index
      ? prefix === 'NSE'
        ? INDEX_EXCHANGE_OF.NSE
        : INDEX_EXCHANGE_OF.BSE
      : (known?.exchange ?? prefix),
    brexchange: known?.brexchange ?? prefix,
    token: fyToken === undefined || fyToken === null ? '' : String(fyToken),
  };
}

/** The tag as Fyers' `orderTag` takes it (letters and digits, at most 30); undefined when none. */
export function fyersTag(tag: string | undefined): string | undefined {
  const t = (tag ?? '').replace(/[^A-Za-z0-9]/g, '').slice(0, FYERS_TAG_MAX);
  return t === '' || t.toLowerCase() === 'untagged' ? undefined : t;
}

/** A book's `orderTag` without Fyers' `1:`/`2:` prefix; "" for `Untagged` and Fyers' own tags. */
export function bookTag(v: unknown): string {
  const s = typeof v === 'string' ? v : '';
  const m = /^([12]):(.*)$/.exec(s);
  if (!m) return s === 'Untagged' ? '' : s;
  return m[1] === '1' && m[2] !== 'Untagged' ? m[2]! : '';
}

/** The prices of an order by its type (0 where the type has none). */
function prices(order: BrokerOrder): { limitPrice: number; stopPrice: number } {
  return {
    limitPrice: hasLimitPrice(order.priceType) ? Number(order.price) : 0,
    stopPrice: hasTriggerPrice(order.priceType) ? Number(order.triggerPrice) : 0,
  };
}

/** The body of `POST /orders/sync`, fields as the "Single Order" sample orders them. */
export function fyersPlaceBody(order: BrokerOrder): Record<string, unknown> {
  const tag = fyersTag(order.tag);
  return {
    symbol: order.brsymbol,
    qty: order.quantity,
    type: FYERS_ORDER_TYPE[order.priceType],
    side: fyersSide(order.side),
    productType: FYERS_PRODUCT[order.product],
    ...prices(order),
    validity: 'DAY',
    disclosedQty: order.disclosedQuantity > 0 ? order.disclosedQuantity : 0,
    offlineOrder: order.amo === true,
    stopLoss: 0,
    takeProfit: 0,
    ...(tag ? { orderTag: tag } : {}),
  };
}

/**
 * The body of `PATCH /orders/sync` ("Modify Orders": `id` and `type` mandatory, `limitPrice`
 * for limit/stop-limit, `stopPrice` for stop/stop-limit, `qty`, optional `disclosedQty`).
 */
export function fyersModifyBody(orderId: string, order: BrokerOrder): Record<string, unknown> {
  const p = prices(order);
  return {
    id: orderId,
    type: FYERS_ORDER_TYPE[order.priceType],
    qty: order.quantity,
    ...(hasLimitPrice(order.priceType) ? { limitPrice: p.limitPrice } : {}),
    ...(hasTriggerPrice(order.priceType) ? { stopPrice: p.stopPrice } : {}),
    ...(order.disclosedQuantity > 0 ? { disclosedQty: order.disclosedQuantity } : {}),
  };
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Fyers' error body `{"s":"error","code":-50,"message":…}`: its code and message. */
export function readFyersError(json: unknown): { code?: string; message?: string } {
  if (!isRecord(json)) return {};
  const code = typeof json.code === 'number' || typeof json.code === 'string' ? String(json.code) : undefined;
  const message = typeof json.message === 'string' && json.message.trim() !== '' ? json.message : undefined;
  return { code, message };
}

/** Whether a parsed body is a Fyers success (`"s":"ok"`). */
export const isFyersOk = (json: unknown): json is Record<string, unknown> =>
  isRecord(json) && String(json.s).toLowerCase() === 'ok';

/** The HTTP status of a Fyers error code that came with a 2xx (see the file comment). */
export function fyersErrorStatus(code: string | undefined): number {
  switch (code) {
    case '-8':
    case '-15':
    case '-16':
    case '-17':
      return 401;
    case '-429':
      return 429;
    case '-51':
    case '-53':
      return 404;
    default:
      return 400;
  }
}

/**
 * Reading a broker's book records (orders, trades, positions, holdings, funds) into the neutral
 * rows of the broker contract (`BookOrder`, … in broker-adapter.ts). Broker-neutral helpers the
 * Kite and Upstox book mappings share, and {@link readBook}, the step from a `BrokerResult` to a
 * `BookResult`.
 */
import type {
  BookHolding,
  BookOrder,
  BookOrderStatus,
  BookPosition,
  BookResult,
  BrokerResult,
} from '../broker-adapter.js';
import { PRICE_TYPES, type Action, type PriceType, type Product } from '../../../domain/orders.js';
import { CASH_EXCHANGES } from '../../../domain/exchanges.js';

export type Rec = Record<string, unknown>;

export const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The records of a list answer (anything that is not an object is skipped). */
export const records = (v: unknown): Rec[] => (Array.isArray(v) ? v.filter(isRec) : []);

/** A string field ("" when absent or null). */
export const str = (...vs: unknown[]): string => {
  for (const v of vs) if (v !== undefined && v !== null && v !== '') return String(v);
  return '';
};

/** A number field: a JSON number or a numeric string; 0 otherwise. */
export const num = (v: unknown): number => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : 0;
};

/** BUY or SELL in either case; anything else is read as BUY's opposite only when it says so. */
export const action = (v: unknown): Action => (str(v).toUpperCase() === 'SELL' ? 'SELL' : 'BUY');

/** Every price type by its own name, and Kite's `SL-M` spelled without the hyphen. */
const PRICE_TYPE_NAMES: ReadonlyMap<string, PriceType> = new Map<string, PriceType>([
  ...PRICE_TYPES.map((t) => [t, t] as const),
  ['SLM', 'SL-M'],
]);

/** The order type; an unknown one is read as LIMIT (it has a price). */
export const priceType = (v: unknown): PriceType => PRICE_TYPE_NAMES.get(str(v).toUpperCase()) ?? 'LIMIT';

/**
 * A broker's order status in OpenAlgo's five: the final and trigger states by name, every
 * in-flight state (`PUT ORDER REQ RECEIVED`, `VALIDATION PENDING`, `MODIFY PENDING`, `CANCEL
 * PENDING`, `AMO REQ RECEIVED`, …) as `open`, since the order is still working.
 */
export function orderStatus(v: unknown): BookOrderStatus {
  const s = str(v).toLowerCase().replace(/_/g, ' ');
  if (s === 'complete' || s === 'cancelled' || s === 'rejected' || s === 'trigger pending') return s;
  return 'open';
}

/**
 * A product in OpenAlgo's three: CNC, NRML, MIS as they are; delivery-style codes (Upstox `D`,
 * `MTF`) are CNC on cash exchanges and NRML on derivative ones; intraday codes (`I`, `CO`, `BO`)
 * are MIS.
 */
export function product(v: unknown, exchange: string): Product {
  const p = str(v).toUpperCase();
  if (p === 'CNC' || p === 'NRML' || p === 'MIS') return p;
  if (p === 'D' || p === 'MTF') return CASH_EXCHANGES.has(exchange) ? 'CNC' : 'NRML';
  return 'MIS';
}

/** What a list or object answer keeps as `raw` (toBrokerResult's reader for a book). */
export const bookRead = (data: unknown) => ({ list: true, raw: data === undefined ? null : data });

/** A `BrokerResult` of a book call as a {@link BookResult}, its data mapped by `map`. */
export function readBook<T>(r: BrokerResult, map: (raw: unknown) => T): BookResult<T> {
  if (!r.ok)
    return {
      ok: false,
      httpStatus: r.httpStatus >= 400 ? r.httpStatus : 502,
      message: r.message ?? 'The broker refused the request',
      roundTripMs: r.roundTripMs,
    };
  return { ok: true, data: map(r.raw), roundTripMs: r.roundTripMs };
}

/** A row's instrument as a broker names it, mapped to algodesk's exchange. */
type BrokerInstrument = Pick<BookPosition, 'brsymbol' | 'exchange' | 'brexchange' | 'token'>;

/**
 * A net position in the field names Kite and Upstox share (`quantity`, `average_price`,
 * `last_price`, `pnl`, `realised`, `unrealised`).
 */
export const positionRow = (r: Rec, i: BrokerInstrument): BookPosition => ({
  ...i,
  product: product(r.product, i.exchange),
  quantity: num(r.quantity),
  average_price: num(r.average_price),
  ltp: num(r.last_price),
  pnl: num(r.pnl),
  realized_pnl: num(r.realised),
  unrealized_pnl: num(r.unrealised),
});

/**
 * A holding in the field names Kite and Upstox share; its quantity counts the shares bought
 * yesterday and not yet delivered (`t1_quantity`), which are held.
 */
export const holdingRow = (r: Rec, i: BrokerInstrument): BookHolding => ({
  ...i,
  quantity: num(r.quantity) + num(r.t1_quantity),
  average_price: num(r.average_price),
  ltp: num(r.last_price),
  pnl: num(r.pnl),
});

/**
 * An order in the field names the Kite and Upstox records share (`order_id`, `tradingsymbol`,
 * `exchange`, `transaction_type`, `status` in Kite's words, `tag`, …): what the orders module's
 * orderstatus reader (orders/live-order-status.ts) and the strategies' reconciliation read from
 * any broker's `orderStatus` / `ordersByTag` records.
 */
export const sharedOrderRecord = (o: BookOrder): Rec => ({
  order_id: o.orderid,
  tradingsymbol: o.brsymbol,
  exchange: o.exchange,
  transaction_type: o.action,
  quantity: o.quantity,
  price: o.price,
  trigger_price: o.trigger_price,
  order_type: o.pricetype,
  product: o.product,
  status: o.order_status.toUpperCase(),
  average_price: o.average_price,
  filled_quantity: o.filled_quantity,
  pending_quantity: o.pending_quantity,
  status_message: o.rejection_reason,
  order_timestamp: o.timestamp,
  tag: o.strategy,
});

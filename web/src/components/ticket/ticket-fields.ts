/**
 * The order ticket's fields as the placeorder body names them, and the checks the ticket makes
 * before sending (docs/rules/web.md#order-ticket): the products an exchange takes, the lot-size
 * rule, and which of the server's messages go under which field (docs/rules/web.md#field-messages).
 */
import {
  CASH_EXCHANGES,
  DERIVATIVE_EXCHANGES,
  FNO_ORDER_EXCHANGES,
  ORDER_EXCHANGES,
  type OrderExchange,
} from '../../../../src/domain/exchanges';
import { PRODUCTS, type Product } from '../../../../src/domain/orders';
import { ApiError, fieldError } from '../../api/client';

/** The form's fields, as the placeorder body names them. */
const FIELDS = [
  'symbol',
  'exchange',
  'action',
  'quantity',
  'pricetype',
  'price',
  'trigger_price',
  'product',
  'strategy',
] as const;
export type Field = (typeof FIELDS)[number];

/**
 * The products an exchange takes: CNC (delivery) on the cash exchanges, NRML (carry forward) on
 * the derivative exchanges, MIS (intraday) everywhere.
 */
export function productsFor(exchange: string): Product[] {
  return PRODUCTS.filter((p) =>
    p === 'CNC' ? CASH_EXCHANGES.has(exchange) : p === 'NRML' ? DERIVATIVE_EXCHANGES.has(exchange) : true,
  );
}

export const isOrderExchange = (e: string | undefined): e is OrderExchange =>
  e !== undefined && (ORDER_EXCHANGES as readonly string[]).includes(e);

/**
 * The server's messages for a field: the validation object's entries by field, or a sentence that
 * starts with the field's name (`quantity must be a multiple of the lot size 65`).
 */
export function serverError(err: unknown, field: Field): string | undefined {
  const listed = fieldError(err, field);
  if (listed) return listed;
  if (err instanceof ApiError && Object.keys(err.fields).length === 0 && leadingField(err.message) === field)
    return err.message;
  return undefined;
}

function leadingField(message: string): Field | undefined {
  const m = /^([a-z_]+)\b/.exec(message);
  return m && (FIELDS as readonly string[]).includes(m[1]!) ? (m[1] as Field) : undefined;
}

/** Whether every message of an error is shown under a field (no general alert needed). */
export function allUnderFields(err: unknown): boolean {
  if (!(err instanceof ApiError)) return false;
  const keys = Object.keys(err.fields);
  if (keys.length > 0) return keys.every((k) => (FIELDS as readonly string[]).includes(k));
  return leadingField(err.message) !== undefined;
}

export const num = (v: number | string): number | undefined => {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  const t = v.trim();
  return t === '' || !Number.isFinite(Number(t)) ? undefined : Number(t);
};

export const lots = (quantity: number, lotsize: number) => {
  const n = quantity / lotsize;
  return `${n} lot${n === 1 ? '' : 's'}`;
};

/** The lot-size rule of the order pipeline, said before sending (undefined when it holds). */
export function lotSizeProblem(exchange: string, quantity: number, lotsize: number | undefined) {
  if (!lotsize || lotsize <= 1 || !FNO_ORDER_EXCHANGES.has(exchange) || quantity % lotsize === 0) return;
  const lower = Math.floor(quantity / lotsize) * lotsize;
  const near = [lower, lower + lotsize].filter((q) => q > 0).join(' or ');
  return `Quantity must be a multiple of the lot size ${lotsize}: ${near}, for example.`;
}

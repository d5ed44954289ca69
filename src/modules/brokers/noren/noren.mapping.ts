/**
 * The Noren OMS (Kambala's NorenRestApi, github.com/kambalatech/NorenApi-Py README; pypi.org/project/
 * NorenRestApiPy) as two brokers run it: Shoonya (Finvasia, `https://api.shoonya.com/NorenWClientTP`)
 * and Flattrade (Pi Connect, `https://piconnect.flattrade.in/PiConnectTP`). One protocol: every call
 * is `POST <base>/<Endpoint>` with the form body `jData=<json>&jKey=<susertoken>` (no `jKey` on the
 * login), answered `{"stat":"Ok",…}` or `{"stat":"Not_Ok","emsg":"…"}` (HTTP 200 either way), the
 * books as a JSON array of records each with `"stat":"Ok"`.
 *
 * Orders as OpenAlgo's broker/shoonya and broker/flattrade mapping/transform_data.py build them:
 * products CNC → `C`, NRML → `M`, MIS → `I`; price types MARKET → `MKT`, LIMIT → `LMT`, SL →
 * `SL-LMT`, SL-M → `SL-MKT`; sides `B`/`S`; `ret` DAY; `ordersource` API; the instrument by the
 * master contract's `tsym` and `exch`. Where this differs: `trgprc` is sent only for the stop-loss
 * types (the docs: "Only to be sent in case of SL / SL-M order"; Flattrade refuses a LIMIT modify
 * with `trgprc` 0, OpenAlgo's note), the price of MKT/SL-MKT is "0", `remarks` carries algodesk's
 * reference (the docs: "Any tag by user to mark order"; no length is documented, it is sent as
 * given, trimmed), and `amo: "Yes"` marks an after-market order. The whole body is form-encoded, so
 * `M&M-EQ` travels as `M%26M-EQ` (the docs ask for URL encoding of such symbols).
 */
import type { BrokerOrder } from '../broker-adapter.js';
import { CASH_EXCHANGES } from '../../../domain/exchanges.js';
import {
  hasLimitPrice,
  hasTriggerPrice,
  type Action,
  type PriceType,
  type Product,
} from '../../../domain/orders.js';
import { formBody } from '../http/broker-result.js';
import { str } from '../http/book-fields.js';

/** How one Noren broker differs from the other: its name, origin and login. */
export interface NorenVariant {
  /** Broker id (`shoonya`, `flattrade`). */
  name: string;
  /** Broker name for messages. */
  label: string;
  /** The REST base (origin and path) every `POST <Endpoint>` goes below. */
  baseUrl: string;
  /**
   * `quickauth`: a form login (user id, password, TOTP) through `QuickAuth`; `redirect`: a browser
   * login at {@link loginPage} whose request code {@link tokenUrl} exchanges for the token.
   */
  login: 'quickauth' | 'redirect';
  /** The browser login page (`redirect` only). */
  loginPage?: string;
  /** The request-code exchange (`redirect` only). */
  tokenUrl?: string;
}

/** Shoonya (Finvasia): QuickAuth form login (OpenAlgo broker/shoonya/api/auth_api.py). */
export const SHOONYA: NorenVariant = {
  name: 'shoonya',
  label: 'Shoonya',
  baseUrl: 'https://api.shoonya.com/NorenWClientTP',
  login: 'quickauth',
};

/** Flattrade: browser login and request-code exchange (OpenAlgo broker/flattrade/api/auth_api.py). */
export const FLATTRADE: NorenVariant = {
  name: 'flattrade',
  label: 'Flattrade',
  baseUrl: 'https://piconnect.flattrade.in/PiConnectTP',
  login: 'redirect',
  loginPage: 'https://auth.flattrade.in/',
  tokenUrl: 'https://authapi.flattrade.in/trade/apitoken',
};

/** OpenAlgo's product → Noren's `prd`. */
export const NOREN_PRODUCT: Readonly<Record<Product, string>> = { CNC: 'C', NRML: 'M', MIS: 'I' };

/** OpenAlgo's price type → Noren's `prctyp`. */
export const NOREN_PRICE_TYPE: Readonly<Record<PriceType, string>> = {
  MARKET: 'MKT',
  LIMIT: 'LMT',
  SL: 'SL-LMT',
  'SL-M': 'SL-MKT',
};

/** A jData object (undefined fields are left out by JSON.stringify). */
export type NorenData = Record<string, unknown>;

/** The form body of one call: `jData=<json>` and, after login, `&jKey=<token>`. */
export function norenForm(jData: NorenData, jKey?: string): string {
  return formBody({ jData: JSON.stringify(jData), jKey });
}

/** The strategy tag as `remarks` carries it: trimmed; undefined when empty. */
export function norenRemarks(tag: string | undefined): string | undefined {
  const t = tag?.trim();
  return t ? t : undefined;
}

const side = (a: Action) => (a === 'SELL' ? 'S' : 'B');

/** `PlaceOrder`'s jData. */
export function norenPlaceData(order: BrokerOrder, uid: string): NorenData {
  const t = order.priceType;
  return {
    uid,
    actid: uid,
    exch: order.brexchange,
    tsym: order.brsymbol,
    qty: String(order.quantity),
    prc: hasLimitPrice(t) ? order.price : '0',
    trgprc: hasTriggerPrice(t) ? order.triggerPrice : undefined,
    dscqty: String(order.disclosedQuantity),
    prd: NOREN_PRODUCT[order.product],
    trantype: side(order.side),
    prctyp: NOREN_PRICE_TYPE[t],
    ret: 'DAY',
    remarks: norenRemarks(order.tag),
    ordersource: 'API',
    amo: order.amo === true ? 'Yes' : undefined,
  };
}

/** `ModifyOrder`'s jData: the order, and the fields Noren lets change (quantity, type, prices). */
export function norenModifyData(orderId: string, order: BrokerOrder, uid: string): NorenData {
  const t = order.priceType;
  return {
    uid,
    exch: order.brexchange,
    norenordno: orderId,
    tsym: order.brsymbol,
    qty: String(order.quantity),
    prctyp: NOREN_PRICE_TYPE[t],
    prc: hasLimitPrice(t) ? order.price : '0',
    trgprc: hasTriggerPrice(t) ? order.triggerPrice : undefined,
    ret: 'DAY',
  };
}

/** `CancelOrder`'s jData. */
export const norenCancelData = (orderId: string, uid: string): NorenData => ({ uid, norenordno: orderId });

/** Noren's `prctyp` → OpenAlgo's price type (an unknown one reads as LIMIT: it has a price). */
export function norenPriceType(v: unknown): PriceType {
  const s = str(v).toUpperCase();
  const found = (Object.keys(NOREN_PRICE_TYPE) as PriceType[]).find((t) => NOREN_PRICE_TYPE[t] === s);
  return found ?? 'LIMIT';
}

/**
 * Noren's `prd` → OpenAlgo's product: `C` is CNC on a cash exchange (NRML on a derivative one),
 * `M` NRML, `I` and the cover/bracket `H`, `B` MIS (OpenAlgo's order_data.py reads them so).
 */
export function norenProduct(v: unknown, exchange: string): Product {
  const p = str(v).toUpperCase();
  if (p === 'C' || p === 'CNC') return CASH_EXCHANGES.has(exchange) ? 'CNC' : 'NRML';
  if (p === 'M' || p === 'NRML') return 'NRML';
  return 'MIS';
}

/** `B`/`S` (or the words) → OpenAlgo's action. */
export const norenAction = (v: unknown): Action => {
  const s = str(v).toUpperCase();
  return s === 'S' || s === 'SELL' ? 'SELL' : 'BUY';
};

/** Whether a Noren answer is a success (`"stat":"Ok"`, any case). */
export function isNorenOk(json: unknown): boolean {
  return (
    typeof json === 'object' &&
    json !== null &&
    !Array.isArray(json) &&
    str((json as { stat?: unknown }).stat).toLowerCase() === 'ok'
  );
}

/** Noren's error text (`emsg`), when the answer has one. */
export function readNorenError(json: unknown): { code?: string; message?: string } {
  const body = (typeof json === 'object' && json !== null ? json : {}) as Record<string, unknown>;
  const message = typeof body.emsg === 'string' && body.emsg.trim() !== '' ? body.emsg.trim() : undefined;
  return { ...(body.stat !== undefined ? { code: str(body.stat) } : {}), ...(message ? { message } : {}) };
}

/** The "no data" refusal a book answers when it is empty (`Error Occurred : 5 "no data"`). */
export const isNoData = (message: string | undefined): boolean => /no data/i.test(message ?? '');

/**
 * The HTTP status of a `Not_Ok` answer (Noren answers it with HTTP 200): 401 for a session or
 * credential refusal ("Session Expired : Invalid Session Key", "Invalid Input : Wrong Password",
 * a wrong TOTP), 404 for an unknown order ("Rejected : ORA:Order not found"), 504 for "Server
 * Timeout" (the request may have been carried out), 400 for everything else.
 */
export function norenErrorStatus(message: string | undefined): number {
  const m = message ?? '';
  if (/session expired|invalid session|wrong password|invalid (?:otp|totp|user|password|access)/i.test(m))
    return 401;
  if (/not found/i.test(m)) return 404;
  if (/server timeout/i.test(m)) return 504;
  return 400;
}

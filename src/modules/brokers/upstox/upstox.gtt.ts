/**
 * Upstox v3 GTT (upstox.com/developer/api-documentation/place-gtt-order, modify-gtt-order,
 * cancel-gtt-order, get-gtt-order-details) behind the broker contract's {@link BrokerGttApi}, on
 * `https://api.upstox.com` with JSON bodies:
 *
 * - `POST /v3/order/gtt/place` `{type, quantity, product, instrument_token, transaction_type,
 *   rules:[{strategy, trigger_type, trigger_price, market_protection?}]}`;
 * - `PUT /v3/order/gtt/modify` `{type, quantity, gtt_order_id, rules}` (instrument, product and
 *   side cannot change);
 * - `DELETE /v3/order/gtt/cancel` with the JSON body `{gtt_order_id}`;
 * - each answers `{"status":"success","data":{"gtt_order_ids":["GTT-…"]}}` (the first is the id);
 * - `GET /v3/order/gtt` (no id: the whole book) lists GTTs with their rules; a GTT is kept while
 *   a rule is still live (SCHEDULED, PENDING, OPEN, INACTIVE), as OpenAlgo's
 *   broker/upstox/mapping/gtt_data.py keeps it; `created_at`/`expires_at` are epoch microseconds.
 *
 * What algodesk sends: a `single` GTT is `type: SINGLE` with one ENTRY rule whose `trigger_type`
 * is BELOW when the trigger is under the last price, ABOVE when over it, IMMEDIATE when equal;
 * product CNC and NRML are `D`. Upstox has **no limit-price field**: a GTT is placed as a LIMIT
 * at its trigger price, so a LIMIT leg's own price is not sent (the trigger is the limit). A
 * MARKET leg carries `market_protection` {@link UPSTOX_GTT_MARKET_PROTECTION} (2 %, within
 * Upstox's 1..25; the same buffer as Kite's protected limit, zerodha.gtt.ts) on placement only:
 * the documented modify rule has no such field (OpenAlgo strips it there too).
 *
 * A `two-leg` (OCO) GTT is refused: every multi-leg Upstox GTT has a mandatory ENTRY rule that
 * opens a position first, and its TARGET/STOPLOSS exit that position. OpenAlgo maps an OCO to a
 * three-rule GTT whose ENTRY is IMMEDIATE — a market entry the user never asked for; algodesk
 * won't, and says to place two SINGLE GTTs instead.
 *
 * Errors are Upstox's envelope `{"status":"error","errors":[{error_code|errorCode, message,
 * property_path|propertyPath}]}`, read as `CODE: message` (upstox.mapping.ts).
 */
import type {
  BookResult,
  BrokerGtt,
  BrokerGttApi,
  BrokerGttRow,
  BrokerResult,
  BrokerSession,
} from '../broker-adapter.js';
import type { HttpRequest } from '../http/order-transport.js';
import { readOrderId, type ResultSpec } from '../http/broker-result.js';
import {
  action,
  bookRead,
  isRec,
  num,
  product,
  readBook,
  records,
  str,
  type Rec,
} from '../http/book-fields.js';
import { gttShapeError, istStamp, refuse, triggerIdResult } from '../http/broker-gtt.js';
import { UPSTOX_SEGMENTS } from './upstox.books.js';
import { UPSTOX_PRODUCT } from './upstox.mapping.js';

/** The `market_protection` (percent) a MARKET GTT is placed with (Upstox takes 1..25). */
export const UPSTOX_GTT_MARKET_PROTECTION = 2;

/** The refusal of a `two-leg` GTT (see the file comment). */
export const UPSTOX_NO_OCO =
  "Upstox's GTT has no exit-only OCO: every multi-leg Upstox GTT opens a position first. Place two SINGLE GTTs instead.";

/** Rule statuses of a GTT that can still fire or is still working. */
const LIVE_RULES = new Set(['SCHEDULED', 'PENDING', 'OPEN', 'INACTIVE']);

/** The Upstox adapter's authenticated call on api.upstox.com (its private `call`). */
export type UpstoxCall = (
  op: string,
  session: BrokerSession,
  method: HttpRequest['method'],
  path: string,
  json: Record<string, unknown> | undefined,
  read: ResultSpec['read'],
  missing?: string,
) => Promise<BrokerResult>;

/** The ENTRY rule's side of its trigger against the last price. */
export function upstoxTriggerType(trigger: number, lastPrice: number): 'ABOVE' | 'BELOW' | 'IMMEDIATE' {
  return trigger < lastPrice ? 'BELOW' : trigger > lastPrice ? 'ABOVE' : 'IMMEDIATE';
}

/** The one ENTRY rule of a single GTT (`market_protection` only when placing a MARKET one). */
function entryRule(gtt: BrokerGtt, place: boolean): Record<string, unknown> {
  const trigger = gtt.triggers[0]!;
  return {
    strategy: 'ENTRY',
    trigger_type: upstoxTriggerType(trigger, gtt.lastPrice),
    trigger_price: trigger,
    ...(place && gtt.priceType === 'MARKET' ? { market_protection: UPSTOX_GTT_MARKET_PROTECTION } : {}),
  };
}

/** The body of `POST /v3/order/gtt/place`, fields in the documented order. */
export function upstoxGttPlaceBody(gtt: BrokerGtt): Record<string, unknown> {
  return {
    type: 'SINGLE',
    quantity: gtt.quantity,
    product: UPSTOX_PRODUCT[gtt.product],
    instrument_token: gtt.token,
    transaction_type: gtt.action,
    rules: [entryRule(gtt, true)],
  };
}

/** The body of `PUT /v3/order/gtt/modify`. */
export function upstoxGttModifyBody(gttOrderId: string, gtt: BrokerGtt): Record<string, unknown> {
  return { type: 'SINGLE', quantity: gtt.quantity, gtt_order_id: gttOrderId, rules: [entryRule(gtt, false)] };
}

/**
 * An Upstox epoch (microseconds, as documented; milliseconds and seconds are read by their size)
 * as IST `YYYY-MM-DD HH:MM:SS`; '' when absent.
 */
export function upstoxEpoch(v: unknown): string {
  const n = num(v);
  if (n <= 0) return '';
  const ms = n >= 1e14 ? n / 1000 : n >= 1e11 ? n : n * 1000;
  return istStamp(Math.floor(ms));
}

/**
 * The live GTTs of `GET /v3/order/gtt`'s `data` as neutral rows: a SINGLE one's ENTRY rule is its
 * leg; a MULTIPLE one (placed elsewhere, e.g. Upstox Pro) shows its exit rules (TARGET,
 * STOPLOSS), as OpenAlgo shows it, two of them as a `two-leg` row. Legs run by trigger, ascending;
 * a leg's price is its trigger (Upstox places the LIMIT there). Upstox states no last price (0).
 */
export function upstoxGttRows(data: unknown): BrokerGttRow[] {
  return records(data)
    .filter((g) => records(g.rules).some((r) => LIVE_RULES.has(str(r.status).toUpperCase())))
    .map((g) => {
      const key = str(g.instrument_token);
      const segment = str(g.exchange, key.includes('|') ? key.slice(0, key.indexOf('|')) : '');
      const exchange = UPSTOX_SEGMENTS[segment] ?? segment;
      const all = records(g.rules);
      const multiple = str(g.type).toUpperCase() === 'MULTIPLE';
      const exits = all.filter((r) => str(r.strategy).toUpperCase() !== 'ENTRY');
      const shown = (multiple && exits.length > 0 ? exits : all).sort(
        (a, b) => num(a.trigger_price) - num(b.trigger_price),
      );
      const leg = (r: Rec) => ({
        action: action(r.transaction_type),
        quantity: num(g.quantity),
        price: num(r.trigger_price),
        priceType: 'LIMIT',
        product: product(g.product, exchange),
      });
      return {
        triggerId: str(g.gtt_order_id),
        type: shown.length === 2 ? 'two-leg' : 'single',
        status: 'active',
        brsymbol: str(g.trading_symbol),
        brexchange: segment,
        token: key,
        triggers: shown.map((r) => num(r.trigger_price)),
        lastPrice: 0,
        legs: shown.map(leg),
        createdAt: upstoxEpoch(g.created_at),
        updatedAt: '',
        expiresAt: upstoxEpoch(g.expires_at),
      } satisfies BrokerGttRow;
    });
}

/** Reads the first of `data.gtt_order_ids` of a place/modify/cancel answer. */
const gttIdOfData = (data: unknown) => ({
  orderId: isRec(data) && Array.isArray(data.gtt_order_ids) ? readOrderId(data.gtt_order_ids[0]) : undefined,
});
const NO_ID = 'Upstox answered success without a GTT order id';

/** Why `gtt` cannot go to Upstox (undefined when it can). */
function upstoxGttError(gtt: BrokerGtt): { status: number; message: string } | undefined {
  if (gtt.type === 'two-leg') return { status: 400, message: UPSTOX_NO_OCO };
  const shape = gttShapeError(gtt);
  if (shape) return { status: 400, message: shape };
  if (!(Number.isFinite(gtt.lastPrice) && gtt.lastPrice > 0))
    return {
      status: 400,
      message: 'A GTT needs the last price of the instrument (it decides ABOVE or BELOW)',
    };
  if (gtt.token.trim() === '') return { status: 400, message: 'The instrument has no Upstox instrument key' };
  return undefined;
}

/** Upstox's GTT calls over the Upstox adapter's authenticated `call` on api.upstox.com. */
export class UpstoxGttClient implements BrokerGttApi {
  constructor(private readonly call: UpstoxCall) {}

  async placeGtt(gtt: BrokerGtt, session: BrokerSession): Promise<BookResult<{ triggerId: string }>> {
    const bad = upstoxGttError(gtt);
    if (bad) return refuse(bad.status, bad.message);
    const body = upstoxGttPlaceBody(gtt);
    return triggerIdResult(
      await this.call('gtt-place', session, 'POST', '/v3/order/gtt/place', body, gttIdOfData, NO_ID),
    );
  }

  async modifyGtt(
    triggerId: string,
    gtt: BrokerGtt,
    session: BrokerSession,
  ): Promise<BookResult<{ triggerId: string }>> {
    const bad =
      triggerId.trim() === '' ? { status: 400, message: 'The trigger id is missing' } : upstoxGttError(gtt);
    if (bad) return refuse(bad.status, bad.message);
    const body = upstoxGttModifyBody(triggerId, gtt);
    return triggerIdResult(
      await this.call('gtt-modify', session, 'PUT', '/v3/order/gtt/modify', body, gttIdOfData, NO_ID),
    );
  }

  async cancelGtt(triggerId: string, session: BrokerSession): Promise<BookResult<{ triggerId: string }>> {
    if (triggerId.trim() === '') return refuse(400, 'The trigger id is missing');
    const body = { gtt_order_id: triggerId };
    return triggerIdResult(
      await this.call('gtt-cancel', session, 'DELETE', '/v3/order/gtt/cancel', body, gttIdOfData, NO_ID),
    );
  }

  async gttBook(session: BrokerSession): Promise<BookResult<BrokerGttRow[]>> {
    const r = await this.call('gtt-book', session, 'GET', '/v3/order/gtt', undefined, bookRead);
    return readBook(r, upstoxGttRows);
  }
}

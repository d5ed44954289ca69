/**
 * Kite Connect v3 GTT (kite.trade/docs/connect/v3/gtt) behind the broker contract's
 * {@link BrokerGttApi}, as OpenAlgo's broker/zerodha/mapping/gtt_data.py maps it:
 *
 * - `POST /gtt/triggers` and `PUT /gtt/triggers/:id` (a whole replacement) take a form of three
 *   fields: `type` (`single` | `two-leg`), `condition` and `orders`, the last two JSON-encoded
 *   strings: `condition` = `{exchange, tradingsymbol, trigger_values, last_price}`, `orders` =
 *   `[{exchange, tradingsymbol, transaction_type, quantity, order_type, product, price}]`, where
 *   `orders[i]` fires when `trigger_values[i]` is reached (for `two-leg`: [stoploss, target]);
 * - `DELETE /gtt/triggers/:id`;
 * - every one answers `{"status":"success","data":{"trigger_id":<int>}}` (the id becomes a string);
 * - `GET /gtt/triggers` lists the active GTTs and those in other states from the last 7 days:
 *   only `active` ones are kept (the others can no longer fire).
 *
 * MARKET legs. Kite's GTT takes `order_type` LIMIT only, so a MARKET leg goes as a protected
 * LIMIT: its trigger moved by {@link KITE_GTT_MARKET_PROTECTION} (2 %) the way that fills — above
 * for a BUY, below for a SELL — and rounded to the instrument's tick away from the trigger
 * (a BUY up, a SELL down), so the buffer is never less than 2 %. Why 2 %: when a trigger fires
 * the price is near it, and 2 % is enough to cross the spread and a fast move past the trigger for
 * liquid instruments, while staying within the exchanges' limit-price-protection bands, which
 * refuse a limit far from the market; it is also the `market_protection` this codebase sends
 * Upstox for the same GTT (upstox.gtt.ts), so both brokers protect a MARKET leg alike. (OpenAlgo
 * applies its buffer around the LTP at placement for a single GTT; algodesk applies it around the
 * trigger, the price the order is actually placed near.)
 */
import type { Action } from '../../../domain/orders.js';
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
import { bookRead, isRec, num, readBook, records, str, action, type Rec } from '../http/book-fields.js';
import { gttShapeError, refuse, triggerIdResult } from '../http/broker-gtt.js';
import type { KiteForm } from './zerodha.mapping.js';

/** The buffer of a MARKET leg's protected limit, as a fraction of its trigger (see the file comment). */
export const KITE_GTT_MARKET_PROTECTION = 0.02;

/** The Zerodha adapter's authenticated call (its private `call`), as the GTT client uses it. */
export type KiteCall = (
  op: string,
  session: BrokerSession,
  method: HttpRequest['method'],
  path: string,
  payload: { form: KiteForm } | undefined,
  read: ResultSpec['read'],
  missing?: string,
) => Promise<BrokerResult>;

/** Rounds off binary noise (`102.00000000000001`) to the tick's decimals and a few more. */
const clean = (n: number) => Number(n.toFixed(8));

/**
 * The protected limit of a MARKET leg triggered at `trigger`: the trigger moved by
 * {@link KITE_GTT_MARKET_PROTECTION} the way that fills (BUY above, SELL below), on the tick grid,
 * rounded away from the trigger; a SELL never goes below one tick.
 */
export function kiteProtectedPrice(trigger: number, side: Action, tick: number): number {
  const eps = 1e-9;
  if (side === 'BUY')
    return clean(Math.ceil((trigger * (1 + KITE_GTT_MARKET_PROTECTION)) / tick - eps) * tick);
  const ticks = Math.floor((trigger * (1 - KITE_GTT_MARKET_PROTECTION)) / tick + eps);
  return clean(Math.max(1, ticks) * tick);
}

/** The form of `POST /gtt/triggers` and `PUT /gtt/triggers/:id`. */
export function kiteGttForm(gtt: BrokerGtt): KiteForm {
  const market = gtt.priceType === 'MARKET';
  const condition = {
    exchange: gtt.brexchange,
    tradingsymbol: gtt.brsymbol,
    trigger_values: gtt.triggers,
    last_price: gtt.lastPrice,
  };
  const orders = gtt.triggers.map((trigger, i) => ({
    exchange: gtt.brexchange,
    tradingsymbol: gtt.brsymbol,
    transaction_type: gtt.action,
    quantity: gtt.quantity,
    order_type: 'LIMIT',
    product: gtt.product,
    price: market ? kiteProtectedPrice(trigger, gtt.action, gtt.tickSize) : gtt.prices[i]!,
  }));
  return { type: gtt.type, condition: JSON.stringify(condition), orders: JSON.stringify(orders) };
}

/** The active GTTs of `GET /gtt/triggers`'s `data` as neutral rows. */
export function kiteGttRows(data: unknown): BrokerGttRow[] {
  return records(data)
    .filter((g) => str(g.status).toLowerCase() === 'active')
    .map((g) => {
      const c: Rec = isRec(g.condition) ? g.condition : {};
      const token = str(c.instrument_token);
      return {
        triggerId: str(g.id),
        type: g.type === 'two-leg' ? 'two-leg' : 'single',
        status: 'active',
        brsymbol: str(c.tradingsymbol),
        brexchange: str(c.exchange),
        ...(token !== '' && token !== '0' ? { token } : {}),
        triggers: Array.isArray(c.trigger_values) ? c.trigger_values.map(num) : [],
        lastPrice: num(c.last_price),
        legs: records(g.orders).map((o) => ({
          action: action(o.transaction_type),
          quantity: num(o.quantity),
          price: num(o.price),
          priceType: str(o.order_type) || 'LIMIT',
          product: str(o.product),
        })),
        createdAt: str(g.created_at),
        updatedAt: str(g.updated_at),
        expiresAt: str(g.expires_at),
      } satisfies BrokerGttRow;
    });
}

/** Reads `data.trigger_id` of a place/modify/delete answer. */
const triggerIdOfData = (data: unknown) => ({
  orderId: isRec(data) ? readOrderId(data.trigger_id) : undefined,
});
const NO_ID = 'Zerodha answered success without a trigger id';

/** Why `gtt` cannot go to Kite (undefined when it can). */
function kiteGttError(gtt: BrokerGtt): string | undefined {
  const shape = gttShapeError(gtt);
  if (shape) return shape;
  if (gtt.priceType === 'MARKET' && !(Number.isFinite(gtt.tickSize) && gtt.tickSize > 0))
    return "A MARKET GTT needs the instrument's tick size for its protected limit price";
  if (!(Number.isFinite(gtt.lastPrice) && gtt.lastPrice > 0))
    return 'A GTT needs the last price of the instrument';
  return undefined;
}

/** Kite's GTT calls over the Zerodha adapter's authenticated `call`. */
export class KiteGttClient implements BrokerGttApi {
  constructor(private readonly call: KiteCall) {}

  async placeGtt(gtt: BrokerGtt, session: BrokerSession): Promise<BookResult<{ triggerId: string }>> {
    const bad = kiteGttError(gtt);
    if (bad) return refuse(400, bad);
    const form = kiteGttForm(gtt);
    return triggerIdResult(
      await this.call('gtt-place', session, 'POST', '/gtt/triggers', { form }, triggerIdOfData, NO_ID),
    );
  }

  async modifyGtt(
    triggerId: string,
    gtt: BrokerGtt,
    session: BrokerSession,
  ): Promise<BookResult<{ triggerId: string }>> {
    const bad = triggerId.trim() === '' ? 'The trigger id is missing' : kiteGttError(gtt);
    if (bad) return refuse(400, bad);
    const path = `/gtt/triggers/${encodeURIComponent(triggerId)}`;
    const form = kiteGttForm(gtt);
    return triggerIdResult(
      await this.call('gtt-modify', session, 'PUT', path, { form }, triggerIdOfData, NO_ID),
    );
  }

  async cancelGtt(triggerId: string, session: BrokerSession): Promise<BookResult<{ triggerId: string }>> {
    if (triggerId.trim() === '') return refuse(400, 'The trigger id is missing');
    const path = `/gtt/triggers/${encodeURIComponent(triggerId)}`;
    return triggerIdResult(
      await this.call('gtt-cancel', session, 'DELETE', path, undefined, triggerIdOfData, NO_ID),
    );
  }

  async gttBook(session: BrokerSession): Promise<BookResult<BrokerGttRow[]>> {
    return readBook(
      await this.call('gtt-book', session, 'GET', '/gtt/triggers', undefined, bookRead),
      kiteGttRows,
    );
  }
}

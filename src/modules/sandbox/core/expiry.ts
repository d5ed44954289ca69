/**
 * Expiry settlement of F&O contracts decided without I/O (docs/rules/sandbox.md#expiry-settlement):
 * when a contract expires (the close of its exchange's session on its expiry date), where its
 * underlying is quoted, which quote of the underlying is its close, the settlement price (an
 * option's intrinsic value, a future's underlying close), and the order, events and fill that
 * book the settlement as a closing fill does. jobs/expiry-settlement.ts reads and writes.
 */
import { UNDERLYING_EXCHANGES } from '../../../domain/exchanges.js';
import { closingAction } from '../../../domain/orders.js';
import { settlementCharges } from './booked-charges.js';
import { NO_CHARGES } from '../../../domain/charges.js';
import type { Instrument } from '../../market/instrument.js';
import { DEFAULT_TIMINGS, istDateOf, istInstant, istMidnight } from '../../market/timings.service.js';
import type { AccountRow, NewOrder, PositionRow } from '../store/rows.js';
import { filledRow, planFill, positionOf, type FillTerms } from './fill-plan.js';
import { istDay } from './ist-day.js';
import { moneyToRupees, rupeesToMoney, type Money } from './money.js';
import type { PlacementPlan } from './placement.js';
import { nextOpen, type SessionOn } from './sessions.js';
import { instrumentKind, type Product, type Quote } from './types.js';

/** The reason an expired contract's working order is cancelled with. */
export const CONTRACT_EXPIRED = 'contract expired';

/** The derivative exchanges whose contracts expire (those with an underlying). */
export const EXPIRING_EXCHANGES: ReadonlySet<string> = new Set(Object.keys(UNDERLYING_EXCHANGES));

/** The contract fields settlement reads. */
export type ExpiringContract = Pick<
  Instrument,
  'symbol' | 'exchange' | 'expiryDate' | 'instrumenttype' | 'strike' | 'underlying' | 'name'
>;

/** How far the exchange's normal close is looked for around a closed expiry day. */
const LOOKAROUND_DAYS = 14;
const DAY_MS = 86_400_000;

/**
 * The exchange's normal close time (`HH:MM` IST): the end of its nearest regular session around
 * `date` (the configured timing), else the spec's default timing, else 15:30.
 */
function normalClose(exchange: string, date: string, sessionOn: SessionOn): string {
  const noon = istInstant(date, '12:00');
  for (let d = 1; d <= LOOKAROUND_DAYS; d++)
    for (const at of [noon - d * DAY_MS, noon + d * DAY_MS]) {
      const s = sessionOn(exchange, istDateOf(at));
      if (s?.open && s.reason === 'regular' && s.end_time) return s.end_time;
    }
  return DEFAULT_TIMINGS.find((t) => t.exchange === exchange)?.end_time ?? '15:30';
}

/**
 * When a contract on `exchange` expiring on `date` expires (epoch ms): the end of the exchange's
 * session that day (a special session's end when the calendar has one); on a day the exchange is
 * closed (a holiday the master's date falls on), its normal close time that date.
 */
export function expiryInstant(exchange: string, date: string, sessionOn: SessionOn): number {
  const s = sessionOn(exchange, date);
  if (s?.open && s.end_ms !== null) return s.end_ms;
  return istInstant(date, normalClose(exchange, date, sessionOn));
}

/** When the contract expires, or undefined when it has no expiry date (not a derivative). */
export function expiresAt(c: Pick<ExpiringContract, 'exchange' | 'expiryDate'>, sessionOn: SessionOn) {
  if (c.expiryDate === null || !EXPIRING_EXCHANGES.has(c.exchange)) return undefined;
  return expiryInstant(c.exchange, c.expiryDate, sessionOn);
}

/**
 * Where the contract's underlying is quoted, in the order to look (domain/exchanges.ts
 * `UNDERLYING_EXCHANGES`, as the option chain and greeks resolve it): NIFTY's on NSE_INDEX, a
 * stock's on NSE.
 */
export function underlyingPlaces(c: ExpiringContract): { symbol: string; exchange: string }[] {
  const base = (c.underlying ?? c.name).trim().toUpperCase();
  if (base === '') return [];
  return (UNDERLYING_EXCHANGES[c.exchange] ?? []).map((exchange) => ({ symbol: base, exchange }));
}

/**
 * The quotes of the underlying that carry its closing price for a contract that expired at
 * `expiredAt`: from the start of the underlying's last session on or before the expiry date (its
 * midnight when the calendar knows none) until its next open after the expiry, the quote's LTP is
 * that session's close (a quote of the expiry day's last minutes, or one taken after the close);
 * on the day of that next session, the quote's previous close. `nextOpenAt` is undefined when the
 * calendar knows no next session.
 */
export function closeWindow(
  underlyingExchange: string,
  expiryDate: string,
  expiredAt: number,
  sessionOn: SessionOn,
): { from: number; nextOpenAt: number | undefined } {
  let from = istMidnight(expiryDate);
  const noon = istInstant(expiryDate, '12:00');
  for (let d = 0; d <= LOOKAROUND_DAYS; d++) {
    const s = sessionOn(underlyingExchange, istDateOf(noon - d * DAY_MS));
    if (s === undefined) break;
    if (s.open && s.start_ms !== null && s.start_ms <= expiredAt) {
      from = s.start_ms;
      break;
    }
  }
  const next = nextOpen(sessionOn, underlyingExchange, expiredAt);
  return { from, nextOpenAt: next?.start_ms ?? undefined };
}

/**
 * The underlying's closing price from its quote (see {@link closeWindow}), or undefined: no
 * quote, or one that says nothing of that close (older than the session, or from a later day) —
 * the settlement waits rather than use a made-up price.
 */
export function underlyingClose(
  quote: Quote | undefined,
  window: { from: number; nextOpenAt: number | undefined },
): Money | undefined {
  if (!quote || !(quote.ltp > 0) || !Number.isFinite(quote.timestamp)) return undefined;
  const { from, nextOpenAt } = window;
  if (quote.timestamp < from) return undefined;
  if (nextOpenAt === undefined || quote.timestamp < nextOpenAt) return Math.round(quote.ltp * 10_000);
  const sameDay = istDateOf(quote.timestamp) === istDateOf(nextOpenAt);
  return sameDay && quote.close !== undefined && quote.close > 0
    ? Math.round(quote.close * 10_000)
    : undefined;
}

/**
 * The settlement price of a contract at the underlying's close: a call's intrinsic value
 * max(0, close − strike), a put's max(0, strike − close) (out of the money: zero), a future's
 * final settlement price, the close itself. Undefined for anything else (or an option without
 * a strike).
 */
export function settlementPrice(c: Pick<ExpiringContract, 'instrumenttype' | 'strike'>, close: Money) {
  if (c.instrumenttype === 'FUT') return close;
  if (c.strike === null || (c.instrumenttype !== 'CE' && c.instrumenttype !== 'PE')) return undefined;
  const strike = rupeesToMoney(c.strike);
  return Math.max(0, c.instrumenttype === 'CE' ? close - strike : strike - close);
}

/** The reason a settlement order carries: what it settled at, and against which close. */
export function settlementReason(c: ExpiringContract, close: Money, price: Money): string {
  const at = `₹${moneyToRupees(price)}`;
  const against = `${underlyingPlaces(c)[0]?.symbol ?? 'underlying'} close ₹${moneyToRupees(close)}`;
  return c.instrumenttype === 'FUT'
    ? `expiry settlement: final settlement price ${at} (${against})`
    : `expiry settlement: intrinsic value ${at} (${against}, strike ₹${c.strike ?? 0})`;
}

/**
 * The settlement of one open position at `price` (docs/rules/sandbox.md#expiry-settlement): an
 * order of the whole position on the closing side, already `complete` with `reason`, its one
 * event, and the fill {@link planFill} plans for it — the same rows a closing MARKET fill writes
 * (the position goes flat, its margin returns to available funds with the realised P&L), for
 * store/ledger.ts `applyPlacement`.
 */
export function planSettlement(
  account: AccountRow,
  row: PositionRow,
  contract: ExpiringContract,
  price: Money,
  reason: string,
  now: number,
  terms: Readonly<FillTerms>,
): Extract<PlacementPlan, { kind: 'fill' }> {
  if (row.quantity === 0) throw new RangeError('a flat position has nothing to settle');
  const product = row.product as Product;
  const order: NewOrder = {
    user_id: row.user_id,
    symbol: row.symbol,
    exchange: row.exchange,
    side: closingAction(row.quantity),
    price_type: 'MARKET',
    product,
    kind: instrumentKind(contract.instrumenttype),
    quantity: Math.abs(row.quantity),
    price: 0,
    trigger_price: 0,
    status: 'open',
    filled_quantity: 0,
    average_price: 0,
    blocked_margin: 0,
    blocked_quantity: 0,
    reason,
    strategy: null,
    tag: null,
    day: istDay(now),
    created_at: now,
    updated_at: now,
  };
  const fill = planFill(
    account,
    { ...order, strategy: null },
    positionOf(row, row.symbol, row.exchange, product),
    0,
    price,
    now,
    terms,
    terms.charges === 'off' ? { ...NO_CHARGES } : settlementCharges(order, price, now),
  );
  return {
    kind: 'fill',
    order: filledRow({ ...order, reason, strategy: null, tag: null }, price, now),
    events: [{ userId: row.user_id, from: null, to: 'complete', detail: reason, at: now }],
    fill,
  };
}

/**
 * What placing one sandbox order does, decided without I/O: validation
 * (docs/rules/sandbox.md#order-validation), margin (docs/rules/sandbox.md#margin-at-placement) and,
 * when the quote fills it at once, the fill (docs/rules/sandbox.md#fills). It takes the snapshot
 * the placement's transaction read over the locked account and returns a {@link PlacementPlan}:
 * the order row to insert (in its final state), the event row of each of its transitions, and what
 * the fill or the block writes to the account. store/ledger.ts `applyPlacement` writes the plan in
 * one call; service/place.ts only fetches, asks and hands over.
 *
 * An order the quote fills at once (every MARKET order with a usable quote) is planned in its
 * final state: the row already `complete` beside the events placed, [triggered,] complete. An SL
 * whose trigger the quote reached but whose limit it does not is planned `open` with the events
 * placed (trigger pending) and triggered. Nothing else can see the order before the transaction
 * commits, so these are the rows the place-then-transition sequence wrote, without a
 * compare-and-set that has nothing to race.
 */
import type { FillTerms } from './fill-plan.js';
import {
  filledRow,
  fundsOf,
  planFill,
  reducibleFor,
  withFunds,
  type AccountContext,
  type FillPlan,
} from './fill-plan.js';
import { istDay } from './ist-day.js';
import { blockMargin, placementMargin, type DerivativeMargin } from './margin.js';
import {
  matchPrices,
  placementPrice,
  validateOrder,
  type MarketPrices,
  type OrderRequest,
  type RejectCode,
  type SessionPhase,
} from './rules.js';
import type { AccountRow, NewOrder } from '../store/rows.js';
import { instrumentKind, type OrderStatus, type SandboxInstrument } from './types.js';

/** A placeorder request as the sandbox receives it (after the request schema). */
export interface PlaceRequest extends OrderRequest {
  symbol: string;
  exchange: string;
  strategy?: string | null;
  /** The caller's reference (a strategy order's tag): finds the order again after a restart. */
  tag?: string | null;
  /** An after-market order: outside the session it rests until the next open (LIMIT and SL only). */
  amo?: boolean;
}

/** What the placement's transaction read: the locked account and its stake in the instrument. */
export interface PlacementSnapshot {
  account: AccountRow;
  ctx: AccountContext;
}

/** What the placement knows of the market and the clock, fetched before the transaction. */
export interface PlacementMarket {
  instrument: SandboxInstrument;
  /** A quote that may fill. */
  prices?: MarketPrices;
  /** A last price that may only price the margin (a stale quote's). */
  fallback?: MarketPrices;
  now: number;
  /** Phase of the MIS day on the order's exchange at `now`. */
  session: SessionPhase;
  /**
   * Why the exchange takes no order now, when sessions are enforced and it is outside its session
   * (core/sessions.ts `closedReason`); undefined in session, or when sessions are ignored.
   */
  closed?: string;
  /** Why there is no price, when the price source can say it better than the default (asked only then). */
  noPriceReason?: () => string | undefined;
  /**
   * A future's or short option's margin for the whole order (the broker's calculator or the SPAN +
   * exposure approximation: docs/rules/sandbox.md#margins-like-a-broker); absent: the leverage rule.
   */
  derivative?: DerivativeMargin;
}

/** One transition of the new order (its id is known only once inserted). */
export interface PlannedEvent {
  userId: number;
  from: OrderStatus | null;
  to: OrderStatus;
  detail: string | null;
  at: number;
}

export type PlacementPlan =
  /** Bad input: a 400, nothing written. */
  | { kind: 'invalid'; reason: string }
  /** An account rule refused it: the order is kept `rejected` with its reason; funds untouched. */
  | { kind: 'reject'; order: NewOrder; events: PlannedEvent[]; reason: string }
  /** The order rests (`open` or `trigger pending`) with its margin blocked: `account` after the block. */
  | { kind: 'rest'; order: NewOrder; events: PlannedEvent[]; account: AccountRow }
  /** Filled at once: the order's final row, its events, and what the fill writes (account included). */
  | { kind: 'fill'; order: NewOrder; events: PlannedEvent[]; fill: FillPlan };

/** Validation codes that reject the request outright (nothing is written). */
const INPUT_CODES: ReadonlySet<RejectCode> = new Set([
  'instrument',
  'product',
  'quantity',
  'lot',
  'price',
  'trigger',
]);

/** Decides the placement of `req` by `userId` (see the file's comment). */
export function planPlacement(
  snapshot: PlacementSnapshot,
  userId: number,
  req: PlaceRequest,
  market: PlacementMarket,
  terms: Readonly<FillTerms>,
): PlacementPlan {
  const { account, ctx } = snapshot;
  const { instrument, prices, fallback, now } = market;
  const kind = instrumentKind(instrument.instrumenttype);
  const v = validateOrder(req, {
    instrument,
    positionQuantity: ctx.position.quantity,
    sellableQuantity: ctx.sellable,
    // Outside the session the order is for the next one: today's MIS square-off is not its rule.
    session: market.closed === undefined ? market.session : 'regular',
  });
  if (!v.ok && INPUT_CODES.has(v.code)) return { kind: 'invalid', reason: v.reason };
  // docs/rules/sandbox.md#expiry-settlement: a contract past its expiry day no longer trades.
  if (instrument.expiryDate && instrument.expiryDate < istDay(now))
    return {
      kind: 'invalid',
      reason: `symbol ${req.symbol} expired on ${instrument.expiryDate}: the contract no longer trades`,
    };
  const base = {
    user_id: userId,
    symbol: req.symbol,
    exchange: req.exchange,
    side: req.side,
    price_type: req.priceType,
    product: req.product,
    kind,
    quantity: req.quantity,
    price: v.ok ? v.order.price : 0,
    trigger_price: v.ok ? v.order.triggerPrice : 0,
    filled_quantity: 0,
    average_price: 0,
    blocked_margin: 0,
    blocked_quantity: 0,
    strategy: req.strategy ?? null,
    tag: req.tag ?? null,
    day: istDay(now),
    created_at: now,
    updated_at: now,
  };
  const step = (from: OrderStatus | null, to: OrderStatus, detail: string | null): PlannedEvent => ({
    userId,
    from,
    to,
    detail,
    at: now,
  });
  const reject = (reason: string): PlacementPlan => ({
    kind: 'reject',
    order: { ...base, status: 'rejected', reason },
    events: [step(null, 'rejected', reason)],
    reason,
  });
  if (!v.ok) return reject(v.reason);
  // docs/rules/sandbox.md#sessions-and-holidays: outside the session only an after-market LIMIT
  // or SL is taken, and it waits for the open (no fill now, whatever the last price says).
  if (market.closed !== undefined && req.amo !== true)
    return reject(
      req.priceType === 'MARKET' || req.priceType === 'SL-M'
        ? `${market.closed}. A ${req.priceType} order is taken only in the session`
        : `${market.closed}. Outside the session a ${req.priceType} order is taken only as an after-market order (amo: true), which enters the book at the next open`,
    );
  const refPrice = placementPrice(v.order, prices ?? fallback);
  if (refPrice === undefined)
    return reject(
      market.noPriceReason?.() ??
        `No price is available for ${req.exchange}:${req.symbol}; a MARKET order needs a quote`,
    );
  const pm = placementMargin({
    kind,
    product: req.product,
    side: req.side,
    quantity: req.quantity,
    price: refPrice,
    positionQuantity: reducibleFor(ctx, req.side),
    leverage: terms.leverage,
    ...(market.derivative ? { derivative: market.derivative } : {}),
  });
  const blocked = blockMargin(fundsOf(account), pm.margin, pm.method);
  if (!blocked.ok) return reject(blocked.reason);
  const placed = {
    ...base,
    status: v.order.status,
    reason: null,
    blocked_margin: pm.margin,
    blocked_quantity: pm.openingQuantity,
  } satisfies NewOrder;
  const acct = withFunds(account, blocked.funds, now);
  const m =
    prices && market.closed === undefined
      ? matchPrices({ ...v.order, id: '', symbol: req.symbol, exchange: req.exchange }, prices)
      : undefined;
  const through = m?.triggered === true && placed.status === 'trigger pending';

  if (m?.fill)
    return {
      kind: 'fill',
      order: filledRow(placed, m.price, now),
      events: [
        step(null, placed.status, null),
        ...(through ? [step('trigger pending', 'open', 'triggered')] : []),
        step(through ? 'open' : placed.status, 'complete', null),
      ],
      fill: planFill(acct, placed, ctx.position, ctx.held, m.price, now, terms),
    };
  // An SL whose trigger the quote reached but whose limit it does not: `open` now.
  return {
    kind: 'rest',
    order: through ? { ...placed, status: 'open' } : placed,
    events: [
      step(
        null,
        placed.status,
        market.closed === undefined ? null : 'after-market order: waits for the next open',
      ),
      ...(through ? [step('trigger pending', 'open', 'triggered')] : []),
    ],
    account: acct,
  };
}

/**
 * The sandbox's bookkeeping decided without I/O (docs/rules/sandbox.md#fills): the funds of an
 * account row, the position of a position row, what a fill writes ({@link planFill}), the order
 * row after a whole fill, and what placement rules need of the account's stake in one instrument.
 * store/ledger.ts reads the rows inside the caller's transaction and writes what these decide.
 */
import type { Insertable } from 'kysely';
import type { SandboxTradesTable } from '../../../db/schema.js';
import type { LeverageTable } from '../../../domain/sandbox.js';
import { NO_CHARGES, type BrokeragePlan, type Charges } from '../../../domain/charges.js';
import { chargeColumns, fillCharges } from './booked-charges.js';
import { istDay } from './ist-day.js';
import {
  applyFundsDelta,
  fillMarginDelta,
  leverageFor,
  marginOnFill,
  reduciblePosition,
  releaseMargin,
} from './margin.js';
import { divCeil, type Money } from './money.js';
import { applyFill, splitFill, type Position } from './positions.js';
import type { AccountRow, OrderRow, PositionRow } from '../store/rows.js';
import type { Funds, InstrumentKind, Product, Side } from './types.js';

export const fundsOf = (a: AccountRow): Funds => ({
  available: a.available,
  usedMargin: a.used_margin,
  realisedPnl: a.realised_pnl,
});

/** What a fill is margined and charged by: the configuration's leverage and brokerage plan. */
export interface FillTerms {
  leverage: Readonly<LeverageTable>;
  brokerage: Readonly<BrokeragePlan>;
  /** `off`: fills book no charges (`SANDBOX_CHARGES`); absent: they do. */
  charges?: 'book' | 'off';
}

export const withFunds = (a: AccountRow, f: Funds, now: number): AccountRow => ({
  ...a,
  available: f.available,
  used_margin: f.usedMargin,
  realised_pnl: f.realisedPnl,
  updated_at: now,
});

export const positionOf = (
  row: Omit<PositionRow, 'id'> | undefined,
  symbol: string,
  exchange: string,
  product: Product,
): Position =>
  row
    ? {
        symbol,
        exchange,
        product,
        quantity: row.quantity,
        cost: row.cost,
        margin: row.margin,
        realisedPnl: row.realised_pnl,
        charges: row.charges,
      }
    : { symbol, exchange, product, quantity: 0, cost: 0, margin: 0, realisedPnl: 0, charges: 0 };

/** The rows a fill writes, computed without I/O ({@link planFill}); {@link writeFill} writes them. */
export interface FillPlan {
  position: Omit<PositionRow, 'id'>;
  trade: Omit<Insertable<SandboxTradesTable>, 'order_id'>;
  account: AccountRow;
  realised: Money;
  /** The fill's charges (docs/rules/sandbox.md#charges-booked), already out of available funds. */
  charges: Charges;
  overdrawn: boolean;
}

/** The order fields a fill reads (a stored row, or one about to be inserted already filled). */
export type FillingOrder = Pick<
  OrderRow,
  | 'user_id'
  | 'symbol'
  | 'exchange'
  | 'side'
  | 'product'
  | 'kind'
  | 'quantity'
  | 'blocked_margin'
  | 'blocked_quantity'
  | 'strategy'
>;

/**
 * What filling `order` whole at `price` does (docs/rules/sandbox.md#fills): the position nets the
 * execution (average, realised P&L, reversal), the blocked margin moves to the position and margin
 * released by a closing quantity returns to available funds with the realised P&L. For CNC the
 * holdings (`held`) count as the long side, so selling held shares opens no new exposure. The
 * fill's charges ({@link fillCharges}, or `charges` when given: an expiry settlement's) leave
 * available funds and are added to the position's and the account's (docs/rules/sandbox.md#charges-booked).
 * Pure: `position` and `held` are what the caller read inside its transaction.
 */
export function planFill(
  account: AccountRow,
  order: FillingOrder,
  position: Position,
  held: number,
  price: Money,
  now: number,
  terms: Readonly<FillTerms>,
  charges: Charges = terms.charges === 'off'
    ? { ...NO_CHARGES }
    : fillCharges(order, price, now, terms.brokerage),
): FillPlan {
  const side = order.side as Side;
  const product = order.product as Product;
  const opened = splitFill(coveredQuantity(position.quantity, held, side), side, order.quantity).opening;
  const margin = marginOnFill({
    blocked: order.blocked_margin,
    blockedQuantity: order.blocked_quantity,
    openedQuantity: opened,
    fillPrice: price,
    leverage: leverageFor(order.kind as InstrumentKind, product, side, terms.leverage),
    // A derivative's extra units pay what its blocked units did (its rule priced them; the
    // leverage rule does not apply to it: docs/rules/sandbox.md#margins-like-a-broker).
    ...(derivativeRule(order.kind, side) && order.blocked_quantity > 0
      ? { perUnit: divCeil(order.blocked_margin, order.blocked_quantity) }
      : {}),
  });
  const outcome = applyFill(position, { side, quantity: order.quantity, price }, margin.toPosition);
  let funds = applyFundsDelta(fundsOf(account), fillMarginDelta(margin));
  funds = releaseMargin(funds, outcome.releasedMargin, outcome.realised);
  funds = { ...funds, available: funds.available - charges.total };
  const p = outcome.position;
  return {
    position: {
      user_id: order.user_id,
      symbol: p.symbol,
      exchange: p.exchange,
      product,
      quantity: p.quantity,
      cost: p.cost,
      margin: p.margin,
      realised_pnl: p.realisedPnl,
      charges: (position.charges ?? 0) + charges.total,
      day: istDay(now),
      updated_at: now,
    },
    trade: {
      user_id: order.user_id,
      symbol: order.symbol,
      exchange: order.exchange,
      side,
      product,
      quantity: order.quantity,
      price,
      strategy: order.strategy,
      created_at: now,
      ...chargeColumns(charges),
    },
    account: { ...withFunds(account, funds, now), charges: account.charges + charges.total },
    realised: outcome.realised,
    charges,
    overdrawn: margin.extra > 0 && funds.available < 0,
  };
}

/** Whether an order on `side` of a `kind` is margined by the derivative rule (futures, short options). */
export function derivativeRule(kind: string, side: Side): boolean {
  return kind === 'future' || (kind === 'option' && side === 'SELL');
}

/** The order row after a whole fill at `price`. */
export function filledRow<T extends Omit<OrderRow, 'id'>>(order: T, price: Money, now: number): T {
  return {
    ...order,
    status: 'complete',
    filled_quantity: order.quantity,
    average_price: price,
    blocked_margin: 0,
    blocked_quantity: 0,
    updated_at: now,
  };
}

/** What placement rules need to know about the account's stake in one instrument and product. */
export interface AccountContext {
  position: Position;
  /** Delivery shares held (CNC only; 0 otherwise). */
  held: number;
  /** The other working orders on the same instrument and product. */
  others: OrderRow[];
  /** Shares a CNC SELL may still sell: holdings plus the net position less pending sells. */
  sellable: number;
}

/** The {@link AccountContext} of the rows read (the resting orders oldest first). */
export function contextOf(
  positionRow: Omit<PositionRow, 'id'> | undefined,
  held: number,
  resting: readonly OrderRow[],
  symbol: string,
  exchange: string,
  product: Product,
  excludeId?: number,
): AccountContext {
  const position = positionOf(positionRow, symbol, exchange, product);
  const others = resting.filter((o) => o.id !== excludeId);
  const pendingSells = others.filter((o) => o.side === 'SELL').reduce((s, o) => s + o.quantity, 0);
  return { position, held, others, sellable: held + position.quantity - pendingSells };
}

/**
 * The net quantity an order on `side` meets (docs/rules/sandbox.md#margin-at-placement): for a
 * SELL the position plus the delivery holdings (selling held shares opens nothing); for a BUY the
 * position alone, so a BUY that buys back shares sold from holdings the same day covers that
 * short (as the position nets it) and opens nothing. Counting the holdings for a BUY too made
 * such a BUY block margin for shares it never opened, which no position then held.
 */
export function coveredQuantity(positionQuantity: number, held: number, side: Side): number {
  return side === 'SELL' ? positionQuantity + held : positionQuantity;
}

/** The position quantity an order on `side` may still reduce (holdings count for a CNC SELL). */
export function reducibleFor(ctx: AccountContext, side: Side): number {
  return reduciblePosition(
    coveredQuantity(ctx.position.quantity, ctx.held, side),
    side,
    ctx.others.map((o) => ({ side: o.side as Side, quantity: o.quantity })),
  );
}

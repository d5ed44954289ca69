/**
 * The sandbox's bookkeeping inside one transaction: an order's state transitions with
 * their event rows, and what a fill does to the account, the position, the holdings and the
 * trade list. Every function takes a repository bound to the caller's transaction, which has
 * already locked the account (`lockAccount`).
 */
import type { Insertable } from 'kysely';
import type { SandboxTradesTable } from '../../db/schema.js';
import { istDay } from './ist-day.js';
import {
  applyFundsDelta,
  fillMarginDelta,
  leverageFor,
  marginOnFill,
  releaseMargin,
  type LeverageTable,
} from './margin.js';
import type { Money } from './money.js';
import { applyFill, splitFill, type Position } from './positions.js';
import { reduciblePosition } from './margin.js';
import type { AccountRow, OrderRow, PositionRow, SandboxRepository } from './sandbox.repository.js';
import type { Funds, InstrumentKind, OrderStatus, Product, Side } from './types.js';

export const fundsOf = (a: AccountRow): Funds => ({
  available: a.available,
  usedMargin: a.used_margin,
  realisedPnl: a.realised_pnl,
});

export const withFunds = (a: AccountRow, f: Funds, now: number): AccountRow => ({
  ...a,
  available: f.available,
  used_margin: f.usedMargin,
  realised_pnl: f.realisedPnl,
  updated_at: now,
});

export const positionOf = (
  row: PositionRow | undefined,
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
      }
    : { symbol, exchange, product, quantity: 0, cost: 0, margin: 0, realisedPnl: 0 };

/**
 * The one transition function of a sandbox order (ARCHITECTURE.md "State changes are explicit"):
 * moves the order from one of `from` to `to` with `patch` (compare-and-set, so a racing cancel,
 * fill or second engine loses cleanly) and appends the event row. False when the order was no
 * longer in `from`.
 */
export async function transition(
  repo: SandboxRepository,
  order: OrderRow,
  from: readonly OrderStatus[],
  to: OrderStatus,
  now: number,
  detail: string | null,
  patch: Partial<Omit<OrderRow, 'id' | 'user_id' | 'status'>> = {},
): Promise<boolean> {
  const ok = await repo.updateOrderIf(order.id, from, { ...patch, status: to, updated_at: now });
  if (ok)
    await repo.insertEvent({
      orderId: order.id,
      userId: order.user_id,
      from: order.status as OrderStatus,
      to,
      detail,
      at: now,
    });
  return ok;
}

/** Releases what a working order blocked, when it ends without filling (cancel, expiry, reject). */
export async function endOrder(
  repo: SandboxRepository,
  account: AccountRow,
  order: OrderRow,
  to: 'cancelled' | 'rejected',
  reason: string | null,
  now: number,
): Promise<AccountRow | undefined> {
  const ok = await transition(repo, order, ['open', 'trigger pending'], to, now, reason, {
    reason,
    blocked_margin: 0,
    blocked_quantity: 0,
  });
  if (!ok) return undefined;
  const next = withFunds(account, releaseMargin(fundsOf(account), order.blocked_margin), now);
  await repo.saveAccount(next);
  return next;
}

/** What {@link fillOrder} did. */
export interface FillResult {
  order: OrderRow;
  account: AccountRow;
  realised: Money;
  /** The fill opened more exposure than was blocked and funds went below zero. */
  overdrawn: boolean;
}

/** The rows a fill writes, computed without I/O ({@link planFill}); {@link writeFill} writes them. */
export interface FillPlan {
  position: Omit<PositionRow, 'id'>;
  trade: Omit<Insertable<SandboxTradesTable>, 'order_id'>;
  account: AccountRow;
  realised: Money;
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
 * holdings (`held`) count as the long side, so selling held shares opens no new exposure. Pure:
 * `position` and `held` are what the caller read inside its transaction.
 */
export function planFill(
  account: AccountRow,
  order: FillingOrder,
  position: Position,
  held: number,
  price: Money,
  now: number,
  leverage: Readonly<LeverageTable>,
): FillPlan {
  const side = order.side as Side;
  const product = order.product as Product;
  const opened = splitFill(coveredQuantity(position.quantity, held, side), side, order.quantity).opening;
  const margin = marginOnFill({
    blocked: order.blocked_margin,
    blockedQuantity: order.blocked_quantity,
    openedQuantity: opened,
    fillPrice: price,
    leverage: leverageFor(order.kind as InstrumentKind, product, side, leverage),
  });
  const outcome = applyFill(position, { side, quantity: order.quantity, price }, margin.toPosition);
  let funds = applyFundsDelta(fundsOf(account), fillMarginDelta(margin));
  funds = releaseMargin(funds, outcome.releasedMargin, outcome.realised);
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
    },
    account: withFunds(account, funds, now),
    realised: outcome.realised,
    overdrawn: margin.extra > 0 && funds.available < 0,
  };
}

/** Writes a {@link FillPlan} of order `orderId`: the position, the trade, the account (once). */
export async function writeFill(repo: SandboxRepository, orderId: number, plan: FillPlan): Promise<void> {
  await repo.upsertPosition(plan.position);
  await repo.insertTrade({ ...plan.trade, order_id: orderId });
  await repo.saveAccount(plan.account);
}

/**
 * Fills a working order whole at `price` (docs/rules/sandbox.md#fills): the order becomes
 * `complete` (through `open` when an SL triggers in the same step), then {@link planFill} and
 * {@link writeFill}. Undefined when the order was no longer working.
 */
export async function fillOrder(
  repo: SandboxRepository,
  account: AccountRow,
  order: OrderRow,
  price: Money,
  triggered: boolean,
  now: number,
  leverage: Readonly<LeverageTable>,
): Promise<FillResult | undefined> {
  const product = order.product as Product;
  let current = order;
  if (triggered && order.status === 'trigger pending') {
    if (!(await transition(repo, order, ['trigger pending'], 'open', now, 'triggered'))) return undefined;
    current = { ...order, status: 'open' };
  }
  const done = await transition(repo, current, ['open', 'trigger pending'], 'complete', now, null, {
    filled_quantity: order.quantity,
    average_price: price,
    blocked_margin: 0,
    blocked_quantity: 0,
  });
  if (!done) return undefined;

  const posRow = await repo.getPosition(order.user_id, order.symbol, order.exchange, product);
  const position = positionOf(posRow, order.symbol, order.exchange, product);
  const held =
    product === 'CNC'
      ? ((await repo.getHolding(order.user_id, order.symbol, order.exchange))?.quantity ?? 0)
      : 0;
  const plan = planFill(account, order, position, held, price, now, leverage);
  await writeFill(repo, order.id, plan);
  return {
    order: filledRow(current, price, now),
    account: plan.account,
    realised: plan.realised,
    overdrawn: plan.overdrawn,
  };
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

/** Reads the {@link AccountContext} inside the caller's transaction (`excludeId`: the order being modified). */
export async function accountContext(
  repo: SandboxRepository,
  userId: number,
  symbol: string,
  exchange: string,
  product: Product,
  excludeId?: number,
): Promise<AccountContext> {
  const position = await repo.getPosition(userId, symbol, exchange, product);
  const held = product === 'CNC' ? ((await repo.getHolding(userId, symbol, exchange))?.quantity ?? 0) : 0;
  const resting = await repo.restingOrdersOf(userId, { symbol, exchange, product });
  return contextOf(position, held, resting, symbol, exchange, product, excludeId);
}

/**
 * A placement's start: the user's account, locked (created by the first order), and its
 * {@link accountContext} in the order's instrument and product. On PostgreSQL one statement
 * when the account exists (each statement is a round trip there).
 */
export async function lockForPlacement(
  repo: SandboxRepository,
  userId: number,
  startingFunds: number,
  now: number,
  symbol: string,
  exchange: string,
  product: Product,
): Promise<{ account: AccountRow; ctx: AccountContext }> {
  const stake = await repo.lockAccountWithStake(userId, { symbol, exchange, product });
  if (stake) {
    const held = product === 'CNC' ? (stake.holding?.quantity ?? 0) : 0;
    return {
      account: stake.account,
      ctx: contextOf(stake.position, held, stake.resting, symbol, exchange, product),
    };
  }
  const account = await repo.lockAccount(userId, startingFunds, now);
  return { account, ctx: await accountContext(repo, userId, symbol, exchange, product) };
}

/** The {@link AccountContext} of the rows read (the resting orders oldest first). */
function contextOf(
  positionRow: PositionRow | undefined,
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

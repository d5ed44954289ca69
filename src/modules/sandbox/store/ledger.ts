/**
 * The sandbox's bookkeeping inside one transaction: an order's state transitions with
 * their event rows, and the writes of a fill (what it does to the account, the position, the
 * holdings and the trade list is decided in core/fill-plan.ts). Every function takes a repository
 * bound to the caller's transaction, which has already locked the account (`lockAccount`).
 */
import type { Money } from '../core/money.js';
import { releaseMargin } from '../core/margin.js';
import {
  contextOf,
  filledRow,
  fundsOf,
  planFill,
  positionOf,
  withFunds,
  type AccountContext,
  type FillPlan,
} from '../core/fill-plan.js';
import type { FillTerms } from '../core/fill-plan.js';
import type { PlacementPlan } from '../core/placement.js';
import { matchPrices, type MarketPrices } from '../core/rules.js';
import { toResting } from '../core/records.js';
import type { AccountRow, OrderRow, SandboxRepository } from './sandbox.repository.js';
import type { OrderStatus, Product } from '../core/types.js';

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
  terms: Readonly<FillTerms>,
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
  const plan = planFill(account, order, position, held, price, now, terms);
  await writeFill(repo, order.id, plan);
  return {
    order: filledRow(current, price, now),
    account: plan.account,
    realised: plan.realised,
    overdrawn: plan.overdrawn,
  };
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

/**
 * Writes a placement's plan (core/placement.ts) in one call and returns the order row: a rejected
 * order with its event; a resting order with its events and the account after its block; an
 * order filled at once with its events, position, trade and account (on PostgreSQL one statement:
 * {@link SandboxRepository.insertFilledOrder}).
 */
export async function applyPlacement(
  repo: SandboxRepository,
  plan: Exclude<PlacementPlan, { kind: 'invalid' }>,
): Promise<OrderRow> {
  if (plan.kind === 'fill') return repo.insertFilledOrder(plan.order, plan.events, plan.fill);
  const row = await repo.insertOrder(plan.order);
  await repo.insertEvents(plan.events.map((e) => ({ ...e, orderId: row.id })));
  if (plan.kind === 'rest') await repo.saveAccount(plan.account);
  return row;
}

/**
 * Matches a just-modified working order against the quote it was modified with: fills it
 * ({@link fillOrder}), or moves a triggered SL to `open`, or leaves it. Returns the order's row.
 */
export async function matchModified(
  repo: SandboxRepository,
  account: AccountRow,
  row: OrderRow,
  prices: MarketPrices,
  now: number,
  terms: Readonly<FillTerms>,
): Promise<OrderRow> {
  const m = matchPrices(toResting(row), prices);
  if (m.fill) return (await fillOrder(repo, account, row, m.price, m.triggered, now, terms))?.order ?? row;
  if (m.triggered && (await transition(repo, row, ['trigger pending'], 'open', now, 'triggered')))
    return { ...row, status: 'open', updated_at: now };
  return row;
}

/**
 * Placement of a sandbox order, split from sandbox.service.ts: validation
 * (docs/rules/sandbox.md#order-validation), margin (docs/rules/sandbox.md#margin-at-placement), the
 * order row and, when the quote fills it at once, the fill (docs/rules/sandbox.md#fills), all in one
 * transaction over the locked account.
 *
 * An order the quote fills at once (every MARKET order with a usable quote) is written in its
 * final state: the order row is inserted already `complete` beside the event rows of each of
 * its transitions (placed, triggered, complete), the position is read once (the placement's own
 * read) and the account is saved once. Nothing else can see or change the order before the
 * transaction commits, so the compare-and-set each later transition needs has nothing to race
 * here, and the rows written are the ones the place-then-fill sequence wrote.
 */
import { badRequest } from '../../../platform/errors.js';
import type { Instrument } from '../../market/instrument.js';
import { filledRow, fundsOf, planFill, reducibleFor, withFunds } from '../core/fill-plan.js';
import { lockForPlacement } from '../store/ledger.js';
import { istDay } from '../core/ist-day.js';
import { blockMargin, placementMargin } from '../core/margin.js';
import {
  matchPrices,
  placementPrice,
  validateOrder,
  type MarketPrices,
  type RejectCode,
} from '../core/rules.js';
import { toOrderRecord } from '../core/records.js';
import type { NewOrder, OrderEventInput, OrderRow, SandboxRepository } from '../store/sandbox.repository.js';
import {
  outOfRange,
  type PlacementJournal,
  type PlaceOutcome,
  type PlaceRequest,
  type SandboxCore,
} from './service.types.js';
import { instrumentKind, type OrderStatus } from '../core/types.js';

/** Validation codes that reject the request outright (nothing is written). */
const INPUT_CODES: ReadonlySet<RejectCode> = new Set([
  'instrument',
  'product',
  'quantity',
  'lot',
  'price',
  'trigger',
]);

/** See {@link SandboxCore.placeOrder}. */
export async function placeOrder<J>(
  s: SandboxCore,
  userId: number,
  req: PlaceRequest,
  journal?: PlacementJournal<J>,
): Promise<PlaceOutcome & { journal?: J }> {
  const instrument = await s.instrument(req.symbol, req.exchange);
  const { prices, fallback } = await s.pricesFor(instrument);
  const now = s.deps.clock.now();
  const { outcome, row, written } = await s.deps.repo
    .groupedTransaction(userId, async (repo) => {
      const result = await placeIn(s, repo, userId, req, instrument, prices, fallback, now);
      const order = toOrderRecord(result.row);
      const outcome: PlaceOutcome =
        result.message !== undefined ? { ok: false, order, message: result.message } : { ok: true, order };
      return {
        outcome,
        row: result.row,
        written: journal ? { journal: await journal(repo.bound, outcome) } : {},
      };
    })
    .catch(outOfRange);
  s.deps.prices().orderPlaced?.(instrument);
  s.changed(row);
  return { ...outcome, ...written };
}

async function placeIn(
  s: SandboxCore,
  repo: SandboxRepository,
  userId: number,
  req: PlaceRequest,
  instrument: Instrument,
  prices: MarketPrices | undefined,
  fallback: MarketPrices | undefined,
  now: number,
): Promise<{ row: OrderRow; message?: string }> {
  const { config } = s.deps;
  const kind = instrumentKind(instrument.instrumenttype);
  const { account, ctx } = await lockForPlacement(
    repo,
    userId,
    config.startingFunds,
    now,
    req.symbol,
    req.exchange,
    req.product,
  );
  const v = validateOrder(req, {
    instrument,
    positionQuantity: ctx.position.quantity,
    sellableQuantity: ctx.sellable,
    session: s.sessionPhase(req.exchange, now),
  });
  if (!v.ok && INPUT_CODES.has(v.code)) throw badRequest(v.reason);
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
  const event = (orderId: number, from: OrderStatus | null, to: OrderStatus, detail: string | null) =>
    ({ orderId, userId, from, to, detail, at: now }) satisfies OrderEventInput;
  const rejectWith = async (reason: string) => {
    const row = await repo.insertOrder({ ...base, status: 'rejected', reason });
    await repo.insertEvent(event(row.id, null, 'rejected', reason));
    return { row, message: reason };
  };
  if (!v.ok) return rejectWith(v.reason);
  const refPrice = placementPrice(v.order, prices ?? fallback);
  if (refPrice === undefined)
    return rejectWith(
      s.deps.prices().noPriceReason?.(instrument) ??
        `No price is available for ${req.exchange}:${req.symbol}; a MARKET order needs a quote`,
    );
  const pm = placementMargin({
    kind,
    product: req.product,
    side: req.side,
    quantity: req.quantity,
    price: refPrice,
    positionQuantity: reducibleFor(ctx, req.side),
    leverage: config.leverage,
  });
  const blocked = blockMargin(fundsOf(account), pm.margin);
  if (!blocked.ok) return rejectWith(blocked.reason);
  const placed = {
    ...base,
    status: v.order.status,
    reason: null,
    blocked_margin: pm.margin,
    blocked_quantity: pm.openingQuantity,
  } satisfies NewOrder;
  const acct = withFunds(account, blocked.funds, now);
  const m = prices
    ? matchPrices({ ...v.order, id: '', symbol: req.symbol, exchange: req.exchange }, prices)
    : undefined;

  if (m?.fill) {
    // Filled at once: the order's final row, the event of each transition, one fill write.
    const plan = planFill(acct, placed, ctx.position, ctx.held, m.price, now, config.leverage);
    const through = m.triggered && placed.status === 'trigger pending';
    const step = (from: OrderStatus | null, to: OrderStatus, detail: string | null) =>
      ({ userId, from, to, detail, at: now }) satisfies Omit<OrderEventInput, 'orderId'>;
    const row = await repo.insertFilledOrder(
      filledRow(placed, m.price, now),
      [
        step(null, placed.status, null),
        ...(through ? [step('trigger pending', 'open', 'triggered')] : []),
        step(through ? 'open' : placed.status, 'complete', null),
      ],
      plan,
    );
    return { row };
  }

  const row = await repo.insertOrder(placed);
  await repo.insertEvent(event(row.id, null, placed.status, null));
  await repo.saveAccount(acct);
  // An SL whose trigger the quote reached but whose limit it does not: `open` now.
  return { row: prices ? await s.matchNow(repo, acct, row, prices, now) : row };
}

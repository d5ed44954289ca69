/**
 * Managing working orders and positions of a sandbox account (modifyorder, closeposition:
 * docs/rules/sandbox.md#cancel-and-modify). They take the service's {@link SandboxContext}, not the
 * facade; closing a position is a placement (place.ts).
 */
import { badRequest } from '../../../platform/errors.js';
import { fundsOf, reducibleFor, withFunds } from '../core/fill-plan.js';
import { accountContext, matchModified, transition } from '../store/ledger.js';
import { blockMargin, placementMargin, releaseMargin } from '../core/margin.js';
import { moneyToRupees } from '../core/money.js';
import { placementPrice, validateOrder } from '../core/rules.js';
import { toOrderRecord, type OrderRecord } from '../core/records.js';
import { RESTING, type OrderRow } from '../store/sandbox.repository.js';
import type { TradeRow } from '../store/rows.js';
import { ownOrder, type SandboxContext } from './context.js';
import { derivativeMargin } from './derivative-margin.js';
import { placeOrder } from './place.js';
import { outOfRange, type PlaceOutcome } from './service.types.js';
import { instrumentKind, type OrderStatus, type PriceType, type Product, type Side } from '../core/types.js';
import { closingAction } from '../../../domain/orders.js';

/** A modifyorder request: the new price type, quantity and prices of a working order. */
export interface ModifyRequest {
  symbol: string;
  exchange: string;
  side: Side;
  product: Product;
  priceType: PriceType;
  quantity: number;
  price?: number | string;
  triggerPrice?: number | string;
}

/** Which positions closeposition closes (all when empty). */
export interface PositionFilter {
  exchange?: string;
  product?: Product;
  symbol?: string;
}

/**
 * Modifies a working order (docs/rules/sandbox.md#cancel-and-modify): symbol, exchange, action and
 * product must be the order's; price type, quantity, price and trigger may change. The order is
 * validated and margined again as if placed now (its old block released first); on any
 * failure the order stays as it was.
 */
export async function modifyOrder(
  s: SandboxContext,
  userId: number,
  orderId: number,
  req: ModifyRequest,
): Promise<OrderRecord> {
  const existing = await ownOrder(s.deps.repo, userId, orderId);
  for (const [field, want, have] of [
    ['symbol', req.symbol, existing.symbol],
    ['exchange', req.exchange, existing.exchange],
    ['action', req.side, existing.side],
    ['product', req.product, existing.product],
  ] as const)
    if (want !== have) throw badRequest(`${field} cannot be modified (order ${orderId} is ${have})`);
  const instrument = await s.instrument(existing.symbol, existing.exchange);
  const { prices, fallback } = await s.pricesFor(instrument);
  const derivative = await derivativeMargin(s, userId, instrument, {
    side: existing.side as Side,
    quantity: req.quantity,
    product: existing.product,
    priceType: req.priceType,
    price: req.price,
    triggerPrice: req.triggerPrice,
  });
  const now = s.deps.clock.now();
  const { config } = s.deps;
  const row = await s.deps.repo
    .transaction(async (repo) => {
      let account = await repo.lockAccount(userId, config.startingFunds, now);
      const order = await ownOrder(repo, userId, orderId);
      if (!RESTING.includes(order.status as OrderStatus))
        throw badRequest(`Order ${orderId} is ${order.status} and cannot be modified`);
      const product = order.product as Product;
      const ctx = await accountContext(repo, userId, order.symbol, order.exchange, product, order.id);
      const v = validateOrder(
        {
          side: order.side as Side,
          product,
          priceType: req.priceType,
          quantity: req.quantity,
          price: req.price,
          triggerPrice: req.triggerPrice,
        },
        {
          instrument,
          positionQuantity: ctx.position.quantity,
          sellableQuantity: ctx.sellable,
          session: s.sessionPhase(order.exchange, now),
        },
      );
      if (!v.ok) throw badRequest(v.reason);
      const refPrice = placementPrice(v.order, prices ?? fallback);
      if (refPrice === undefined)
        throw badRequest(
          s.deps.prices().noPriceReason?.(instrument) ??
            `No price is available for ${order.exchange}:${order.symbol}`,
        );
      const funds = releaseMargin(fundsOf(account), order.blocked_margin);
      const pm = placementMargin({
        kind: instrumentKind(instrument.instrumenttype),
        product,
        side: order.side as Side,
        quantity: v.order.quantity,
        price: refPrice,
        positionQuantity: reducibleFor(ctx, order.side as Side),
        leverage: config.leverage,
        ...(derivative ? { derivative } : {}),
      });
      const blocked = blockMargin(funds, pm.margin, pm.method);
      if (!blocked.ok) throw badRequest(blocked.reason);
      const patch = {
        price_type: v.order.priceType,
        quantity: v.order.quantity,
        price: v.order.price,
        trigger_price: v.order.triggerPrice,
        blocked_margin: pm.margin,
        blocked_quantity: pm.openingQuantity,
      };
      const detail = `modified: ${v.order.priceType} ${v.order.quantity} @ ${moneyToRupees(v.order.price)} trigger ${moneyToRupees(v.order.triggerPrice)}`;
      if (!(await transition(repo, order, RESTING, v.order.status, now, detail, patch)))
        throw badRequest(`Order ${orderId} is no longer open`);
      account = withFunds(account, blocked.funds, now);
      await repo.saveAccount(account);
      const next: OrderRow = { ...order, ...patch, status: v.order.status, updated_at: now };
      return prices ? matchModified(repo, account, next, prices, now, config) : next;
    })
    .catch(outOfRange);
  s.changed(row);
  return toOrderRecord(row);
}

/** The signed net quantity each strategy's fills hold, by `exchange:symbol:product`. */
function strategyHoldings(trades: readonly TradeRow[], strategy: string): Map<string, number> {
  const net = new Map<string, number>();
  for (const t of trades) {
    if (t.strategy !== strategy) continue;
    const key = `${t.exchange}:${t.symbol}:${t.product}`;
    net.set(key, (net.get(key) ?? 0) + (t.side === 'BUY' ? t.quantity : -t.quantity));
  }
  return net;
}

/**
 * Closes positions at market (closeposition): every open position of the user, or only those
 * matching `filter`, less what working orders on the other side already close. With `scope` a
 * strategy, only what that strategy's fills hold of each position is closed
 * (docs/rules/sandbox.md#correct-exits; OpenAlgo's closeposition closes every strategy's). The
 * closing orders carry `strategy`. Returns the orders placed. A MARKET order placed on a stale
 * quote rests and fills on the next good one.
 */
export async function closePositions(
  s: SandboxContext,
  userId: number,
  filter: PositionFilter,
  strategy: string | null,
  scope: 'all' | 'strategy' = 'all',
): Promise<PlaceOutcome[]> {
  const out: PlaceOutcome[] = [];
  const held =
    scope === 'strategy' && strategy !== null
      ? strategyHoldings(await s.deps.repo.tradesOf(userId), strategy)
      : undefined;
  for (const p of await s.deps.repo.positionsOf(userId, filter)) {
    if (p.quantity === 0) continue;
    if (filter.exchange && p.exchange !== filter.exchange) continue;
    if (filter.product && p.product !== filter.product) continue;
    if (filter.symbol && p.symbol !== filter.symbol) continue;
    // The strategy's share: what its fills hold on the position's side, at most the position.
    let wanted = Math.abs(p.quantity);
    if (held) {
      const own = held.get(`${p.exchange}:${p.symbol}:${p.product}`) ?? 0;
      if (own === 0 || Math.sign(own) !== Math.sign(p.quantity)) continue;
      wanted = Math.min(wanted, Math.abs(own));
    }
    // Working orders that already close part of it (an earlier close waiting for a price) count.
    const side: Side = closingAction(p.quantity);
    const ctx = await accountContext(s.deps.repo, userId, p.symbol, p.exchange, p.product as Product);
    const quantity = Math.min(wanted, Math.abs(reducibleFor(ctx, side)));
    if (quantity === 0) continue;
    out.push(
      await placeOrder(s, userId, {
        symbol: p.symbol,
        exchange: p.exchange,
        side,
        priceType: 'MARKET',
        product: p.product as Product,
        quantity,
        strategy,
      }),
    );
  }
  return out;
}

/**
 * GTT orders in the sandbox (docs/rules/sandbox.md#gtt-orders): placed, modified, cancelled and
 * listed for a user, and fired by the day jobs' pass on every engine tick. A GTT reserves the
 * margin of the order it would place (the larger of an OCO's two legs) while it is active; the
 * reservation is released when it leaves `active`. Firing is one transaction over the user's locked
 * account: the GTT's compare-and-set out of `active`, the reservation's release and the placement
 * of its order (core/placement.ts, as placeorder places) commit together or not at all, so two
 * instances fire a GTT once, and an instance killed mid-fire leaves it active for the next pass.
 */
import type { GttPriceType, GttProduct } from '../../../domain/orders.js';
import { badRequest, notFound } from '../../../platform/errors.js';
import type { Instrument } from '../../market/instrument.js';
import { fundsOf, reducibleFor, withFunds, type AccountContext } from '../core/fill-plan.js';
import { dueLeg, wrongSide, type GttLeg } from '../core/gtt.js';
import { blockMargin, placementMargin, releaseMargin, type DerivativeMargin } from '../core/margin.js';
import { isOnTick, moneyToRupees, rupeesToMoney, tryRupeesToMoney, type Money } from '../core/money.js';
import { planPlacement, type PlaceRequest } from '../core/placement.js';
import { istDay } from '../core/ist-day.js';
import { instrumentKind, quoteKey, type Side } from '../core/types.js';
import { accountContext, applyPlacement, lockForPlacement } from '../store/ledger.js';
import type { GttRow, OrderRow } from '../store/rows.js';
import type { SandboxContext } from './context.js';
import { derivativeMargin } from './derivative-margin.js';
import { placementMarket } from './place.js';
import { outOfRange } from './service.types.js';

/** A GTT as the API asks for it (validated fields; prices in rupees). */
export interface GttRequest {
  strategy: string | null;
  symbol: string;
  exchange: string;
  type: 'single' | 'oco';
  side: Side;
  product: GttProduct;
  quantity: number;
  priceType: GttPriceType;
  /** The stoploss leg: fires at or below `trigger`; `price` its limit (0 for MARKET). */
  sl?: { trigger: number; price: number } | undefined;
  /** The target leg: fires at or above `trigger`. */
  tg?: { trigger: number; price: number } | undefined;
}

/** A GTT lives a year unless it fires, is cancelled or its contract expires first (Kite's and Upstox's validity). */
export const GTT_VALIDITY_MS = 365 * 86_400_000;

const LEG_FIELDS = {
  sl: { trigger: 'triggerprice_sl', price: 'stoploss' },
  tg: { trigger: 'triggerprice_tg', price: 'target' },
} as const;

/** The request's legs in Money, on the instrument's tick, or a 400 naming the field. */
function legsOf(req: GttRequest, instrument: Instrument) {
  const tick = rupeesToMoney(instrument.tickSize);
  const money = (v: number, field: string): Money => {
    const m = tryRupeesToMoney(String(v));
    if (m === undefined || m < 0) throw badRequest(`${field}: ${v} is not a price in rupees`);
    if (m > 0 && tick > 0 && !isOnTick(m, tick))
      throw badRequest(`${field}: ${v} is not a multiple of the tick size ${instrument.tickSize}`);
    return m;
  };
  const leg = (name: GttLeg) => {
    const l = req[name];
    if (!l) return null;
    const priceField = req.type === 'single' ? 'price' : LEG_FIELDS[name].price;
    const price = req.priceType === 'MARKET' ? 0 : money(l.price, priceField);
    if (req.priceType === 'LIMIT' && price === 0)
      throw badRequest(`${priceField}: a LIMIT leg needs a price above 0`);
    return { trigger: money(l.trigger, LEG_FIELDS[name].trigger), price };
  };
  const sl = leg('sl');
  const tg = leg('tg');
  if (!sl && !tg) throw badRequest('triggerprice_sl: a GTT needs a trigger');
  return { sl, tg };
}

function activeOf(row: GttRow | undefined, userId: number, id: number): GttRow {
  if (!row || row.user_id !== userId) throw notFound(`No GTT with trigger_id '${id}'`);
  if (row.status !== 'active') throw badRequest(`GTT ${id} is ${row.status} and cannot be changed`);
  return row;
}

type Legs = ReturnType<typeof legsOf>;

/**
 * Each leg's derivative margin (a future's or short option's, docs/rules/sandbox.md#margins-like-a-broker),
 * asked before the transaction (it may read and call out), at the leg's limit or, for MARKET, its trigger.
 */
async function legMargins(
  s: SandboxContext,
  userId: number,
  instrument: Instrument,
  req: GttRequest,
  legs: Legs,
) {
  const out: (DerivativeMargin | undefined)[] = [];
  for (const leg of [legs.sl, legs.tg]) {
    const price = leg ? (leg.price > 0 ? leg.price : leg.trigger) : 0;
    out.push(
      leg
        ? await derivativeMargin(s, userId, instrument, {
            side: req.side,
            quantity: req.quantity,
            product: req.product,
            priceType: 'LIMIT',
            price: moneyToRupees(price),
          })
        : undefined,
    );
  }
  return out;
}

/**
 * The margin a GTT reserves: each leg's order margined as placement would margin it now (at its
 * limit, or at its trigger for MARKET), against the account's position; the larger of an OCO's.
 */
function reservation(
  s: SandboxContext,
  instrument: Instrument,
  req: GttRequest,
  legs: Legs,
  derivatives: readonly (DerivativeMargin | undefined)[],
  ctx: AccountContext,
): { margin: Money; method?: string } {
  let best: { margin: Money; method?: string } = { margin: 0 };
  for (const [i, leg] of [legs.sl, legs.tg].entries()) {
    if (!leg) continue;
    const derivative = derivatives[i];
    const pm = placementMargin({
      kind: instrumentKind(instrument.instrumenttype),
      product: req.product,
      side: req.side,
      quantity: req.quantity,
      price: leg.price > 0 ? leg.price : leg.trigger,
      positionQuantity: reducibleFor(ctx, req.side),
      leverage: s.deps.config.leverage,
      ...(derivative ? { derivative } : {}),
    });
    if (pm.margin >= best.margin) best = { margin: pm.margin, ...(pm.method ? { method: pm.method } : {}) };
  }
  return best;
}

/** Checks a GTT request against the instrument and its last price (400s naming the field). */
async function checked(s: SandboxContext, req: GttRequest) {
  const instrument = await s.instrument(req.symbol, req.exchange);
  const kind = instrumentKind(instrument.instrumenttype);
  if (kind === 'index') throw badRequest(`symbol: ${req.symbol} is an index and cannot be traded`);
  const now = s.deps.clock.now();
  if (instrument.expiryDate && instrument.expiryDate < istDay(now))
    throw badRequest(`symbol: ${req.symbol} expired on ${instrument.expiryDate}`);
  if (req.quantity % Math.max(1, instrument.lotsize) !== 0)
    throw badRequest(`quantity: ${req.quantity} is not a multiple of the lot size ${instrument.lotsize}`);
  const legs = legsOf(req, instrument);
  const { prices, fallback } = await s.pricesFor(instrument);
  const ltp = (prices ?? fallback)?.ltp;
  if (ltp === undefined || !(ltp > 0))
    throw badRequest(
      `symbol: no last price is known for ${req.exchange}:${req.symbol}; a GTT's triggers are set against it`,
    );
  const triggers = { trigger_sl: legs.sl?.trigger ?? null, trigger_tg: legs.tg?.trigger ?? null };
  const side = wrongSide(triggers, ltp);
  if (side) throw badRequest(side);
  return { instrument, legs, ltp, now, triggers };
}

/** Places a GTT (see the file comment): the row, or a 400 with nothing written. */
export async function placeGtt(s: SandboxContext, userId: number, req: GttRequest): Promise<GttRow> {
  const { instrument, legs, ltp, now, triggers } = await checked(s, req);
  const derivatives = await legMargins(s, userId, instrument, req, legs);
  const { repo, config } = s.deps;
  return repo
    .transaction(async (trx) => {
      const account = await trx.lockAccount(userId, config.startingFunds, now);
      const ctx = await accountContext(trx, userId, req.symbol, req.exchange, req.product);
      const r = reservation(s, instrument, req, legs, derivatives, ctx);
      const blocked = blockMargin(fundsOf(account), r.margin, r.method);
      if (!blocked.ok) throw badRequest(blocked.reason);
      await trx.saveAccount(withFunds(account, blocked.funds, now));
      s.gttKeys?.add(quoteKey(req.exchange, req.symbol));
      s.gttPlaced?.(req.symbol, req.exchange);
      return trx.insertGtt({
        user_id: userId,
        strategy: req.strategy,
        symbol: req.symbol,
        exchange: req.exchange,
        type: req.type,
        side: req.side,
        product: req.product,
        quantity: req.quantity,
        price_type: req.priceType,
        ...triggers,
        price_sl: legs.sl?.price ?? null,
        price_tg: legs.tg?.price ?? null,
        last_price: ltp,
        blocked_margin: r.margin,
        status: 'active',
        fired_leg: null,
        order_id: null,
        reason: null,
        expires_at: now + GTT_VALIDITY_MS,
        created_at: now,
        updated_at: now,
      });
    })
    .catch(outOfRange);
}

/**
 * Modifies an active GTT: a whole replacement of its triggers, prices and quantity (type, symbol,
 * exchange, action and product are the GTT's: cancel and place again to change them); its
 * reservation is reckoned again. A 404 for another user's or an unknown GTT.
 */
export async function modifyGtt(
  s: SandboxContext,
  userId: number,
  id: number,
  req: GttRequest,
): Promise<GttRow> {
  const existing = activeOf(await s.deps.repo.getGtt(id), userId, id);
  for (const [field, want, have] of [
    ['trigger_type', req.type, existing.type],
    ['symbol', req.symbol, existing.symbol],
    ['exchange', req.exchange, existing.exchange],
    ['action', req.side, existing.side],
    ['product', req.product, existing.product],
  ] as const)
    if (want !== have)
      throw badRequest(
        `${field} cannot be changed on an existing GTT (it is ${have}): cancel it and place a new one`,
      );
  const { instrument, legs, ltp, now, triggers } = await checked(s, req);
  const derivatives = await legMargins(s, userId, instrument, req, legs);
  const { repo, config } = s.deps;
  return repo
    .transaction(async (trx) => {
      const account = await trx.lockAccount(userId, config.startingFunds, now);
      const row = activeOf(await trx.getGtt(id), userId, id);
      const ctx = await accountContext(trx, userId, req.symbol, req.exchange, req.product);
      const r = reservation(s, instrument, req, legs, derivatives, ctx);
      const blocked = blockMargin(releaseMargin(fundsOf(account), row.blocked_margin), r.margin, r.method);
      if (!blocked.ok) throw badRequest(blocked.reason);
      const patch = {
        quantity: req.quantity,
        price_type: req.priceType,
        ...triggers,
        price_sl: legs.sl?.price ?? null,
        price_tg: legs.tg?.price ?? null,
        last_price: ltp,
        blocked_margin: r.margin,
        updated_at: now,
      };
      if (!(await trx.updateGttIfActive(id, patch))) throw badRequest(`GTT ${id} is no longer active`);
      await trx.saveAccount(withFunds(account, blocked.funds, now));
      return { ...row, ...patch };
    })
    .catch(outOfRange);
}

/** Ends an active GTT (`cancelled` or `expired`), releasing its reservation; false when it was no longer active. */
export async function endGtt(
  s: SandboxContext,
  row: GttRow,
  status: 'cancelled' | 'expired',
  reason: string | null,
): Promise<boolean> {
  const now = s.deps.clock.now();
  return s.deps.repo.transaction(async (trx) => {
    const account = await trx.lockAccount(row.user_id, s.deps.config.startingFunds, now);
    const current = await trx.getGtt(row.id);
    if (!current || !(await trx.updateGttIfActive(row.id, { status, reason, updated_at: now }))) return false;
    await trx.saveAccount(withFunds(account, releaseMargin(fundsOf(account), current.blocked_margin), now));
    return true;
  });
}

/** Cancels the user's active GTT (a 404 for another user's or an unknown one). */
export async function cancelGtt(s: SandboxContext, userId: number, id: number): Promise<GttRow> {
  const row = activeOf(await s.deps.repo.getGtt(id), userId, id);
  if (!(await endGtt(s, row, 'cancelled', 'cancelled by the user')))
    throw badRequest(`GTT ${id} is no longer active`);
  return { ...row, status: 'cancelled' };
}

/**
 * Fires `leg` of an active GTT at the clock's now: its order placed as placeorder places it (a
 * LIMIT at the leg's price, or MARKET), tagged `gtt-<id>`, in the transaction that moves the GTT
 * out of `active`. Undefined when another pass or instance fired, cancelled or expired it first.
 */
export async function fireGtt(s: SandboxContext, row: GttRow, leg: GttLeg): Promise<OrderRow | undefined> {
  const instrument = await s.deps.instruments.get(row.symbol, row.exchange);
  if (!instrument) {
    await endGtt(s, row, 'expired', 'the instrument is no longer in the master contract');
    return undefined;
  }
  const price = leg === 'sl' ? row.price_sl : row.price_tg;
  const req: PlaceRequest = {
    symbol: row.symbol,
    exchange: row.exchange,
    side: row.side as Side,
    priceType: row.price_type === 'MARKET' ? 'MARKET' : 'LIMIT',
    product: row.product as PlaceRequest['product'],
    quantity: row.quantity,
    ...(row.price_type === 'MARKET' ? {} : { price: moneyToRupees(price ?? 0) }),
    strategy: row.strategy,
    tag: `gtt-${row.id}`,
  };
  const market = await placementMarket(s, row.user_id, instrument, req);
  const { repo, config } = s.deps;
  const now = market.now;
  const placed = await repo
    .transaction(async (trx) => {
      const account = await trx.lockAccount(row.user_id, config.startingFunds, now);
      const current = await trx.getGtt(row.id);
      if (
        !current ||
        !(await trx.updateGttIfActive(row.id, { status: 'triggered', fired_leg: leg, updated_at: now }))
      )
        return undefined;
      await trx.saveAccount(withFunds(account, releaseMargin(fundsOf(account), current.blocked_margin), now));
      const snapshot = await lockForPlacement(
        trx,
        row.user_id,
        config.startingFunds,
        now,
        row.symbol,
        row.exchange,
        req.product,
      );
      const plan = planPlacement(snapshot, row.user_id, req, market, config);
      if (plan.kind === 'invalid') {
        await trx.updateGtt(row.id, { status: 'rejected', reason: plan.reason });
        return undefined;
      }
      const order = await applyPlacement(trx, plan);
      await trx.updateGtt(row.id, {
        order_id: order.id,
        reason: plan.kind === 'reject' ? `its order was rejected: ${plan.reason}` : null,
      });
      return order;
    })
    .catch((err: unknown) => {
      s.deps.logger.warn({ err, gttId: row.id }, 'sandbox GTT not fired; the next pass tries again');
      return undefined;
    });
  if (placed) {
    s.deps.prices().orderPlaced?.(instrument);
    s.changed(placed);
    s.deps.logger.info(
      {
        gttId: row.id,
        leg,
        orderId: placed.id,
        status: placed.status,
        instrument: quoteKey(row.exchange, row.symbol),
      },
      'sandbox GTT fired',
    );
  }
  return placed;
}

/**
 * The trigger pass: every active GTT whose instrument's latest price reaches a leg fires it (only
 * while its exchange is in session when sessions are kept); GTTs past their validity or their
 * contract's expiry day expire. Returns the orders placed.
 */
export async function runGtts(s: SandboxContext, keys?: readonly string[]): Promise<OrderRow[]> {
  // A batch of quotes of instruments no active GTT watches costs no query (the cache is the last
  // full pass's, plus what this instance placed since).
  if (keys && s.gttKeys && !keys.some((k) => s.gttKeys!.has(k))) return [];
  const now = s.deps.clock.now();
  const today = istDay(now);
  const out: OrderRow[] = [];
  const active = await s.deps.repo.activeGtts();
  if (!keys) s.gttKeys = new Set(active.map((g) => quoteKey(g.exchange, g.symbol)));
  const wanted = keys ? new Set(keys) : undefined;
  for (const row of active) {
    if (wanted && !wanted.has(quoteKey(row.exchange, row.symbol))) continue;
    if (row.expires_at <= now) {
      await endGtt(s, row, 'expired', 'expired: a GTT lives a year');
      continue;
    }
    const instrument = await s.deps.instruments.get(row.symbol, row.exchange);
    if (instrument?.expiryDate && instrument.expiryDate < today) {
      await endGtt(s, row, 'expired', 'contract expired');
      continue;
    }
    if (s.closedReason(row.exchange, now) !== undefined) continue;
    const quote = s.deps.prices().latest(quoteKey(row.exchange, row.symbol));
    if (!quote || now - quote.timestamp > s.deps.config.maxQuoteAgeMs) continue;
    const leg = dueLeg(row, Math.round(quote.ltp * 10_000));
    if (!leg) continue;
    const order = await fireGtt(s, row, leg);
    if (order) out.push(order);
  }
  return out;
}

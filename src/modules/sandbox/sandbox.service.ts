/**
 * The sandbox account (issue 5): placement, cancel, modify and close of paper orders, each in one
 * transaction over the user's locked account, and the reads the `/api/v1` books answer from.
 * Matching on price updates is the engine's (sandbox.engine.ts); day-boundary jobs are in
 * sandbox-jobs.ts.
 */
import type { Logger } from 'pino';
import type { SandboxConfig } from '../../config-sandbox.js';
import type { Clock } from '../../platform/clock.js';
import { AppError, badRequest, notFound } from '../../platform/errors.js';
import type { Instrument } from '../market/instrument.js';
import { istDateOf } from '../market/timings.service.js';
import { squareOffAt, type SessionBounds } from './square-off.js';
import {
  accountContext,
  endOrder,
  fillOrder,
  fundsOf,
  reducibleFor,
  transition,
  withFunds,
} from './ledger.js';
import { blockMargin, placementMargin, releaseMargin } from './margin.js';
import { moneyToRupees } from './money.js';
import {
  checkQuote,
  matchPrices,
  placementPrice,
  validateOrder,
  type MarketPrices,
  type OrderRequest,
  type RejectCode,
  type SessionPhase,
} from './order-rules.js';
import type { PriceSource } from './price-source.js';
import { toOrderRecord, toResting, type OrderRecord } from './records.js';
import { RESTING, type AccountRow, type OrderRow, type SandboxRepository } from './sandbox.repository.js';
import { instrumentKind, type OrderStatus, type PriceType, type Product, type Side } from './types.js';

/** A placeorder request as the sandbox receives it (after the request schema). */
export interface PlaceRequest extends OrderRequest {
  symbol: string;
  exchange: string;
  strategy?: string | null;
}

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

/** What placement decided: the order (rejected orders are kept with their reason). */
export type PlaceOutcome =
  { ok: true; order: OrderRecord } | { ok: false; order: OrderRecord; message: string };

/** Instruments as the sandbox looks them up (the master contract). */
export interface InstrumentLookup {
  get(symbol: string, exchange: string): Promise<Instrument | undefined>;
}

export interface SandboxServiceDeps {
  repo: SandboxRepository;
  instruments: InstrumentLookup;
  prices: () => PriceSource;
  clock: Clock;
  config: SandboxConfig;
  logger: Logger;
}

/** Validation codes that reject the request outright (nothing is written). */
const INPUT_CODES: ReadonlySet<RejectCode> = new Set([
  'instrument',
  'product',
  'quantity',
  'lot',
  'price',
  'trigger',
]);

export class SandboxService {
  /** Told about every order that was created, changed or ended (the engine keeps its book by it). */
  private readonly listeners: ((order: OrderRow) => void)[] = [];

  constructor(private readonly deps: SandboxServiceDeps) {}

  onOrderChange(listener: (order: OrderRow) => void): void {
    this.listeners.push(listener);
  }

  private changed(order: OrderRow | undefined): void {
    if (order) for (const l of this.listeners) l(order);
  }

  get repo(): SandboxRepository {
    return this.deps.repo;
  }

  /** The MIS square-off instant of `exchange` on an IST date (see square-off.ts). */
  squareOffAt(exchange: string, date: string, session?: SessionBounds): number | undefined {
    return squareOffAt(this.deps.config.squareOff, exchange, date, session);
  }

  /** Phase of the MIS day for `exchange` at `now`. */
  sessionPhase(exchange: string, now: number): SessionPhase {
    const at = this.squareOffAt(exchange, istDateOf(now));
    return at !== undefined && now >= at ? 'after-square-off' : 'regular';
  }

  private async instrument(symbol: string, exchange: string): Promise<Instrument> {
    const instrument = await this.deps.instruments.get(symbol, exchange);
    if (!instrument)
      throw badRequest(`Symbol '${symbol}' not found on exchange ${exchange} in the master contract`);
    return instrument;
  }

  /** A quote for the instrument and whether it may fill (stale or out-of-range quotes may not). */
  private async pricesFor(
    instrument: Instrument,
  ): Promise<{ prices?: MarketPrices; fallback?: MarketPrices }> {
    const quote = await this.deps
      .prices()
      .quote(instrument)
      .catch((err: unknown) => {
        this.deps.logger.warn(
          { err, symbol: instrument.symbol, exchange: instrument.exchange },
          'sandbox quote failed',
        );
        return undefined;
      });
    if (!quote) return {};
    const c = checkQuote(quote, this.deps.clock.now(), this.deps.config.maxQuoteAgeMs);
    if (c.ok) return { prices: c.prices };
    const ltp = Math.round(quote.ltp * 10_000);
    return ltp > 0 ? { fallback: { ltp, bid: 0, ask: 0 } } : {};
  }

  /**
   * Places an order (issue 5, "Orders"). Input errors (unknown symbol, lot size, prices, product)
   * throw a 400 and write nothing; account rules (funds, holdings, square-off, no price) record
   * the order as `rejected` with its reason. A MARKET order fills at once; a marketable LIMIT
   * fills at once at the better price; the rest wait for the engine.
   */
  async placeOrder(userId: number, req: PlaceRequest): Promise<PlaceOutcome> {
    const instrument = await this.instrument(req.symbol, req.exchange);
    const { prices, fallback } = await this.pricesFor(instrument);
    const now = this.deps.clock.now();
    const { config } = this.deps;
    const kind = instrumentKind(instrument.instrumenttype);
    const result = await this.deps.repo
      .transaction(async (repo) => {
        const account = await repo.lockAccount(userId, config.startingFunds, now);
        const ctx = await accountContext(repo, userId, req.symbol, req.exchange, req.product);
        const v = validateOrder(req, {
          instrument,
          positionQuantity: ctx.position.quantity,
          sellableQuantity: ctx.sellable,
          session: this.sessionPhase(req.exchange, now),
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
          day: istDateOf(now),
          created_at: now,
          updated_at: now,
        };
        const rejectWith = async (reason: string) => {
          const row = await repo.insertOrder({ ...base, status: 'rejected', reason });
          await repo.insertEvent({
            orderId: row.id,
            userId,
            from: null,
            to: 'rejected',
            detail: reason,
            at: now,
          });
          return { row, message: reason };
        };
        if (!v.ok) return rejectWith(v.reason);
        const refPrice = placementPrice(v.order, prices ?? fallback);
        if (refPrice === undefined)
          return rejectWith(
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
        let row = await repo.insertOrder({
          ...base,
          status: v.order.status,
          reason: null,
          blocked_margin: pm.margin,
          blocked_quantity: pm.openingQuantity,
        });
        await repo.insertEvent({
          orderId: row.id,
          userId,
          from: null,
          to: row.status as OrderStatus,
          detail: null,
          at: now,
        });
        const acct: AccountRow = withFunds(account, blocked.funds, now);
        await repo.saveAccount(acct);
        if (prices) row = await this.matchNow(repo, acct, row, prices, now);
        return { row };
      })
      .catch(outOfRange);
    this.changed(result.row);
    const order = toOrderRecord(result.row);
    return 'message' in result && result.message !== undefined
      ? { ok: false, order, message: result.message }
      : { ok: true, order };
  }

  /** Matches a just-placed or modified order against the quote it was placed with. */
  private async matchNow(
    repo: SandboxRepository,
    account: AccountRow,
    row: OrderRow,
    prices: MarketPrices,
    now: number,
  ): Promise<OrderRow> {
    const m = matchPrices(toResting(row), prices);
    if (m.fill) {
      const filled = await fillOrder(
        repo,
        account,
        row,
        m.price,
        m.triggered,
        now,
        this.deps.config.leverage,
      );
      return filled?.order ?? row;
    }
    if (m.triggered && (await transition(repo, row, ['trigger pending'], 'open', now, 'triggered')))
      return { ...row, status: 'open', updated_at: now };
    return row;
  }

  /**
   * Fills a working order found marketable by the engine. Undefined when it was no longer
   * working (cancelled meanwhile, or filled by another instance).
   */
  async fillResting(
    userId: number,
    orderId: number,
    price: number,
    triggered: boolean,
  ): Promise<OrderRow | undefined> {
    const now = this.deps.clock.now();
    const result = await this.deps.repo.transaction(async (repo) => {
      const account = await repo.lockAccount(userId, this.deps.config.startingFunds, now);
      const order = await repo.getOrder(orderId);
      if (!order || order.user_id !== userId || !RESTING.includes(order.status as OrderStatus))
        return undefined;
      return fillOrder(repo, account, order, price, triggered, now, this.deps.config.leverage);
    });
    if (result?.overdrawn)
      this.deps.logger.warn({ userId, orderId }, 'sandbox fill took available funds below zero');
    this.changed(result?.order);
    return result?.order;
  }

  /** An SL order whose trigger was reached but whose limit is not marketable: now `open`. */
  async markTriggered(orderId: number): Promise<void> {
    const now = this.deps.clock.now();
    const order = await this.deps.repo.getOrder(orderId);
    if (!order || order.status !== 'trigger pending') return;
    if (await transition(this.deps.repo, order, ['trigger pending'], 'open', now, 'triggered'))
      this.changed({ ...order, status: 'open', updated_at: now });
  }

  /** Cancels a working order of the user (404 for another user's or an unknown order). */
  async cancelOrder(userId: number, orderId: number, reason: string | null = null): Promise<OrderRecord> {
    const now = this.deps.clock.now();
    const row = await this.deps.repo.transaction(async (repo) => {
      const account = await repo.lockAccount(userId, this.deps.config.startingFunds, now);
      const order = await this.ownOrder(repo, userId, orderId);
      if (!RESTING.includes(order.status as OrderStatus))
        throw badRequest(`Order ${orderId} is ${order.status} and cannot be cancelled`);
      await endOrder(repo, account, order, 'cancelled', reason, now);
      return {
        ...order,
        status: 'cancelled',
        reason,
        blocked_margin: 0,
        blocked_quantity: 0,
        updated_at: now,
      };
    });
    this.changed(row);
    return toOrderRecord(row);
  }

  /** Cancels every working order of the user; reports which ids were cancelled and which failed. */
  async cancelAll(
    userId: number,
  ): Promise<{ cancelled: string[]; failed: { orderid: string; message: string }[] }> {
    const cancelled: string[] = [];
    const failed: { orderid: string; message: string }[] = [];
    for (const o of await this.deps.repo.restingOrdersOf(userId)) {
      try {
        await this.cancelOrder(userId, o.id);
        cancelled.push(String(o.id));
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        failed.push({ orderid: String(o.id), message: err.message });
      }
    }
    return { cancelled, failed };
  }

  private async ownOrder(repo: SandboxRepository, userId: number, orderId: number): Promise<OrderRow> {
    const order = await repo.getOrder(orderId);
    if (!order || order.user_id !== userId) throw notFound(`Order ${orderId} not found`);
    return order;
  }

  /**
   * Modifies a working order (issue 5, "Cancel and modify"): symbol, exchange, action and product
   * must be the order's; price type, quantity, price and trigger may change. The order is
   * validated and margined again as if placed now (its old block released first); on any
   * failure the order stays as it was.
   */
  async modifyOrder(userId: number, orderId: number, req: ModifyRequest): Promise<OrderRecord> {
    const existing = await this.ownOrder(this.deps.repo, userId, orderId);
    for (const [field, want, have] of [
      ['symbol', req.symbol, existing.symbol],
      ['exchange', req.exchange, existing.exchange],
      ['action', req.side, existing.side],
      ['product', req.product, existing.product],
    ] as const)
      if (want !== have) throw badRequest(`${field} cannot be modified (order ${orderId} is ${have})`);
    const instrument = await this.instrument(existing.symbol, existing.exchange);
    const { prices, fallback } = await this.pricesFor(instrument);
    const now = this.deps.clock.now();
    const { config } = this.deps;
    const row = await this.deps.repo
      .transaction(async (repo) => {
        let account = await repo.lockAccount(userId, config.startingFunds, now);
        const order = await this.ownOrder(repo, userId, orderId);
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
            session: this.sessionPhase(order.exchange, now),
          },
        );
        if (!v.ok) throw badRequest(v.reason);
        const refPrice = placementPrice(v.order, prices ?? fallback);
        if (refPrice === undefined)
          throw badRequest(`No price is available for ${order.exchange}:${order.symbol}`);
        const funds = releaseMargin(fundsOf(account), order.blocked_margin);
        const pm = placementMargin({
          kind: instrumentKind(instrument.instrumenttype),
          product,
          side: order.side as Side,
          quantity: v.order.quantity,
          price: refPrice,
          positionQuantity: reducibleFor(ctx, order.side as Side),
          leverage: config.leverage,
        });
        const blocked = blockMargin(funds, pm.margin);
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
        return prices ? this.matchNow(repo, account, next, prices, now) : next;
      })
      .catch(outOfRange);
    this.changed(row);
    return toOrderRecord(row);
  }

  /**
   * Closes positions at market (closeposition): every open position of the user, or only those
   * matching `filter`, less what working orders on the other side already close. Returns the
   * orders placed. A MARKET order placed on a stale quote rests and fills on the next good one.
   */
  async closePositions(
    userId: number,
    filter: { exchange?: string; product?: Product; symbol?: string } = {},
    strategy: string | null = null,
  ): Promise<PlaceOutcome[]> {
    const out: PlaceOutcome[] = [];
    for (const p of await this.deps.repo.positionsOf(userId)) {
      if (p.quantity === 0) continue;
      if (filter.exchange && p.exchange !== filter.exchange) continue;
      if (filter.product && p.product !== filter.product) continue;
      if (filter.symbol && p.symbol !== filter.symbol) continue;
      // Working orders that already close part of it (an earlier close waiting for a price) count.
      const side: Side = p.quantity > 0 ? 'SELL' : 'BUY';
      const ctx = await accountContext(this.deps.repo, userId, p.symbol, p.exchange, p.product as Product);
      const quantity = Math.min(Math.abs(p.quantity), Math.abs(reducibleFor(ctx, side)));
      if (quantity === 0) continue;
      out.push(
        await this.placeOrder(userId, {
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

  /**
   * Resets the user's account: every order, trade, position and holding is gone; funds start
   * again. With `resetBefore` (a scheduled reset) only when the account was last reset earlier.
   */
  async reset(userId: number, resetBefore?: number): Promise<boolean> {
    const now = this.deps.clock.now();
    const removed = await this.deps.repo.transaction(async (repo) => {
      const account = await repo.lockAccount(userId, this.deps.config.startingFunds, now);
      if (resetBefore !== undefined && account.reset_at >= resetBefore) return undefined;
      const resting = await repo.restingOrdersOf(userId);
      await repo.clearUser(userId);
      const f = this.deps.config.startingFunds;
      await repo.saveAccount({
        ...account,
        starting_funds: f,
        available: f,
        used_margin: 0,
        realised_pnl: 0,
        reset_at: now,
        updated_at: now,
      });
      return resting;
    });
    if (!removed) return false;
    for (const o of removed) this.changed({ ...o, status: 'cancelled' });
    this.deps.logger.info({ userId, scheduled: resetBefore !== undefined }, 'sandbox account reset');
    return true;
  }

  /** The user's order (404 when unknown or another user's). */
  async order(userId: number, orderId: number): Promise<OrderRecord> {
    return toOrderRecord(await this.ownOrder(this.deps.repo, userId, orderId));
  }
}

/** Amounts past the exact money range (about ₹900 billion) are bad input, not a server error. */
function outOfRange(err: unknown): never {
  if (err instanceof RangeError)
    throw badRequest('order value is too large for exact accounting (over ₹900,000,000,000)');
  throw err;
}

/**
 * The sandbox account: placement, cancel, modify and close of paper orders, each in one
 * transaction over the user's locked account, and the reads the `/api/v1` books answer from.
 * Matching on price updates is the engine's (engine.ts); day-boundary jobs are in
 * jobs/day-jobs.ts.
 */
import { AppError, badRequest } from '../../../platform/errors.js';
import type { SessionBounds } from '../core/square-off.js';
import { endOrder, fillOrder, transition } from '../store/ledger.js';
import type { SessionPhase } from '../core/rules.js';
import { toOrderRecord, type OrderRecord } from '../core/records.js';
import { closePositions, modifyOrder, type ModifyRequest, type PositionFilter } from './manage.js';
import { placeOrder } from './place.js';
import { basketMargin, type MarginLeg, type SandboxBasketMargin } from './basket-margin.js';
import type { BrokerMarginFn } from './derivative-margin.js';
import { cancelGtt, modifyGtt, placeGtt, runGtts, type GttRequest } from './gtt.js';
import type { GttRow } from '../store/rows.js';
import { SandboxContext, ownOrder } from './context.js';
import { RESTING, type OrderRow, type SandboxRepository } from '../store/sandbox.repository.js';
import type { OrderStatus } from '../core/types.js';

export type {
  InstrumentLookup,
  PlacementJournal,
  PlaceOutcome,
  PlaceRequest,
  SandboxServiceDeps,
} from './service.types.js';
import type { PlacementJournal, PlaceOutcome, PlaceRequest, SandboxServiceDeps } from './service.types.js';

export class SandboxService {
  /** What place.ts, manage.ts and basket-margin.ts are handed (they never see this facade). */
  private readonly context: SandboxContext;

  constructor(readonly deps: SandboxServiceDeps) {
    this.context = new SandboxContext(deps);
  }

  /** Tells `listener` about every order that was created, changed or ended (the engine's book). */
  onOrderChange(listener: (order: OrderRow) => void): void {
    this.context.onOrderChange(listener);
  }

  private changed(order: OrderRow | undefined): void {
    this.context.changed(order);
  }

  /**
   * Tells the listeners about an order a day-boundary job wrote in its own transaction (an
   * expiry's cancel or settlement: docs/rules/sandbox.md#expiry-settlement).
   */
  announce(order: OrderRow): void {
    this.changed(order);
  }

  get repo(): SandboxRepository {
    return this.deps.repo;
  }

  /** The MIS square-off instant of `exchange` on an IST date (see core/square-off.ts). */
  squareOffAt(exchange: string, date: string, session?: SessionBounds): number | undefined {
    return this.context.squareOffAt(exchange, date, session);
  }

  /** Phase of the MIS day for `exchange` at `now`. */
  sessionPhase(exchange: string, now: number): SessionPhase {
    return this.context.sessionPhase(exchange, now);
  }

  /**
   * Places an order (docs/rules/sandbox.md#order-validation). Input errors (unknown symbol, lot
   * size, prices, product) throw a 400 and write nothing; account rules (funds, holdings,
   * square-off, no price) record the order as `rejected` with its reason. A MARKET order fills at
   * once; a marketable LIMIT fills at once at the better price; the rest wait for the engine.
   */
  placeOrder<J = never>(
    userId: number,
    req: PlaceRequest,
    journal?: PlacementJournal<J>,
  ): Promise<PlaceOutcome & { journal?: J }> {
    return placeOrder(this.context, userId, req, journal);
  }

  /**
   * Lets futures and short options be margined by the user's broker calculator when they have a
   * broker session (docs/rules/sandbox.md#margins-like-a-broker); set by the orders plugin.
   */
  useBrokerMargin(fn: BrokerMarginFn): void {
    this.context.brokerMargin = fn;
  }

  // ---- GTT orders (gtt.ts, docs/rules/sandbox.md#gtt-orders) ----

  placeGtt(userId: number, req: GttRequest): Promise<GttRow> {
    return placeGtt(this.context, userId, req);
  }

  modifyGtt(userId: number, id: number, req: GttRequest): Promise<GttRow> {
    return modifyGtt(this.context, userId, id, req);
  }

  cancelGtt(userId: number, id: number): Promise<GttRow> {
    return cancelGtt(this.context, userId, id);
  }

  /** The user's GTTs, newest first (the active ones only, as OpenAlgo's gttorderbook lists them). */
  gtts(userId: number, opts: { activeOnly?: boolean; limit?: number } = {}): Promise<GttRow[]> {
    return this.deps.repo.gttsOf(userId, opts);
  }

  /**
   * The trigger pass over every active GTT (the day jobs run it on every engine tick), or only
   * those of `keys` (a batch of quotes).
   */
  runGtts(keys?: readonly string[]): Promise<OrderRow[]> {
    return runGtts(this.context, keys);
  }

  /** Told about every GTT placed on this instance. */
  onGttPlaced(fn: (symbol: string, exchange: string) => void): void {
    this.context.gttPlaced = fn;
  }

  /** What a basket of orders would block if placed now (basket-margin.ts); nothing is written. */
  basketMargin(userId: number, legs: readonly MarginLeg[]): Promise<SandboxBasketMargin> {
    return basketMargin(this.context, userId, legs);
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
      return fillOrder(repo, account, order, price, triggered, now, this.deps.config);
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
      const order = await ownOrder(repo, userId, orderId);
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

  /** Modifies a working order (see manage.ts). */
  modifyOrder(userId: number, orderId: number, req: ModifyRequest): Promise<OrderRecord> {
    return modifyOrder(this.context, userId, orderId, req);
  }

  /**
   * Closes positions at market (see manage.ts): with `scope` `strategy`, only what `strategy`'s
   * fills hold of each.
   */
  closePositions(
    userId: number,
    filter: PositionFilter = {},
    strategy: string | null = null,
    scope: 'all' | 'strategy' = 'all',
  ): Promise<PlaceOutcome[]> {
    return closePositions(this.context, userId, filter, strategy, scope);
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
        charges: 0,
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

  /** Deletes the user's account and everything in it (the user was deleted); its working orders leave the book. */
  async forgetUser(userId: number): Promise<void> {
    const removed = await this.deps.repo.transaction(async (repo) => {
      const resting = await repo.restingOrdersOf(userId);
      await repo.clearUser(userId, { account: true });
      return resting;
    });
    for (const o of removed) this.changed({ ...o, status: 'cancelled' });
  }

  /** The user's order (404 when unknown or another user's). */
  async order(userId: number, orderId: number): Promise<OrderRecord> {
    return toOrderRecord(await ownOrder(this.deps.repo, userId, orderId));
  }

  /** The user's orders placed with reference `tag` (several when a split placed them), oldest first. */
  async ordersByTag(userId: number, tag: string): Promise<OrderRecord[]> {
    return (await this.deps.repo.ordersByTag(userId, tag)).map(toOrderRecord);
  }
}

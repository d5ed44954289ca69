/**
 * The sandbox's reads that take no lock and decide nothing: the books' lists (orders, trades,
 * positions, holdings, an order's events), the scans of every account (the engine's book, the
 * day jobs' positions, the ledger check's users) and the simulated prices' reference. The
 * repository that locks and writes (sandbox.repository.ts) extends this class, so one object,
 * bound to the database or to a transaction, serves both.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../../../db/schema.js';
import type { Money } from '../core/money.js';
import { RESTING } from '../core/types.js';
import type {
  AccountRow,
  EquityDayRow,
  GttRow,
  HoldingRow,
  OrderRow,
  PositionRow,
  TradeRow,
} from './rows.js';

export class SandboxReads {
  constructor(protected readonly db: Kysely<DB>) {}

  getAccount(userId: number): Promise<AccountRow | undefined> {
    return this.db
      .selectFrom('sandbox_accounts')
      .selectAll()
      .where('user_id', '=', userId)
      .executeTakeFirst();
  }

  accountUserIds(): Promise<number[]> {
    return this.db
      .selectFrom('sandbox_accounts')
      .select('user_id')
      .execute()
      .then((rows) => rows.map((r) => r.user_id));
  }

  /** The user's orders placed with the caller's reference `tag` (a strategy order's), oldest first. */
  ordersByTag(userId: number, tag: string): Promise<OrderRow[]> {
    return this.db
      .selectFrom('sandbox_orders')
      .selectAll()
      .where('user_id', '=', userId)
      .where('tag', '=', tag)
      .orderBy('id')
      .execute();
  }

  orderEvents(orderId: number) {
    return this.db
      .selectFrom('sandbox_order_events')
      .selectAll()
      .where('order_id', '=', orderId)
      .orderBy('id')
      .execute();
  }

  ordersOf(userId: number): Promise<OrderRow[]> {
    return this.db
      .selectFrom('sandbox_orders')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('id')
      .execute();
  }

  /**
   * The user's order book from `since` (epoch ms, the IST day's start), oldest first: the orders
   * placed since then and any order of an earlier day still working (one the rollover has not
   * expired yet). Two index reads, not one `OR` that could fall back to the user's whole history.
   */
  async ordersSince(userId: number, since: number): Promise<OrderRow[]> {
    const day = await this.db
      .selectFrom('sandbox_orders')
      .selectAll()
      .where('user_id', '=', userId)
      .where('created_at', '>=', since)
      .execute();
    // The user's working orders through (user_id, status): a `created_at < since` here would
    // lead the planner to the (user_id, created_at) index and every earlier order of the user.
    const working = await this.db
      .selectFrom('sandbox_orders')
      .selectAll()
      .where('user_id', '=', userId)
      .where('status', 'in', [...RESTING])
      .execute();
    const earlier = working.filter((o) => Number(o.created_at) < since);
    return [...earlier, ...day].sort((a, b) => Number(a.id) - Number(b.id));
  }

  /** The user's trades made from `since` (epoch ms), oldest first: the trade book of the day. */
  tradesSince(userId: number, since: number): Promise<TradeRow[]> {
    return this.db
      .selectFrom('sandbox_trades')
      .selectAll()
      .where('user_id', '=', userId)
      .where('created_at', '>=', since)
      .orderBy('id')
      .execute();
  }

  /**
   * The price of the first order with one (LIMIT or SL) placed on the instrument by any user and
   * still kept: the simulated price source's reference when the master contract has none.
   */
  async firstLimitPrice(symbol: string, exchange: string): Promise<Money | undefined> {
    const row = await this.db
      .selectFrom('sandbox_orders')
      .select('price')
      .where('symbol', '=', symbol)
      .where('exchange', '=', exchange)
      .where('price', '>', 0)
      .orderBy('id')
      .limit(1)
      .executeTakeFirst();
    return row === undefined ? undefined : Number(row.price);
  }

  /** Every working order of every user, oldest first (the engine's book). */
  restingOrders(): Promise<OrderRow[]> {
    return this.db
      .selectFrom('sandbox_orders')
      .selectAll()
      .where('status', 'in', [...RESTING])
      .orderBy('id')
      .execute();
  }

  /** The user's trades made in [from, to) (epoch ms), oldest first: a day's contract note. */
  tradesBetween(userId: number, from: number, to: number): Promise<TradeRow[]> {
    return this.db
      .selectFrom('sandbox_trades')
      .selectAll()
      .where('user_id', '=', userId)
      .where('created_at', '>=', from)
      .where('created_at', '<', to)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  }

  /** One GTT by id (any user's: the caller checks the owner). */
  getGtt(id: number): Promise<GttRow | undefined> {
    return this.db.selectFrom('sandbox_gtts').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The user's GTTs, newest first: the active ones, or every one (at most `limit`). */
  gttsOf(userId: number, opts: { activeOnly?: boolean; limit?: number } = {}): Promise<GttRow[]> {
    let q = this.db.selectFrom('sandbox_gtts').selectAll().where('user_id', '=', userId);
    if (opts.activeOnly) q = q.where('status', '=', 'active');
    return q
      .orderBy('id', 'desc')
      .limit(opts.limit ?? 500)
      .execute();
  }

  /** Every active GTT of every user, oldest first (the trigger pass). */
  activeGtts(): Promise<GttRow[]> {
    return this.db
      .selectFrom('sandbox_gtts')
      .selectAll()
      .where('status', '=', 'active')
      .orderBy('id')
      .execute();
  }

  /** The user's daily equity rows (docs/rules/sandbox.md#daily-equity), oldest first. */
  equityDaysOf(userId: number): Promise<EquityDayRow[]> {
    return this.db
      .selectFrom('sandbox_equity_days')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('day')
      .execute();
  }

  tradesOf(userId: number): Promise<TradeRow[]> {
    return this.db
      .selectFrom('sandbox_trades')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('id')
      .execute();
  }

  /**
   * The user's positions, or only those of one exchange, product or symbol: a close of one
   * instrument (each position the square-off closes) reads its own row through the positions' key,
   * not every position of the user once per close.
   */
  positionsOf(
    userId: number,
    only: { exchange?: string | undefined; product?: string | undefined; symbol?: string | undefined } = {},
  ): Promise<PositionRow[]> {
    let q = this.db.selectFrom('sandbox_positions').selectAll().where('user_id', '=', userId);
    if (only.symbol) q = q.where('symbol', '=', only.symbol);
    if (only.exchange) q = q.where('exchange', '=', only.exchange);
    if (only.product) q = q.where('product', '=', only.product);
    return q.orderBy('id').execute();
  }

  /** Positions of every user, optionally only those still open (quantity ≠ 0). */
  allPositions(openOnly = false): Promise<PositionRow[]> {
    let q = this.db.selectFrom('sandbox_positions').selectAll();
    if (openOnly) q = q.where('quantity', '!=', 0);
    return q.orderBy('id').execute();
  }

  holdingsOf(userId: number): Promise<HoldingRow[]> {
    return this.db
      .selectFrom('sandbox_holdings')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('id')
      .execute();
  }
}

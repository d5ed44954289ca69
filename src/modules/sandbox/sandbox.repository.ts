/**
 * The only place that touches the sandbox tables (issue 5). A repository is bound to the database
 * or to one transaction (`transaction()` hands the callback a repository bound to it), so the
 * service's rules run the same way inside and outside transactions.
 */
import type { Insertable, Kysely, Selectable } from 'kysely';
import type {
  DB,
  SandboxAccountsTable,
  SandboxHoldingsTable,
  SandboxOrdersTable,
  SandboxPositionsTable,
  SandboxTradesTable,
} from '../../db/schema.js';
import { isPostgres } from '../../platform/db/database.js';
import type { OrderStatus } from './types.js';

export type AccountRow = Selectable<SandboxAccountsTable>;
export type OrderRow = Selectable<SandboxOrdersTable>;
export type TradeRow = Selectable<SandboxTradesTable>;
export type PositionRow = Selectable<SandboxPositionsTable>;
export type HoldingRow = Selectable<SandboxHoldingsTable>;
export type NewOrder = Insertable<SandboxOrdersTable>;

/** One order transition as its event row records it. */
export interface OrderEventInput {
  orderId: number;
  userId: number;
  from: OrderStatus | null;
  to: OrderStatus;
  detail: string | null;
  at: number;
}

/** Statuses of an order that is still working. */
export const RESTING: readonly OrderStatus[] = ['open', 'trigger pending'];

export class SandboxRepository {
  private readonly pg: boolean;

  constructor(private readonly db: Kysely<DB>) {
    this.pg = isPostgres(db);
  }

  /** Runs `fn` in one transaction with a repository bound to it. */
  transaction<T>(fn: (repo: SandboxRepository) => Promise<T>): Promise<T> {
    return this.db.transaction().execute((trx) => fn(new SandboxRepository(trx)));
  }

  // ---- accounts ----

  /**
   * The user's account, created with `startingFunds` on first use, and locked for the rest of the
   * transaction on PostgreSQL (`FOR UPDATE`): two placements for one user never interleave. SQLite
   * runs one write transaction at a time anyway.
   */
  async lockAccount(userId: number, startingFunds: number, now: number): Promise<AccountRow> {
    const select = () => {
      const q = this.db.selectFrom('sandbox_accounts').selectAll().where('user_id', '=', userId);
      return (this.pg ? q.forUpdate() : q).executeTakeFirst();
    };
    // The account exists after the user's first order: read (and lock) it in one statement.
    const existing = await select();
    if (existing) return existing;
    await this.db
      .insertInto('sandbox_accounts')
      .values({
        user_id: userId,
        starting_funds: startingFunds,
        available: startingFunds,
        used_margin: 0,
        realised_pnl: 0,
        reset_at: now,
        updated_at: now,
      })
      .onConflict((oc) => oc.column('user_id').doNothing())
      .execute();
    const created = await select();
    if (!created) throw new Error(`sandbox account of user ${userId} could not be created`);
    return created;
  }

  getAccount(userId: number): Promise<AccountRow | undefined> {
    return this.db
      .selectFrom('sandbox_accounts')
      .selectAll()
      .where('user_id', '=', userId)
      .executeTakeFirst();
  }

  async saveAccount(a: AccountRow): Promise<void> {
    await this.db
      .updateTable('sandbox_accounts')
      .set({
        available: a.available,
        used_margin: a.used_margin,
        realised_pnl: a.realised_pnl,
        starting_funds: a.starting_funds,
        reset_at: a.reset_at,
        updated_at: a.updated_at,
      })
      .where('user_id', '=', a.user_id)
      .execute();
  }

  accountUserIds(): Promise<number[]> {
    return this.db
      .selectFrom('sandbox_accounts')
      .select('user_id')
      .execute()
      .then((rows) => rows.map((r) => r.user_id));
  }

  // ---- orders ----

  async insertOrder(o: NewOrder): Promise<OrderRow> {
    return this.db.insertInto('sandbox_orders').values(o).returningAll().executeTakeFirstOrThrow();
  }

  getOrder(id: number): Promise<OrderRow | undefined> {
    return this.db.selectFrom('sandbox_orders').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /**
   * Compare-and-set of an order's state: applies `patch` only while the order is in one of
   * `from` (returns false otherwise). Two engines or a cancel racing a fill cannot both win.
   */
  async updateOrderIf(
    id: number,
    from: readonly OrderStatus[],
    patch: Partial<Omit<OrderRow, 'id' | 'user_id'>>,
  ): Promise<boolean> {
    const r = await this.db
      .updateTable('sandbox_orders')
      .set(patch)
      .where('id', '=', id)
      .where('status', 'in', [...from])
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  async insertEvent(e: OrderEventInput): Promise<void> {
    await this.insertEvents([e]);
  }

  /** Appends event rows in one statement, in the given order (ids ascend with it). */
  async insertEvents(events: readonly OrderEventInput[]): Promise<void> {
    if (events.length === 0) return;
    await this.db
      .insertInto('sandbox_order_events')
      .values(
        events.map((e) => ({
          order_id: e.orderId,
          user_id: e.userId,
          from_status: e.from,
          to_status: e.to,
          detail: e.detail === null ? null : e.detail.slice(0, 512),
          at: e.at,
        })),
      )
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

  /** Every working order of every user, oldest first (the engine's book). */
  restingOrders(): Promise<OrderRow[]> {
    return this.db
      .selectFrom('sandbox_orders')
      .selectAll()
      .where('status', 'in', [...RESTING])
      .orderBy('id')
      .execute();
  }

  /** The user's working orders, optionally on one instrument and product. */
  /**
   * The user's working orders, oldest first. Sorted here, not in SQL: with `ORDER BY id` SQLite
   * prefers the `(user_id, id)` index and walks every order the user ever placed; without it, it
   * seeks the few resting ones through `(user_id, status, id)` (migration 0012).
   */
  async restingOrdersOf(
    userId: number,
    key?: { symbol: string; exchange: string; product?: string },
  ): Promise<OrderRow[]> {
    let q = this.db
      .selectFrom('sandbox_orders')
      .selectAll()
      .where('user_id', '=', userId)
      .where('status', 'in', [...RESTING]);
    if (key) {
      q = q.where('symbol', '=', key.symbol).where('exchange', '=', key.exchange);
      if (key.product) q = q.where('product', '=', key.product);
    }
    return (await q.execute()).sort((a, b) => a.id - b.id);
  }

  // ---- trades ----

  async insertTrade(t: Insertable<SandboxTradesTable>): Promise<void> {
    await this.db.insertInto('sandbox_trades').values(t).execute();
  }

  tradesOf(userId: number): Promise<TradeRow[]> {
    return this.db
      .selectFrom('sandbox_trades')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('id')
      .execute();
  }

  // ---- positions ----

  getPosition(
    userId: number,
    symbol: string,
    exchange: string,
    product: string,
  ): Promise<PositionRow | undefined> {
    return this.db
      .selectFrom('sandbox_positions')
      .selectAll()
      .where('user_id', '=', userId)
      .where('symbol', '=', symbol)
      .where('exchange', '=', exchange)
      .where('product', '=', product)
      .executeTakeFirst();
  }

  async upsertPosition(p: Omit<PositionRow, 'id'>): Promise<void> {
    await this.db
      .insertInto('sandbox_positions')
      .values(p)
      .onConflict((oc) =>
        oc.columns(['user_id', 'symbol', 'exchange', 'product']).doUpdateSet({
          quantity: p.quantity,
          cost: p.cost,
          margin: p.margin,
          realised_pnl: p.realised_pnl,
          day: p.day,
          updated_at: p.updated_at,
        }),
      )
      .execute();
  }

  async deletePosition(id: number): Promise<void> {
    await this.db.deleteFrom('sandbox_positions').where('id', '=', id).execute();
  }

  positionsOf(userId: number): Promise<PositionRow[]> {
    return this.db
      .selectFrom('sandbox_positions')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('id')
      .execute();
  }

  /** Positions of every user, optionally only those still open (quantity ≠ 0). */
  allPositions(openOnly = false): Promise<PositionRow[]> {
    let q = this.db.selectFrom('sandbox_positions').selectAll();
    if (openOnly) q = q.where('quantity', '!=', 0);
    return q.orderBy('id').execute();
  }

  // ---- holdings ----

  getHolding(userId: number, symbol: string, exchange: string): Promise<HoldingRow | undefined> {
    return this.db
      .selectFrom('sandbox_holdings')
      .selectAll()
      .where('user_id', '=', userId)
      .where('symbol', '=', symbol)
      .where('exchange', '=', exchange)
      .executeTakeFirst();
  }

  holdingsOf(userId: number): Promise<HoldingRow[]> {
    return this.db
      .selectFrom('sandbox_holdings')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('id')
      .execute();
  }

  /** Writes the user's holdings as given: rows with quantity 0 are deleted. */
  async saveHolding(h: Omit<HoldingRow, 'id'>): Promise<void> {
    const key = (q: ReturnType<typeof this.db.deleteFrom<'sandbox_holdings'>>) =>
      q.where('user_id', '=', h.user_id).where('symbol', '=', h.symbol).where('exchange', '=', h.exchange);
    if (h.quantity <= 0) {
      await key(this.db.deleteFrom('sandbox_holdings')).execute();
      return;
    }
    await this.db
      .insertInto('sandbox_holdings')
      .values(h)
      .onConflict((oc) =>
        oc.columns(['user_id', 'symbol', 'exchange']).doUpdateSet({
          quantity: h.quantity,
          cost: h.cost,
          updated_at: h.updated_at,
        }),
      )
      .execute();
  }

  // ---- reset ----

  /** Deletes everything the user traded (orders, their events, trades, positions, holdings). */
  async clearUser(userId: number): Promise<void> {
    await this.db.deleteFrom('sandbox_order_events').where('user_id', '=', userId).execute();
    await this.db.deleteFrom('sandbox_trades').where('user_id', '=', userId).execute();
    await this.db.deleteFrom('sandbox_orders').where('user_id', '=', userId).execute();
    await this.db.deleteFrom('sandbox_positions').where('user_id', '=', userId).execute();
    await this.db.deleteFrom('sandbox_holdings').where('user_id', '=', userId).execute();
  }
}

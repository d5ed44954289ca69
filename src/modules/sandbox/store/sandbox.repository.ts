/**
 * The sandbox's locks and writes (with reads.ts, the only place that touches the sandbox
 * tables), with the hot statements it compiles once (statements.ts). A repository is bound to the database or to one transaction
 * (`transaction()` hands the callback a repository bound to it), so the service's rules run the
 * same way inside and outside transactions.
 */
import type { Insertable, Kysely } from 'kysely';
import type { DB, SandboxTradesTable } from '../../../db/schema.js';
import {
  ownTransaction,
  PLACEMENT_WEIGHT,
  type MemberContext,
  type TransactionRunner,
} from '../../../platform/db/group-commit.js';
import { transactionWithInserts, type InsertAtCommit } from '../../../platform/db/inserts-at-commit.js';
import {
  insertEventRows,
  insertOrderRow,
  insertTradeRow,
  selectAccountForUpdate,
  selectPosition,
  selectRestingOn,
  updateAccount,
  upsertPositionRow,
  newOrderRow,
} from './statements.js';
import { insertFilledOrderAtOnce, selectStake, type AccountStake, type FillRows } from './pg-statements.js';
import { isPostgres } from '../../../platform/db/database.js';
import { handedStake, handOnFill, stakeKey } from './handed-stakes.js';
import { SandboxReads } from './reads.js';
import { RESTING, type OrderStatus } from '../core/types.js';

export type { AccountRow, HoldingRow, NewOrder, OrderRow, PositionRow, TradeRow } from './rows.js';
import type {
  AccountRow,
  EquityDayRow,
  GttRow,
  HoldingRow,
  NewOrder,
  OrderRow,
  PositionRow,
} from './rows.js';

/** One order transition as its event row records it. */
export interface OrderEventInput {
  orderId: number;
  userId: number;
  from: OrderStatus | null;
  to: OrderStatus;
  detail: string | null;
  at: number;
}

export { RESTING } from '../core/types.js';

/** The sandbox's locks and writes, and the reads a placement or a fill makes under the lock (the other reads: reads.ts). */
export class SandboxRepository extends SandboxReads {
  constructor(
    db: Kysely<DB>,
    private readonly grouped?: TransactionRunner<DB>,
    /**
     * The placement's place in its group ({@link groupedTransaction}): whether an earlier placement
     * of the same user in this transaction took the account's lock and was kept (on PostgreSQL the
     * lock and the stake's reads are then one statement: {@link lockAccountWithStake}), and what it
     * handed on of the rows it wrote (handed-stakes.ts).
     */
    private readonly member?: MemberContext,
  ) {
    super(db);
  }

  /** The stake this placement read or was handed, by {@link lockAccountWithStake} (PostgreSQL). */
  private stakeRead: { key: string; stake: AccountStake } | undefined;

  /**
   * Queues a row written just before the transaction's COMMIT, with its group's
   * (platform/db/inserts-at-commit.ts): only a repository {@link groupedTransaction} hands out.
   */
  get atCommit(): InsertAtCommit {
    if (!this.member) throw new Error('atCommit: not inside groupedTransaction');
    return this.member.insertAtCommit;
  }

  /**
   * The connection or transaction this repository is bound to: inside a placement's transaction,
   * another module's repository writes its rows in that same transaction (the order's log row).
   */
  get bound(): Kysely<DB> {
    return this.db;
  }

  /** Runs `fn` in one transaction with a repository bound to it. */
  transaction<T>(fn: (repo: SandboxRepository) => Promise<T>): Promise<T> {
    return this.db.transaction().execute((trx) => fn(new SandboxRepository(trx)));
  }

  /**
   * {@link transaction}, through the group-commit runner when the repository has one (placement:
   * transactions of the same event-loop turn share one COMMIT, each in its own savepoint and
   * settled after that COMMIT; on PostgreSQL those of the same user, whose account they all lock,
   * without savepoints: the group runs again, each in its savepoint, when one fails, so `fn` may
   * run twice and must only read and write through the repository it is given;
   * platform/db/group-commit.ts).
   */
  groupedTransaction<T>(userId: number, fn: (repo: SandboxRepository) => Promise<T>): Promise<T> {
    if (this.grouped)
      return this.grouped.run(
        (trx, member) => fn(new SandboxRepository(trx, undefined, member)),
        userId,
        PLACEMENT_WEIGHT,
      );
    return transactionWithInserts(this.db, (trx, insertAtCommit) =>
      fn(new SandboxRepository(trx, undefined, ownTransaction(insertAtCommit))),
    );
  }

  // ---- accounts ----

  /**
   * The user's account, created with `startingFunds` on first use, and locked for the rest of the
   * transaction on PostgreSQL (`FOR UPDATE`): two placements for one user never interleave. SQLite
   * runs one write transaction at a time anyway.
   */
  async lockAccount(userId: number, startingFunds: number, now: number): Promise<AccountRow> {
    const select = async () => (await selectAccountForUpdate.execute(this.db, { userId })).rows[0];
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
        charges: 0,
        reset_at: now,
        updated_at: now,
      })
      .onConflict((oc) => oc.column('user_id').doNothing())
      .execute();
    const created = await select();
    if (!created) throw new Error(`sandbox account of user ${userId} could not be created`);
    return created;
  }

  /**
   * On PostgreSQL, the user's account locked as {@link lockAccount} locks it, then its stake in one
   * instrument and product read (the position, the holding and the working orders, oldest first):
   * two statements, one when this transaction already holds the lock (pg-statements.ts,
   * {@link selectStake}), none when the placement before it in the transaction filled at once in
   * the same instrument and product and handed its stake on (handed-stakes.ts; that placement's
   * {@link insertFilledOrder} hands it). Undefined on SQLite, where the reads cost no round trip
   * and run one by one, and before the user's first order (no account yet: {@link lockAccount}
   * creates it).
   */
  async lockAccountWithStake(
    userId: number,
    key: { symbol: string; exchange: string; product: string },
  ): Promise<AccountStake | undefined> {
    if (!isPostgres(this.db)) return undefined;
    const k = stakeKey(key.symbol, key.exchange, key.product);
    const stake =
      handedStake(this.member, k) ??
      (await selectStake(this.db, userId, key, (this.member?.earlierWithKey ?? 0) > 0));
    if (stake) this.stakeRead = { key: k, stake };
    return stake;
  }

  async saveAccount(a: AccountRow): Promise<void> {
    await updateAccount.execute(this.db, a);
  }

  // ---- orders ----

  async insertOrder(o: Omit<NewOrder, 'id'>): Promise<OrderRow> {
    const full = newOrderRow(o);
    const inserted = (await insertOrderRow.execute(this.db, full)).rows[0];
    if (!inserted) throw new Error('sandbox order insert returned no row');
    // Every other column is what was inserted (no column has a database default).
    return { id: inserted.id, ...full };
  }

  /**
   * Inserts an order already filled (its final row) with the rows of its fill: its events (in the
   * given order), its position, its trade and its account. On PostgreSQL in one statement (a round
   * trip each would be five: pg-statements.ts, {@link insertFilledOrderAtOnce}); on SQLite, where a
   * statement costs no round trip, one after another.
   */
  async insertFilledOrder(
    o: Omit<NewOrder, 'id'>,
    events: readonly Omit<OrderEventInput, 'orderId'>[],
    fill: FillRows,
  ): Promise<OrderRow> {
    if (isPostgres(this.db)) {
      const row = await insertFilledOrderAtOnce(this.db, newOrderRow(o), events, fill);
      handOnFill(this.member, this.stakeRead, fill);
      return row;
    }
    const row = await this.insertOrder(o);
    await this.insertEvents(events.map((e) => ({ ...e, orderId: row.id })));
    await this.upsertPosition(fill.position);
    await this.insertTrade({ ...fill.trade, order_id: row.id });
    await this.saveAccount(fill.account);
    return row;
  }

  getOrder(id: number): Promise<OrderRow | undefined> {
    return this.db.selectFrom('sandbox_orders').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /**
   * Compare-and-set of an order's state: applies `patch` only while the order is in one of
   * `from` (returns false otherwise). Two engines or a cancel racing a fill cannot both win.
   */
  // ---- GTT orders (docs/rules/sandbox.md#gtt-orders) ----

  async insertGtt(g: Omit<GttRow, 'id'>): Promise<GttRow> {
    const r = await this.db.insertInto('sandbox_gtts').values(g).returning('id').executeTakeFirstOrThrow();
    return { ...g, id: Number(r.id) };
  }

  /** Moves a GTT that is still `active` (compare-and-set: a racing fire, cancel or instance loses). */
  async updateGttIfActive(id: number, patch: Partial<Omit<GttRow, 'id' | 'user_id'>>): Promise<boolean> {
    const r = await this.db
      .updateTable('sandbox_gtts')
      .set(patch)
      .where('id', '=', id)
      .where('status', '=', 'active')
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  async updateGtt(id: number, patch: Partial<Omit<GttRow, 'id' | 'user_id'>>): Promise<void> {
    await this.db.updateTable('sandbox_gtts').set(patch).where('id', '=', id).execute();
  }

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
    await insertEventRows(this.db, events);
  }

  /**
   * The user's working orders (optionally on one instrument and product), oldest first. Sorted here, not in SQL: with `ORDER BY id` SQLite
   * prefers the `(user_id, id)` index and walks every order the user ever placed; without it, it
   * seeks the few resting ones through `(user_id, status, id)` (migration 0012).
   */
  async restingOrdersOf(
    userId: number,
    key?: { symbol: string; exchange: string; product?: string },
  ): Promise<OrderRow[]> {
    if (key?.product) {
      const { product, symbol, exchange } = key;
      const rows = (await selectRestingOn.execute(this.db, { user_id: userId, symbol, exchange, product }))
        .rows;
      return rows.sort((a, b) => a.id - b.id);
    }
    let q = this.db
      .selectFrom('sandbox_orders')
      .selectAll()
      .where('user_id', '=', userId)
      .where('status', 'in', [...RESTING]);
    if (key) {
      q = q.where('symbol', '=', key.symbol).where('exchange', '=', key.exchange);
    }
    return (await q.execute()).sort((a, b) => a.id - b.id);
  }

  // ---- trades ----

  async insertTrade(t: Omit<Insertable<SandboxTradesTable>, 'id'>): Promise<void> {
    await insertTradeRow.execute(this.db, { ...t, strategy: t.strategy ?? null });
  }

  // ---- positions ----

  async getPosition(
    userId: number,
    symbol: string,
    exchange: string,
    product: string,
  ): Promise<PositionRow | undefined> {
    return (await selectPosition.execute(this.db, { user_id: userId, symbol, exchange, product })).rows[0];
  }

  async upsertPosition(p: Omit<PositionRow, 'id'>): Promise<void> {
    await upsertPositionRow.execute(this.db, p);
  }

  /** Deletes positions by id: one statement per 1,000 (the rollover drops a day's flat positions). */
  async deletePositions(ids: readonly number[]): Promise<void> {
    for (let i = 0; i < ids.length; i += 1_000)
      await this.db
        .deleteFrom('sandbox_positions')
        .where('id', 'in', ids.slice(i, i + 1_000))
        .execute();
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

  /**
   * Deletes everything the user traded (orders, their events, trades, positions, holdings), and
   * with `account` the account itself (the user is deleted).
   */
  async clearUser(userId: number, opts: { account?: boolean } = {}): Promise<void> {
    if (opts.account) await this.db.deleteFrom('sandbox_accounts').where('user_id', '=', userId).execute();
    await this.db.deleteFrom('sandbox_order_events').where('user_id', '=', userId).execute();
    await this.db.deleteFrom('sandbox_trades').where('user_id', '=', userId).execute();
    await this.db.deleteFrom('sandbox_orders').where('user_id', '=', userId).execute();
    await this.db.deleteFrom('sandbox_positions').where('user_id', '=', userId).execute();
    await this.db.deleteFrom('sandbox_holdings').where('user_id', '=', userId).execute();
    await this.db.deleteFrom('sandbox_equity_days').where('user_id', '=', userId).execute();
    await this.db.deleteFrom('sandbox_gtts').where('user_id', '=', userId).execute();
  }

  /** Writes the user's row of `row.day` (docs/rules/sandbox.md#daily-equity): the latest pass wins. */
  async saveEquityDay(row: Omit<EquityDayRow, 'id'>): Promise<void> {
    const { user_id: _u, day: _d, ...values } = row;
    await this.db
      .insertInto('sandbox_equity_days')
      .values(row)
      .onConflict((oc) => oc.columns(['user_id', 'day']).doUpdateSet(values))
      .execute();
  }
}

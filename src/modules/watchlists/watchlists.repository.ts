/**
 * The watch-list tables (migration 0026): the only place that touches Kysely for this module. Every
 * read and write of a list is scoped by its owner (`user_id`), so another user's list is simply
 * absent (docs/rules/watchlists.md#watchlist-ownership). Changes that check a limit or a position
 * first run in {@link WatchlistsRepository.transaction} after {@link WatchlistsRepository.lockUser}
 * or {@link WatchlistsRepository.lockList}.
 */
import type { Insertable, Kysely, Selectable } from 'kysely';
import type { DB } from '../../db/schema.js';
import { isPostgres } from '../../platform/db/database.js';

export type ListRow = Selectable<DB['watchlists']>;
export type ItemRow = Selectable<DB['watchlist_items']>;
export type NewList = Insertable<DB['watchlists']>;
export type NewItem = Insertable<DB['watchlist_items']>;

export class WatchlistsRepository {
  private readonly pg: boolean;

  constructor(private readonly db: Kysely<DB>) {
    this.pg = isPostgres(db);
  }

  /**
   * Runs `work` in one transaction with a repository bound to it: all of it is written or none
   * (SQLite transactions begin `IMMEDIATE`, so they run one at a time).
   */
  transaction<T>(work: (repo: WatchlistsRepository) => Promise<T>): Promise<T> {
    return this.db.transaction().execute((trx) => work(new WatchlistsRepository(trx)));
  }

  /**
   * On PostgreSQL, locks the user's row against a concurrent change of the same user's lists, so
   * a count and the insert it allows are one step (`FOR NO KEY UPDATE`: the lists' foreign keys
   * still take their share lock). A lock and the reads it protects are separate statements.
   */
  async lockUser(userId: number): Promise<void> {
    if (!this.pg) return;
    await this.db.selectFrom('users').select('id').where('id', '=', userId).forNoKeyUpdate().execute();
  }

  /** The user's list `id`, locked on PostgreSQL (see {@link lockUser}); undefined when not theirs. */
  async lockList(userId: number, id: number): Promise<ListRow | undefined> {
    let q = this.db.selectFrom('watchlists').selectAll().where('id', '=', id).where('user_id', '=', userId);
    if (this.pg) q = q.forNoKeyUpdate();
    return q.executeTakeFirst();
  }

  /** The user's list `id`; undefined when not theirs. */
  findList(userId: number, id: number): Promise<ListRow | undefined> {
    return this.db
      .selectFrom('watchlists')
      .selectAll()
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .executeTakeFirst();
  }

  /** The user's lists in their order. */
  lists(userId: number): Promise<ListRow[]> {
    return this.db
      .selectFrom('watchlists')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('position')
      .orderBy('id')
      .execute();
  }

  /** Every item of the user's lists, each list's in its order. */
  itemsOfUser(userId: number): Promise<ItemRow[]> {
    return this.db
      .selectFrom('watchlist_items as i')
      .innerJoin('watchlists as w', 'w.id', 'i.watchlist_id')
      .selectAll('i')
      .where('w.user_id', '=', userId)
      .orderBy('i.watchlist_id')
      .orderBy('i.position')
      .orderBy('i.id')
      .execute();
  }

  /** The list's items in their order. */
  items(listId: number): Promise<ItemRow[]> {
    return this.db
      .selectFrom('watchlist_items')
      .selectAll()
      .where('watchlist_id', '=', listId)
      .orderBy('position')
      .orderBy('id')
      .execute();
  }

  /** How many lists the user has, and the position after the last. */
  async listTally(userId: number): Promise<{ count: number; next: number }> {
    const r = await this.db
      .selectFrom('watchlists')
      .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.max('position').as('last')])
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow();
    return { count: Number(r.n), next: r.last === null ? 0 : Number(r.last) + 1 };
  }

  /** How many items the list holds, and the position after the last. */
  async itemTally(listId: number): Promise<{ count: number; next: number }> {
    const r = await this.db
      .selectFrom('watchlist_items')
      .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.max('position').as('last')])
      .where('watchlist_id', '=', listId)
      .executeTakeFirstOrThrow();
    return { count: Number(r.n), next: r.last === null ? 0 : Number(r.last) + 1 };
  }

  /** Inserts a list; a name the user already has throws a unique violation. */
  insertList(row: NewList): Promise<ListRow> {
    return this.db.insertInto('watchlists').values(row).returningAll().executeTakeFirstOrThrow();
  }

  /** Renames the user's list; undefined when not theirs; a taken name throws a unique violation. */
  renameList(userId: number, id: number, name: string): Promise<ListRow | undefined> {
    return this.db
      .updateTable('watchlists')
      .set({ name })
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .returningAll()
      .executeTakeFirst();
  }

  /** Deletes the user's list (its items go with it: `on delete cascade`); false when not theirs. */
  async deleteList(userId: number, id: number): Promise<boolean> {
    const r = await this.db
      .deleteFrom('watchlists')
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return Number(r.numDeletedRows) === 1;
  }

  /** Inserts an item; an instrument the list holds already throws a unique violation. */
  insertItem(row: NewItem): Promise<ItemRow> {
    return this.db.insertInto('watchlist_items').values(row).returningAll().executeTakeFirstOrThrow();
  }

  /** Deletes an item of the list; false when the list holds no such item. */
  async deleteItem(listId: number, itemId: number): Promise<boolean> {
    const r = await this.db
      .deleteFrom('watchlist_items')
      .where('id', '=', itemId)
      .where('watchlist_id', '=', listId)
      .executeTakeFirst();
    return Number(r.numDeletedRows) === 1;
  }

  /** Gives the list's items the positions 0, 1, … in the order of `itemIds` (one statement). */
  async setPositions(listId: number, itemIds: readonly number[]): Promise<void> {
    if (itemIds.length === 0) return;
    await this.db
      .updateTable('watchlist_items')
      .set((eb) => {
        let c = eb.case().when('id', '=', itemIds[0]!).then(0);
        for (let i = 1; i < itemIds.length; i++) c = c.when('id', '=', itemIds[i]!).then(i);
        return { position: c.else(eb.ref('position')).end() };
      })
      .where('watchlist_id', '=', listId)
      .where('id', 'in', [...itemIds])
      .execute();
  }
}

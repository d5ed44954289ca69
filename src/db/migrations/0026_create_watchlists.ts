import type { Kysely } from 'kysely';
import { withId } from './helpers.js';

/**
 * Market watch lists (docs/rules/watchlists.md): `watchlists` (one user's named lists, in their
 * order) and `watchlist_items` (a list's instruments, in their order). Deleting a user deletes
 * their lists, and deleting a list its items: both through `on delete cascade`, as every other
 * per-user table (`UsersRepository.delete`).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('watchlists'))
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
    /** 1-40 characters (code points), trimmed, NFC (docs/rules/watchlists.md#watchlist-names). */
    .addColumn('name', 'varchar(40)', (c) => c.notNull())
    /** The list's place among the user's lists (ascending; ties broken by id). */
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('watchlists_user_name_uq')
    .on('watchlists')
    .columns(['user_id', 'name'])
    .unique()
    .execute();

  await withId(db, db.schema.createTable('watchlist_items'))
    .addColumn('watchlist_id', 'bigint', (c) => c.notNull().references('watchlists.id').onDelete('cascade'))
    /** The master contract's canonical symbol and exchange (as `/api/v1/symbol` names them). */
    .addColumn('symbol', 'varchar(64)', (c) => c.notNull())
    .addColumn('exchange', 'varchar(16)', (c) => c.notNull())
    /** The item's place in its list (ascending; ties broken by id). */
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('watchlist_items_list_instrument_uq')
    .on('watchlist_items')
    .columns(['watchlist_id', 'exchange', 'symbol'])
    .unique()
    .execute();
}

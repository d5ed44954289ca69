import type { Kysely } from 'kysely';
import { withId } from './helpers.js';

/**
 * IP bans and the two abuse trackers (shield issue). A ban row outlives its expiry (inactive)
 * so `ban_count` remembers earlier automatic bans of the address for the repeat-offender rule;
 * `expires_at` null means permanent.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('ip_bans'))
    .addColumn('ip', 'varchar(45)', (c) => c.notNull().unique())
    .addColumn('reason', 'varchar(255)', (c) => c.notNull())
    .addColumn('ban_count', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_by', 'varchar(64)', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint')
    .execute();
  await db.schema.createIndex('ip_bans_expires_at_idx').on('ip_bans').column('expires_at').execute();

  await db.schema
    .createTable('error_404_tracker')
    .addColumn('ip', 'varchar(45)', (c) => c.primaryKey())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addColumn('paths', 'text', (c) => c.notNull())
    .addColumn('first_seen', 'bigint', (c) => c.notNull())
    .addColumn('last_seen', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('invalid_api_key_tracker')
    .addColumn('ip', 'varchar(45)', (c) => c.primaryKey())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addColumn('key_digests', 'text', (c) => c.notNull())
    .addColumn('first_seen', 'bigint', (c) => c.notNull())
    .addColumn('last_seen', 'bigint', (c) => c.notNull())
    .execute();
}

import type { Kysely } from 'kysely';
import { withId } from './helpers.js';

/**
 * Broker apps configured in the console (docs/rules/brokers.md#broker-apps): an administrator adds
 * apps (a broker, its API key and secret sealed like every secret, the redirect URL its developer
 * console registers); each user picks one (`broker_app_choices`, none: the install's bootstrap app
 * from the `BROKER_*` variables) and logs in to it; the session says which app it belongs to
 * (`broker_sessions.broker_app_id`, null: the bootstrap app).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('broker_apps'))
    .addColumn('label', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('broker', 'varchar(16)', (c) => c.notNull())
    .addColumn('api_key_encrypted', 'text')
    .addColumn('api_secret_encrypted', 'text')
    .addColumn('redirect_url', 'varchar(512)')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('broker_app_choices')
    .addColumn('user_id', 'integer', (c) => c.primaryKey())
    .addColumn('broker_app_id', 'integer', (c) => c.notNull())
    .addColumn('chosen_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.alterTable('broker_sessions').addColumn('broker_app_id', 'integer').execute();
}

import { sql, type Kysely } from 'kysely';
import { withId } from './helpers.js';

/** Settings row, users, sessions, API keys and login activity (foundation issue). */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('settings')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('analyze_mode', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('smtp_server', 'varchar(255)')
    .addColumn('smtp_port', 'integer', (c) => c.notNull().defaultTo(587))
    .addColumn('smtp_username', 'varchar(255)')
    .addColumn('smtp_password_encrypted', 'text')
    .addColumn('smtp_use_tls', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('smtp_from_email', 'varchar(255)')
    .addColumn('smtp_helo_hostname', 'varchar(255)')
    .addColumn('security_auto_ban_enabled', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('security_404_threshold', 'integer', (c) => c.notNull().defaultTo(100))
    .addColumn('security_404_ban_duration', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('security_api_threshold', 'integer', (c) => c.notNull().defaultTo(100))
    .addColumn('security_api_ban_duration', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('security_repeat_offender_limit', 'integer', (c) => c.notNull().defaultTo(2))
    .addColumn('updated_at', 'bigint', (c) => c.notNull().defaultTo(0))
    .addCheckConstraint('settings_single_row', sql`id = 1`)
    .execute();
  await db
    .insertInto('settings' as never)
    .values({ id: 1 } as never)
    .execute();

  await withId(db, db.schema.createTable('users'))
    .addColumn('username', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('email', 'varchar(255)')
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('is_admin', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('order_mode', 'varchar(16)', (c) => c.notNull().defaultTo('auto'))
    .addColumn('totp_secret', 'text')
    .addColumn('totp_enabled', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('totp_required_for_login', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('totp_required_for_mcp', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('totp_required_for_password_reset', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('sessions')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('csrf_token', 'varchar(64)', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('ip', 'varchar(64)')
    .addColumn('user_agent', 'varchar(512)')
    .addColumn('totp_verified_at', 'bigint')
    .execute();
  await db.schema.createIndex('sessions_user_id_idx').on('sessions').column('user_id').execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('user_id', 'bigint', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('key_digest', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await withId(db, db.schema.createTable('login_activity'))
    .addColumn('ts', 'bigint', (c) => c.notNull())
    .addColumn('ip', 'varchar(64)', (c) => c.notNull())
    .addColumn('username', 'varchar(64)', (c) => c.notNull())
    .addColumn('success', 'boolean', (c) => c.notNull())
    .addColumn('user_agent', 'varchar(512)')
    .execute();
  await db.schema.createIndex('login_activity_ts_idx').on('login_activity').column('ts').execute();
}

import type { Kysely } from 'kysely';
import { withId } from './helpers.js';

/**
 * Order placement: the order log (live) and the analyzer log (analyzer mode), the
 * latency record of every placement, the Action Center's queue of semi-automatic orders, and the
 * broker session of each user (access token encrypted at rest).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // Written by the log writer from order events; `request` never holds the API key.
  for (const table of ['order_logs', 'analyzer_logs']) {
    await withId(db, db.schema.createTable(table))
      .addColumn('user_id', 'integer')
      .addColumn('event', 'varchar(32)', (c) => c.notNull())
      .addColumn('api_type', 'varchar(32)', (c) => c.notNull())
      .addColumn('broker', 'varchar(32)')
      .addColumn('order_id', 'varchar(64)')
      .addColumn('status_code', 'integer', (c) => c.notNull())
      .addColumn('request', 'text', (c) => c.notNull())
      .addColumn('response', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex(`${table}_created_idx`).on(table).columns(['created_at', 'id']).execute();
  }

  await withId(db, db.schema.createTable('order_latency'))
    .addColumn('label', 'varchar(16)', (c) => c.notNull())
    .addColumn('user_id', 'integer')
    .addColumn('broker', 'varchar(32)', (c) => c.notNull())
    .addColumn('symbol', 'varchar(64)', (c) => c.notNull())
    .addColumn('order_id', 'varchar(64)')
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('total_ms', 'double precision', (c) => c.notNull())
    .addColumn('broker_ms', 'double precision', (c) => c.notNull())
    .addColumn('validation_ms', 'double precision', (c) => c.notNull())
    .addColumn('overhead_ms', 'double precision', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('order_latency_created_idx')
    .on('order_latency')
    .columns(['created_at', 'id'])
    .execute();

  // The Action Center: semi-automatic orders waiting for the user's decision. `request` is the
  // validated order without the API key.
  await withId(db, db.schema.createTable('pending_orders'))
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('api_type', 'varchar(32)', (c) => c.notNull())
    .addColumn('request', 'text', (c) => c.notNull())
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('reason', 'varchar(512)')
    .addColumn('order_id', 'varchar(64)')
    .addColumn('response', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('decided_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('pending_orders_user_idx')
    .on('pending_orders')
    .columns(['user_id', 'status', 'id'])
    .execute();

  await db.schema
    .createTable('broker_sessions')
    .addColumn('user_id', 'integer', (c) => c.primaryKey())
    .addColumn('broker', 'varchar(32)', (c) => c.notNull())
    /** AES-256-GCM ciphertext (SecretBox, purpose `broker-token`). */
    .addColumn('access_token_encrypted', 'text', (c) => c.notNull())
    .addColumn('broker_user_id', 'varchar(64)')
    .addColumn('expires_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
}

import type { Kysely } from 'kysely';
import { withId } from './helpers.js';

/** One row per request (shield issue, traffic log); written in batches off the request path. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('traffic_log'))
    .addColumn('ts', 'bigint', (c) => c.notNull())
    .addColumn('ip', 'varchar(45)', (c) => c.notNull())
    .addColumn('method', 'varchar(10)', (c) => c.notNull())
    .addColumn('path', 'varchar(512)', (c) => c.notNull())
    .addColumn('endpoint_group', 'varchar(64)', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('duration_ms', 'double precision', (c) => c.notNull())
    .addColumn('host', 'varchar(255)')
    .addColumn('user_id', 'bigint')
    .execute();
  await db.schema.createIndex('traffic_log_ts_idx').on('traffic_log').column('ts').execute();
  await db.schema.createIndex('traffic_log_host_ts_idx').on('traffic_log').columns(['host', 'ts']).execute();
}

import type { Kysely } from 'kysely';
import { withId } from './helpers.js';

/**
 * The error log store: every server log record at `warn` and above (the already-redacted line
 * pino wrote) and every browser error report, one row each. Written in batches off the request
 * path; bounded by a row cap and an age limit (observability module).
 * No foreign key on `user_id`: the rows outlive the users they mention and pruning stays one
 * indexed range delete.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('error_log'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('level', 'varchar(8)', (c) => c.notNull())
    .addColumn('origin', 'varchar(8)', (c) => c.notNull())
    .addColumn('module', 'varchar(100)')
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('exception', 'text')
    .addColumn('stack', 'text')
    .addColumn('request_id', 'varchar(64)')
    .addColumn('method', 'varchar(16)')
    .addColumn('path', 'varchar(2048)')
    .addColumn('user_id', 'bigint')
    .addColumn('url', 'varchar(2048)')
    .addColumn('user_agent', 'varchar(512)')
    .addColumn('component_stack', 'text')
    .addColumn('context', 'text')
    .addColumn('fingerprint', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('error_log_created_at_idx').on('error_log').column('created_at').execute();
  await db.schema
    .createIndex('error_log_fingerprint_idx')
    .on('error_log')
    .columns(['fingerprint', 'created_at'])
    .execute();
}

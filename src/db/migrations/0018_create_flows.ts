import { sql, type Kysely } from 'kysely';
import { withId } from './helpers.js';

/**
 * Flow workflows (docs/rules/flow.md): `flows` (one user's definition; the webhook token and the
 * secret are stored only as SHA-256 digests), `flow_runs` (every delivery with each node's
 * outcome) and `flow_dedupe` (identical deliveries within 60 s, claimed by a conditional upsert).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('flows'))
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'varchar(100)', (c) => c.notNull())
    /** The definition as JSON (checked on save). */
    .addColumn('definition', 'text', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('webhook_digest', 'varchar(64)', (c) => c.unique())
    .addColumn('secret_digest', 'varchar(64)', (c) => c.notNull())
    .addColumn('deleted_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  // Names are unique among a user's flows that are not deleted (a deleted one frees its name).
  await db.schema
    .createIndex('flows_user_name_uq')
    .on('flows')
    .columns(['user_id', 'name'])
    .unique()
    .where(sql.ref('deleted_at'), 'is', null)
    .execute();

  await withId(db, db.schema.createTable('flow_runs'))
    .addColumn('flow_id', 'bigint')
    .addColumn('ts', 'bigint', (c) => c.notNull())
    .addColumn('ip', 'varchar(64)', (c) => c.notNull())
    .addColumn('result', 'varchar(32)', (c) => c.notNull())
    .addColumn('http_status', 'integer', (c) => c.notNull())
    .addColumn('symbol', 'varchar(64)')
    .addColumn('message', 'varchar(1000)', (c) => c.notNull())
    .addColumn('payload', 'text')
    /** JSON array of each node's outcome. */
    .addColumn('nodes', 'text')
    .addColumn('duration_ms', 'double precision', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('flow_runs_flow_idx').on('flow_runs').columns(['flow_id', 'id']).execute();

  await db.schema
    .createTable('flow_dedupe')
    .addColumn('flow_id', 'bigint', (c) => c.notNull())
    .addColumn('fingerprint', 'varchar(64)', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('flow_dedupe_pk', ['flow_id', 'fingerprint'])
    .execute();
}

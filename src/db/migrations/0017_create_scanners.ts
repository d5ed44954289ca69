import { sql, type Kysely } from 'kysely';
import { withId } from './helpers.js';

/**
 * Scanner alerts (docs/rules/scanner.md): `scanners` (one user's configuration; the webhook id is
 * stored only as its SHA-256 digest), `scanner_deliveries` (the audit of every delivery and
 * square-off pass), `scanner_orders` (every order a scanner placed, for its square-off) and
 * `scanner_dedupe` (identical alerts within 60 s, claimed by a conditional upsert).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('scanners'))
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'varchar(100)', (c) => c.notNull())
    .addColumn('action', 'varchar(16)', (c) => c.notNull())
    .addColumn('exchange', 'varchar(8)', (c) => c.notNull())
    .addColumn('product', 'varchar(4)', (c) => c.notNull())
    .addColumn('quantity', 'integer')
    .addColumn('capital', 'double precision')
    /** JSON object `{SYMBOL: quantity}`. */
    .addColumn('overrides', 'text', (c) => c.notNull())
    .addColumn('window_start', 'varchar(5)', (c) => c.notNull())
    .addColumn('window_end', 'varchar(5)', (c) => c.notNull())
    .addColumn('squareoff_time', 'varchar(5)')
    .addColumn('max_symbols', 'integer', (c) => c.notNull())
    .addColumn('mode', 'varchar(8)', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('live_enabled', 'integer', (c) => c.notNull())
    /** SHA-256 of the webhook id; null once deleted. */
    .addColumn('webhook_digest', 'varchar(64)', (c) => c.unique())
    /** The IST day (`YYYY-MM-DD`) whose square-off has been claimed. */
    .addColumn('squared_off_day', 'varchar(10)')
    .addColumn('deleted_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  // Names are unique among a user's scanners that are not deleted (a deleted one frees its name).
  await db.schema
    .createIndex('scanners_user_name_uq')
    .on('scanners')
    .columns(['user_id', 'name'])
    .unique()
    .where(sql.ref('deleted_at'), 'is', null)
    .execute();

  await withId(db, db.schema.createTable('scanner_deliveries'))
    .addColumn('scanner_id', 'bigint')
    .addColumn('ts', 'bigint', (c) => c.notNull())
    .addColumn('ip', 'varchar(64)', (c) => c.notNull())
    .addColumn('result', 'varchar(32)', (c) => c.notNull())
    .addColumn('http_status', 'integer', (c) => c.notNull())
    .addColumn('action', 'varchar(16)')
    .addColumn('message', 'varchar(1000)', (c) => c.notNull())
    /** The body with credential-like fields redacted, capped. */
    .addColumn('payload', 'text')
    /** JSON array of each symbol's result. */
    .addColumn('results', 'text')
    .addColumn('duration_ms', 'double precision', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('scanner_deliveries_scanner_idx')
    .on('scanner_deliveries')
    .columns(['scanner_id', 'id'])
    .execute();

  await withId(db, db.schema.createTable('scanner_orders'))
    .addColumn('scanner_id', 'bigint', (c) => c.notNull())
    .addColumn('delivery_id', 'bigint')
    .addColumn('day', 'varchar(10)', (c) => c.notNull())
    .addColumn('kind', 'varchar(10)', (c) => c.notNull())
    .addColumn('symbol', 'varchar(64)', (c) => c.notNull())
    .addColumn('exchange', 'varchar(8)', (c) => c.notNull())
    .addColumn('product', 'varchar(4)', (c) => c.notNull())
    .addColumn('side', 'varchar(4)', (c) => c.notNull())
    .addColumn('quantity', 'integer', (c) => c.notNull())
    .addColumn('mode', 'varchar(8)', (c) => c.notNull())
    .addColumn('orderid', 'varchar(64)', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('scanner_orders_scanner_day_idx')
    .on('scanner_orders')
    .columns(['scanner_id', 'day'])
    .execute();

  await db.schema
    .createTable('scanner_dedupe')
    .addColumn('scanner_id', 'bigint', (c) => c.notNull())
    .addColumn('fingerprint', 'varchar(64)', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('scanner_dedupe_pk', ['scanner_id', 'fingerprint'])
    .execute();
}

import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../../platform/db/database.js';
import { withId } from './helpers.js';

/**
 * One way in for every webhook (src/modules/webhooks): the strategies', scanners' and flows'
 * delivery audits (`webhook_deliveries`, `scanner_deliveries`, `flow_runs`) become one
 * `webhook_deliveries` keyed by source and owner, and their three de-duplication tables one
 * `webhook_dedupe` keyed by (source, owner, fingerprint). Every row is kept: a source's own
 * columns go to `detail` as JSON, and a scanner order's `delivery_id` follows its delivery's new id.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const pg = isPostgres(db);
  // Each dialect's JSON object of columns, and its reading of a column that holds JSON text.
  const obj = pg ? 'json_build_object' : 'json_object';
  const json = (column: string) => (pg ? `${column}::json` : `json(${column})`);
  const text = (expr: string) => (pg ? `(${expr})::text` : expr);

  await db.schema.alterTable('webhook_deliveries').renameTo('strategy_deliveries_old').execute();
  await db.schema.alterTable('webhook_dedupe').renameTo('strategy_dedupe_old').execute();

  await withId(db, db.schema.createTable('webhook_deliveries'))
    .addColumn('source', 'varchar(16)', (c) => c.notNull())
    .addColumn('owner_id', 'bigint')
    .addColumn('ts', 'bigint', (c) => c.notNull())
    .addColumn('ip', 'varchar(64)', (c) => c.notNull())
    .addColumn('result', 'varchar(32)', (c) => c.notNull())
    .addColumn('http_status', 'integer', (c) => c.notNull())
    .addColumn('action', 'varchar(32)')
    .addColumn('message', 'varchar(1000)', (c) => c.notNull())
    /** The body with credential-like fields redacted, capped. */
    .addColumn('payload', 'text')
    /** The source's own facts as JSON. */
    .addColumn('detail', 'text')
    .addColumn('duration_ms', 'double precision', (c) => c.notNull())
    /** The row's id in its old table, while the scanner orders are pointed at the new ids. */
    .addColumn('legacy_id', 'bigint')
    .execute();

  const copy = (source: string, table: string, owner: string, action: string, detail: string) =>
    sql
      .raw(
        `INSERT INTO webhook_deliveries
           (source, owner_id, ts, ip, result, http_status, action, message, payload, detail, duration_ms, legacy_id)
         SELECT '${source}', ${owner}, ts, ip, result, http_status, ${action}, message, payload, ${detail},
                duration_ms, id
         FROM ${table} ORDER BY id`,
      )
      .execute(db);
  await copy(
    'strategy',
    'strategy_deliveries_old',
    'strategy_id',
    'action',
    `CASE WHEN mode IS NULL AND run_id IS NULL THEN NULL
          ELSE ${text(`${obj}('mode', mode, 'run_id', run_id)`)} END`,
  );
  await copy(
    'scanner',
    'scanner_deliveries',
    'scanner_id',
    'action',
    `CASE WHEN results IS NULL THEN NULL ELSE ${text(`${obj}('results', ${json('results')})`)} END`,
  );
  await copy(
    'flow',
    'flow_runs',
    'flow_id',
    'NULL',
    `CASE WHEN symbol IS NULL AND nodes IS NULL THEN NULL
          ELSE ${text(`${obj}('symbol', symbol, 'nodes', ${json('nodes')})`)} END`,
  );
  await sql`UPDATE scanner_orders SET delivery_id = (
              SELECT d.id FROM webhook_deliveries d
              WHERE d.source = 'scanner' AND d.legacy_id = scanner_orders.delivery_id)
            WHERE delivery_id IS NOT NULL`.execute(db);
  await db.schema.alterTable('webhook_deliveries').dropColumn('legacy_id').execute();
  await db.schema
    .createIndex('webhook_deliveries_owner_idx')
    .on('webhook_deliveries')
    .columns(['source', 'owner_id', 'id'])
    .execute();

  await db.schema
    .createTable('webhook_dedupe')
    .addColumn('source', 'varchar(16)', (c) => c.notNull())
    .addColumn('owner_id', 'bigint', (c) => c.notNull())
    .addColumn('fingerprint', 'varchar(64)', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('webhook_dedupe_source_pk', ['source', 'owner_id', 'fingerprint'])
    .execute();
  for (const [source, table, owner] of [
    ['strategy', 'strategy_dedupe_old', 'strategy_id'],
    ['scanner', 'scanner_dedupe', 'scanner_id'],
    ['flow', 'flow_dedupe', 'flow_id'],
  ] as const)
    await sql
      .raw(
        `INSERT INTO webhook_dedupe (source, owner_id, fingerprint, at)
         SELECT '${source}', ${owner}, fingerprint, at FROM ${table}`,
      )
      .execute(db);

  for (const table of [
    'strategy_deliveries_old',
    'strategy_dedupe_old',
    'scanner_deliveries',
    'scanner_dedupe',
    'flow_runs',
    'flow_dedupe',
  ])
    await db.schema.dropTable(table).execute();
}

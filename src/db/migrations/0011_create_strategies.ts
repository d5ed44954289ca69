import type { Kysely } from 'kysely';
import { withId } from './helpers.js';

/**
 * Strategies: the strategy and its legs, its runs, the orders each run owns, the append-only
 * event trail, the webhook audit and the batch de-duplication window.
 *
 * Claims that must hold across instances live in the database, not in one process's memory:
 * - a strategy has at most one active run: `strategies.active_run_id` is set with a conditional
 *   UPDATE (`… WHERE active_run_id IS NULL`), which also checks the 30-second cooling-off after
 *   the last stop (`last_stop_at`);
 * - an identical batch delivery within 60 s: the `(strategy_id, fingerprint)` primary key of
 *   `webhook_dedupe`, refreshed with a conditional upsert.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('strategies'))
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'varchar(100)', (c) => c.notNull())
    .addColumn('kind', 'varchar(8)', (c) => c.notNull())
    .addColumn('product', 'varchar(4)', (c) => c.notNull())
    .addColumn('direction', 'varchar(12)', (c) => c.notNull())
    /** SHA-256 of the webhook token; the token is shown once. */
    .addColumn('token_digest', 'varchar(64)', (c) => c.notNull().unique())
    /** JSON array of CIDRs; empty = any sender. */
    .addColumn('ip_allowlist', 'text', (c) => c.notNull())
    .addColumn('locked', 'integer', (c) => c.notNull())
    .addColumn('live_enabled', 'integer', (c) => c.notNull())
    .addColumn('active_run_id', 'bigint')
    .addColumn('last_stop_at', 'bigint')
    /** Until when one instance holds the strategy's signal lease (signals one at a time). */
    .addColumn('signal_lease_until', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('strategies_user_name_uq', ['user_id', 'name'])
    .execute();

  await withId(db, db.schema.createTable('strategy_legs'))
    .addColumn('strategy_id', 'bigint', (c) => c.notNull().references('strategies.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    /** `instrument` (symbol + exchange) or `derivative` (resolved at run start). */
    .addColumn('leg_type', 'varchar(12)', (c) => c.notNull())
    .addColumn('symbol', 'varchar(64)')
    .addColumn('exchange', 'varchar(16)', (c) => c.notNull())
    .addColumn('underlying', 'varchar(64)')
    .addColumn('expiry_rank', 'integer')
    /** `CE`, `PE` or `FUT` for a derivative leg. */
    .addColumn('option_type', 'varchar(3)')
    .addColumn('strike_offset', 'integer')
    .addColumn('quantity', 'integer', (c) => c.notNull())
    /** `units` or `lots`. */
    .addColumn('quantity_unit', 'varchar(5)', (c) => c.notNull())
    /** `BUY` or `SELL` (batch legs); null for signal legs. */
    .addColumn('side', 'varchar(4)')
    .execute();
  await db.schema
    .createIndex('strategy_legs_strategy_idx')
    .on('strategy_legs')
    .column('strategy_id')
    .execute();

  await withId(db, db.schema.createTable('strategy_runs'))
    .addColumn('strategy_id', 'bigint', (c) => c.notNull().references('strategies.id').onDelete('cascade'))
    /** `sandbox` or `live`. */
    .addColumn('mode', 'varchar(8)', (c) => c.notNull())
    /** `running`, `stop_pending`, `stopped`. */
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('started_at', 'bigint', (c) => c.notNull())
    .addColumn('stop_requested_at', 'bigint')
    .addColumn('stopped_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('strategy_runs_strategy_idx')
    .on('strategy_runs')
    .columns(['strategy_id', 'id'])
    .execute();

  // An order a run owns, recorded before it is sent.
  await withId(db, db.schema.createTable('strategy_orders'))
    .addColumn('run_id', 'bigint', (c) => c.notNull().references('strategy_runs.id').onDelete('cascade'))
    .addColumn('strategy_id', 'bigint', (c) => c.notNull())
    .addColumn('leg_id', 'bigint', (c) => c.notNull())
    .addColumn('symbol', 'varchar(64)', (c) => c.notNull())
    .addColumn('exchange', 'varchar(16)', (c) => c.notNull())
    .addColumn('action', 'varchar(4)', (c) => c.notNull())
    .addColumn('quantity', 'integer', (c) => c.notNull())
    /** `entry` or `exit`. */
    .addColumn('purpose', 'varchar(8)', (c) => c.notNull())
    /** `recorded` (not yet answered), `placed`, `rejected`. */
    .addColumn('status', 'varchar(12)', (c) => c.notNull())
    .addColumn('order_id', 'varchar(64)')
    .addColumn('message', 'varchar(512)')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('strategy_orders_run_idx')
    .on('strategy_orders')
    .columns(['run_id', 'leg_id'])
    .execute();

  // Each leg's net quantity in a run: kept with every placed order (one row read per signal).
  await db.schema
    .createTable('strategy_positions')
    .addColumn('run_id', 'bigint', (c) => c.notNull().references('strategy_runs.id').onDelete('cascade'))
    .addColumn('leg_id', 'bigint', (c) => c.notNull())
    .addColumn('symbol', 'varchar(64)', (c) => c.notNull())
    .addColumn('exchange', 'varchar(16)', (c) => c.notNull())
    .addColumn('net', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('strategy_positions_pk', ['run_id', 'leg_id'])
    .execute();

  await withId(db, db.schema.createTable('strategy_events'))
    .addColumn('strategy_id', 'bigint', (c) => c.notNull().references('strategies.id').onDelete('cascade'))
    .addColumn('run_id', 'bigint')
    .addColumn('ts', 'bigint', (c) => c.notNull())
    .addColumn('kind', 'varchar(40)', (c) => c.notNull())
    .addColumn('severity', 'varchar(8)', (c) => c.notNull())
    .addColumn('leg_id', 'bigint')
    .addColumn('message', 'varchar(1000)', (c) => c.notNull())
    .addColumn('payload', 'text')
    .execute();
  await db.schema
    .createIndex('strategy_events_strategy_idx')
    .on('strategy_events')
    .columns(['strategy_id', 'ts', 'id'])
    .execute();

  // The webhook audit: every terminal result admitted to the validation pipeline.
  await withId(db, db.schema.createTable('webhook_deliveries'))
    .addColumn('strategy_id', 'bigint')
    .addColumn('ts', 'bigint', (c) => c.notNull())
    .addColumn('ip', 'varchar(64)', (c) => c.notNull())
    .addColumn('result', 'varchar(32)', (c) => c.notNull())
    .addColumn('http_status', 'integer', (c) => c.notNull())
    .addColumn('action', 'varchar(32)')
    .addColumn('mode', 'varchar(16)')
    .addColumn('run_id', 'bigint')
    .addColumn('message', 'varchar(1000)', (c) => c.notNull())
    /** The body with credential-like fields redacted, capped. */
    .addColumn('payload', 'text')
    .addColumn('duration_ms', 'double precision', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_strategy_idx')
    .on('webhook_deliveries')
    .columns(['strategy_id', 'id'])
    .execute();

  await db.schema
    .createTable('webhook_dedupe')
    .addColumn('strategy_id', 'bigint', (c) => c.notNull())
    .addColumn('fingerprint', 'varchar(64)', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('webhook_dedupe_pk', ['strategy_id', 'fingerprint'])
    .execute();
}

import type { Kysely } from 'kysely';
import { withId } from './helpers.js';

/**
 * GTT orders of the sandbox (docs/rules/sandbox.md#gtt-orders): one row per GTT, `single` (one
 * trigger) or `oco` (a stoploss trigger below the last price and a target trigger above it). Money
 * columns are bigint ten-thousandths of a rupee.
 *
 * - `status`: `active` until it fires (`triggered`, with the order it placed in `order_id` and the
 *   leg in `fired_leg`), is cancelled, expires (`expires_at`, or its contract's expiry) or is
 *   `rejected` when the order it fires could not be taken. The move out of `active` is a
 *   compare-and-set in the transaction that places the order, so two instances fire it once.
 * - `blocked_margin`: reserved from available funds while active (the larger of an OCO's legs),
 *   released when it leaves `active`.
 * - `trigger_sl`/`price_sl` and `trigger_tg`/`price_tg`: each leg's trigger and limit price (0 for a
 *   MARKET leg); a single GTT uses one of them (sl: fires at or below, tg: at or above).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('sandbox_gtts'))
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('strategy', 'varchar(100)')
    .addColumn('symbol', 'varchar(64)', (c) => c.notNull())
    .addColumn('exchange', 'varchar(16)', (c) => c.notNull())
    .addColumn('type', 'varchar(8)', (c) => c.notNull())
    .addColumn('side', 'varchar(4)', (c) => c.notNull())
    .addColumn('product', 'varchar(8)', (c) => c.notNull())
    .addColumn('quantity', 'integer', (c) => c.notNull())
    .addColumn('price_type', 'varchar(8)', (c) => c.notNull())
    .addColumn('trigger_sl', 'bigint')
    .addColumn('price_sl', 'bigint')
    .addColumn('trigger_tg', 'bigint')
    .addColumn('price_tg', 'bigint')
    .addColumn('last_price', 'bigint', (c) => c.notNull())
    .addColumn('blocked_margin', 'bigint', (c) => c.notNull())
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('fired_leg', 'varchar(4)')
    .addColumn('order_id', 'bigint')
    .addColumn('reason', 'varchar(512)')
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('sandbox_gtts_user_idx')
    .on('sandbox_gtts')
    .columns(['user_id', 'id'])
    .execute();
  await db.schema
    .createIndex('sandbox_gtts_status_idx')
    .on('sandbox_gtts')
    .columns(['status', 'id'])
    .execute();
}

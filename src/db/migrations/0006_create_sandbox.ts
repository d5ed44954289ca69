import type { Kysely } from 'kysely';
import { withId } from './helpers.js';

/**
 * The sandbox (analyzer mode): one account per user, orders with their transition events,
 * trades, net positions and delivery holdings. Money columns are bigint ten-thousandths of a rupee
 * (`src/domain/money.ts`, docs/rules/sandbox.md#exact-money).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('sandbox_accounts')
    .addColumn('user_id', 'integer', (c) => c.primaryKey())
    .addColumn('starting_funds', 'bigint', (c) => c.notNull())
    .addColumn('available', 'bigint', (c) => c.notNull())
    .addColumn('used_margin', 'bigint', (c) => c.notNull())
    .addColumn('realised_pnl', 'bigint', (c) => c.notNull())
    .addColumn('reset_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();

  // `id` is the order id clients see. Prices are 0 where the price type has none.
  await withId(db, db.schema.createTable('sandbox_orders'))
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('symbol', 'varchar(64)', (c) => c.notNull())
    .addColumn('exchange', 'varchar(16)', (c) => c.notNull())
    .addColumn('side', 'varchar(4)', (c) => c.notNull())
    .addColumn('price_type', 'varchar(8)', (c) => c.notNull())
    .addColumn('product', 'varchar(8)', (c) => c.notNull())
    /** equity | future | option: picks the leverage when the order fills. */
    .addColumn('kind', 'varchar(8)', (c) => c.notNull())
    .addColumn('quantity', 'integer', (c) => c.notNull())
    .addColumn('price', 'bigint', (c) => c.notNull())
    .addColumn('trigger_price', 'bigint', (c) => c.notNull())
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('filled_quantity', 'integer', (c) => c.notNull())
    .addColumn('average_price', 'bigint', (c) => c.notNull())
    /** Margin blocked at placement and the new-exposure quantity it covers (released on fill or cancel). */
    .addColumn('blocked_margin', 'bigint', (c) => c.notNull())
    .addColumn('blocked_quantity', 'integer', (c) => c.notNull())
    .addColumn('reason', 'varchar(512)')
    .addColumn('strategy', 'varchar(100)')
    /** IST trading day (`YYYY-MM-DD`) the order was placed on: day orders expire after it. */
    .addColumn('day', 'varchar(10)', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('sandbox_orders_user_idx')
    .on('sandbox_orders')
    .columns(['user_id', 'id'])
    .execute();
  await db.schema
    .createIndex('sandbox_orders_status_idx')
    .on('sandbox_orders')
    .columns(['status', 'id'])
    .execute();

  // Every accepted transition of an order (ARCHITECTURE.md "State changes are explicit").
  await withId(db, db.schema.createTable('sandbox_order_events'))
    .addColumn('order_id', 'bigint', (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('from_status', 'varchar(16)')
    .addColumn('to_status', 'varchar(16)', (c) => c.notNull())
    .addColumn('detail', 'varchar(512)')
    .addColumn('at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('sandbox_order_events_order_idx')
    .on('sandbox_order_events')
    .columns(['order_id', 'id'])
    .execute();

  await withId(db, db.schema.createTable('sandbox_trades'))
    .addColumn('order_id', 'bigint', (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('symbol', 'varchar(64)', (c) => c.notNull())
    .addColumn('exchange', 'varchar(16)', (c) => c.notNull())
    .addColumn('side', 'varchar(4)', (c) => c.notNull())
    .addColumn('product', 'varchar(8)', (c) => c.notNull())
    .addColumn('quantity', 'integer', (c) => c.notNull())
    .addColumn('price', 'bigint', (c) => c.notNull())
    .addColumn('strategy', 'varchar(100)')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('sandbox_trades_user_idx')
    .on('sandbox_trades')
    .columns(['user_id', 'id'])
    .execute();
  // One fill per order (fills are whole): a second engine racing on the same order cannot insert twice.
  await db.schema
    .createIndex('sandbox_trades_order_idx')
    .on('sandbox_trades')
    .column('order_id')
    .unique()
    .execute();

  await withId(db, db.schema.createTable('sandbox_positions'))
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('symbol', 'varchar(64)', (c) => c.notNull())
    .addColumn('exchange', 'varchar(16)', (c) => c.notNull())
    .addColumn('product', 'varchar(8)', (c) => c.notNull())
    .addColumn('quantity', 'integer', (c) => c.notNull())
    .addColumn('cost', 'bigint', (c) => c.notNull())
    .addColumn('margin', 'bigint', (c) => c.notNull())
    .addColumn('realised_pnl', 'bigint', (c) => c.notNull())
    /** IST trading day of the last fill: CNC settles and flat rows drop after it. */
    .addColumn('day', 'varchar(10)', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('sandbox_positions_key_idx')
    .on('sandbox_positions')
    .columns(['user_id', 'symbol', 'exchange', 'product'])
    .unique()
    .execute();

  await withId(db, db.schema.createTable('sandbox_holdings'))
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('symbol', 'varchar(64)', (c) => c.notNull())
    .addColumn('exchange', 'varchar(16)', (c) => c.notNull())
    .addColumn('quantity', 'integer', (c) => c.notNull())
    .addColumn('cost', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('sandbox_holdings_key_idx')
    .on('sandbox_holdings')
    .columns(['user_id', 'symbol', 'exchange'])
    .unique()
    .execute();
}

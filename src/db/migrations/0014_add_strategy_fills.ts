import { sql, type Kysely } from 'kysely';

/**
 * Strategies keep what their orders *filled*, not what the broker acknowledged (the run becomes
 * stopped only when its own fills prove it flat: docs/rules/strategies.md#stop). An order
 * acknowledged and then rejected by the exchange must not count as held, or a stop would send an
 * exit that opens the opposite position.
 *
 * - `strategy_orders.filled_quantity`: what the order filled; its `status` gains `filled` (done,
 *   whole) and `dead` (acknowledged, then rejected, cancelled or expired, with whatever it filled).
 * - `strategy_positions.net` becomes the leg's *filled* net quantity, and `working` the signed
 *   quantity of its acknowledged orders whose fate is not known yet. Rows written before this
 *   migration summed acknowledged orders into `net`: those orders are still `placed` (working),
 *   so their sum moves to `working` and is counted into `net` as each one is seen filled.
 * - `strategies.deleted_at`: deletion keeps the strategy's append-only event trail, runs, orders
 *   and webhook audit (the row stays, its token dead, its name freed).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('strategy_orders')
    .addColumn('filled_quantity', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createIndex('strategy_orders_run_status_idx')
    .on('strategy_orders')
    .columns(['run_id', 'status'])
    .execute();
  await db.schema
    .alterTable('strategy_positions')
    .addColumn('working', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`update strategy_positions set working = net, net = 0`.execute(db);
  await db.schema.alterTable('strategies').addColumn('deleted_at', 'bigint').execute();
}

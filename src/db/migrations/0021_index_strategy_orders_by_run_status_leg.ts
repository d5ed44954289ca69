import type { Kysely } from 'kysely';

/**
 * A leg's working orders (`run_id`, `status`, `leg_id`) are read before every decision about the
 * leg. The planner answered that from (`run_id`, `leg_id`) and then read every order the leg ever
 * had, so a signal got slower with each order of a long run. One index (`run_id`, `status`,
 * `leg_id`) serves the leg's and the run's working orders (its prefix); the former
 * (`run_id`, `status`) goes, and so does (`run_id`, `leg_id`), a prefix of the unique
 * (`run_id`, `leg_id`, `exit_gen`): one index fewer to write per order.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('strategy_orders_run_status_leg_idx')
    .on('strategy_orders')
    .columns(['run_id', 'status', 'leg_id'])
    .execute();
  await db.schema.dropIndex('strategy_orders_run_status_idx').execute();
  await db.schema.dropIndex('strategy_orders_run_idx').execute();
}

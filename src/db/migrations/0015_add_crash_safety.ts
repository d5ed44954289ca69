import { sql, type Kysely } from 'kysely';

/**
 * What a kill -9 or two concurrent stops must not break: one exit per leg, leases that die with
 * their holder, intents reconciled after a restart, and order records committed with the order.
 *
 * - `strategies.signal_lease_holder` / `signal_lease_started`: the instance that holds the
 *   strategy's lease and when it took it. An instance releases its own leases at start-up (it died
 *   holding them); another instance's lease expires when its holder stops renewing it.
 * - `strategy_orders.tag`: the reference the order is sent with (the sandbox order's `tag`, the
 *   broker's order tag), so an intent whose answer was never recorded is found after a restart.
 * - `strategy_orders.exit_gen` + `strategy_positions.exits`: each exit of a leg takes the next
 *   generation by a compare-and-set on the leg, and (run, leg, generation) is unique, so no
 *   interleaving of stop passes sends a second exit for the same holding.
 * - `sandbox_orders.tag`: the caller's reference of a sandbox order (strategy orders).
 * - `order_logs.dispatched_at` / `analyzer_logs.dispatched_at`: the log row is written with the
 *   order, before the answer; the socket and chat alerts are fed from it, and a row whose fan-out
 *   never ran (null) is delivered after a restart. Existing rows count as delivered.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('strategies').addColumn('signal_lease_holder', 'varchar(64)').execute();
  await db.schema.alterTable('strategies').addColumn('signal_lease_started', 'bigint').execute();

  await db.schema.alterTable('strategy_orders').addColumn('tag', 'varchar(40)').execute();
  await db.schema.alterTable('strategy_orders').addColumn('exit_gen', 'integer').execute();
  await db.schema
    .createIndex('strategy_orders_exit_gen_uq')
    .on('strategy_orders')
    .columns(['run_id', 'leg_id', 'exit_gen'])
    .unique()
    .execute();
  await db.schema
    .createIndex('strategy_orders_status_idx')
    .on('strategy_orders')
    .columns(['status', 'strategy_id'])
    .execute();
  await db.schema
    .alterTable('strategy_positions')
    .addColumn('exits', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();

  await db.schema.alterTable('sandbox_orders').addColumn('tag', 'varchar(40)').execute();
  await db.schema
    .createIndex('sandbox_orders_tag_idx')
    .on('sandbox_orders')
    .columns(['user_id', 'tag'])
    .where(sql.ref('tag'), 'is not', null)
    .execute();

  for (const table of ['order_logs', 'analyzer_logs']) {
    await db.schema.alterTable(table).addColumn('dispatched_at', 'bigint').execute();
    await sql`update ${sql.table(table)} set dispatched_at = created_at`.execute(db);
    await db.schema
      .createIndex(`${table}_undispatched_idx`)
      .on(table)
      .column('id')
      .where(sql.ref('dispatched_at'), 'is', null)
      .execute();
  }
}

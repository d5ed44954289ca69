import type { Kysely } from 'kysely';

/**
 * The order book and the trade book list the current IST day's orders and trades
 * (docs/rules/sandbox.md#read-apis), and a contract note one day's trades: through these indexes
 * each reads its day's rows alone, however long the account's history since its last reset.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('sandbox_orders_user_created_idx')
    .on('sandbox_orders')
    .columns(['user_id', 'created_at'])
    .execute();
  await db.schema
    .createIndex('sandbox_trades_user_created_idx')
    .on('sandbox_trades')
    .columns(['user_id', 'created_at'])
    .execute();
}

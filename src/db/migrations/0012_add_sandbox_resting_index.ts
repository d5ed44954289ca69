import type { Kysely } from 'kysely';

/**
 * The resting orders of one user (`user_id = ? AND status IN ('open', 'trigger pending')`) are
 * read by every sandbox placement. With only `(user_id, id)` SQLite walked every order the user
 * ever placed, so a placement got slower with each order of the day; `(user_id, status, id)`
 * reaches the few resting ones directly.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('sandbox_orders_user_status_idx')
    .on('sandbox_orders')
    .columns(['user_id', 'status', 'id'])
    .execute();
}

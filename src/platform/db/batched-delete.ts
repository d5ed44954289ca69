/**
 * Retention's deletes, in batches. One `DELETE … WHERE ts < ?` over a year-old log holds the
 * write lock for as long as it takes to remove every row (seconds on SQLite, where the traffic
 * writer thread and every placement wait behind it) and builds one huge transaction on PostgreSQL.
 * Here each statement removes at most `batch` rows, found through the column's index, oldest
 * first, and the event loop gets a turn between statements, so requests and log writes interleave
 * with a purge of any size.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';

/** Rows one retention statement deletes at most. */
export const PURGE_BATCH = 1_000;

/**
 * Deletes the rows of `table` whose `column` is below `before` (an indexed integer column: a
 * time or the id), `batch` at a time, oldest first; returns how many went. The table must have an
 * integer `id` primary key.
 */
export async function deleteBelow(
  db: Kysely<DB>,
  table: keyof DB & string,
  column: string,
  before: number,
  batch = PURGE_BATCH,
): Promise<number> {
  let total = 0;
  for (;;) {
    const r = await sql`delete from ${sql.table(table)} where id in (
        select id from ${sql.table(table)} where ${sql.ref(column)} < ${before}
        order by ${sql.ref(column)} limit ${batch})`.execute(db);
    const n = Number(r.numAffectedRows ?? 0n);
    total += n;
    if (n < batch) return total;
    await nextTurn();
  }
}

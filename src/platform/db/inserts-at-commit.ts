/**
 * Rows a transaction writes at its very end, with those of the transactions it commits with: one
 * INSERT per table for a whole group (platform/db/group-commit.ts), not one statement per member.
 * On PostgreSQL each statement is a round trip, and one user's placements run one after another
 * behind their account's lock: the analyzer-log row of each, written this way, is a round trip
 * less per placement. The rows are written in the same transaction, before its COMMIT, so they are
 * committed with the rest of it or not at all.
 */
import type { Kysely } from 'kysely';
import { rowsPerInsert } from './database.js';

/**
 * Queues `row` for `table` (whose primary key is an integer `id` the database assigns); the
 * promise resolves with that id once the row is written, just before the COMMIT. Never await it
 * inside the transaction's own function: it resolves only after that function returned.
 */
export type InsertAtCommit = (table: string, row: Readonly<Record<string, unknown>>) => Promise<number>;

interface Queued {
  table: string;
  row: Readonly<Record<string, unknown>>;
  resolve: (id: number) => void;
}

/** The rows one transaction (or one member of a group) queued. */
export class InsertsAtCommit {
  private readonly queued: Queued[] = [];

  readonly insert: InsertAtCommit = (table, row) =>
    new Promise<number>((resolve) => this.queued.push({ table, row, resolve }));

  /** Moves the rows `other` queued after these (a member that succeeded, into its group's). */
  take(other: InsertsAtCommit): void {
    for (const q of other.queued.splice(0)) this.queued.push(q);
  }

  /** Forgets the queued rows (their work was undone); their promises never settle. */
  clear(): void {
    this.queued.length = 0;
  }

  /**
   * Writes the queued rows on `trx`, per table in as few INSERTs as the bound-parameter limit
   * allows, and then resolves each row's id. Ids come from the table's sequence (PostgreSQL) or
   * its next rowid (SQLite), taken row by row in the order of the VALUES list, so the ids sorted
   * are the rows in order: RETURNING itself does not promise an order.
   */
  async write<DB>(trx: Kysely<DB>): Promise<void> {
    const rows = this.queued.splice(0);
    if (rows.length === 0) return;
    const byTable = new Map<string, Queued[]>();
    for (const q of rows) {
      const list = byTable.get(q.table);
      if (list) list.push(q);
      else byTable.set(q.table, [q]);
    }
    const done: [Queued, number][] = [];
    // Any table, any columns: the callers' rows are typed where they are built.
    const db = trx as unknown as Kysely<Record<string, { id: number }>>;
    for (const [table, list] of byTable) {
      const chunk = rowsPerInsert(Math.max(1, ...list.map((q) => Object.keys(q.row).length)));
      for (let i = 0; i < list.length; i += chunk) {
        const part = list.slice(i, i + chunk);
        const returned = await db
          .insertInto(table)
          .values(part.map((q) => q.row as never))
          .returning('id')
          .execute();
        const ids = returned.map((r) => Number(r.id)).sort((a, b) => a - b);
        if (ids.length !== part.length)
          throw new Error(`${table}: ${ids.length} ids returned for ${part.length} rows`);
        part.forEach((q, j) => done.push([q, ids[j]!]));
      }
    }
    for (const [q, id] of done) q.resolve(id);
  }
}

/**
 * Runs `fn` in a transaction of its own on `db`, with the rows it queues written before its
 * COMMIT: for a transaction that is nobody's group.
 */
export function transactionWithInserts<DB, T>(
  db: Kysely<DB>,
  fn: (trx: Kysely<DB>, insertAtCommit: InsertAtCommit) => Promise<T>,
): Promise<T> {
  return db.transaction().execute(async (trx) => {
    const inserts = new InsertsAtCommit();
    const value = await fn(trx, inserts.insert);
    await inserts.write(trx);
    return value;
  });
}

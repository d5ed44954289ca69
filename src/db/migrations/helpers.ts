import type { CreateTableBuilder, Kysely } from 'kysely';
import { isPostgres } from '../../platform/db/database.js';

/** Adds an auto-increment integer primary key `id` in the form each dialect understands. */
export function withId<T extends string>(
  db: Kysely<unknown>,
  table: CreateTableBuilder<T, never>,
): CreateTableBuilder<T, 'id'> {
  return isPostgres(db)
    ? table.addColumn('id', 'bigserial', (c) => c.primaryKey())
    : table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
}

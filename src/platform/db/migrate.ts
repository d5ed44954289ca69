import { Migrator, sql, type Kysely } from 'kysely';
import { isPostgres } from './database.js';
import { migrationProvider } from '../../db/migrations/index.js';
import type { DB } from '../../db/schema.js';

export interface MigrationOutcome {
  applied: string[];
}

/** Brings the schema up to date; throws with the failing migration's name and cause. */
export async function migrateToLatest(db: Kysely<DB>): Promise<MigrationOutcome> {
  // Kysely looks for its own tables through introspection, which on PostgreSQL spans every
  // schema: another schema's table would be taken for ours. Pin them to the current schema.
  const schema = isPostgres(db)
    ? (await sql<{ s: string }>`select current_schema() as s`.execute(db)).rows[0]?.s
    : undefined;
  const migrator = new Migrator({
    db,
    provider: migrationProvider,
    ...(schema ? { migrationTableSchema: schema } : {}),
    migrationTableName: 'schema_migrations',
    migrationLockTableName: 'schema_migrations_lock',
  });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error !== undefined) {
    const cause = error instanceof Error ? error.message : String(error);
    throw new Error(`migration ${failed?.migrationName ?? '(unknown)'} failed: ${cause}`, { cause: error });
  }
  return { applied: (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName) };
}

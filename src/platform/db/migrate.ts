import { Migrator, type Kysely } from 'kysely';
import { migrationProvider } from '../../db/migrations/index.js';
import type { DB } from '../../db/schema.js';

export interface MigrationOutcome {
  applied: string[];
}

/** Brings the schema up to date; throws with the failing migration's name and cause. */
export async function migrateToLatest(db: Kysely<DB>): Promise<MigrationOutcome> {
  const migrator = new Migrator({
    db,
    provider: migrationProvider,
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

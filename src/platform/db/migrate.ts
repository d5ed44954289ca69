import { Migrator, sql, type Kysely } from 'kysely';
import { isPostgres } from './database.js';
import { migrationProvider, migrations } from '../../db/migrations/index.js';
import type { DB } from '../../db/schema.js';

export interface MigrationOutcome {
  applied: string[];
}

/** Whether the current schema has the migrations table (PostgreSQL resolves it by search_path). */
const TABLE_EXISTS = {
  postgres: sql<{ t: string | null }>`select to_regclass('schema_migrations')::text as t`,
  sqlite: sql<{ t: string | null }>`select name as t from sqlite_master where name = 'schema_migrations'`,
};

/**
 * Whether exactly this build's migrations are recorded as applied in the current schema's
 * `schema_migrations`: the usual start of an existing install, answered by two small reads
 * instead of Kysely's migrator, whose introspection reads the catalog of every schema (and, on
 * PostgreSQL, fails when another schema is dropped at that moment).
 */
async function upToDate(db: Kysely<DB>): Promise<boolean> {
  const exists = (await TABLE_EXISTS[isPostgres(db) ? 'postgres' : 'sqlite'].execute(db)).rows[0]?.t;
  if (!exists) return false;
  const applied = await sql<{ name: string }>`select name from schema_migrations`.execute(db);
  const names = new Set(applied.rows.map((r) => r.name));
  const known = Object.keys(migrations);
  // Exactly the known ones: a migration this build does not know goes to the migrator, which says so.
  return names.size === known.length && known.every((name) => names.has(name));
}

/** Brings the schema up to date; throws with the failing migration's name and cause. */
export async function migrateToLatest(db: Kysely<DB>): Promise<MigrationOutcome> {
  if (await upToDate(db)) return { applied: [] };
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

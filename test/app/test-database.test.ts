/**
 * The test databases are copied or replayed from a template migrated once per worker
 * (test/helpers/test-database.ts); every suite relies on them being exactly what the migrations
 * build. This compares one with a database the real migrator builds from nothing.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql, type Kysely } from 'kysely';
import { afterEach, expect, it } from 'vitest';
import type { DB } from '../../src/db/schema.js';
import { openDatabase, type Database, type Dialect } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { createTestDatabase, describeEachDb, pgUrl, type TestDatabase } from '../helpers/test-app.js';
import { AS_AN_EXISTING_INSTALL, withSchemaLock } from '../helpers/test-database.js';

/** Tables, columns, indexes and seed rows, with the schema's own name taken out. */
async function describeSchema(db: Kysely<DB>, dialect: Dialect, schema?: string): Promise<unknown> {
  if (dialect === 'sqlite') {
    const objects = await sql<{ type: string; name: string; sql: string | null }>`
      select type, name, sql from sqlite_master order by type, name`.execute(db);
    const migrations = await sql`select name from schema_migrations order by name`.execute(db);
    const settings = await sql`select * from settings`.execute(db);
    return { objects: objects.rows, migrations: migrations.rows, settings: settings.rows };
  }
  const columns = await sql`
    select table_name, column_name, data_type, is_nullable, column_default from information_schema.columns
    where table_schema = ${schema} order by table_name, column_name`.execute(db);
  const indexes = await sql<{ indexname: string; indexdef: string }>`
    select indexname, indexdef from pg_indexes where schemaname = ${schema} order by indexname`.execute(db);
  const migrations = await sql`select name from schema_migrations order by name`.execute(db);
  const settings = await sql`select * from settings`.execute(db);
  return {
    columns: columns.rows,
    indexes: indexes.rows.map((r) => ({ ...r, indexdef: r.indexdef.replaceAll(schema!, 'S') })),
    migrations: migrations.rows,
    settings: settings.rows,
  };
}

describeEachDb('test databases: a copy of the migrated template is the migrated schema', (dialect) => {
  let copy: TestDatabase | undefined;
  let fresh: Database | undefined;
  let freshSchema: string | undefined;
  afterEach(async () => {
    await copy?.drop();
    await fresh?.close();
    if (freshSchema) await withSchemaLock((c) => c.query(`drop schema if exists ${freshSchema} cascade`));
  });

  it('has the same tables, columns, indexes, seed rows and migration records as a freshly migrated one', async () => {
    copy = await createTestDatabase(dialect, mkdtempSync(join(tmpdir(), 'algodesk-copy-')));
    if (dialect === 'sqlite') {
      fresh = openDatabase({
        kind: 'sqlite',
        file: join(mkdtempSync(join(tmpdir(), 'algodesk-fresh-')), 'a.db'),
      });
      await migrateToLatest(fresh.db);
    } else {
      freshSchema = `fresh_${Date.now().toString(36)}`;
      await withSchemaLock((c) => c.query(`create schema ${freshSchema}`));
      fresh = openDatabase({ kind: 'postgres', url: pgUrl, schema: freshSchema, poolSize: 1 });
      await withSchemaLock(() => migrateToLatest(fresh!.db));
    }
    const copySchema = copy.target.kind === 'postgres' ? copy.target.schema : undefined;
    // A test database is an existing install (live mode); a fresh one starts in analyzer mode.
    await sql.raw(AS_AN_EXISTING_INSTALL).execute(fresh.db);
    const want = await describeSchema(fresh.db, dialect, freshSchema);
    expect(await describeSchema(copy.database.db, dialect, copySchema)).toEqual(want);
    // Not trivially equal: the migrations built something.
    expect(JSON.stringify(want)).toContain('strategy_runs');
    expect((await migrateToLatest(copy.database.db)).applied).toEqual([]);
  });
});

describeEachDb('migrating an up-to-date database', (dialect) => {
  let db: TestDatabase | undefined;
  afterEach(async () => {
    await db?.drop();
    db = undefined;
  });

  it('finds nothing to do; a migration this build does not know still stops the start with the migrator’s error', async () => {
    db = await createTestDatabase(dialect, mkdtempSync(join(tmpdir(), 'algodesk-migrated-')));
    expect(await migrateToLatest(db.database.db)).toEqual({ applied: [] });
    await sql`insert into schema_migrations (name, timestamp) values ('9999_from_a_newer_build', '2030-01-01T00:00:00.000Z')`.execute(
      db.database.db,
    );
    // Kysely's migrator reads every schema's catalog: held under the lock other tests drop theirs with.
    const migrate = () => migrateToLatest(db!.database.db);
    await expect(dialect === 'postgres' ? withSchemaLock(migrate) : migrate()).rejects.toThrow(
      /9999_from_a_newer_build|missing|corrupted/,
    );
  });
});

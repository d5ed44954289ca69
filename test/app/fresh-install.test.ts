/**
 * docs/rules/orders.md#fresh-install-analyzer: a fresh install starts in analyzer mode (its first
 * order fills in the sandbox instead of answering "No broker session"); an install that already
 * has users keeps the mode it had when it takes the migration. Real migrations on a database
 * built from nothing, both databases.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Migrator, sql } from 'kysely';
import { afterEach, expect, it } from 'vitest';
import { migrationProvider } from '../../src/db/migrations/index.js';
import { openDatabase, type Database } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { describeEachDb, pgUrl } from '../helpers/test-app.js';
import { withSchemaLock } from '../helpers/test-database.js';

describeEachDb('a fresh install starts in analyzer mode', (dialect) => {
  let db: Database | undefined;
  let schema: string | undefined;
  afterEach(async () => {
    await db?.close();
    db = undefined;
    if (schema) await withSchemaLock((c) => c.query(`drop schema if exists ${schema} cascade`));
    schema = undefined;
  });

  /** A database with nothing in it, and a way to run the migrator under the schema lock. */
  async function empty() {
    if (dialect === 'sqlite') {
      db = openDatabase({
        kind: 'sqlite',
        file: join(mkdtempSync(join(tmpdir(), 'algodesk-fresh-')), 'a.db'),
      });
      return <T>(fn: () => Promise<T>) => fn();
    }
    schema = `fresh_${Date.now().toString(36)}_${Math.floor(Math.random() * 1e6)}`;
    await withSchemaLock((c) => c.query(`create schema ${schema}`));
    db = openDatabase({ kind: 'postgres', url: pgUrl, schema, poolSize: 1 });
    return <T>(fn: () => Promise<T>) => withSchemaLock(fn);
  }
  const mode = async () =>
    (await sql<{ m: number | boolean }>`select analyze_mode as m from settings where id = 1`.execute(db!.db))
      .rows[0]?.m;

  it('migrated from nothing, the install is in analyzer mode', async () => {
    const locked = await empty();
    await locked(() => migrateToLatest(db!.db));
    expect([true, 1]).toContain(await mode());
  });

  it('an install that has users keeps its live mode when it takes the migration', async () => {
    const locked = await empty();
    const migrator = new Migrator({
      db: db!.db,
      provider: migrationProvider,
      ...(schema ? { migrationTableSchema: schema } : {}),
      migrationTableName: 'schema_migrations',
      migrationLockTableName: 'schema_migrations_lock',
    });
    const before = await locked(() => migrator.migrateTo('0023_add_user_disabled'));
    expect(before.error).toBeUndefined();
    await sql`insert into users (username, password_hash, created_at) values ('admin', 'x', 0)`.execute(
      db!.db,
    );
    await locked(() => migrateToLatest(db!.db));
    expect([false, 0]).toContain(await mode());
  });
});

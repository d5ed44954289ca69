/**
 * docs/rules/orders.md#fresh-install-analyzer: a fresh install starts in analyzer mode (its first
 * order fills in the sandbox instead of answering "No broker session"); an install that already
 * has users keeps the mode it had when it takes the migration. Real migrations on a database
 * built from nothing, both databases.
 */
import { sql } from 'kysely';
import { afterEach, expect, it } from 'vitest';
import { describeEachDb } from '../helpers/test-app.js';
import { createEmptyDatabase, type EmptyDatabase } from '../helpers/test-database.js';

describeEachDb('a fresh install starts in analyzer mode', (dialect) => {
  let db: EmptyDatabase | undefined;
  afterEach(async () => {
    await db?.drop();
    db = undefined;
  });

  /** A database with nothing in it, removed after the test. */
  const empty = async () => (db = await createEmptyDatabase(dialect, 'fresh'));
  const mode = async () =>
    (
      await sql<{ m: number | boolean }>`select analyze_mode as m from settings where id = 1`.execute(
        db!.database.db,
      )
    ).rows[0]?.m;

  it('migrated from nothing, the install is in analyzer mode', async () => {
    const fresh = await empty();
    await fresh.migrateToLatest();
    expect([true, 1]).toContain(await mode());
  });

  it('an install that has users keeps its live mode when it takes the migration', async () => {
    const fresh = await empty();
    const before = await fresh.migrateTo('0023_add_user_disabled');
    expect(before.error).toBeUndefined();
    await sql`insert into users (username, password_hash, created_at) values ('admin', 'x', 0)`.execute(
      fresh.database.db,
    );
    await fresh.migrateToLatest();
    expect([false, 0]).toContain(await mode());
  });
});

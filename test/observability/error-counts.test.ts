/**
 * The error log's counts by level and origin are kept by the database (migration 0033), so its
 * statistics answer in the same time whatever the log's size. They stay exact whoever writes or
 * deletes: the log's writer, its retention in batches, another instance's rows, a rolled-back
 * write; and an install that already has a log starts from its rows. Both databases.
 */
import { sql, type Kysely } from 'kysely';
import { afterEach, expect, it } from 'vitest';
import type { DB } from '../../src/db/schema.js';
import type { ErrorEntry } from '../../src/modules/observability/error-record.js';
import { ErrorLogRepository } from '../../src/modules/observability/error-log.repository.js';
import { deleteBelow } from '../../src/platform/db/batched-delete.js';
import { createTestApp, describeEachDb, type TestApp } from '../helpers/test-app.js';
import { createEmptyDatabase, type EmptyDatabase } from '../helpers/test-database.js';

const entry = (created_at: number, level: ErrorEntry['level'], origin: ErrorEntry['origin']): ErrorEntry => ({
  created_at,
  level,
  origin,
  module: 'test',
  message: `${level} from ${origin} at ${created_at}`,
  exception: null,
  stack: null,
  request_id: null,
  method: null,
  path: null,
  user_id: null,
  url: null,
  user_agent: null,
  component_stack: null,
  context: null,
  fingerprint: `${level}-${origin}`,
});

/** The counts as a GROUP BY over the log reads them: what the kept counts must equal. */
async function counted(db: Kysely<DB>): Promise<Record<string, number>> {
  const rows = await db
    .selectFrom('error_log')
    .select(['level', 'origin', (eb) => eb.fn.countAll<number>().as('n')])
    .groupBy(['level', 'origin'])
    .execute();
  return Object.fromEntries(rows.map((r) => [`${r.level}/${r.origin}`, Number(r.n)]));
}

async function kept(db: Kysely<DB>): Promise<Record<string, number>> {
  const { byLevel } = await new ErrorLogRepository(db).stats({ hour: 0, day: 0 });
  return Object.fromEntries(byLevel.map((r) => [`${r.level}/${r.origin}`, r.n]));
}

describeEachDb('error log counts', (dialect) => {
  let t: TestApp | undefined;
  let empty: EmptyDatabase | undefined;
  afterEach(async () => {
    await t?.close();
    await empty?.drop();
    t = undefined;
    empty = undefined;
  });

  it('stay equal to the log through its writer, another writer, a rollback, the retention and batched deletes', async () => {
    t = await createTestApp(dialect, { env: { ERROR_LOG_MAX_ROWS: '100' } });
    const db = t.db.database.db;
    const errors = t.services.observability.errors;
    t.app.log.error('one');
    t.app.log.warn('two');
    t.app.log.warn('three');
    await errors.flush();
    expect(await kept(db)).toEqual({ 'error/server': 1, 'warn/server': 2 });

    // Another instance's rows, in one statement of several levels and origins.
    const now = t.clock.now();
    await new ErrorLogRepository(db).insert([
      entry(now, 'fatal', 'server'),
      entry(now, 'error', 'client'),
      entry(now, 'error', 'client'),
      entry(now, 'warn', 'server'),
    ]);
    expect(await kept(db)).toEqual({
      'error/server': 1,
      'warn/server': 3,
      'fatal/server': 1,
      'error/client': 2,
    });

    // A write that is rolled back counts nothing.
    await db
      .transaction()
      .execute(async (trx) => {
        await new ErrorLogRepository(trx).insert([entry(now, 'fatal', 'client')]);
        throw new Error('rolled back');
      })
      .catch((err: unknown) => expect(String(err)).toMatch(/rolled back/));
    expect(await kept(db)).toEqual(await counted(db));
    expect((await errors.stats()).total).toBe(7);

    // The retention's cap: 150 more rows from the writer, the log kept to its newest 100.
    for (let i = 0; i < 150; i++) (i % 3 ? t.app.log.warn : t.app.log.error).call(t.app.log, `row ${i}`);
    await errors.flush();
    await errors.purge();
    const afterCap = await counted(db);
    expect(Object.values(afterCap).reduce((a, b) => a + b, 0)).toBe(100);
    expect(await kept(db)).toEqual(afterCap);

    // Batched deletes (several statements) of a part of the log.
    const ids = await db.selectFrom('error_log').select('id').orderBy('id').execute();
    await deleteBelow(db, 'error_log', 'id', Number(ids[60]!.id), 7);
    expect(await kept(db)).toEqual(await counted(db));
    const stats = await errors.stats();
    expect(stats.total).toBe(40);
    expect(stats.by_level.warn + stats.by_level.error + stats.by_level.fatal).toBe(40);
    expect(stats.by_origin.server + stats.by_origin.client).toBe(40);
  });

  it('start from the rows an install logged before migration 0033', async () => {
    empty = await createEmptyDatabase(dialect, 'm0033');
    expect((await empty.migrateTo('0032_index_sandbox_books_by_day')).error).toBeUndefined();
    const db = empty.database.db;
    await new ErrorLogRepository(db).insert([
      entry(1, 'warn', 'server'),
      entry(2, 'warn', 'server'),
      entry(3, 'error', 'client'),
    ]);
    await empty.migrateToLatest();
    expect(await kept(db)).toEqual({ 'warn/server': 2, 'error/client': 1 });
    await sql`delete from error_log where created_at = 3`.execute(db);
    expect(await kept(db)).toEqual({ 'warn/server': 2 });
  });
});

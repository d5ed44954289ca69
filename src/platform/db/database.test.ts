import { existsSync, mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect, sql, type Generated } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, withStatementCache } from './database.js';
import { AsyncBeginSqliteDialect, BEGIN_WAIT_MS, beginWhenFree } from './sqlite-begin.js';

interface T {
  t: { id: Generated<number>; v: number };
}

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function open() {
  const dir = mkdtempSync(join(tmpdir(), 'algodesk-db-'));
  dirs.push(dir);
  const file = join(dir, 't.db');
  const raw = new SQLite(file);
  raw.pragma('journal_mode = WAL');
  raw.exec('create table t (id integer primary key, v integer not null)');
  return { file, raw };
}

describe('SQLite behind Kysely: statement cache', () => {
  it('prepares a statement once per SQL text and reuses it', async () => {
    const { raw } = open();
    let prepared = 0;
    const prepare = raw.prepare.bind(raw);
    raw.prepare = ((text: string) => {
      prepared++;
      return prepare(text);
    }) as typeof raw.prepare;
    const db = new Kysely<T>({
      dialect: new SqliteDialect({ database: withStatementCache(raw) }),
    });
    for (let i = 0; i < 50; i++) await db.insertInto('t').values({ v: i }).execute();
    for (let i = 0; i < 50; i++) await db.selectFrom('t').selectAll().where('v', '=', i).execute();
    expect(prepared).toBe(2);
    expect(
      (
        await db
          .selectFrom('t')
          .select(sql<number>`count(*)`.as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    ).toBe(50);
    await db.destroy();
  });

  it('keeps at most `max` statements, least recently used out first', async () => {
    const { raw } = open();
    const cached = withStatementCache(raw, 3);
    const a = cached.prepare('select 1');
    cached.prepare('select 2');
    cached.prepare('select 3');
    expect(cached.prepare('select 1')).toBe(a);
    cached.prepare('select 4'); // evicts "select 2", the least recently used
    expect(cached.prepare('select 1')).toBe(a);
    const two = cached.prepare('select 2');
    expect(cached.prepare('select 2')).toBe(two);
    cached.close();
  });
});

describe('SQLite behind Kysely: transactions take the write lock at begin', () => {
  it('another connection cannot write inside a transaction that has only read so far', async () => {
    const { file, raw } = open();
    const db = new Kysely<T>({
      dialect: new SqliteDialect({ database: withStatementCache(raw) }),
    });
    const other = new SQLite(file);
    other.pragma('busy_timeout = 0');
    await db.transaction().execute(async (trx) => {
      await trx.selectFrom('t').selectAll().execute();
      // With a deferred `begin` this write would succeed, and the transaction's own write below
      // would then fail at once with SQLITE_BUSY (its read snapshot is stale).
      expect(() => other.prepare('insert into t (v) values (1)').run()).toThrow(/locked|busy/i);
      await trx.insertInto('t').values({ v: 2 }).execute();
    });
    expect(other.prepare('select v from t').all()).toEqual([{ v: 2 }]);
    other.close();
    await db.destroy();
  });
});

/** The temporary files this process holds open (SQLite's are named `etilqs_…`, unlinked at once). */
function sqliteTempFiles(): string[] {
  return readdirSync('/proc/self/fd')
    .map((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`);
      } catch {
        return '';
      }
    })
    .filter((target) => target.includes('etilqs_'));
}

describe.runIf(existsSync('/proc/self/fd'))('SQLite: temporary files in memory', () => {
  it("nested savepoints (a group commit's members) journal their pages in memory, not in a file", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'algodesk-db-'));
    dirs.push(dir);
    const { db, close } = openDatabase({ kind: 'sqlite', file: join(dir, 't.db') });
    await sql`create table t (id integer primary key, v blob not null)`.execute(db);
    await sql`with recursive n (i) as (select 1 union all select i + 1 from n where i < 200)
              insert into t (v) select randomblob(3000) from n`.execute(db);
    let during: string[] = [];
    await db.transaction().execute(async (trx) => {
      // Each member's savepoint nests in the one before; each rewrites every page (~600 KiB), far
      // past the 64 KiB a sub-journal keeps in memory before SQLite spills it to a file by default.
      for (let member = 0; member < 3; member++) {
        await sql`savepoint group_member`.execute(trx);
        await sql`update t set v = randomblob(3000)`.execute(trx);
      }
      during = sqliteTempFiles();
    });
    const rows = await sql<{ n: number }>`select count(*) as n from t`.execute(db);
    await close();
    expect(rows.rows[0]!.n).toBe(200);
    expect(during).toEqual([]);
  });
});

describe('SQLite: a transaction waits for the write lock without blocking the event loop', () => {
  it('begins once another connection commits, the loop serving timers meanwhile', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'algodesk-db-'));
    dirs.push(dir);
    const file = join(dir, 't.db');
    const { db, close } = openDatabase({ kind: 'sqlite', file });
    await sql`create table t (id integer primary key, v integer not null)`.execute(db);
    const other = new SQLite(file);
    other.exec('begin immediate');
    other.prepare('insert into t (v) values (1)').run();
    let begun = false;
    const written = db.transaction().execute(async (trx) => {
      begun = true;
      await trx
        .insertInto('t' as never)
        .values({ v: 2 } as never)
        .execute();
    });
    // Five timer turns while the transaction waits. With a busy handler sleeping on the thread
    // none could fire before it gave up (the lock is released only after them): the transaction
    // would fail with SQLITE_BUSY.
    await new Promise<void>((resolve) => {
      let ticks = 0;
      const timer = setInterval(() => {
        if (++ticks < 5) return;
        clearInterval(timer);
        resolve();
      }, 1);
    });
    expect(begun).toBe(false);
    other.exec('commit');
    await written;
    expect(begun).toBe(true);
    expect(other.prepare('select v from t order by id').all()).toEqual([{ v: 1 }, { v: 2 }]);
    // The connection's busy timeout is back for every other statement.
    expect((await sql<{ timeout: number }>`pragma busy_timeout`.execute(db)).rows[0]).toEqual({
      timeout: BEGIN_WAIT_MS,
    });
    other.close();
    await close();
  });

  it("gives up with SQLite's SQLITE_BUSY once the wait is over, leaving no transaction open", async () => {
    const { file, raw } = open();
    raw.close();
    const sqlite = new SQLite(file);
    const db = new Kysely<T>({
      dialect: new AsyncBeginSqliteDialect({ database: withStatementCache(sqlite) }),
    });
    const other = new SQLite(file);
    other.exec('begin immediate');
    let clock = 0;
    const conn = await db.connection().execute(async (c) => {
      // A clock that passes the whole wait after the first refusal.
      const attempt = beginWhenFree(
        { executeQuery: (q) => c.executeQuery(q) },
        () => (clock += BEGIN_WAIT_MS),
      );
      await expect(attempt).rejects.toMatchObject({ code: 'SQLITE_BUSY' });
      return sqlite.inTransaction;
    });
    expect(conn).toBe(false);
    other.exec('rollback');
    other.close();
    await db.destroy();
  });
});

/**
 * The SQLite fixture of the group-commit tests (src/platform/db/group-commit*.test.ts): a WAL
 * database file with a parent table and a child table, its Kysely counting the COMMITs,
 * SAVEPOINTs and ROLLBACKs it runs, and a second connection to read what was committed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect, type Generated } from 'kysely';
import { afterEach } from 'vitest';
import { withStatementCache } from '../../src/platform/db/database.js';

export interface T {
  parent: { id: number };
  t: { id: Generated<number>; v: number; parent_id: number | null };
}

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A WAL database file, its Kysely, a count of COMMITs run, and a second connection to read it. */
export function open() {
  const dir = mkdtempSync(join(tmpdir(), 'algodesk-group-'));
  dirs.push(dir);
  const file = join(dir, 't.db');
  const raw = new SQLite(file);
  raw.pragma('journal_mode = WAL');
  raw.pragma('foreign_keys = ON');
  raw.exec(`create table parent (id integer primary key);
    create table t (id integer primary key, v integer not null,
      parent_id integer references parent (id) deferrable initially deferred)`);
  const inner = withStatementCache(raw);
  const seen = { commits: 0, savepoints: 0, rollbacks: 0 };
  const inserts: string[] = [];
  const counting = {
    prepare(sql: string) {
      if (sql.startsWith('insert')) inserts.push(sql);
      if (sql === 'commit') seen.commits++;
      if (sql.startsWith('savepoint')) seen.savepoints++;
      if (sql === 'rollback') seen.rollbacks++;
      return inner.prepare(sql);
    },
    close: () => inner.close(),
  };
  const db = new Kysely<T>({ dialect: new SqliteDialect({ database: counting as never }) });
  const reader = new SQLite(file, { readonly: true });
  const committed = () =>
    (reader.prepare('select v from t order by id').all() as { v: number }[]).map((r) => r.v);
  const rows = (): [id: number, v: number][] =>
    (reader.prepare('select id, v from t order by id').all() as { id: number; v: number }[]).map((r) => [
      r.id,
      r.v,
    ]);
  return { db, seen, committed, rows, inserts };
}

export const insert = (db: Kysely<T>, v: number, parent_id: number | null = null) =>
  db.insertInto('t').values({ v, parent_id }).execute();

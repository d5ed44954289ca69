/**
 * A read-write connection to one bench workspace's database, for the growth bench's seeding:
 * the SQLite file under its DATA_DIR, or with `--db postgres` the run's own schema.
 */
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import type { Workspace } from './processes.js';

export type RunDialect = 'sqlite' | 'postgres';

export interface RunDb {
  dialect: RunDialect;
  /** Runs one statement (no parameters). */
  exec(sql: string): Promise<void>;
  /** The first column of the first row, as a number (`select count(*) …`). */
  number(sql: string): Promise<number>;
  close(): Promise<void>;
}

export async function openRunDb(ws: Workspace): Promise<RunDb> {
  const target = ws.postgres;
  if (target === undefined) {
    const db = new SQLite(join(ws.dataDir, 'algodesk.db'), { fileMustExist: true });
    db.pragma('journal_mode = WAL');
    db.pragma('busy_timeout = 5000');
    return {
      dialect: 'sqlite',
      exec: async (sql) => void db.exec(sql),
      number: async (sql) => Number(db.prepare(sql).pluck().get()),
      close: async () => void db.close(),
    };
  }
  const client = new pg.Client({ connectionString: target.baseUrl });
  await client.connect();
  await client.query(`set search_path to "${target.schema}"`);
  return {
    dialect: 'postgres',
    exec: async (sql) => void (await client.query(sql)),
    number: async (sql) => Number(Object.values((await client.query(sql)).rows[0] as object)[0]),
    close: () => client.end(),
  };
}

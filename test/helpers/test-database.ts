/**
 * A database of its own for every test, migrated once per test worker and copied after that:
 * - SQLite: the migrations run once into a template file; each test gets a copy of it.
 * - PostgreSQL: the migrations run once into a template schema while every statement they send is
 *   recorded; each test gets a fresh schema where the recorded writes (DDL, seed rows, the
 *   migration table's rows) are replayed in one transaction. The schema ends up as a migrated one
 *   would, `schema_migrations` included, so a later `migrateToLatest` finds nothing to do.
 */
import { copyFileSync, mkdtempSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kysely, Migrator, PostgresDialect, sql, type CompiledQuery, type MigrationResultSet } from 'kysely';
import pg from 'pg';
import { inject } from 'vitest';
import { migrationProvider } from '../../src/db/migrations/index.js';
import type { DB } from '../../src/db/schema.js';
import {
  openDatabase,
  type Database,
  type Dialect,
  type OpenOptions,
} from '../../src/platform/db/database.js';
import { migrateToLatest, type MigrationOutcome } from '../../src/platform/db/migrate.js';

export const pgUrl = inject('pgUrl');

/**
 * The `DATABASE_URL` that opens `db` from another process (a server or the command line): on
 * PostgreSQL the test's schema as the search path; '' on SQLite, whose file `DATA_DIR` locates.
 */
export function databaseUrlOf(db: TestDatabase): string {
  if (db.target.kind !== 'postgres') return '';
  const options = encodeURIComponent(`-c search_path=${db.target.schema ?? 'public'}`);
  return `${pgUrl}${pgUrl.includes('?') ? '&' : '?'}options=${options}`;
}

/** A database of its own for one test: a temp SQLite file, or a fresh PostgreSQL schema. */
export interface TestDatabase {
  database: Database;
  dialect: Dialect;
  dataDir: string;
  /** Connection target, so a second app can open the same database. */
  target: Parameters<typeof openDatabase>[0];
  drop(): Promise<void>;
}

export async function createTestDatabase(
  dialect: Dialect,
  dataDir: string,
  opts: OpenOptions = {},
): Promise<TestDatabase> {
  if (dialect === 'sqlite') {
    const target = { kind: 'sqlite' as const, file: join(dataDir, 'algodesk.db') };
    copyFileSync(await sqliteTemplate(), target.file);
    const database = openDatabase(target, opts);
    return { database, dialect, dataDir, target, drop: () => database.close() };
  }
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const script = await pgScript();
  const target = { kind: 'postgres' as const, url: pgUrl, schema, poolSize: 4 };
  const drop = async () => {
    await database.close();
    await withSchemaLock((c) => c.query(`drop schema if exists ${schema} cascade`));
  };
  const database = openDatabase(target, opts);
  // A failed replay must not leave a half-built schema behind for later runs.
  await withSchemaLock(async (c) => {
    // One round trip: the whole script as one multi-statement query (one implicit transaction).
    const replay = script.sql.replaceAll(script.schemaRef, `"${schema}"`);
    await c.query(`create schema ${schema}; set search_path to ${schema};\n${replay}`);
  }).catch(async (err: unknown) => {
    await drop();
    throw err;
  });
  return { database, dialect, dataDir, target, drop };
}

/**
 * A database with nothing in it, not even the migrations table, for a test of the migrations
 * themselves (what a fresh install gets, what an install with rows keeps across a migration):
 * unlike {@link createTestDatabase}, nothing is copied from the template. SQLite: a file in a new
 * temp directory `algodesk-<prefix>-…`; PostgreSQL: a new schema `<prefix>_…` (so `prefix` is a
 * lower-case identifier), on one connection.
 */
export interface EmptyDatabase {
  database: Database;
  /** The real migrations up to and including `name`, as Kysely's migrator reports them. */
  migrateTo(name: string): Promise<MigrationResultSet>;
  /** Every migration ({@link migrateToLatest}). */
  migrateToLatest(): Promise<MigrationOutcome>;
  /** Closes the database (and drops the PostgreSQL schema). */
  drop(): Promise<void>;
}

export async function createEmptyDatabase(dialect: Dialect, prefix: string): Promise<EmptyDatabase> {
  let database: Database;
  let schema: string | undefined;
  // The migrator runs under the schema lock on PostgreSQL (see withSchemaLock).
  let locked = <T>(fn: () => Promise<T>) => fn();
  if (dialect === 'sqlite') {
    database = openDatabase({
      kind: 'sqlite',
      file: join(mkdtempSync(join(tmpdir(), `algodesk-${prefix}-`)), 'a.db'),
    });
  } else {
    const name = `${prefix}_${Date.now().toString(36)}_${Math.floor(Math.random() * 1e6)}`;
    await withSchemaLock((c) => c.query(`create schema ${name}`));
    schema = name;
    database = openDatabase({ kind: 'postgres', url: pgUrl, schema, poolSize: 1 });
    locked = <T>(fn: () => Promise<T>) => withSchemaLock(fn);
  }
  // As migrateToLatest builds it, with the migrations table pinned to this test's schema.
  const migrator = new Migrator({
    db: database.db,
    provider: migrationProvider,
    ...(schema ? { migrationTableSchema: schema } : {}),
    migrationTableName: 'schema_migrations',
    migrationLockTableName: 'schema_migrations_lock',
  });
  return {
    database,
    migrateTo: (name) => locked(() => migrator.migrateTo(name)),
    migrateToLatest: () => locked(() => migrateToLatest(database.db)),
    drop: async () => {
      await database.close();
      if (schema) await withSchemaLock((c) => c.query(`drop schema if exists ${schema} cascade`));
    },
  };
}

/**
 * A test's database is an existing install in live mode, whatever a fresh one starts in
 * (analyzer: migration 0024): a case sets the mode it is about, and the fresh-install default has
 * its own test (test/app/fresh-install.test.ts).
 */
export const AS_AN_EXISTING_INSTALL = 'update settings set analyze_mode = false where id = 1';

let sqliteTemplateFile: Promise<string> | undefined;
/** The migrated SQLite file of this worker (closed, so its WAL is folded into the one file). */
function sqliteTemplate(): Promise<string> {
  return (sqliteTemplateFile ??= (async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'algodesk-template-')), 'template.db');
    const database = openDatabase({ kind: 'sqlite', file });
    await migrateToLatest(database.db);
    await sql.raw(AS_AN_EXISTING_INSTALL).execute(database.db);
    await database.close();
    return file;
  })());
}

interface PgScript {
  /** The template schema as it appears in the recorded SQL (`"tmpl_…"`). */
  schemaRef: string;
  /** The recorded writes as one script, parameters inlined as literals. */
  sql: string;
}

/** Reads (introspection, the migrator's bookkeeping reads) and transaction control are not replayed. */
const NOT_REPLAYED = /^\s*(select|with|begin|commit|rollback)\b/i;

let pgTemplate: Promise<PgScript> | undefined;
/** Migrates a template schema once per worker, recording the statements that change it. */
function pgScript(): Promise<PgScript> {
  return (pgTemplate ??= withSchemaLock(async (c) => {
    const schema = `tmpl_${randomBytes(6).toString('hex')}`;
    await c.query(`create schema ${schema}`);
    const recorded: CompiledQuery[] = [];
    const pool = new pg.Pool({ connectionString: pgUrl, max: 1, options: `-c search_path=${schema}` });
    const db = new Kysely<DB>({
      dialect: new PostgresDialect({ pool }),
      log: (event) => {
        if (event.level === 'query') recorded.push(event.query);
      },
    });
    try {
      await migrateToLatest(db);
    } finally {
      await db.destroy();
      await c.query(`drop schema if exists ${schema} cascade`);
    }
    return {
      schemaRef: `"${schema}"`,
      sql: [
        ...recorded.filter((q) => !NOT_REPLAYED.test(q.sql)).map((q) => `${inline(c, q)};`),
        `${AS_AN_EXISTING_INSTALL};`,
      ].join('\n'),
    };
  }));
}

/** A recorded statement with its `$n` parameters written as SQL literals. */
function inline(c: pg.Client, q: CompiledQuery): string {
  return q.sql.replace(/\$(\d+)/g, (_m, n: string) => {
    const v = q.parameters[Number(n) - 1];
    if (typeof v === 'number' || typeof v === 'bigint') return String(v);
    if (typeof v === 'boolean') return v ? 'true' : 'false';
    if (v === null || v === undefined) return 'null';
    return c.escapeLiteral(String(v));
  });
}

/**
 * Serialises schema creation, migration and dropping across the test workers. Kysely's migrator
 * introspects every schema of the database (`has_schema_privilege` per schema) before it takes
 * its own lock, and a schema another worker drops in that moment fails the call with "schema …
 * does not exist".
 */
export async function withSchemaLock<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: pgUrl });
  await c.connect();
  try {
    await c.query('select pg_advisory_lock(72530017)');
    return await fn(c);
  } finally {
    await c.end(); // ends the session, which releases the lock
  }
}

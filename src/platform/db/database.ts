import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, PostgresAdapter, sql, type CompiledQuery, type KyselyConfig } from 'kysely';
import pg from 'pg';
import type { DB } from '../../db/schema.js';
import { AsyncBeginSqliteDialect, BEGIN_WAIT_MS } from './sqlite-begin.js';

export type Dialect = 'sqlite' | 'postgres';

/** Where the database lives: a SQLite file, or a PostgreSQL URL with an optional schema. */
export type DatabaseTarget =
  { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string; schema?: string; poolSize?: number };

export interface Database {
  db: Kysely<DB>;
  dialect: Dialect;
  /** The SQLite file (undefined for PostgreSQL and in-memory databases). */
  file?: string;
  /** Closes every connection; safe to call twice. */
  close(): Promise<void>;
}

/**
 * PostgreSQL returns int8 (bigint, bigserial, count(*)) as strings; every such value here is an
 * epoch-millisecond time, an id or a count, all far below 2^53, so they are read as numbers.
 */
const pgTypes = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === 20
      ? (v: string) => Number(v)
      : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

/**
 * The SQL texts PostgreSQL keeps parsed and planned on each connection (named prepared
 * statements), with their names: the hot statements {@link prepareQuery} compiles once per
 * database (platform/db/prepared.ts) register here. Sent unnamed, as Kysely sends every query, a
 * statement is parsed, analysed and planned anew at each execution; for a placement's statement of
 * five data-modifying CTEs that was a large part of what the database process spent on an order.
 * Their number is bounded by the code (a fixed set of shapes), not by the data.
 */
const serverPrepared = new Map<string, string>();

/** Has PostgreSQL keep `sql` prepared on each connection that runs it (see {@link serverPrepared}). */
export function prepareOnServer(sql: string): void {
  if (!serverPrepared.has(sql)) serverPrepared.set(sql, `algodesk_${serverPrepared.size + 1}`);
}

/**
 * A node-postgres client that runs a registered SQL text as a named prepared statement (parsed
 * once per connection; node-postgres remembers which it prepared). Any other query is unchanged.
 */
class NamingClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super(config);
    const plain = this.query.bind(this) as (...args: unknown[]) => unknown;
    this.query = ((...args: unknown[]) => {
      const [text, values] = args;
      const name = args.length === 2 && typeof text === 'string' ? serverPrepared.get(text) : undefined;
      return name !== undefined ? plain({ name, text, values }) : plain(...args);
    }) as typeof this.query;
  }
}

/** What {@link openDatabase} can be asked besides the target. */
export interface OpenOptions {
  /**
   * Called with every statement Kysely runs (its SQL and parameters), after it ran. For tools and
   * tests that inspect what a request sends (the query-plan test); unset in the service.
   */
  onQuery?: (query: CompiledQuery) => void;
}

/** Kysely's `log` option for {@link OpenOptions.onQuery}. */
function queryLog(opts: OpenOptions): Pick<KyselyConfig, 'log'> {
  const onQuery = opts.onQuery;
  if (onQuery === undefined) return {};
  return { log: (event) => void (event.level === 'query' && onQuery(event.query)) };
}

/**
 * Opens the database. SQLite gets WAL, `synchronous=NORMAL`, a busy timeout, foreign keys, and
 * its temporary files in memory: a group commit nests a savepoint per member (group-commit.ts),
 * and SQLite keeps the pages each savepoint may have to restore in a sub-journal, a temporary file
 * once past 64 KiB: written page by page through the kernel, it was ~9 % of the event loop's time
 * under a stream of strategy signals (`perf`, bench/README.md). A group is at most
 * 64 members (GROUP_COMMIT_MAX, fewer when they place orders) of a few dozen pages each, so the
 * memory stays small.
 */
export function openDatabase(target: DatabaseTarget, opts: OpenOptions = {}): Database {
  if (target.kind === 'sqlite') {
    if (target.file !== ':memory:') mkdirSync(dirname(target.file), { recursive: true });
    const sqlite = new SQLite(target.file);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma(`busy_timeout = ${BEGIN_WAIT_MS}`);
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('temp_store = MEMORY');
    const db = new Kysely<DB>({
      dialect: new AsyncBeginSqliteDialect({ database: withStatementCache(sqlite) }),
      ...queryLog(opts),
    });
    return {
      db,
      dialect: 'sqlite',
      ...(target.file === ':memory:' ? {} : { file: target.file }),
      close: once(() => db.destroy()),
    };
  }
  const pool = new pg.Pool({
    Client: NamingClient,
    connectionString: target.url,
    max: target.poolSize ?? 10,
    types: pgTypes,
    // A server that does not answer fails the query instead of holding it forever.
    connectionTimeoutMillis: 5_000,
    // A schema per test run (or per tenant) without touching the URL.
    ...(target.schema ? { options: `-c search_path=${target.schema}` } : {}),
  });
  // An idle client that loses its server must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }), ...queryLog(opts) });
  return { db, dialect: 'postgres', close: once(() => db.destroy()) };
}

/**
 * better-sqlite3 behind Kysely, with two changes:
 * - Prepared statements are kept: Kysely prepares every query anew, and preparing was about a
 *   third of the CPU of an order placement. Kept by SQL text (least recently used out first, at
 *   most `max`); one still iterating (a stream) is not handed out twice.
 * - Transactions begin `IMMEDIATE`: a deferred transaction that reads first and writes later
 *   fails at once with SQLITE_BUSY (no busy-timeout wait) when another connection — the traffic
 *   log's worker thread — wrote in between; taking the write lock at `begin` makes it wait instead
 *   (asynchronously: sqlite-begin.ts).
 */
export function withStatementCache(sqlite: SQLite.Database, max = 500) {
  const cache = new Map<string, SQLite.Statement>();
  return {
    prepare(raw: string): SQLite.Statement {
      const text = raw === 'begin' ? 'begin immediate' : raw;
      const hit = cache.get(text);
      if (hit !== undefined && !hit.busy) {
        cache.delete(text);
        cache.set(text, hit);
        return hit;
      }
      const stmt = sqlite.prepare(text);
      if (hit === undefined) {
        cache.set(text, stmt);
        if (cache.size > max) cache.delete(cache.keys().next().value!);
      }
      return stmt;
    },
    close(): void {
      cache.clear();
      sqlite.close();
    },
  };
}

function once(fn: () => Promise<void>): () => Promise<void> {
  let p: Promise<void> | undefined;
  return () => (p ??= fn());
}

/** True when `db` talks to PostgreSQL (migrations pick portable column types with it). */
export function isPostgres(db: { getExecutor(): { adapter: unknown } }): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/**
 * Most bound parameters one statement may carry on both databases: SQLite's limit
 * (SQLITE_MAX_VARIABLE_NUMBER, 32,766 since 3.32); PostgreSQL's is 65,535.
 */
export const MAX_STATEMENT_PARAMETERS = 32_766;

/** Rows of `columns` values one multi-row INSERT may carry within {@link MAX_STATEMENT_PARAMETERS}. */
export const rowsPerInsert = (columns: number): number => Math.floor(MAX_STATEMENT_PARAMETERS / columns);

/** Booleans are 0/1 in SQLite and real booleans in PostgreSQL; writes use 0/1, which both accept. */
/** True when `err` is a unique-index violation on either dialect. */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}

export const toDbBool = (v: boolean): number => (v ? 1 : 0);
export const fromDbBool = (v: number | boolean | null | undefined): boolean => v === true || v === 1;

/** A cheap round trip, used by readiness checks. */
export async function ping(db: Kysely<DB>): Promise<void> {
  await sql`select 1`.execute(db);
}

/**
 * SQLite transactions that wait for the write lock without blocking the event loop.
 *
 * A transaction begins `IMMEDIATE` (database.ts, withStatementCache): it takes the write lock at
 * once. When another connection holds it (the log writer thread committing a batch, the
 * checkpointer restarting the WAL), SQLite's busy handler waits, and it waits by sleeping the
 * calling thread: 1, 2, 5, 10 ms … until the lock is free. On the event loop's connection that
 * froze every request in flight for those milliseconds (`perf stat` of the main thread's system
 * calls under a stream of strategy signals: ~11 such sleeps a second, each at least 1 ms).
 *
 * Here `begin` asks without waiting (`busy_timeout = 0` for that one statement) and, when the lock
 * is taken, tries again from a timer, so the loop serves other requests meanwhile; after
 * {@link BEGIN_WAIT_MS} it fails with SQLite's own SQLITE_BUSY, as the busy timeout did. Every
 * other statement keeps the connection's busy timeout. The connection stays held by the
 * transaction being begun (Kysely's mutex), as it was while the thread slept.
 */
import { CompiledQuery, SqliteDialect, SqliteDriver, type DatabaseConnection, type Driver } from 'kysely';
import type { SqliteDialectConfig } from 'kysely';

/** The connection's busy timeout (database.ts sets it), and how long a `begin` waits in all. */
export const BEGIN_WAIT_MS = 5_000;

const NO_WAIT = CompiledQuery.raw('pragma busy_timeout = 0');
const WAIT = CompiledQuery.raw(`pragma busy_timeout = ${BEGIN_WAIT_MS}`);
const BEGIN = CompiledQuery.raw('begin immediate');

/** Whether `err` is SQLite's "another connection holds the lock" (any SQLITE_BUSY variant). */
export function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

/** The wait before the `attempt`-th retry: the next turn of the loop first, then 1 ms steps. */
const pause = (attempt: number) =>
  new Promise<void>((resolve) => (attempt === 0 ? setImmediate(resolve) : setTimeout(resolve, 1)));

/** What {@link beginWhenFree} runs its statements on (a Kysely driver's connection). */
export interface StatementRunner {
  executeQuery(query: CompiledQuery): Promise<unknown>;
}

/** Begins an immediate transaction on `connection`, waiting for the write lock asynchronously. */
export async function beginWhenFree(
  connection: StatementRunner,
  now: () => number = Date.now,
): Promise<void> {
  const deadline = now() + BEGIN_WAIT_MS;
  for (let attempt = 0; ; attempt++) {
    await connection.executeQuery(NO_WAIT);
    try {
      await connection.executeQuery(BEGIN);
      return;
    } catch (err) {
      if (!isBusy(err) || now() >= deadline) throw err;
    } finally {
      await connection.executeQuery(WAIT);
    }
    await pause(attempt);
  }
}

class AsyncBeginDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await beginWhenFree(connection);
  }
}

/** Kysely's SQLite dialect whose transactions begin with {@link beginWhenFree}. */
export class AsyncBeginSqliteDialect extends SqliteDialect {
  constructor(private readonly config: SqliteDialectConfig) {
    super(config);
  }

  override createDriver(): Driver {
    return new AsyncBeginDriver(this.config);
  }
}

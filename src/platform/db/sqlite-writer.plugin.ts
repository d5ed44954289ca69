/**
 * SQLite's helper threads as a plugin registered before every module:
 * - the writer thread: the traffic log and the order log define their statements on it and write
 *   off the event loop; being first, its `onClose` runs last, after every module has flushed;
 * - the checkpointer, once the server listens: from then on the event loop's connection leaves
 *   checkpoints to it (docs/architecture.md, "SQLite checkpoints"). An app that only answers
 *   injected requests (the CLI, most tests) keeps SQLite's own checkpoints.
 * Neither exists on PostgreSQL or an in-memory database.
 */
import fp from 'fastify-plugin';
import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from './database.js';
import { SqliteCheckpointer } from './sqlite-checkpointer.js';
import { SqliteWriterThread } from './sqlite-writer-thread.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** SQLite only: the worker thread log rows are written through (platform/db/sqlite-writer-thread.ts). */
    sqliteWriter: SqliteWriterThread | undefined;
  }
}

/** SQLite's default: a checkpoint by the connection whose COMMIT takes the WAL past 1,000 pages. */
const AUTO_CHECKPOINT_PAGES = 1_000;

export const sqliteWriterPlugin = fp<{ database: Database; logger: Logger }>(
  async (app, { database, logger }) => {
    const file = database.file;
    const writer = file ? new SqliteWriterThread(file) : undefined;
    app.decorate('sqliteWriter', writer);
    if (file !== undefined) {
      const autoCheckpoint = (pages: number) =>
        sql`pragma wal_autocheckpoint = ${sql.raw(String(pages))}`.execute(database.db);
      const log = logger.child({ module: 'database' });
      const checkpointer = new SqliteCheckpointer(file, {
        onError: (message) => log.warn({ error: message }, 'WAL checkpoint failed; retrying'),
        onRestart: (frames) => log.debug({ frames }, 'WAL restarted'),
        onLost: (err) => {
          log.warn({ err }, 'WAL checkpointer stopped; the event loop checkpoints again');
          autoCheckpoint(AUTO_CHECKPOINT_PAGES).catch(() => undefined);
        },
      });
      let started: Promise<void> = Promise.resolve();
      // Not awaited: the hooks after this one (the tunnel's) start as they did without it.
      app.addHook('onListen', (done) => {
        started = checkpointer
          .start()
          .then(() => autoCheckpoint(0))
          .then(
            () => undefined,
            (err: unknown) => log.warn({ err }, 'WAL checkpointer not started; the event loop checkpoints'),
          );
        done();
      });
      // Added before the writer's: hooks run in reverse, so the writer's rows are in when the
      // last checkpoint runs.
      app.addHook('onClose', async () => {
        await started;
        await autoCheckpoint(AUTO_CHECKPOINT_PAGES).catch(() => undefined);
        await checkpointer.close();
      });
    }
    app.addHook('onClose', async () => writer?.close());
  },
  { name: 'sqlite-writer', fastify: '5.x' },
);

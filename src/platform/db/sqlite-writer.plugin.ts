/**
 * The SQLite writer thread as a plugin registered before every module: the traffic log and the
 * order log define their statements on it and write off the event loop; being first, its
 * `onClose` runs last, after every module has flushed. Undefined on PostgreSQL.
 */
import fp from 'fastify-plugin';
import type { Database } from './database.js';
import { SqliteWriterThread } from './sqlite-writer-thread.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** SQLite only: the worker thread log rows are written through (platform/db/sqlite-writer-thread.ts). */
    sqliteWriter: SqliteWriterThread | undefined;
  }
}

export const sqliteWriterPlugin = fp<{ database: Database }>(
  async (app, { database }) => {
    const writer = database.file ? new SqliteWriterThread(database.file) : undefined;
    app.decorate('sqliteWriter', writer);
    app.addHook('onClose', async () => writer?.close());
  },
  { name: 'sqlite-writer', fastify: '5.x' },
);

import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** One row's values, in the column order of the statement's `?` placeholders. */
export type RowTuple = readonly (string | number | null)[];

/** Rows per write transaction in the worker: bounds how long it holds SQLite's write lock. */
const TRANSACTION_ROWS = 2_000;

/**
 * The worker's program (plain JavaScript, so it runs the same from `src/` under the test runner
 * and from `dist/`): its own better-sqlite3 connection to the same file, one prepared one-row
 * INSERT per named statement, one transaction per chunk, the rowids of the rows it wrote.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.pragma('busy_timeout = 5000');
const inserts = new Map();
// Prepared on first use, so a schema problem is reported for the batch instead of killing the thread.
function prepare(name) {
  let insertAll = inserts.get(name);
  if (insertAll) return insertAll;
  const insert = db.prepare(workerData.statements[name]);
  insertAll = db.transaction((rows) => rows.map((r) => Number(insert.run(r).lastInsertRowid)));
  inserts.set(name, insertAll);
  return insertAll;
}
parentPort.on('message', (m) => {
  if (m.close) { db.close(); parentPort.postMessage({ id: m.id, ok: true, ids: [] }); return; }
  try {
    const insertAll = prepare(m.statement);
    const ids = [];
    for (let i = 0; i < m.rows.length; i += ${TRANSACTION_ROWS}) ids.push(...insertAll(m.rows.slice(i, i + ${TRANSACTION_ROWS})));
    parentPort.postMessage({ id: m.id, ok: true, ids });
  } catch (e) {
    parentPort.postMessage({ id: m.id, ok: false, error: String((e && e.message) || e) });
  }
});
`;

/**
 * Writes rows to a SQLite file from a worker thread. With SQLite every write runs on the calling
 * thread — the statement, its COMMIT, and now and then a WAL checkpoint with its fsyncs — and
 * writing one row per request on the event loop cost the API a fifth of its throughput (the
 * traffic log) or added ~0.8 ms at p50 to a live order (its order-log row); in a worker it costs
 * the event loop only the message copy. One thread, one connection, for every statement given;
 * started on first use, so commands that never write never start a thread.
 */
export class SqliteWriterThread {
  private worker: Worker | undefined;
  private seq = 0;
  private readonly waiting = new Map<
    number,
    { resolve: (ids: number[]) => void; reject: (e: Error) => void }
  >();

  private readonly statements: Record<string, string>;

  /** @param statements one-row INSERTs with `?` placeholders, by name (more with {@link define}). */
  constructor(
    private readonly file: string,
    statements: Readonly<Record<string, string>> = {},
  ) {
    this.statements = { ...statements };
  }

  /**
   * Adds named statements (each module its own, as it is built). Only before the first write:
   * the thread receives the statements when it starts.
   */
  define(statements: Readonly<Record<string, string>>): void {
    if (this.worker !== undefined)
      throw new Error('sqlite writer: statements are defined before the first write');
    Object.assign(this.statements, statements);
  }

  /** Writes `rows` with the named statement in one transaction; resolves with their rowids, committed. */
  insert(statement: string, rows: readonly RowTuple[]): Promise<number[]> {
    return this.send({ statement, rows });
  }

  /** Closes the worker's connection and ends the thread (graceful shutdown). */
  async close(): Promise<void> {
    if (this.worker === undefined) return;
    await this.send({ close: true }).catch(() => undefined);
    await this.worker.terminate();
    this.worker = undefined;
  }

  private send(message: {
    statement?: string;
    rows?: readonly RowTuple[];
    close?: boolean;
  }): Promise<number[]> {
    const worker = this.start();
    const id = ++this.seq;
    return new Promise<number[]>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      worker.postMessage({ id, ...message });
    });
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { file: this.file, driver, statements: { ...this.statements } },
    });
    worker.unref();
    worker.on('message', (m: { id: number; ok: boolean; ids?: number[]; error?: string }) => {
      const w = this.waiting.get(m.id);
      this.waiting.delete(m.id);
      if (m.ok) w?.resolve(m.ids ?? []);
      else w?.reject(new Error(`sqlite writer: ${m.error}`));
    });
    const failAll = (err: Error) => {
      for (const w of this.waiting.values()) w.reject(err);
      this.waiting.clear();
      this.worker = undefined;
    };
    worker.on('error', (err: Error) =>
      failAll(new Error(`sqlite writer failed: ${err.message || String(err)}`)),
    );
    worker.on('exit', (code) => failAll(new Error(`sqlite writer exited with code ${code}`)));
    this.worker = worker;
    return worker;
  }
}

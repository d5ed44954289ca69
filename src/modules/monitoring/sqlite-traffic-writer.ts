import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** A traffic row's values, in the column order of the INSERT the writer is given. */
export type TrafficTuple = [
  number,
  string,
  string,
  string,
  string,
  number,
  number,
  string | null,
  number | null,
];

/** Rows per write transaction in the worker: bounds how long it holds SQLite's write lock. */
const TRANSACTION_ROWS = 2_000;

/**
 * The worker's program (plain JavaScript, so it runs the same from `src/` under the test
 * runner and from `dist/`): its own better-sqlite3 connection to the same file, one prepared
 * INSERT, one transaction per chunk.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.pragma('busy_timeout = 5000');
let insertAll;
// Prepared on first use, so a schema problem is reported for the batch instead of killing the thread.
function prepare() {
  if (insertAll) return insertAll;
  const insert = db.prepare(workerData.sql);
  insertAll = db.transaction((rows) => { for (const r of rows) insert.run(r); });
  return insertAll;
}
parentPort.on('message', (m) => {
  if (m.close) { db.close(); parentPort.postMessage({ id: m.id, ok: true }); return; }
  try {
    prepare();
    for (let i = 0; i < m.rows.length; i += ${TRANSACTION_ROWS}) insertAll(m.rows.slice(i, i + ${TRANSACTION_ROWS}));
    parentPort.postMessage({ id: m.id, ok: true });
  } catch (e) {
    parentPort.postMessage({ id: m.id, ok: false, error: String((e && e.message) || e) });
  }
});
`;

/**
 * Writes traffic rows to a SQLite file from a worker thread. With SQLite every write runs on
 * the calling thread, and writing one row per request on the event loop cost the API a fifth of
 * its throughput; in a worker it costs the event loop only the message copy. Started on first
 * use, so commands that never write traffic never start a thread.
 */
export class SqliteTrafficWriter {
  private worker: Worker | undefined;
  private seq = 0;
  private readonly waiting = new Map<number, { resolve: () => void; reject: (e: Error) => void }>();

  /** @param insertSql one-row INSERT with `?` placeholders (the repository's SINGLE_ROW_INSERT). */
  constructor(
    private readonly file: string,
    private readonly insertSql: string,
  ) {}

  insert(rows: TrafficTuple[]): Promise<void> {
    return this.send({ rows });
  }

  /** Closes the worker's connection and ends the thread (graceful shutdown). */
  async close(): Promise<void> {
    if (this.worker === undefined) return;
    await this.send({ close: true }).catch(() => undefined);
    await this.worker.terminate();
    this.worker = undefined;
  }

  private send(message: { rows?: TrafficTuple[]; close?: boolean }): Promise<void> {
    const worker = this.start();
    const id = ++this.seq;
    return new Promise<void>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      worker.postMessage({ id, ...message });
    });
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { file: this.file, driver, sql: this.insertSql },
    });
    worker.unref();
    worker.on('message', (m: { id: number; ok: boolean; error?: string }) => {
      const w = this.waiting.get(m.id);
      this.waiting.delete(m.id);
      if (m.ok) w?.resolve();
      else w?.reject(new Error(`traffic writer: ${m.error}`));
    });
    const failAll = (err: Error) => {
      for (const w of this.waiting.values()) w.reject(err);
      this.waiting.clear();
      this.worker = undefined;
    };
    worker.on('error', (err: Error) =>
      failAll(new Error(`traffic writer failed: ${err.message || String(err)}`)),
    );
    worker.on('exit', (code) => failAll(new Error(`traffic writer exited with code ${code}`)));
    this.worker = worker;
    return worker;
  }
}

import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** One row's values, in the column order of the statement's `?` placeholders. */
export type RowTuple = readonly (string | number | null)[];

/** Rows per write transaction in the worker: bounds how long it holds SQLite's write lock. */
const TRANSACTION_ROWS = 2_000;

/**
 * The worker's program (plain JavaScript, so it runs the same from `src/` under the test runner
 * and from `dist/`): its own better-sqlite3 connection to the same file, one prepared one-row
 * statement (an INSERT, or an UPDATE of one row by id) per name. A message carries, per
 * statement, the row groups of its callers (one group per caller); the reply gives each group its
 * rowids or its error. A small message is written in one transaction, every group of every
 * statement in a savepoint of its own (a nested transaction: a group that fails undoes its rows
 * only); a large one group by group, in transactions of at most {@link TRANSACTION_ROWS} rows. A
 * statement that cannot be prepared fails its own groups only.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.pragma('busy_timeout = 5000');
// This connection never checkpoints: a checkpoint here would delay the rows that answers wait
// for. The checkpointer thread does it, or the main connection when none runs.
db.pragma('wal_autocheckpoint = 0');
const prepared = new Map();
const message = (e) => String((e && e.message) || e);
// Prepared on first use, so a schema problem is reported for the batch instead of killing the thread.
function prepare(name) {
  let p = prepared.get(name);
  if (p) return p;
  const insert = db.prepare(workerData.statements[name]);
  const insertAll = db.transaction((rows) => rows.map((r) => Number(insert.run(r).lastInsertRowid)));
  const one = (rows) => {
    try {
      return { ids: insertAll(rows) };
    } catch (e) {
      return { error: message(e) };
    }
  };
  const chunked = (rows) => {
    try {
      const ids = [];
      for (let i = 0; i < rows.length; i += ${TRANSACTION_ROWS}) ids.push(...insertAll(rows.slice(i, i + ${TRANSACTION_ROWS})));
      return { ids };
    } catch (e) {
      return { error: message(e) };
    }
  };
  p = { one, chunked };
  prepared.set(name, p);
  return p;
}
// Every group of a statement that could not be prepared fails with that statement's error.
const failed = (w) => w.groups.map(() => ({ error: w.error }));
// One transaction for every statement's groups, each group in its own savepoint.
const together = db.transaction((work) => work.map((w) => (w.p ? w.groups.map(w.p.one) : failed(w))));
parentPort.on('message', (m) => {
  if (m.close) { db.close(); parentPort.postMessage({ id: m.id, ok: true, results: [] }); return; }
  try {
    const work = m.batches.map((b) => {
      try {
        return { p: prepare(b.statement), groups: b.groups };
      } catch (e) {
        return { error: message(e), groups: b.groups };
      }
    });
    let rows = 0;
    for (const b of m.batches) for (const g of b.groups) rows += g.length;
    const results = rows <= ${TRANSACTION_ROWS}
      ? together(work)
      : work.map((w) => (w.p ? w.groups.map(w.p.chunked) : failed(w)));
    parentPort.postMessage({ id: m.id, ok: true, results });
  } catch (e) {
    parentPort.postMessage({ id: m.id, ok: false, error: message(e) });
  }
});
`;

/** What the worker answers for one statement's batch: per group, its rowids or its error. */
type GroupResult = { ids: number[]; error?: undefined } | { error: string };

/** The callers of one statement waiting for the next message, each with its rows. */
interface Batch {
  groups: RowTuple[][];
  callers: { resolve: (ids: number[]) => void; reject: (e: Error) => void }[];
}

export class SqliteWriterThread {
  private worker: Worker | undefined;
  private seq = 0;
  private readonly waiting = new Map<
    number,
    { resolve: (results: GroupResult[][]) => void; reject: (e: Error) => void }
  >();
  /** Rows given while a message was in flight, by statement: sent together once it is answered. */
  private readonly batches = new Map<string, Batch>();
  /** Messages of rows sent and not answered yet. */
  private inFlight = 0;

  private readonly statements: Record<string, string>;

  /**
   * @param statements one-row statements with `?` placeholders (INSERTs, or an UPDATE of one row
   * by id), by name (more with {@link define}).
   */
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

  /**
   * Writes `rows` with the named statement, all or none; resolves with their rowids once
   * committed (of an INSERT; a statement that updates a row by id resolves with what SQLite last
   * inserted, which means nothing). Sent at once when the thread has nothing in hand; otherwise
   * the rows of every call made meanwhile, whatever their statement, wait for its answer and then
   * travel in one message, committed together (one message and one COMMIT for a burst of orders'
   * log, latency and traffic rows, not one each, and no wait when idle). Each call still succeeds
   * or fails on its own rows.
   */
  insert(statement: string, rows: readonly RowTuple[]): Promise<number[]> {
    if (rows.length === 0) return Promise.resolve([]);
    return new Promise<number[]>((resolve, reject) => {
      let batch = this.batches.get(statement);
      if (batch === undefined) {
        batch = { groups: [], callers: [] };
        this.batches.set(statement, batch);
      }
      batch.groups.push(rows as RowTuple[]);
      batch.callers.push({ resolve, reject });
      if (this.inFlight === 0) this.flush();
    });
  }

  /** Closes the worker's connection and ends the thread (graceful shutdown), rows given so far written. */
  async close(): Promise<void> {
    this.flush();
    if (this.worker === undefined) return;
    await this.send({ close: true }).catch(() => undefined);
    await this.worker.terminate();
    this.worker = undefined;
  }

  /**
   * Sends every statement's batch in one message (one transaction in the thread) and answers
   * each caller from the reply; what was given meanwhile is sent when the reply is in.
   */
  private flush(): void {
    if (this.batches.size === 0) return;
    const sent = [...this.batches];
    this.batches.clear();
    this.inFlight++;
    const answer = this.send({ batches: sent.map(([statement, b]) => ({ statement, groups: b.groups })) });
    // The rows are copied into the message: released now, not kept until the thread answers
    // (a second of traffic rows held that long outlived a young-generation GC and was promoted).
    for (const [, b] of sent) b.groups = [];
    answer
      .then(
        (results) =>
          sent.forEach(([, { callers }], s) =>
            callers.forEach((c, i) => {
              const r = results[s]?.[i];
              if (r?.error === undefined && r) c.resolve(r.ids);
              else c.reject(new Error(`sqlite writer: ${r?.error ?? 'no answer for the rows'}`));
            }),
          ),
        (err: Error) => sent.forEach(([, { callers }]) => callers.forEach((c) => c.reject(err))),
      )
      .finally(() => {
        this.inFlight--;
        if (this.inFlight === 0) this.flush();
      });
  }

  private send(message: {
    batches?: { statement: string; groups: readonly RowTuple[][] }[];
    close?: boolean;
  }): Promise<GroupResult[][]> {
    const worker = this.start();
    const id = ++this.seq;
    return new Promise<GroupResult[][]>((resolve, reject) => {
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
    worker.on('message', (m: { id: number; ok: boolean; results?: GroupResult[][]; error?: string }) => {
      const w = this.waiting.get(m.id);
      this.waiting.delete(m.id);
      if (m.ok) w?.resolve(m.results ?? []);
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

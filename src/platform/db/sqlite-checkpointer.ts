import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** How often the checkpointer copies the WAL into the database file. */
export const CHECKPOINT_INTERVAL_MS = 200;

/**
 * WAL frames (pages, 4 KiB each) past which a checkpoint also restarts the WAL: 16 MiB. A PASSIVE
 * checkpoint never waits for writers, so under a steady stream of writes the WAL is never all
 * copied at the moment a writer starts, which is when SQLite goes back to its beginning: the file
 * would grow for as long as the writes go on.
 */
export const RESTART_FRAMES = 4_096;

/** A restart's tries (each fails at once while a writer holds the lock) and the pause between. */
const RESTART_TRIES = 200;
const RESTART_RETRY_MS = 0.25;

/**
 * The thread's program (plain JavaScript, so it runs the same from `src/` under the test runner
 * and from `dist/`): its own connection, a PASSIVE checkpoint every interval, a last one on
 * close. It reports only that it is open, a failed checkpoint, a restart of the WAL (with the
 * frames it held), and that it closed.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
// A restart is retried here, every ${RESTART_RETRY_MS} ms, rather than by SQLite's busy handler,
// whose sleeps (1 ms, 2, 5, 10…) let a steady stream of writers take the lock each time it is
// free: the restart would rarely get it.
db.pragma('busy_timeout = 0');
const pause = new Int32Array(new SharedArrayBuffer(4));
const restart = (frames) => {
  for (let i = 0; i < ${RESTART_TRIES}; i++) {
    const [r] = db.pragma('wal_checkpoint(RESTART)');
    if (!r || !r.busy) {
      parentPort.postMessage({ restarted: frames });
      return;
    }
    Atomics.wait(pause, 0, 0, ${RESTART_RETRY_MS});
  }
};
const message = (e) => String((e && e.message) || e);
let failing = false;
const checkpoint = () => {
  try {
    const [passive] = db.pragma('wal_checkpoint(PASSIVE)');
    // The frames written meanwhile are few: the writers wait for those only, then the next
    // writer starts the WAL from its beginning. Still busy after the tries: next interval.
    if (passive && passive.log > workerData.restartFrames) restart(passive.log);
    failing = false;
  } catch (e) {
    // Reported once per run of failures, not every interval.
    if (!failing) parentPort.postMessage({ error: message(e) });
    failing = true;
  }
};
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.on('message', (m) => {
  if (!m.close) return;
  clearInterval(timer);
  checkpoint();
  db.close();
  parentPort.postMessage({ closed: true });
});
parentPort.postMessage({ open: true });
`;

/**
 * WAL checkpoints on a thread of their own (docs/architecture.md, "SQLite checkpoints").
 *
 * On its own, SQLite checkpoints inside the COMMIT that takes the WAL past 1,000 pages: it copies
 * those pages into the database file and syncs both, milliseconds during which the committing
 * thread does nothing else. That thread is the event loop (every request in flight waits) or the
 * log writer thread (a live order's answer waits for its log row). With the checkpointer running,
 * the service's connections do not checkpoint (`wal_autocheckpoint = 0`): this thread runs a
 * PASSIVE checkpoint every {@link CHECKPOINT_INTERVAL_MS}, which takes no write lock, so writers
 * go on while it copies; past {@link RESTART_FRAMES} it then restarts the WAL, holding the
 * writers back only while it copies what they wrote since the passive pass.
 *
 * `start` resolves once the thread's connection is open: only then may the caller turn its own
 * checkpoints off. `onLost` is called once if the thread fails or exits unasked, so the caller
 * can turn them back on.
 */
export class SqliteCheckpointer {
  private worker: Worker | undefined;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly file: string,
    private readonly opts: {
      intervalMs?: number;
      /** WAL frames past which a checkpoint also restarts the WAL ({@link RESTART_FRAMES}). */
      restartFrames?: number;
      /** A checkpoint failed (reported once per run of failures); the thread keeps trying. */
      onError?: (message: string) => void;
      /** The WAL was restarted: it held `frames` frames, all copied; the next writer rewinds it. */
      onRestart?: (frames: number) => void;
      /** The thread is gone without `close` (crashed or could not open the file). */
      onLost?: (err: Error) => void;
    } = {},
  ) {}

  /** Starts the thread; resolves when its connection is open, rejects if it cannot start. */
  start(): Promise<void> {
    if (this.worker !== undefined) return Promise.resolve();
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        file: this.file,
        driver,
        intervalMs: this.opts.intervalMs ?? CHECKPOINT_INTERVAL_MS,
        restartFrames: this.opts.restartFrames ?? RESTART_FRAMES,
      },
    });
    worker.unref();
    this.worker = worker;
    return new Promise<void>((resolve, reject) => {
      let open = false;
      const lost = (err: Error) => {
        if (this.worker !== worker || this.closing !== undefined) return;
        this.worker = undefined;
        if (open) this.opts.onLost?.(err);
        else reject(err);
      };
      worker.on('message', (m: { open?: boolean; error?: string; restarted?: number }) => {
        if (m.open) {
          open = true;
          resolve();
        } else if (m.error !== undefined) this.opts.onError?.(m.error);
        else if (m.restarted !== undefined) this.opts.onRestart?.(m.restarted);
      });
      worker.on('error', (err: Error) => lost(new Error(`sqlite checkpointer failed: ${err.message}`)));
      worker.on('exit', (code) => lost(new Error(`sqlite checkpointer exited with code ${code}`)));
    });
  }

  /** Runs a last checkpoint and ends the thread; safe to call twice or before `start`. */
  close(): Promise<void> {
    const worker = this.worker;
    if (worker === undefined) return Promise.resolve();
    this.closing ??= new Promise<void>((resolve) => {
      const done = () => {
        this.worker = undefined;
        resolve();
      };
      worker.on('message', (m: { closed?: boolean }) => {
        if (m.closed) void worker.terminate().then(done, done);
      });
      worker.once('exit', done);
      worker.postMessage({ close: true });
    });
    return this.closing;
  }
}

/**
 * Per-statement SQLite timings of a bench server: loaded into it with
 * `BENCH_SERVER_NODE_ARGS="--import $PWD/bench/lib/sql-timing.mjs"` (an absolute path: the server
 * runs in a temporary directory), it times every `run`, `get` and `all` of every better-sqlite3
 * statement (BEGIN, SAVEPOINT and COMMIT included) by SQL text, and at exit writes a table per thread, the costliest first, to
 * `$SQL_TIMING_DIR/sql-timing-<pid>-<thread>.txt` (default directory /tmp). Divide by the
 * requests the bench sent for a per-request cost. Plain JavaScript: node loads it before the
 * server, without a TypeScript loader. A bench tool only; the server never loads it on its own.
 */
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';

const require = createRequire(import.meta.url);
const Database = require('better-sqlite3');

// Every statement shares one native prototype: patched once, before the server prepares any.
const probe = new Database(':memory:');
const proto = Object.getPrototypeOf(probe.prepare('select 1'));
probe.close();

/**
 * SQL text → calls, total microseconds, and calls that took over a millisecond (on a file another
 * connection writes too, mostly a wait for its write lock: SQLite's busy handler sleeps 1 ms, 2, 5…).
 */
const stats = new Map();
for (const method of ['run', 'get', 'all']) {
  const original = proto[method];
  proto[method] = function timed(...args) {
    const t0 = process.hrtime.bigint();
    try {
      return original.apply(this, args);
    } finally {
      const us = Number(process.hrtime.bigint() - t0) / 1000;
      const s = stats.get(this.source);
      const slow = us > 1000;
      if (s === undefined)
        stats.set(this.source, { calls: 1, us, slow: slow ? 1 : 0, slowUs: slow ? us : 0 });
      else {
        s.calls += 1;
        s.us += us;
        if (slow) {
          s.slow += 1;
          s.slowUs += us;
        }
      }
    }
  };
}

process.on('exit', () => {
  if (stats.size === 0) return;
  const rows = [...stats].sort((a, b) => b[1].us - a[1].us);
  const total = rows.reduce((sum, [, s]) => sum + s.us, 0);
  const slowTotal = rows.reduce((sum, [, s]) => sum + s.slowUs, 0);
  const lines = [
    `total ${(total / 1000).toFixed(1)} ms in ${rows.length} statements, of which ${(slowTotal / 1000).toFixed(1)} ms in calls over 1 ms`,
    '',
  ];
  lines.push('   calls    total ms   µs/call  > 1 ms  ms in those  SQL');
  for (const [sql, s] of rows)
    lines.push(
      `${String(s.calls).padStart(8)} ${(s.us / 1000).toFixed(1).padStart(11)} ${(s.us / s.calls)
        .toFixed(1)
        .padStart(9)} ${String(s.slow).padStart(7)} ${(s.slowUs / 1000).toFixed(1).padStart(12)}  ${sql
        .replace(/\s+/g, ' ')
        .slice(0, 160)}`,
    );
  const file = join(process.env.SQL_TIMING_DIR ?? '/tmp', `sql-timing-${process.pid}-${threadId}.txt`);
  writeFileSync(file, `${lines.join('\n')}\n`);
});

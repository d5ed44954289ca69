import type { Target } from './types.js';

/**
 * Server throughput at least `min` times the baseline's: a target stated against the bare
 * `node:http` baseline, so not judged against the same-writes one (which has targets of its own).
 */
export function ratioAtLeast(min: number): Target {
  return {
    label: `ratio >= ${min.toFixed(2)}`,
    evaluate: (f, run) =>
      run.baseline === 'same-writes'
        ? { met: null, actual: `not judged against the same-writes baseline (ratio ${f.ratio.toFixed(2)})` }
        : { met: f.ratio >= min, actual: f.ratio.toFixed(2) },
  };
}

/**
 * Server throughput at least `min[database]` times the same-writes baseline's (the floor of the
 * request's durable work); not judged against another baseline.
 */
export function sameWritesRatioAtLeast(min: { sqlite: number; postgres: number }): Target {
  return {
    label: `ratio >= ${min.sqlite.toFixed(2)} (SQLite) / ${min.postgres.toFixed(2)} (PostgreSQL) of the same-writes baseline`,
    evaluate: (f, run) =>
      run.baseline !== 'same-writes'
        ? { met: null, actual: `not judged: run with --baseline same-writes (ratio ${f.ratio.toFixed(2)})` }
        : { met: f.ratio >= min[run.database], actual: `${f.ratio.toFixed(2)} (${run.database})` },
  };
}

/** Server p99 latency at most `factor` times the baseline's p99. */
export function p99AtMostTimesBaseline(factor: number): Target {
  return {
    label: `p99 <= ${factor}x baseline p99`,
    evaluate: (f) => ({
      met: f.p99Ms <= factor * f.baselineP99Ms,
      actual:
        f.baselineP99Ms > 0
          ? `${(f.p99Ms / f.baselineP99Ms).toFixed(2)}x (${f.p99Ms.toFixed(2)} ms vs ${f.baselineP99Ms.toFixed(2)} ms)`
          : `${f.p99Ms.toFixed(2)} ms vs ${f.baselineP99Ms.toFixed(2)} ms`,
    }),
  };
}

/**
 * Server p99 latency at most `ms` milliseconds (an absolute goal, so only meaningful with few
 * connections: with many, p99 is mostly queueing). With `atConnections`, judged only when the
 * run used that many connections; other runs print it as n/a.
 */
export function p99AtMostMs(ms: number, atConnections?: number): Target {
  const at =
    atConnections === undefined ? '' : ` at ${atConnections} connection${atConnections === 1 ? '' : 's'}`;
  return {
    label: `p99 <= ${ms} ms${at}`,
    evaluate: (f, run) =>
      atConnections !== undefined && run.connections !== atConnections
        ? {
            met: null,
            actual: `not judged: this run used ${run.connections} connections (p99 ${f.p99Ms.toFixed(2)} ms); rerun with --connections ${atConnections}`,
          }
        : { met: f.p99Ms <= ms, actual: `${f.p99Ms.toFixed(2)} ms` },
  };
}

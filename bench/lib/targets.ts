import type { Target } from './types.js';

/** Server throughput at least `min` times the baseline's. */
export function ratioAtLeast(min: number): Target {
  return {
    label: `ratio >= ${min.toFixed(2)}`,
    evaluate: (f) => ({ met: f.ratio >= min, actual: f.ratio.toFixed(2) }),
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

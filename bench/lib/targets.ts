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

/**
 * Order latency statistics (spec "Latency statistics"): p50, p90, p95 and p99 of
 * `total_latency_ms`, and the compliance shares `sla_100ms`, `sla_150ms`, `sla_200ms` — the
 * percent of orders whose total is under 100, 150 and 200 ms.
 *
 * Percentile method: **nearest rank** over the exact values of the window — the p-th percentile
 * is the smallest value such that at least p % of the values are ≤ it, i.e. the value at rank
 * ⌈p/100 × N⌉ of the ascending list (1-based). Every reported percentile is a real observed
 * latency (no interpolation). "Under" is strict: an order of exactly 100 ms is not under 100 ms.
 */

export interface LatencySummary {
  count: number;
  avg_ms: number;
  min_ms: number;
  max_ms: number;
  p50_ms: number;
  p90_ms: number;
  p95_ms: number;
  p99_ms: number;
  sla_100ms: number;
  sla_150ms: number;
  sla_200ms: number;
}

/** Nearest-rank percentile of an ascending list (p in (0, 100]); 0 for an empty list. */
export function nearestRank(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1]!;
}

/** Percent (2 decimals) of values strictly under `ms`. */
export function shareUnder(sorted: readonly number[], ms: number): number {
  if (sorted.length === 0) return 0;
  // Binary search for the first value ≥ ms.
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < ms) lo = mid + 1;
    else hi = mid;
  }
  return round2((lo / sorted.length) * 100);
}

const round2 = (x: number) => Math.round(x * 100) / 100;

/** The summary of a set of total latencies (ms), in any order. */
export function summarise(totals: readonly number[]): LatencySummary {
  const sorted = [...totals].sort((a, b) => a - b);
  const n = sorted.length;
  const sum = sorted.reduce((s, x) => s + x, 0);
  return {
    count: n,
    avg_ms: n ? round2(sum / n) : 0,
    min_ms: n ? round2(sorted[0]!) : 0,
    max_ms: n ? round2(sorted[n - 1]!) : 0,
    p50_ms: round2(nearestRank(sorted, 50)),
    p90_ms: round2(nearestRank(sorted, 90)),
    p95_ms: round2(nearestRank(sorted, 95)),
    p99_ms: round2(nearestRank(sorted, 99)),
    sla_100ms: shareUnder(sorted, 100),
    sla_150ms: shareUnder(sorted, 150),
    sla_200ms: shareUnder(sorted, 200),
  };
}

/**
 * Lower edges (ms) of the total-latency histogram (docs/rules/orders.md#latency-statistics): the
 * SLA bounds (100, 150, 200) are edges, so the bars add up to the shares; the last bucket is
 * open (1,000 ms and more).
 */
export const HISTOGRAM_EDGES_MS = [0, 25, 50, 75, 100, 150, 200, 300, 500, 1000] as const;

/** One histogram bar: totals in [from_ms, to_ms), `to_ms` null for the open last bar. */
export interface HistogramBar {
  from_ms: number;
  to_ms: number | null;
  count: number;
}

/** Counts of totals per {@link HISTOGRAM_EDGES_MS} bar, every bar present (zeros included). */
export function histogram(totals: readonly number[]): HistogramBar[] {
  const edges = HISTOGRAM_EDGES_MS;
  const counts = new Array<number>(edges.length).fill(0);
  for (const x of totals) {
    let i = edges.length - 1;
    while (i > 0 && x < edges[i]!) i--;
    counts[i]!++;
  }
  return edges.map((from, i) => ({ from_ms: from, to_ms: edges[i + 1] ?? null, count: counts[i]! }));
}

/** One time bucket of total latency: its start (epoch ms) and the summary of its orders. */
export interface LatencyPoint {
  ts: number;
  count: number;
  avg_ms: number;
  p50_ms: number;
  p95_ms: number;
  max_ms: number;
}

/** Per-bucket count, average, nearest-rank p50/p95 and maximum; only buckets with orders, oldest first. */
export function latencySeries(
  rows: ReadonlyArray<{ created_at: number; total_ms: number }>,
  bucketMs: number,
): LatencyPoint[] {
  const byBucket = new Map<number, number[]>();
  for (const r of rows) {
    const b = Math.floor(r.created_at / bucketMs) * bucketMs;
    let list = byBucket.get(b);
    if (!list) byBucket.set(b, (list = []));
    list.push(r.total_ms);
  }
  return [...byBucket.keys()]
    .sort((a, b) => a - b)
    .map((ts) => {
      const s = summarise(byBucket.get(ts)!);
      return { ts, count: s.count, avg_ms: s.avg_ms, p50_ms: s.p50_ms, p95_ms: s.p95_ms, max_ms: s.max_ms };
    });
}

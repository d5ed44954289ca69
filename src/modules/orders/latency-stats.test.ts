import { describe, expect, it } from 'vitest';
import { histogram, latencySeries, nearestRank, shareUnder, summarise } from './latency-stats.js';

describe('percentiles are nearest-rank over the exact values', () => {
  const ten = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100];
  it.each([
    [50, 50], // rank ⌈5⌉ = 5
    [90, 90], // rank 9
    [95, 100], // rank ⌈9.5⌉ = 10
    [99, 100],
    [10, 10],
    [11, 20], // rank ⌈1.1⌉ = 2
  ])('p%d of 10..100 is %d', (p, want) => {
    expect(nearestRank(ten, p)).toBe(want);
  });

  it('one value is every percentile; none gives 0', () => {
    expect([nearestRank([42], 1), nearestRank([42], 99)]).toEqual([42, 42]);
    expect(nearestRank([], 50)).toBe(0);
  });

  it('p99 of 1..1000 ms is 990 and p50 is 500', () => {
    const xs = Array.from({ length: 1000 }, (_, i) => i + 1);
    expect([nearestRank(xs, 50), nearestRank(xs, 99)]).toEqual([500, 990]);
  });
});

describe('sla_100ms, sla_150ms, sla_200ms are the percent of orders strictly under the bound', () => {
  it('exactly 100 ms is not under 100 ms', () => {
    expect(shareUnder([50, 99.9, 100, 150, 250], 100)).toBe(40);
    expect(shareUnder([50, 99.9, 100, 150, 250], 150)).toBe(60);
    expect(shareUnder([50, 99.9, 100, 150, 250], 200)).toBe(80);
  });

  it('shares are rounded to 2 decimals: 1 of 3 is 33.33 %', () => {
    expect(shareUnder([1, 200, 300], 100)).toBe(33.33);
  });
});

describe('a summary of unsorted totals', () => {
  it('computes count, average, extremes, percentiles and shares by hand', () => {
    const s = summarise([120, 80, 40, 300, 160]);
    expect(s).toEqual({
      count: 5,
      avg_ms: 140,
      min_ms: 40,
      max_ms: 300,
      p50_ms: 120, // sorted 40 80 120 160 300: rank 3
      p90_ms: 300, // rank ⌈4.5⌉ = 5
      p95_ms: 300,
      p99_ms: 300,
      sla_100ms: 40,
      sla_150ms: 60,
      sla_200ms: 80,
    });
  });

  it('an empty window is all zeros', () => {
    expect(summarise([])).toMatchObject({ count: 0, p50_ms: 0, sla_100ms: 0 });
  });
});

describe('the histogram of totals: bars whose edges include the SLA bounds', () => {
  it('puts each total in [from, to), the boundary in the upper bar, big ones in the open last bar', () => {
    const bars = histogram([0, 24.9, 25, 99.99, 100, 149, 150, 199, 200, 999, 1000, 60_000]);
    expect(bars.map((b) => [b.from_ms, b.to_ms, b.count])).toEqual([
      [0, 25, 2],
      [25, 50, 1],
      [50, 75, 0],
      [75, 100, 1],
      [100, 150, 2],
      [150, 200, 2],
      [200, 300, 1],
      [300, 500, 0],
      [500, 1000, 1],
      [1000, null, 2],
    ]);
  });

  it('bars below a bound add up to the share under it', () => {
    const totals = [5, 30, 90, 120, 160, 250, 400];
    const bars = histogram(totals);
    const under = (ms: number) =>
      bars.filter((b) => b.to_ms !== null && b.to_ms <= ms).reduce((n, b) => n + b.count, 0);
    for (const ms of [100, 150, 200])
      expect((under(ms) / totals.length) * 100).toBeCloseTo(
        shareUnder(
          [...totals].sort((a, b) => a - b),
          ms,
        ),
        1,
      );
  });
});

describe('the latency series: a summary per time bucket', () => {
  it('groups by bucket start, oldest first, skipping empty buckets', () => {
    const m = 60_000;
    const rows = [
      { created_at: 10 * m + 5, total_ms: 30 },
      { created_at: 12 * m + 1, total_ms: 300 },
      { created_at: 10 * m + 59_999, total_ms: 10 },
      { created_at: 10 * m + 30_000, total_ms: 20 },
    ];
    expect(latencySeries(rows, m)).toEqual([
      { ts: 10 * m, count: 3, avg_ms: 20, p50_ms: 20, p95_ms: 30, max_ms: 30 },
      { ts: 12 * m, count: 1, avg_ms: 300, p50_ms: 300, p95_ms: 300, max_ms: 300 },
    ]);
    expect(latencySeries([], m)).toEqual([]);
  });
});

/** The latency page's charts: the histogram of totals and the series of p50, p95 and maximum. */
import { useMemo } from 'react';
import uPlot from 'uplot';
import { count, millis } from './format';
import {
  COUNT_AXIS_VALUES,
  COUNT_INCREMENTS,
  countValue,
  DECIMAL_AXIS_VALUES,
  IST_TIME_AXIS,
  IST_TIME_SERIES,
  millisValue,
  UPlotChart,
} from './UPlotChart';

export interface HistogramBar {
  from_ms: number;
  to_ms: number | null;
  count: number;
}
export interface LatencyPoint {
  ts: string;
  count: number;
  avg_ms: number;
  p50_ms: number;
  p95_ms: number;
  max_ms: number;
}

const barLabel = (b: HistogramBar) => (b.to_ms === null ? `≥${b.from_ms}` : `${b.from_ms}–${b.to_ms}`);
/** Under each bar only its lower edge (the full range is in the legend): ten ranges do not fit a phone. */
const tickLabel = (b: HistogramBar) => (b.to_ms === null ? `${b.from_ms}+` : String(b.from_ms));

export function LatencyHistogram({ bars }: { bars: HistogramBar[] }) {
  const data = useMemo<uPlot.AlignedData>(() => [bars.map((_, i) => i), bars.map((b) => b.count)], [bars]);
  const labels = useMemo(() => bars.map(barLabel), [bars]);
  const ticks = useMemo(() => bars.map(tickLabel), [bars]);
  const options = useMemo<Omit<uPlot.Options, 'width' | 'height'>>(
    () => ({
      scales: {
        x: { time: false, range: [-0.5, labels.length - 0.5] },
        y: { range: (_u, _min, max) => [0, Math.max(1, max)] },
      },
      series: [
        { label: 'Total', value: (_u, i) => (i === null ? '' : `${labels[i] ?? ''} ms`) },
        {
          label: 'Orders',
          stroke: '#1c7ed6',
          fill: 'rgba(28,126,214,0.55)',
          paths: uPlot.paths.bars!({ size: [0.8, 64] }),
          points: { show: false },
          value: countValue,
        },
      ],
      axes: [
        {
          splits: () => labels.map((_, i) => i),
          // On a phone every other edge: ten do not fit side by side.
          values: (u, splits) => splits.map((i) => (u.width < 480 && i % 2 === 1 ? '' : (ticks[i] ?? ''))),
          label: 'Total latency (ms, from)',
        },
        { size: 48, incrs: COUNT_INCREMENTS, values: COUNT_AXIS_VALUES },
      ],
      cursor: { drag: { x: false, y: false } },
    }),
    [labels, ticks],
  );
  const label =
    'Orders by total latency: ' + bars.map((b) => `${count(b.count)} at ${barLabel(b)} ms`).join(', ') + '.';
  return <UPlotChart options={options} data={data} label={label} testId="latency-histogram" />;
}

export function LatencySeries({
  points,
  since,
  until,
  bucket,
}: {
  points: LatencyPoint[];
  since: string;
  until: string;
  bucket: string;
}) {
  const data = useMemo<uPlot.AlignedData>(
    () => [
      points.map((p) => Date.parse(p.ts) / 1000),
      points.map((p) => p.p50_ms),
      points.map((p) => p.p95_ms),
      points.map((p) => p.max_ms),
    ],
    [points],
  );
  const options = useMemo<Omit<uPlot.Options, 'width' | 'height'>>(
    () => ({
      scales: {
        x: { range: [Date.parse(since) / 1000, Date.parse(until) / 1000] },
        y: { range: (_u, _min, max) => [0, Math.max(1, max * 1.1)] },
      },
      series: [
        IST_TIME_SERIES,
        { label: 'p50', stroke: '#2f9e44', width: 2, points: { show: true, size: 6 }, value: millisValue },
        { label: 'p95', stroke: '#f08c00', width: 2, points: { show: true, size: 6 }, value: millisValue },
        {
          label: 'max',
          stroke: '#e03131',
          width: 1,
          dash: [4, 4],
          points: { show: true, size: 5 },
          value: millisValue,
        },
      ],
      axes: [IST_TIME_AXIS, { size: 56, values: DECIMAL_AXIS_VALUES }],
      cursor: { drag: { x: false, y: false } },
    }),
    [since, until],
  );
  const worst = Math.max(0, ...points.map((p) => p.p95_ms));
  const label =
    `Total latency per ${bucket}: p50, p95 and maximum of ${points.length} ${bucket}s with orders; ` +
    `the highest p95 was ${millis(worst)}.`;
  return <UPlotChart options={options} data={data} label={label} testId="latency-series" />;
}

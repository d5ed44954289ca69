/**
 * A uPlot chart sized to its container (docs/rules/web.md#monitoring-charts): uPlot is loaded with
 * the monitoring pages only, never in the first load. The canvas is one image to a screen reader,
 * named by `label` (a sentence with the chart's figures); the same figures are on the page as text.
 * Time axes are in IST whatever the browser's zone (docs/rules/web.md#times-in-ist): the ticks fall
 * on IST hours and read as the rest of the console writes times.
 */
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { formatCount, formatDecimal } from '../../format-number';
import { istAxisLabels, istTime } from '../../ist-time';

/** uPlot's clock: IST wall-clock dates, so its ticks fall on IST minutes, hours and days. */
const istDate = (seconds: number) => uPlot.tzDate(new Date(seconds * 1000), 'Asia/Kolkata');

/** The x axis of a chart over time: its labels in IST (`istAxisLabels`), room for two lines. */
export const IST_TIME_AXIS: uPlot.Axis = {
  values: (_u, splits, _axis, _space, increment) => istAxisLabels(splits, increment),
  size: 52,
};

/** The x series of a chart over time: the cursor's time in the legend, in IST. */
export const IST_TIME_SERIES: uPlot.Series = {
  label: 'Time (IST)',
  value: (_u, v) => (v === null || v === undefined ? '' : istTime(v * 1000)),
};

/** The labels of an axis of counts or of milliseconds, written as the page writes them (docs/rules/web.md#number-formats). */
export const COUNT_AXIS_VALUES: uPlot.Axis['values'] = (_u, splits) => splits.map(formatCount);
export const DECIMAL_AXIS_VALUES: uPlot.Axis['values'] = (_u, splits) => splits.map(formatDecimal);

/** A series' figure in the legend: a count, or milliseconds. */
export const countValue: uPlot.Series['value'] = (_u, v) =>
  v === null || v === undefined ? '' : formatCount(v);
export const millisValue: uPlot.Series['value'] = (_u, v) =>
  v === null || v === undefined ? '' : `${formatDecimal(v)} ms`;

/** Tick steps of an axis of counts: whole numbers only (no "0.25 requests"). */
export const COUNT_INCREMENTS = [
  1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 200_000, 500_000,
  1_000_000,
];

export interface UPlotChartProps {
  /** Everything but the size (the container's width, `height`); memoise it: a new object redraws. */
  options: Omit<uPlot.Options, 'width' | 'height'>;
  data: uPlot.AlignedData;
  /** What the chart shows, in words. */
  label: string;
  height?: number;
  testId?: string;
}

export function UPlotChart({ options, data, label, height = 220, testId }: UPlotChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const latest = useRef(data);
  latest.current = data;

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const u = new uPlot(
      { tzDate: istDate, ...options, width: Math.max(el.clientWidth, 200), height },
      latest.current,
      el,
    );
    plot.current = u;
    const resize = new ResizeObserver(() => {
      const width = Math.max(el.clientWidth, 200);
      if (width !== u.width) u.setSize({ width, height });
    });
    resize.observe(el);
    return () => {
      resize.disconnect();
      u.destroy();
      plot.current = null;
    };
  }, [options, height]);

  useEffect(() => {
    plot.current?.setData(data);
  }, [data]);

  return <div ref={box} role="img" aria-label={label} data-testid={testId} style={{ width: '100%' }} />;
}

/**
 * A uPlot chart sized to its container (docs/rules/web.md#monitoring-charts): uPlot is loaded with
 * the monitoring pages only, never in the first load. The canvas is one image to a screen reader,
 * named by `label` (a sentence with the chart's figures); the same figures are on the page as text.
 */
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

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
    const u = new uPlot({ ...options, width: Math.max(el.clientWidth, 200), height }, latest.current, el);
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

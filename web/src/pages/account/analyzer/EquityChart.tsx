/**
 * The sandbox account's equity day by day (docs/rules/sandbox.md#daily-equity,
 * docs/rules/web.md#account-pages): a line of each IST day's equity in the upper pane and one of
 * the realised P&L net of charges in the lower, with a legend reading the day under the cursor (the
 * newest day elsewhere). The chart's colours and its IST day labels are the price chart's
 * (web/src/pages/trade/chart/chart-theme.ts): each day is drawn at its IST midnight, shifted as a
 * daily candle is. A single day is drawn as a point.
 */
import { Box, Group, Text } from '@mantine/core';
import {
  createChart,
  LineSeries,
  type AutoscaleInfo,
  type IChartApi,
  type ISeriesApi,
  type LineData,
  type Time,
  type UTCTimestamp,
} from 'lightweight-charts';
import { useEffect, useRef, useState } from 'react';
import { fromChartTime, toChartTime } from '../../../features/market/candles';
import type { EquityDay } from '../../../features/account/api/sandbox';
import { formatRupees, formatSignedRupees } from '../../../format-number';
import { candleTimeLabel, chartColors, chartOptions, type ChartColors } from '../../trade/chart/chart-theme';

interface Drawn {
  chart: IChartApi;
  equity: ISeriesApi<'Line'>;
  net: ISeriesApi<'Line'>;
}

/**
 * The chart's time of an IST day (`YYYY-MM-DD`): its IST midnight, shifted as candles are — which
 * is the day's UTC midnight, so the chart's time reads back as the day (`toISOString`).
 */
const dayTime = (day: string): UTCTimestamp =>
  toChartTime(Date.parse(`${day}T00:00:00+05:30`) / 1000) as UTCTimestamp;

/** The realised P&L net of the charges paid, to the paisa. */
export const netRealised = (d: EquityDay): number => Math.round((d.realised_pnl - d.charges) * 100) / 100;

/** The axes' figures: whole rupees, grouped the Indian way (`1,00,00,000`). */
const WHOLE = new Intl.NumberFormat('en-IN', { maximumFractionDigits: 0 });

const seriesColors = (colors: ChartColors) => ({ equity: colors.buy, net: colors.average });

/**
 * A scale at least `2 × least(mid)` rupees tall around its figures: a flat line (one day, or days
 * without a trade) is drawn mid-pane with distinct whole-rupee labels, not a stack of equal ones.
 */
const atLeast =
  (least: (mid: number) => number) =>
  (original: () => AutoscaleInfo | null): AutoscaleInfo | null => {
    const r = original();
    if (!r?.priceRange) return r;
    const { minValue, maxValue } = r.priceRange;
    const mid = (minValue + maxValue) / 2;
    const half = Math.max((maxValue - minValue) / 2, least(mid));
    return { ...r, priceRange: { minValue: mid - half, maxValue: mid + half } };
  };

function chartTheme(colors: ChartColors) {
  const base = chartOptions(colors, 'D');
  return {
    ...base,
    layout: { ...base.layout, panes: { separatorColor: colors.border } },
    rightPriceScale: { borderColor: colors.border, scaleMargins: { top: 0.15, bottom: 0.15 } },
    timeScale: { ...base.timeScale, rightOffset: 1, fixLeftEdge: true },
    localization: { ...base.localization, priceFormatter: (p: number) => WHOLE.format(p) },
    handleScroll: false,
    handleScale: false,
  };
}

function LegendFigure({ label, value, color }: { label: string; value: string; color?: string }) {
  return (
    <Text size="sm" span style={{ fontVariantNumeric: 'tabular-nums', whiteSpace: 'nowrap' }}>
      {color && (
        <span
          aria-hidden
          style={{
            display: 'inline-block',
            width: 10,
            height: 3,
            background: color,
            verticalAlign: 'middle',
            marginRight: 4,
          }}
        />
      )}
      <Text span c="dimmed" size="xs" fw={600} mr={4}>
        {label}
      </Text>
      <Text span fw={600}>
        {value}
      </Text>
    </Text>
  );
}

export function EquityChart({ days, scheme }: { days: readonly EquityDay[]; scheme: 'light' | 'dark' }) {
  const box = useRef<HTMLDivElement>(null);
  const drawn = useRef<Drawn | undefined>(undefined);
  const [hovered, setHovered] = useState<string | undefined>();

  // The chart lives as long as the card; the scheme only changes its options.
  useEffect(() => {
    const colors = chartColors(scheme);
    const chart = createChart(box.current!, { autoSize: true, ...chartTheme(colors) });
    const line = seriesColors(colors);
    const equity = chart.addSeries(
      LineSeries,
      {
        color: line.equity,
        lineWidth: 2,
        priceLineVisible: false,
        autoscaleInfoProvider: atLeast((mid) => Math.max(1_000, Math.abs(mid) * 0.001)),
      },
      0,
    );
    const net = chart.addSeries(
      LineSeries,
      {
        color: line.net,
        lineWidth: 2,
        priceLineVisible: false,
        autoscaleInfoProvider: atLeast((mid) => Math.max(100, Math.abs(mid) * 0.1)),
      },
      1,
    );
    // The equity above, the realised P&L net of charges in the smaller pane under it.
    chart.panes()[0]?.setStretchFactor(0.6);
    chart.panes()[1]?.setStretchFactor(0.4);
    drawn.current = { chart, equity, net };
    chart.subscribeCrosshairMove((param) => {
      setHovered(
        param.time === undefined
          ? undefined
          : new Date((param.time as number) * 1000).toISOString().slice(0, 10),
      );
    });
    return () => {
      drawn.current = undefined;
      chart.remove();
    };
    // Created once (with the first scheme); the effects below apply the changes.
  }, []);

  useEffect(() => {
    const d = drawn.current;
    if (!d) return;
    const colors = chartColors(scheme);
    const line = seriesColors(colors);
    d.chart.applyOptions(chartTheme(colors));
    d.equity.applyOptions({ color: line.equity });
    d.net.applyOptions({ color: line.net });
  }, [scheme]);

  useEffect(() => {
    const d = drawn.current;
    if (!d) return;
    // Few days: each one a dot too; a single day is a dot alone (a line needs two days).
    const look = {
      pointMarkersVisible: days.length <= 31,
      pointMarkersRadius: days.length === 1 ? 4 : 3,
      lineVisible: days.length > 1,
    };
    d.equity.applyOptions(look);
    d.net.applyOptions(look);
    d.equity.setData(days.map((x): LineData<Time> => ({ time: dayTime(x.day), value: x.equity })));
    d.net.setData(days.map((x): LineData<Time> => ({ time: dayTime(x.day), value: netRealised(x) })));
    d.chart.timeScale().fitContent();
  }, [days]);

  const colors = seriesColors(chartColors(scheme));
  const shown = days.find((x) => x.day === hovered) ?? days.at(-1);
  return (
    <Box>
      <Group
        gap="sm"
        wrap="wrap"
        mb={4}
        role="group"
        aria-label="Day under the cursor"
        data-testid="equity-legend"
      >
        <Text size="xs" c="dimmed" style={{ whiteSpace: 'nowrap' }}>
          {shown ? candleTimeLabel(fromChartTime(dayTime(shown.day)), 'D') : '—'}
        </Text>
        <LegendFigure label="Equity" value={formatRupees(shown?.equity)} color={colors.equity} />
        <LegendFigure
          label="Realised net of charges"
          value={formatSignedRupees(shown ? netRealised(shown) : undefined)}
          color={colors.net}
        />
        <LegendFigure label="Charges" value={formatRupees(shown?.charges)} />
      </Group>
      <Box
        ref={box}
        data-testid="equity-chart"
        role="img"
        aria-label={`Equity by day, ${days.length === 1 ? '1 day' : `${days.length} days`}: the equity above, the realised P&L net of charges below`}
        style={{ height: 'clamp(260px, 40vh, 360px)', position: 'relative' }}
      />
    </Box>
  );
}

/**
 * The candlestick chart of one instrument (docs/rules/web.md#live-prices): the history's candles
 * with their volume below, continued live from the feed through the chart's own API (a tick moves
 * the live candle without React drawing anything but the legend), the user's fills as markers and
 * working orders and average prices as lines, the legend reading the candle under the cursor.
 * lightweight-charts is imported only here and beside it, so it loads with the chart page's chunk
 * (docs/rules/web.md#first-load-budget).
 */
import { Box } from '@mantine/core';
import {
  CandlestickSeries,
  createChart,
  createSeriesMarkers,
  HistogramSeries,
  LineStyle,
  type CandlestickData,
  type HistogramData,
  type IChartApi,
  type IPriceLine,
  type ISeriesApi,
  type ISeriesMarkersPluginApi,
  type SeriesMarker,
  type Time,
  type UTCTimestamp,
} from 'lightweight-charts';
import { useEffect, useMemo, useRef, useState } from 'react';
import { tickKey, useLiveTicks } from '../../../api/live-ticks';
import { ChartLegend } from './ChartLegend';
import { chartColors, chartOptions, type ChartColors } from './chart-theme';
import {
  fromChartTime,
  mergeTick,
  toChartTime,
  volumeDelta,
  type Candle,
  type HistoryInterval,
} from '../../../features/market/candles';
import type { PriceMark, TradeMark } from './overlays';

/** Candles shown when a history is first drawn (the rest a scroll away). */
const VISIBLE_BARS = 120;

interface Drawn {
  chart: IChartApi;
  candles: ISeriesApi<'Candlestick'>;
  volume: ISeriesApi<'Histogram'>;
  markers: ISeriesMarkersPluginApi<Time>;
  lines: IPriceLine[];
  /** The newest candle drawn (the live one once the feed ticks). */
  last: Candle | undefined;
  colors: ChartColors;
}

const chartTime = (t: number) => toChartTime(t) as UTCTimestamp;
const candleData = (c: Candle): CandlestickData<Time> => ({
  time: chartTime(c.time),
  open: c.open,
  high: c.high,
  low: c.low,
  close: c.close,
});
const volumeData = (c: Candle, colors: ChartColors): HistogramData<Time> => ({
  time: chartTime(c.time),
  value: c.volume,
  color: c.close >= c.open ? colors.upVolume : colors.downVolume,
});

export function PriceChart({
  symbol,
  exchange,
  interval,
  history,
  scheme,
  trades,
  lines,
}: {
  symbol: string;
  exchange: string;
  interval: HistoryInterval;
  /** The history's candles, oldest first; undefined while it loads; empty when it has none or failed. */
  history: readonly Candle[] | undefined;
  scheme: 'light' | 'dark';
  trades: readonly TradeMark[];
  lines: readonly PriceMark[];
}) {
  const box = useRef<HTMLDivElement>(null);
  const drawn = useRef<Drawn | undefined>(undefined);
  const hovering = useRef(false);
  const [legend, setLegend] = useState<Candle | undefined>();
  // Bumped when the history is drawn: the live candle and the overlays follow what is on the chart.
  const [generation, setGeneration] = useState(0);

  // The chart lives as long as the page; the scheme and the interval only change its options.
  useEffect(() => {
    const colors = chartColors(scheme);
    const chart = createChart(box.current!, { autoSize: true, ...chartOptions(colors, interval) });
    const candles = chart.addSeries(CandlestickSeries, {
      upColor: colors.up,
      downColor: colors.down,
      borderVisible: false,
      wickUpColor: colors.up,
      wickDownColor: colors.down,
    });
    // The volume on its own scale, in the lowest fifth of the pane, under the candles.
    const volume = chart.addSeries(HistogramSeries, {
      priceScaleId: '',
      priceFormat: { type: 'volume' },
      lastValueVisible: false,
      priceLineVisible: false,
    });
    volume.priceScale().applyOptions({ scaleMargins: { top: 0.8, bottom: 0 } });
    const state: Drawn = {
      chart,
      candles,
      volume,
      markers: createSeriesMarkers(candles, []),
      lines: [],
      last: undefined,
      colors,
    };
    drawn.current = state;
    chart.subscribeCrosshairMove((param) => {
      // The candle series' data at the cursor (its own bars: OHLC).
      const bar =
        param.time === undefined
          ? undefined
          : (param.seriesData.get(candles) as CandlestickData<Time> | undefined);
      if (!bar) {
        hovering.current = false;
        setLegend(state.last);
        return;
      }
      hovering.current = true;
      const vol = param.seriesData.get(volume);
      setLegend({
        time: fromChartTime(bar.time as number),
        open: bar.open,
        high: bar.high,
        low: bar.low,
        close: bar.close,
        volume: vol && 'value' in vol ? vol.value : 0,
      });
    });
    return () => {
      drawn.current = undefined;
      chart.remove();
    };
    // Created once (with the first scheme and interval); the effects below apply their changes.
  }, []);

  useEffect(() => {
    const d = drawn.current;
    if (!d) return;
    const colors = chartColors(scheme);
    d.colors = colors;
    d.chart.applyOptions(chartOptions(colors, interval));
    d.candles.applyOptions({
      upColor: colors.up,
      downColor: colors.down,
      wickUpColor: colors.up,
      wickDownColor: colors.down,
    });
    // The volume bars carry their colour: painted again from the candles drawn (the live one too).
    const bars = d.candles.data();
    d.volume.setData(
      d.volume.data().map((v, i) => {
        const c = bars[i];
        const up = c && 'open' in c ? c.close >= c.open : true;
        return {
          time: v.time,
          value: 'value' in v ? v.value : 0,
          color: up ? colors.upVolume : colors.downVolume,
        };
      }),
    );
  }, [scheme, interval]);

  useEffect(() => {
    const d = drawn.current;
    if (!d) return;
    // While another interval's (or instrument's) history loads, the old candles are not shown as its.
    if (history === undefined) {
      d.candles.setData([]);
      d.volume.setData([]);
      d.last = undefined;
      setLegend(undefined);
      return;
    }
    d.candles.setData(history.map(candleData));
    d.volume.setData(history.map((c) => volumeData(c, d.colors)));
    d.last = history.at(-1);
    if (history.length > 0)
      d.chart.timeScale().setVisibleLogicalRange({
        from: Math.max(0, history.length - VISIBLE_BARS),
        to: history.length + 5,
      });
    setLegend(d.last);
    setGeneration((g) => g + 1);
  }, [history]);

  // The user's fills as markers: bought below the bar, sold above it.
  useEffect(() => {
    const d = drawn.current;
    if (!d || generation === 0) return;
    if (!d.last) return void d.markers.setMarkers([]);
    const markers: SeriesMarker<Time>[] = trades.map((t) => ({
      time: chartTime(t.time),
      position: t.side === 'BUY' ? 'belowBar' : 'aboveBar',
      shape: t.side === 'BUY' ? 'arrowUp' : 'arrowDown',
      color: t.side === 'BUY' ? d.colors.up : d.colors.down,
      text: t.text,
    }));
    d.markers.setMarkers(markers);
  }, [trades, generation]);

  // Working orders (dashed) and average prices (dotted): drawn again whenever the books change.
  useEffect(() => {
    const d = drawn.current;
    if (!d) return;
    for (const l of d.lines) d.candles.removePriceLine(l);
    d.lines = lines.map((m) =>
      d.candles.createPriceLine({
        price: m.price,
        color: m.kind === 'BUY' ? d.colors.buy : m.kind === 'SELL' ? d.colors.sell : d.colors.average,
        lineWidth: 1,
        lineStyle: m.kind === 'avg' ? LineStyle.Dotted : LineStyle.Dashed,
        axisLabelVisible: true,
        title: m.title,
      }),
    );
  }, [lines, generation]);

  return (
    <Box>
      <ChartLegend candle={legend} interval={interval} />
      <Box
        ref={box}
        data-testid="price-chart"
        role="img"
        aria-label={`Candlestick chart of ${symbol} ${exchange}, ${interval} candles`}
        style={{ height: 'max(300px, min(55vh, 620px))', position: 'relative' }}
      />
      {history !== undefined && (
        <LiveCandle
          key={generation}
          symbol={symbol}
          exchange={exchange}
          interval={interval}
          onCandle={(c) => {
            const d = drawn.current;
            if (!d) return;
            d.candles.update(candleData(c));
            d.volume.update(volumeData(c, d.colors));
            d.last = c;
            if (!hovering.current) setLegend(c);
          }}
          last={() => drawn.current?.last}
        />
      )}
    </Box>
  );
}

/**
 * Moves the live candle with each tick of the feed. Its own component, so the ticks React hears
 * (at most every 250 ms) re-render nothing but it; drawn again (remounted) with each history.
 */
function LiveCandle({
  symbol,
  exchange,
  interval,
  onCandle,
  last,
}: {
  symbol: string;
  exchange: string;
  interval: HistoryInterval;
  onCandle: (c: Candle) => void;
  last: () => Candle | undefined;
}) {
  const refs = useMemo(() => [{ symbol, exchange }], [symbol, exchange]);
  // Depth, as the ladder beside the chart asks: one subscription for both.
  const ticks = useLiveTicks(refs, 'Depth');
  const quote = ticks.quotes.get(tickKey({ symbol, exchange }));
  const applied = useRef<{ quote: unknown; volume: number | null | undefined }>({
    quote: undefined,
    volume: undefined,
  });

  useEffect(() => {
    // The same quote comes again when another instrument ticks or the feed's state changes.
    if (!quote || quote === applied.current.quote) return;
    const seen = applied.current;
    applied.current = { quote, volume: quote.volume ?? seen.volume };
    const candle = mergeTick(
      last(),
      {
        price: quote.ltp,
        at: Math.floor((quote.timestamp ?? Date.now()) / 1000),
        volume: volumeDelta(seen.volume, quote.volume),
        day: { open: quote.open, high: quote.high, low: quote.low, volume: quote.volume },
      },
      interval,
    );
    if (candle) onCandle(candle);
  }, [quote, interval, last, onCandle]);
  return null;
}

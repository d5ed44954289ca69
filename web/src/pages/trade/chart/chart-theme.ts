/**
 * The chart's colours in the console's light and dark schemes (Mantine's palette), and its axis
 * labels in IST (docs/rules/web.md#times-in-ist): the chart reads its times as UTC, so the candles
 * are given shifted by IST's offset (candles.ts) and the labels are written from the instant that
 * shift stands for, in the console's one writing.
 */
import { ColorType, TickMarkType, type DeepPartial, type ChartOptions, type Time } from 'lightweight-charts';
import { formatPrice } from '../../../format-number';
import { istClock, istDay, istTime } from '../../../ist-time';
import { fromChartTime, intervalSeconds, type HistoryInterval } from '../../../features/market/candles';

export interface ChartColors {
  background: string;
  text: string;
  grid: string;
  border: string;
  up: string;
  down: string;
  upVolume: string;
  downVolume: string;
  buy: string;
  sell: string;
  average: string;
}

const LIGHT: ChartColors = {
  background: '#ffffff',
  text: '#495057',
  grid: '#f1f3f5',
  border: '#dee2e6',
  up: '#0ca678',
  down: '#e03131',
  upVolume: 'rgba(12, 166, 120, 0.35)',
  downVolume: 'rgba(224, 49, 49, 0.35)',
  buy: '#1971c2',
  sell: '#c92a2a',
  average: '#e8590c',
};

const DARK: ChartColors = {
  background: '#242424',
  text: '#c9c9c9',
  grid: '#2e2e2e',
  border: '#424242',
  up: '#38d9a9',
  down: '#ff6b6b',
  upVolume: 'rgba(56, 217, 169, 0.3)',
  downVolume: 'rgba(255, 107, 107, 0.3)',
  buy: '#4dabf7',
  sell: '#ff8787',
  average: '#ffa94d',
};

export const chartColors = (scheme: 'light' | 'dark'): ChartColors => (scheme === 'dark' ? DARK : LIGHT);

const msOf = (t: Time) => fromChartTime(t as number) * 1000;
const YEAR = new Intl.DateTimeFormat('en-IN', { timeZone: 'Asia/Kolkata', year: 'numeric' });
const MONTH = new Intl.DateTimeFormat('en-IN', { timeZone: 'Asia/Kolkata', month: 'short' });

/** A candle's time as the legend and the crosshair write it: the day alone for daily candles. */
export function candleTimeLabel(t: number, interval: HistoryInterval): string {
  const ms = t * 1000;
  return intervalSeconds(interval) === undefined ? `${istDay(ms)} ${YEAR.format(ms)}` : `${istTime(ms)} IST`;
}

/** The options that follow the scheme and the interval. */
export function chartOptions(colors: ChartColors, interval: HistoryInterval): DeepPartial<ChartOptions> {
  const intraday = intervalSeconds(interval) !== undefined;
  return {
    layout: {
      background: { type: ColorType.Solid, color: colors.background },
      textColor: colors.text,
      fontFamily: 'inherit',
    },
    grid: { vertLines: { color: colors.grid }, horzLines: { color: colors.grid } },
    rightPriceScale: { borderColor: colors.border, scaleMargins: { top: 0.08, bottom: 0.28 } },
    timeScale: {
      borderColor: colors.border,
      // Room right of the newest candle, so the live one is not pressed against the price axis.
      rightOffset: 6,
      timeVisible: intraday,
      secondsVisible: false,
      tickMarkFormatter: (time: Time, type: TickMarkType) => {
        const ms = msOf(time);
        if (type === TickMarkType.Year) return YEAR.format(ms);
        if (type === TickMarkType.Month) return MONTH.format(ms);
        if (type === TickMarkType.DayOfMonth) return istDay(ms);
        return istClock(ms);
      },
    },
    localization: {
      locale: 'en-IN',
      priceFormatter: (p: number) => formatPrice(p),
      timeFormatter: (time: Time) => candleTimeLabel(fromChartTime(time as number), interval),
    },
  };
}

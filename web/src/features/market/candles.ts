/**
 * The chart page's candles, as pure functions (docs/rules/web.md#live-prices, #times-in-ist): the
 * intervals the broker serves and how far back each one looks, the candle a tick falls in, and how
 * a tick moves the live candle. Times here are epoch seconds, as `/api/v1/history` answers them;
 * {@link toChartTime} shifts them for the chart, which draws its axis in UTC.
 */

/** OpenAlgo's history intervals (`/api/v1/history`'s `interval`), smallest first. */
export const HISTORY_INTERVALS = ['1m', '3m', '5m', '10m', '15m', '30m', '1h', 'D', 'W', 'M'] as const;
export type HistoryInterval = (typeof HISTORY_INTERVALS)[number];

/** `/api/v1/intervals`' answer: the broker's intervals grouped by unit. */
export interface IntervalGroups {
  seconds?: readonly string[];
  minutes?: readonly string[];
  hours?: readonly string[];
  days?: readonly string[];
  weeks?: readonly string[];
  months?: readonly string[];
}

export interface Candle {
  /** The candle's start, epoch seconds. */
  time: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
}

/** IST is UTC+05:30 all year (no daylight saving). */
export const IST_OFFSET_S = 19_800;
const DAY_S = 86_400;

const isInterval = (v: string): v is HistoryInterval => (HISTORY_INTERVALS as readonly string[]).includes(v);

/**
 * The intervals to offer, smallest first: the ones the broker serves that history takes (a seconds
 * interval the history call has no name for is left out).
 */
export function offeredIntervals(groups: IntervalGroups): HistoryInterval[] {
  const all = [
    ...(groups.minutes ?? []),
    ...(groups.hours ?? []),
    ...(groups.days ?? []),
    ...(groups.weeks ?? []),
    ...(groups.months ?? []),
  ].filter(isInterval);
  return HISTORY_INTERVALS.filter((i) => all.includes(i));
}

/** The interval a chart opens at: 5m when offered, else the first minute interval, else D. */
export function defaultInterval(offered: readonly HistoryInterval[]): HistoryInterval {
  if (offered.includes('5m')) return '5m';
  return offered.find((i) => /^\d+m$/.test(i)) ?? (offered.includes('D') ? 'D' : (offered[0] ?? 'D'));
}

/**
 * How many days of history a chart of each interval asks for: enough candles to read the trend,
 * few enough to come back in one or two broker requests (Kite serves 60 days of 1-minute candles a
 * request, 100 of 3–10 minutes, 200 of 15–30, 400 of hours).
 */
const LOOKBACK_DAYS: Record<HistoryInterval, number> = {
  '1m': 5,
  '3m': 10,
  '5m': 30,
  '10m': 30,
  '15m': 60,
  '30m': 60,
  '1h': 90,
  D: 365,
  W: 3 * 365,
  M: 10 * 365,
};

/** The IST calendar date of an instant (epoch ms) as `YYYY-MM-DD`. */
export function istDate(ms: number): string {
  return new Date(ms + IST_OFFSET_S * 1000).toISOString().slice(0, 10);
}

/** The history call's date range for an interval, ending today (IST). */
export function historyRange(
  interval: HistoryInterval,
  nowMs: number,
): { start_date: string; end_date: string } {
  return {
    start_date: istDate(nowMs - LOOKBACK_DAYS[interval] * DAY_S * 1000),
    end_date: istDate(nowMs),
  };
}

/** An intraday interval's length in seconds; undefined for D, W and M. */
export function intervalSeconds(interval: HistoryInterval): number | undefined {
  const m = /^(\d+)([mh])$/.exec(interval);
  if (!m) return undefined;
  return Number(m[1]) * (m[2] === 'h' ? 3600 : 60);
}

/**
 * The start of the candle an instant (epoch seconds) falls in. Intraday candles are counted from
 * `anchor`, a known candle's start (the history's last): the exchange's candles start at the
 * session's open (NSE's hourly ones at 09:15, 10:15…, not on the hour), and each length divides a
 * day, so one candle fixes them all; with none, from IST midnight. A day starts at IST midnight
 * (where the broker's daily candles are stamped), a week on Monday, a month on its first day.
 */
export function bucketStart(t: number, interval: HistoryInterval, anchor?: number): number {
  const step = intervalSeconds(interval);
  if (step !== undefined) {
    const from = anchor ?? -IST_OFFSET_S;
    return t - ((((t - from) % step) + step) % step);
  }
  const local = t + IST_OFFSET_S;
  const day = Math.floor(local / DAY_S) * DAY_S;
  if (interval === 'D') return day - IST_OFFSET_S;
  if (interval === 'W') {
    // 1970-01-01 was a Thursday: days since a Monday are (days + 3) mod 7.
    const sinceMonday = (Math.floor(local / DAY_S) + 3) % 7;
    return day - sinceMonday * DAY_S - IST_OFFSET_S;
  }
  const d = new Date(day * 1000);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) / 1000 - IST_OFFSET_S;
}

/** One tick as the chart takes it. */
export interface TickIn {
  price: number;
  /** When it was taken, epoch seconds. */
  at: number;
  /** Volume traded since the previous tick (see {@link volumeDelta}). */
  volume: number;
  /** The day's open, high, low and volume, when the quote carries them (used by daily candles). */
  day?: { open?: number | null; high?: number | null; low?: number | null; volume?: number | null };
}

/**
 * The volume traded between two ticks from the day's cumulative volume: nothing for the first tick
 * (its volume is in the history's candles already) or when the count went down (a new day or
 * another source), never a negative bar.
 */
export function volumeDelta(previous: number | null | undefined, next: number | null | undefined): number {
  if (typeof previous !== 'number' || typeof next !== 'number' || next < previous) return 0;
  return next - previous;
}

const num = (v: number | null | undefined): v is number => typeof v === 'number' && Number.isFinite(v);

/**
 * The live candle after a tick: the last candle moved when the tick falls in it (high and low
 * stretched, the close at the tick, its volume added), a new candle opening at the tick when it
 * falls in a later one, and null for a tick older than the last candle (a late or replayed tick,
 * which the chart cannot draw behind its newest bar). A daily candle takes the day's own open,
 * high, low and volume when the quote carries them: the exchange's figures, not the ticks seen.
 */
export function mergeTick(last: Candle | undefined, tick: TickIn, interval: HistoryInterval): Candle | null {
  const time = bucketStart(tick.at, interval, last?.time);
  if (last && time < last.time) return null;
  const daily = interval === 'D' ? tick.day : undefined;
  const p = tick.price;
  if (last && time === last.time) {
    return {
      time,
      open: last.open,
      high: Math.max(last.high, p, num(daily?.high) ? daily.high : p),
      low: Math.min(last.low, p, num(daily?.low) && daily.low > 0 ? daily.low : p),
      close: p,
      volume: num(daily?.volume) ? daily.volume : last.volume + tick.volume,
    };
  }
  const open = num(daily?.open) && daily.open > 0 ? daily.open : p;
  return {
    time,
    open,
    high: Math.max(open, p, num(daily?.high) ? daily.high : p),
    low: Math.min(open, p, num(daily?.low) && daily.low > 0 ? daily.low : p),
    close: p,
    volume: num(daily?.volume) ? daily.volume : tick.volume,
  };
}

/** The chart's time of a candle: shifted by IST's offset, so its UTC axis reads IST wall-clock time. */
export const toChartTime = (t: number): number => t + IST_OFFSET_S;
/** The instant (epoch seconds) a chart time stands for. */
export const fromChartTime = (t: number): number => t - IST_OFFSET_S;

/**
 * A book's timestamp (`YYYY-MM-DD HH:MM:SS`, IST, docs/rules/web.md#times-in-ist; a broker's
 * time-only `HH:MM:SS` is today's) as epoch seconds; undefined when it is neither.
 */
export function bookInstant(text: string, nowMs: number): number | undefined {
  const s = text.trim();
  const full = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})$/.exec(s);
  const timeOnly = /^(\d{2}:\d{2}:\d{2})$/.exec(s);
  const iso = full ? `${full[1]}T${full[2]}+05:30` : timeOnly ? `${istDate(nowMs)}T${timeOnly[1]}+05:30` : '';
  const ms = iso ? Date.parse(iso) : NaN;
  return Number.isNaN(ms) ? undefined : ms / 1000;
}

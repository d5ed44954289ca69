/**
 * What Fyers' quote client (fyers-quotes.ts) needs to read candles from Fyers API v3's history
 * API (myapi.fyers.in/docsv3 "Data Api › History"):
 * `GET /data/history?symbol=NSE:SBIN-EQ&resolution=<r>&date_format=1&range_from=YYYY-MM-DD
 * &range_to=YYYY-MM-DD`, resolutions "1", "2", "3", "5", "10", "15", "20", "30", "60", "120",
 * "240" minutes and "D" (seconds too, not offered here). Limits ("Limits for History"): up to 100
 * days a request for minute resolutions, 366 days for daily; a longer range goes in consecutive
 * windows ({@link FYERS_MAX_WINDOWS} at most), one after another. Derivatives also send
 * `cont_flag=1` and `oi_flag=1` (the open interest becomes a candle's seventh value), as the docs
 * describe the flags.
 *
 * The answer is `{"s":"ok","candles":[[epoch s, open, high, low, close, volume(, oi)], …]}`.
 * Minute candles are timed by their start; a daily candle is placed at 00:00 IST of its IST day
 * (the docs' sample stamps days at 00:00 UTC), as the other brokers' day candles are.
 */
import { DERIVATIVE_EXCHANGES } from '../../../domain/exchanges.js';
import type { Candle, HistoryInterval, QuoteInstrument } from './quote-client.js';
import { isIsoDate, readPrice } from './quote-fields.js';
import { dateWindows } from './zerodha-quotes.js';

/** OpenAlgo's interval names and Fyers' resolutions (`W`, `M` have none). */
export const FYERS_INTERVALS: Partial<Record<HistoryInterval, string>> = {
  '1m': '1',
  '3m': '3',
  '5m': '5',
  '10m': '10',
  '15m': '15',
  '30m': '30',
  '1h': '60',
  D: 'D',
};

/** Days one request may span: 100 for minute resolutions, 366 for daily. */
export const FYERS_INTRADAY_MAX_DAYS = 100;
export const FYERS_DAILY_MAX_DAYS = 366;
/** The most windows one history call may take (25 × 100 days, near seven years). */
export const FYERS_MAX_WINDOWS = 25;

const FYERS_SYMBOL = /^[A-Z]+:[^,\s]+$/;

/** The request paths of `history(instrument, interval, from, to)`, or why it cannot be sent. */
export function fyersHistoryPlan(
  i: QuoteInstrument,
  interval: HistoryInterval,
  from: string,
  to: string,
): { paths: string[]; daily: boolean } | { refusal: string } {
  const resolution = FYERS_INTERVALS[interval];
  if (!resolution) return { refusal: `interval ${interval} is not one Fyers serves` };
  if (!FYERS_SYMBOL.test(i.brsymbol)) return { refusal: `${i.symbol} has no Fyers symbol` };
  if (!isIsoDate(from) || !isIsoDate(to)) return { refusal: 'dates are YYYY-MM-DD' };
  const daily = resolution === 'D';
  if (from > to) return { paths: [], daily };
  const windows = dateWindows(from, to, daily ? FYERS_DAILY_MAX_DAYS : FYERS_INTRADAY_MAX_DAYS);
  if (windows.length > FYERS_MAX_WINDOWS)
    return { refusal: `at most ${FYERS_MAX_WINDOWS} requests of ${interval} candles per call` };
  const derivative = DERIVATIVE_EXCHANGES.has(i.exchange);
  const paths = windows.map(([a, b]) => {
    const q = new URLSearchParams({
      symbol: i.brsymbol,
      resolution,
      date_format: '1',
      range_from: a,
      range_to: b,
    });
    if (derivative) {
      q.set('cont_flag', '1');
      q.set('oi_flag', '1');
    }
    return `/data/history?${q.toString()}`;
  });
  return { paths, daily };
}

const DAY_MS = 86_400_000;
const IST_MS = 19_800_000;
const istMidnight = (ms: number) => Math.floor((ms + IST_MS) / DAY_MS) * DAY_MS - IST_MS;
const count = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** The candles of a history answer; rows without a time or a price are skipped. */
export function readFyersCandles(json: unknown, daily: boolean): Candle[] {
  const list =
    typeof json === 'object' && json !== null ? (json as { candles?: unknown }).candles : undefined;
  const out: Candle[] = [];
  for (const row of Array.isArray(list) ? list : []) {
    if (!Array.isArray(row)) continue;
    const t: unknown = row[0];
    if (typeof t !== 'number' || !Number.isFinite(t)) continue;
    const [o, h, l, c] = [row[1], row[2], row[3], row[4]].map(readPrice);
    if (o === undefined || h === undefined || l === undefined || c === undefined) continue;
    const ms = t * 1000;
    out.push({
      time: daily ? istMidnight(ms) : ms,
      open: o,
      high: h,
      low: l,
      close: c,
      volume: count(row[5]),
      oi: count(row[6]),
    });
  }
  return out;
}

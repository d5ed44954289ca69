/**
 * What the Noren quote client (noren-quotes.ts) needs to read candles (NorenApi-Py README
 * "get_time_price_series", "get_daily_price_series"; OpenAlgo broker/flattrade/api/data.py):
 *
 * - intraday: `POST <base>/TPSeries` jData `{"uid","exch","token","st","et","intrv"}`, `st`/`et`
 *   epoch seconds, `intrv` minutes "1", "3", "5", "10", "15", "30", "60" (also "120", "240", which
 *   OpenAlgo's intervals do not name). The answer is an array, newest first, of
 *   `{"stat":"Ok","time":"02-06-2020 15:46:23","ssboe","into","inth","intl","intc","intv","intoi","oi"}`
 *   (strings; `time` is IST `DD-MM-YYYY HH:MM:SS`, `ssboe` its epoch seconds when sent). Minutes
 *   without trades come as rows of zero prices and are left out. No span limit is documented: a
 *   range goes in windows of {@link NOREN_INTRADAY_DAYS} days, at most {@link NOREN_MAX_WINDOWS};
 * - daily: `POST <base>/EODChartData` jData `{"sym":"NSE:PAYTM-EQ","from","to"}` (the exchange and
 *   trading symbol, epoch seconds), answered by an array of JSON *strings* (the README's example;
 *   objects are read too) `{"time":"21-SEP-2022","into","inth","intl","intc","ssboe","intv"}`; each
 *   candle is placed at 00:00 IST of its day.
 *
 * A `Not_Ok` answer whose `emsg` says "no data" is an empty series.
 */
import type { Candle, HistoryInterval, QuoteInstrument } from './quote-client.js';
import { isIsoDate, isObject, readPrice } from './quote-fields.js';
import { dateWindows } from './zerodha-quotes.js';

/** OpenAlgo's interval names and Noren's (`D` is EODChartData). */
export const NOREN_INTERVALS: Partial<Record<HistoryInterval, string>> = {
  '1m': '1',
  '3m': '3',
  '5m': '5',
  '10m': '10',
  '15m': '15',
  '30m': '30',
  '1h': '60',
  D: 'D',
};

/** Days one TPSeries request spans (none is documented). */
export const NOREN_INTRADAY_DAYS = 30;
/** The most TPSeries windows one history call sends. */
export const NOREN_MAX_WINDOWS = 25;

/** One history request: its endpoint and jData (the `uid` is added by the client). */
export interface NorenHistoryRequest {
  endpoint: 'TPSeries' | 'EODChartData';
  data: Record<string, string>;
}

const TOKEN = /^\d+$/;
const IST_MS = 19_800_000;
const DAY_MS = 86_400_000;

/** Epoch seconds of an IST wall-clock time on an ISO date. */
const istSeconds = (iso: string, time: string) => String(Date.parse(`${iso}T${time}+05:30`) / 1000);

/** The requests of `history(instrument, interval, from, to)`, or why there are none. */
export function norenHistoryPlan(
  i: QuoteInstrument,
  interval: HistoryInterval,
  from: string,
  to: string,
): { requests: NorenHistoryRequest[]; daily: boolean } | { refusal: string } {
  const intrv = NOREN_INTERVALS[interval];
  if (!intrv) return { refusal: `interval ${interval} is not one Noren serves` };
  if (!TOKEN.test(i.token) || i.brexchange === '' || i.brsymbol === '')
    return { refusal: `${i.symbol} has no Noren exchange, token and trading symbol` };
  if (!isIsoDate(from) || !isIsoDate(to)) return { refusal: 'dates are YYYY-MM-DD' };
  if (from > to) return { requests: [], daily: intrv === 'D' };
  if (intrv === 'D') {
    const data = {
      sym: `${i.brexchange}:${i.brsymbol}`,
      from: istSeconds(from, '00:00:00'),
      to: istSeconds(to, '23:59:59'),
    };
    return { requests: [{ endpoint: 'EODChartData', data }], daily: true };
  }
  const windows = dateWindows(from, to, NOREN_INTRADAY_DAYS);
  if (windows.length > NOREN_MAX_WINDOWS)
    return {
      refusal: `at most ${NOREN_MAX_WINDOWS * NOREN_INTRADAY_DAYS} days of ${interval} candles per request`,
    };
  const requests = windows.map(([a, b]) => ({
    endpoint: 'TPSeries' as const,
    data: {
      exch: i.brexchange,
      token: i.token,
      st: istSeconds(a, '00:00:00'),
      et: istSeconds(b, '23:59:59'),
      intrv,
    },
  }));
  return { requests, daily: false };
}

const count = (v: unknown): number => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : 0;
};
const price = (v: unknown) => readPrice(typeof v === 'string' && v.trim() !== '' ? Number(v) : v);

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];

/** Epoch ms of a candle: `ssboe`, else `time` (`02-06-2020 15:46:23` or `21-SEP-2022`, IST). */
function candleTime(r: Record<string, unknown>): number | undefined {
  const s = count(r.ssboe);
  if (s > 0) return s * 1000;
  const t = typeof r.time === 'string' ? r.time.trim() : '';
  const a = /^(\d{2})-(\d{2})-(\d{4}) (\d{2}):(\d{2}):(\d{2})$/.exec(t);
  if (a) return Date.UTC(+a[3]!, +a[2]! - 1, +a[1]!, +a[4]!, +a[5]!, +a[6]!) - IST_MS;
  const b = /^(\d{2})-([A-Za-z]{3})-(\d{4})$/.exec(t);
  const month = b ? MONTHS.indexOf(b[2]!.toUpperCase()) : -1;
  if (b && month >= 0) return Date.UTC(+b[3]!, month, +b[1]!) - IST_MS;
  return undefined;
}

/** 00:00 IST of the IST day `ms` falls on. */
const istMidnight = (ms: number) => Math.floor((ms + IST_MS) / DAY_MS) * DAY_MS - IST_MS;

/** The candles of a TPSeries or EODChartData answer, oldest first; zero-price rows left out. */
export function readNorenCandles(json: unknown, daily: boolean): Candle[] {
  const out: Candle[] = [];
  for (const item of Array.isArray(json) ? (json as unknown[]) : []) {
    let r: unknown = item;
    if (typeof item === 'string')
      try {
        r = JSON.parse(item);
      } catch {
        continue;
      }
    if (!isObject(r)) continue;
    const time = candleTime(r);
    const [open, high, low, close] = [r.into, r.inth, r.intl, r.intc].map(price);
    if (
      time === undefined ||
      open === undefined ||
      high === undefined ||
      low === undefined ||
      close === undefined
    )
      continue;
    if (open === 0 && high === 0 && close === 0) continue;
    out.push({
      time: daily ? istMidnight(time) : time,
      open,
      high,
      low,
      close,
      volume: count(r.intv),
      oi: count(r.oi ?? r.intoi),
    });
  }
  const byTime = new Map(out.map((c) => [c.time, c]));
  return [...byTime.values()].sort((a, b) => a.time - b.time);
}

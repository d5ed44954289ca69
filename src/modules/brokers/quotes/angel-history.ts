/**
 * What Angel One's quote client (angel-quotes.ts) needs to read candles from SmartAPI's historical
 * API (smartapi.angelone.in/docs/Historical): `POST /rest/secure/angelbroking/historical/v1/
 * getCandleData` with `{"exchange":"NSE","symboltoken":"3045","interval":"ONE_MINUTE",
 * "fromdate":"2023-09-06 09:15","todate":"2023-09-06 15:30"}` (times `YYYY-MM-DD HH:mm`, IST),
 * answered `{"status":true,"message":"SUCCESS","errorcode":"","data":[["2023-09-06T09:15:00+05:30",
 * o, h, l, c, volume], …]}`, each row the candle's start with its IST offset.
 *
 * Intervals ONE_MINUTE, THREE_MINUTE, FIVE_MINUTE, TEN_MINUTE, FIFTEEN_MINUTE, THIRTY_MINUTE,
 * ONE_HOUR, ONE_DAY; one request spans at most 30, 60, 100, 100, 200, 200, 400 and 2000 days of
 * them ({@link ANGEL_MAX_DAYS}, the docs' "Max Days in one Request"), so a longer range is asked for
 * in consecutive windows, at most {@link ANGEL_MAX_WINDOWS}, one after the other and paced under
 * getCandleData's rate limit of 3 requests a second (SmartAPI forum topic 4387, "Changes in API
 * Rate Limit": 3 a second, 500 a minute, 5000 an hour).
 */
import type { Candle, HistoryInterval, QuoteInstrument } from './quote-client.js';
import { isIsoDate, readCandles } from './quote-fields.js';
import { dateWindows } from './zerodha-quotes.js';

/** The historical endpoint. */
export const ANGEL_HISTORY_PATH = '/rest/secure/angelbroking/historical/v1/getCandleData';

/** OpenAlgo's interval names and SmartAPI's. */
export const ANGEL_INTERVALS: Partial<Record<HistoryInterval, string>> = {
  '1m': 'ONE_MINUTE',
  '3m': 'THREE_MINUTE',
  '5m': 'FIVE_MINUTE',
  '10m': 'TEN_MINUTE',
  '15m': 'FIFTEEN_MINUTE',
  '30m': 'THIRTY_MINUTE',
  '1h': 'ONE_HOUR',
  D: 'ONE_DAY',
};

/** The most days one getCandleData request may span, by SmartAPI interval. */
export const ANGEL_MAX_DAYS: Readonly<Record<string, number>> = {
  ONE_MINUTE: 30,
  THREE_MINUTE: 60,
  FIVE_MINUTE: 100,
  TEN_MINUTE: 100,
  FIFTEEN_MINUTE: 200,
  THIRTY_MINUTE: 200,
  ONE_HOUR: 400,
  ONE_DAY: 2000,
};

/** The most windows one history call may take (25 × 30 days of minutes, 137 years of days). */
export const ANGEL_MAX_WINDOWS = 25;
/** The gap between two getCandleData requests of one call: Angel allows 3 a second. */
export const ANGEL_HISTORY_PACE_MS = 340;

/** A symbol token: digits (index tokens too: `99926000`). */
const TOKEN = /^\d+$/;

/** The request bodies of `history(instrument, interval, from, to)`, or why there are none. */
export function angelHistoryBodies(
  i: QuoteInstrument,
  interval: HistoryInterval,
  from: string,
  to: string,
): { bodies: Record<string, string>[] } | { refusal: string } {
  const angelInterval = ANGEL_INTERVALS[interval];
  if (!angelInterval) return { refusal: `interval ${interval} is not one Angel One serves` };
  if (!TOKEN.test(i.token) || i.brexchange === '')
    return { refusal: `${i.symbol} has no Angel One exchange and symbol token` };
  if (!isIsoDate(from) || !isIsoDate(to)) return { refusal: 'dates are YYYY-MM-DD' };
  const days = ANGEL_MAX_DAYS[angelInterval] ?? 30;
  const windows = dateWindows(from, to, days);
  if (windows.length > ANGEL_MAX_WINDOWS)
    return {
      refusal: `at most ${ANGEL_MAX_WINDOWS * days} days of ${interval} candles per request (Angel One serves ${days} a call)`,
    };
  const bodies = windows.map(([a, b]) => ({
    exchange: i.brexchange,
    symboltoken: i.token,
    interval: angelInterval,
    fromdate: `${a} 00:00`,
    todate: `${b} 23:59`,
  }));
  return { bodies };
}

/** The candles of a getCandleData `data` (rows `[time, o, h, l, c, v]`); none for null or `[]`. */
export function readAngelCandles(data: unknown): Candle[] {
  return readCandles({ candles: Array.isArray(data) ? data : [] });
}

/**
 * What Dhan's quote client (dhan-quotes.ts) needs to read candles from DhanHQ v2's charts APIs
 * (dhanhq.co/docs/v2/historical-data):
 *
 * - `POST /charts/historical`, daily candles back to the instrument's inception, body
 *   `{securityId, exchangeSegment, instrument, expiryCode, oi, fromDate, toDate}` with dates
 *   `YYYY-MM-DD`, `toDate` not included (so the day after the last one wanted is sent);
 * - `POST /charts/intraday`, minute candles of `interval` "1", "5", "15", "25" or "60", body
 *   `{securityId, exchangeSegment, instrument, interval, oi, fromDate, toDate}` with times
 *   `YYYY-MM-DD HH:mm:ss` (IST), at most 90 days a request: a longer range goes in consecutive
 *   windows of 90 days ({@link DHAN_INTRADAY_MAX_DAYS}), at most {@link DHAN_MAX_WINDOWS} of them.
 *
 * `instrument` is the annexure's instrument type (INDEX, EQUITY, FUTIDX, OPTIDX, FUTSTK, OPTSTK,
 * FUTCUR, OPTCUR, FUTCOM, OPTFUT). {@link QuoteInstrument} has no such field, so it is derived
 * from the exchange's segment (src/domain/exchanges.ts) and, for derivatives, the canonical
 * symbol's underlying and kind (an underlying in src/domain's index list is an index). `oi` is
 * asked only for derivatives (the docs: "Open Interest data for Futures & Options"); `expiryCode`
 * 0 (near expiry), as the docs' daily example sends it.
 *
 * The answer is parallel arrays `open`, `high`, `low`, `close`, `volume`, `timestamp` (epoch
 * seconds) and, with `oi`, `open_interest`. Intraday timestamps are the candle's start; a daily
 * candle is placed at 00:00 IST of its day (the day its timestamp falls on in IST, whether Dhan
 * stamps it at 00:00 IST or 00:00 UTC), as Kite's and Upstox's day candles are.
 *
 * Rate: the Data APIs allow 5 requests a second (docs "Rate Limit"): the client sends chart
 * requests at least {@link DHAN_CHART_INTERVAL_MS} apart ({@link Pacer}).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { EXCHANGE_SEGMENTS, type Exchange } from '../../../domain/exchanges.js';
import { underlyingClass } from '../../../domain/fno-margin.js';
import type { Candle, HistoryInterval, QuoteInstrument } from './quote-client.js';
import { isIsoDate, isObject, readPrice } from './quote-fields.js';
import { dateWindows } from './zerodha-quotes.js';
import { DHAN_SEGMENT_EXCHANGE } from '../dhan/dhan.mapping.js';

/**
 * OpenAlgo's interval names and Dhan's (`D` is the daily endpoint). Dhan's 25-minute candles
 * (OpenAlgo's `25m`) are not offered: `25m` is not among quote-client.ts `HISTORY_INTERVALS`.
 */
export const DHAN_INTERVALS: Partial<Record<HistoryInterval, string>> = {
  '1m': '1',
  '5m': '5',
  '15m': '15',
  '1h': '60',
  D: 'D',
};

/** The most days one intraday request may span (docs: "only 90 days of data can be polled"). */
export const DHAN_INTRADAY_MAX_DAYS = 90;
/** The most intraday windows one history call may take (25 × 90 days, over 6 years). */
export const DHAN_MAX_WINDOWS = 25;
/** Documented rate of the Data APIs: 5 requests a second. */
export const DHAN_CHART_INTERVAL_MS = 200;

/** The charts endpoints, below the base URL (`…/v2`). */
export const DHAN_CHART_PATHS = { daily: '/charts/historical', intraday: '/charts/intraday' } as const;

/** A canonical derivative symbol: underlying, `DDMMMYY` expiry, then `FUT` or strike and side. */
const DERIVATIVE = /^(?<base>.+?)\d{2}[A-Z]{3}\d{2}(?<tail>FUT|[\d.]+(?:CE|PE))$/;
const SECURITY_ID = /^\d+$/;

/** Dhan's instrument type of an instrument (annexure "Instrument"); undefined when unknown. */
export function dhanInstrumentType(i: QuoteInstrument): string | undefined {
  const segment = Object.hasOwn(EXCHANGE_SEGMENTS, i.exchange)
    ? EXCHANGE_SEGMENTS[i.exchange as Exchange]
    : undefined;
  if (segment === 'cash') return 'EQUITY';
  if (segment === 'index') return 'INDEX';
  const parts = DERIVATIVE.exec(i.symbol)?.groups;
  if (segment === undefined || !parts) return undefined;
  const future = parts.tail === 'FUT';
  switch (underlyingClass(i.exchange, parts.base!)) {
    case 'index':
      return future ? 'FUTIDX' : 'OPTIDX';
    case 'stock':
      return future ? 'FUTSTK' : 'OPTSTK';
    case 'currency':
      return future ? 'FUTCUR' : 'OPTCUR';
    case 'commodity':
      return future ? 'FUTCOM' : 'OPTFUT';
    default:
      return undefined;
  }
}

/** One charts request: its path and JSON body. */
export interface DhanChartRequest {
  path: string;
  body: Record<string, unknown>;
}

/** What a history call sends (`daily` tells how its candles are timed), or why it cannot. */
export type DhanHistoryPlan = { requests: DhanChartRequest[]; daily: boolean } | { refusal: string };

/** The day after an ISO date. */
const nextDay = (iso: string) =>
  new Date(Date.parse(`${iso}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);

/** The requests of `history(instrument, interval, from, to)`; see the file comment. */
export function dhanHistoryPlan(
  i: QuoteInstrument,
  interval: HistoryInterval,
  from: string,
  to: string,
): DhanHistoryPlan {
  const dhanInterval = DHAN_INTERVALS[interval];
  if (!dhanInterval) return { refusal: `interval ${interval} is not one Dhan serves` };
  const instrument = dhanInstrumentType(i);
  if (!SECURITY_ID.test(i.token) || !Object.hasOwn(DHAN_SEGMENT_EXCHANGE, i.brexchange) || !instrument)
    return { refusal: `${i.symbol} has no Dhan security id, segment and instrument type` };
  if (!isIsoDate(from) || !isIsoDate(to)) return { refusal: 'dates are YYYY-MM-DD' };
  const base = {
    securityId: i.token,
    exchangeSegment: i.brexchange,
    instrument,
  };
  const oi = instrument !== 'EQUITY' && instrument !== 'INDEX';
  if (dhanInterval === 'D') {
    if (from > to) return { requests: [], daily: true };
    const body = { ...base, expiryCode: 0, oi, fromDate: from, toDate: nextDay(to) };
    return { requests: [{ path: DHAN_CHART_PATHS.daily, body }], daily: true };
  }
  const windows = dateWindows(from, to, DHAN_INTRADAY_MAX_DAYS);
  if (windows.length > DHAN_MAX_WINDOWS)
    return {
      refusal: `at most ${DHAN_MAX_WINDOWS * DHAN_INTRADAY_MAX_DAYS} days of ${interval} candles per request (Dhan serves ${DHAN_INTRADAY_MAX_DAYS} a call)`,
    };
  const requests = windows.map(([a, b]) => ({
    path: DHAN_CHART_PATHS.intraday,
    body: { ...base, interval: dhanInterval, oi, fromDate: `${a} 00:00:00`, toDate: `${b} 23:59:59` },
  }));
  return { requests, daily: false };
}

const DAY_MS = 86_400_000;
const IST_MS = 19_800_000;

/** 00:00 IST of the IST day `ms` falls on. */
const istMidnight = (ms: number) => Math.floor((ms + IST_MS) / DAY_MS) * DAY_MS - IST_MS;

const count = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** The candles of a charts answer (parallel arrays); rows without a time or a price are skipped. */
export function readDhanCandles(json: unknown, daily: boolean): Candle[] {
  if (!isObject(json)) return [];
  const col = (k: string): unknown[] => (Array.isArray(json[k]) ? (json[k] as unknown[]) : []);
  const [time, open, high, low, close] = ['timestamp', 'open', 'high', 'low', 'close'].map(col);
  const [volume, oi] = [col('volume'), col('open_interest')];
  const out: Candle[] = [];
  for (const [n, t] of time!.entries()) {
    if (typeof t !== 'number' || !Number.isFinite(t)) continue;
    const [o, h, l, c] = [open![n], high![n], low![n], close![n]].map(readPrice);
    if (o === undefined || h === undefined || l === undefined || c === undefined) continue;
    const ms = t * 1000;
    const candle = { open: o, high: h, low: l, close: c, volume: count(volume[n]), oi: count(oi[n]) };
    out.push({ time: daily ? istMidnight(ms) : ms, ...candle });
  }
  return out;
}

/** Candles of several answers, oldest first, one per time (a later answer's row wins). */
export function joinCandles(candles: readonly Candle[]): Candle[] {
  const byTime = new Map<number, Candle>();
  for (const c of candles) byTime.set(c.time, c);
  return [...byTime.values()].sort((a, b) => a.time - b.time);
}

/**
 * Requests of one client one after another, each at least `gapMs` after the previous one (the
 * docs' per-second rates are per user, so the pacing is per client, not per call).
 */
export class Pacer {
  /** When the last request went out (performance.now()). */
  private last = -Infinity;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly gapMs: number) {}

  run<R>(send: () => Promise<R>, signal?: AbortSignal): Promise<R> {
    const go = async () => {
      const wait = this.last + this.gapMs - performance.now();
      if (wait > 0) await sleep(wait, undefined, signal ? { signal } : undefined);
      this.last = performance.now();
      return send();
    };
    const next = this.queue.then(go, go);
    this.queue = next.catch(() => undefined);
    return next;
  }
}

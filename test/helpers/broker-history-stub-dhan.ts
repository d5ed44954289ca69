/**
 * DhanHQ v2's charts APIs on a {@link DhanStub} (dhanhq.co/docs/v2/historical-data), registered by
 * {@link serveDhanCharts}:
 *
 * - `POST /v2/charts/historical` `{securityId, exchangeSegment, instrument, expiryCode?, oi?,
 *   fromDate, toDate}`, dates `YYYY-MM-DD`, `toDate` not included: the daily candles of the day
 *   `fromDate` to the day before `toDate`;
 * - `POST /v2/charts/intraday` `{securityId, exchangeSegment, instrument, interval, oi?, fromDate,
 *   toDate}`, `interval` one of "1", "5", "15", "25", "60", times `YYYY-MM-DD HH:mm:ss` (IST), at
 *   most 90 days apart: the minute candles from `fromDate` to `toDate`.
 *
 * Both answer the documented response structure, parallel arrays `open`, `high`, `low`, `close`,
 * `volume`, `timestamp` (epoch seconds), plus `open_interest` when `oi` is true, from the candles
 * the test put in {@link DhanCharts.daily} or {@link DhanCharts.intraday} (keyed
 * `SEGMENT|securityId`), in the order they were put. Like every DhanStub route they need the
 * account's `access-token` (else DH-901); a body outside the documented fields, enums and formats
 * is DH-905 (400); chart requests closer together than {@link DhanCharts.intervalMs} (default
 * 200 ms: the Data APIs' documented 5 a second) get the DH-904 rate-limit refusal (429).
 */
import { DHAN_INVALID_TOKEN, DHAN_RATE_LIMIT, dhanError, type DhanStub } from './broker-order-stub-dhan.js';
import type { RecordedRequest, StubAnswer } from './broker-stub.js';

/** One candle as Dhan's arrays carry it (`time`: epoch seconds). */
export interface DhanCandleRow {
  time: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
  oi?: number;
}

/**
 * The first two candles of the docs' daily example (security 1333 on NSE_EQ, `fromDate`
 * 2022-01-08): its open, high, low, close and volume figures, stamped at 00:00 IST of 10 and
 * 11 January 2022, the first trading days of that range.
 */
export const DHAN_DOC_DAILY: readonly DhanCandleRow[] = [
  { time: 1641753000, open: 3978, high: 3978, low: 3861, close: 3879.85, volume: 3937092 },
  { time: 1641839400, open: 3856, high: 3925, low: 3856, close: 3915.9, volume: 1906106 },
];

const SEGMENTS = [
  'IDX_I',
  'NSE_EQ',
  'NSE_FNO',
  'NSE_CURRENCY',
  'BSE_EQ',
  'MCX_COMM',
  'BSE_CURRENCY',
  'BSE_FNO',
];
const INSTRUMENTS = [
  'INDEX',
  'FUTIDX',
  'OPTIDX',
  'EQUITY',
  'FUTSTK',
  'OPTSTK',
  'FUTCOM',
  'OPTFUT',
  'FUTCUR',
  'OPTCUR',
];
const INTERVALS = ['1', '5', '15', '25', '60'];
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
const DAY_S = 86_400;

/** DH-905, the documented input error. */
const input = (message: string): StubAnswer => ({
  status: 400,
  body: dhanError('Input_Exception', 'DH-905', message),
});

/** IST `YYYY-MM-DD[ HH:mm:ss]` → epoch seconds. */
const istSeconds = (s: string) =>
  Date.parse(`${s.replace(' ', 'T')}${s.length === 10 ? 'T00:00:00' : ''}+05:30`) / 1000;

/** The charts routes of one DhanStub; see the file comment. */
export class DhanCharts {
  /** Daily candles by `SEGMENT|securityId`. */
  readonly daily = new Map<string, DhanCandleRow[]>();
  /** Minute candles by `SEGMENT|securityId` (whatever the interval asked). */
  readonly intraday = new Map<string, DhanCandleRow[]>();
  /** Least time between two chart requests before a rate-limit refusal, ms (docs: 5 a second). */
  intervalMs = 200;
  private lastAt = -Infinity;

  constructor(private readonly stub: DhanStub) {
    stub.route('POST', '/v2/charts/historical', (r) => this.answer(r, 'daily'));
    stub.route('POST', '/v2/charts/intraday', (r) => this.answer(r, 'intraday'));
  }

  /** JSON bodies of the chart requests of `kind` received, in order. */
  bodies(kind: 'daily' | 'intraday'): Record<string, unknown>[] {
    return this.stub.bodies(kind === 'daily' ? '/v2/charts/historical' : '/v2/charts/intraday');
  }

  private answer(req: RecordedRequest, kind: 'daily' | 'intraday'): StubAnswer {
    if (this.stub.credentialOf(req) !== 'exact') return DHAN_INVALID_TOKEN;
    const now = performance.now();
    if (now - this.lastAt < this.intervalMs) return DHAN_RATE_LIMIT;
    this.lastAt = now;
    let b: Record<string, unknown>;
    try {
      b = JSON.parse(req.body) as Record<string, unknown>;
    } catch {
      return input('the body is not JSON');
    }
    if (typeof b.securityId !== 'string' || !/^\d+$/.test(b.securityId)) return input('Invalid securityId');
    if (!SEGMENTS.includes(String(b.exchangeSegment))) return input('Invalid exchangeSegment');
    if (!INSTRUMENTS.includes(String(b.instrument))) return input('Invalid instrument');
    if (b.oi !== undefined && typeof b.oi !== 'boolean') return input('Invalid oi');
    if (b.expiryCode !== undefined && ![0, 1, 2].includes(b.expiryCode as number))
      return input('Invalid expiryCode');
    const [from, to] = [String(b.fromDate), String(b.toDate)];
    const key = `${String(b.exchangeSegment)}|${b.securityId}`;
    let rows: DhanCandleRow[];
    if (kind === 'daily') {
      if (!DATE.test(from) || !DATE.test(to)) return input('dates are YYYY-MM-DD');
      // `toDate` is not included: candles of the days before it.
      rows = (this.daily.get(key) ?? []).filter((c) => c.time >= istSeconds(from) && c.time < istSeconds(to));
    } else {
      if (!INTERVALS.includes(String(b.interval))) return input('Invalid interval');
      if (!DATE_TIME.test(from) || !DATE_TIME.test(to)) return input('times are YYYY-MM-DD HH:mm:ss');
      if (istSeconds(to) - istSeconds(from) > 90 * DAY_S) return input('Only 90 days of data can be polled');
      rows = (this.intraday.get(key) ?? []).filter(
        (c) => c.time >= istSeconds(from) && c.time <= istSeconds(to),
      );
    }
    const col = <K extends keyof DhanCandleRow>(k: K) => rows.map((c) => c[k] ?? 0);
    return {
      status: 200,
      body: {
        open: col('open'),
        high: col('high'),
        low: col('low'),
        close: col('close'),
        volume: col('volume'),
        timestamp: col('time'),
        ...(b.oi === true ? { open_interest: col('oi') } : {}),
      },
    };
  }
}

/** Serves the charts APIs on `stub`; the returned {@link DhanCharts} holds their candles. */
export function serveDhanCharts(stub: DhanStub): DhanCharts {
  return new DhanCharts(stub);
}

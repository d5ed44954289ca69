/**
 * Kite Connect v3 full market quotes (kite.trade/docs/connect/v3/market-quotes):
 * `GET /quote?i=NSE:INFY&i=NFO:NIFTY2681826000CE…`, at most 500 instruments a call, headers
 * `X-Kite-Version: 3` and `Authorization: token api_key:access_token`. The answer is
 * `{"status":"success","data":{"NSE:INFY":{…}}}` keyed by the `exchange:tradingsymbol` asked
 * for; an instrument without data is absent. Each quote carries the day's price band as the
 * top-level numbers `upper_circuit_limit` and `lower_circuit_limit` (read by quote-fields.ts
 * `readCircuit`: 0 is unknown, null). Errors are `{"status":"error","message",
 * "error_type"}` with 400/403/429/5xx (kite.trade/docs/connect/v3/exceptions).
 *
 * Historical candles (kite.trade/docs/connect/v3/historical):
 * `GET /instruments/historical/{instrument_token}/{interval}?from=yyyy-mm-dd hh:mm:ss&to=…&oi=1`,
 * intervals `minute`, `3minute`, `5minute`, `10minute`, `15minute`, `30minute`, `60minute`, `day`;
 * the answer is `{"status":"success","data":{"candles":[["2017-12-15T09:15:00+0530",o,h,l,c,v,oi]]}}`.
 * Kite serves at most so many days per request by interval ({@link KITE_MAX_DAYS}: minute 60,
 * 3/5/10-minute 100, 15/30-minute 200, 60-minute 400, day 2000; a longer range is refused with
 * "interval exceeds max limit"), so a longer range is asked for in consecutive windows, one after
 * the other and paced under Kite's historical rate limit (3 requests a second), and their candles
 * joined; more than {@link KITE_MAX_WINDOWS} windows is refused before anything is sent.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Quote } from '../../sandbox/core/types.js';
import type {
  Candle,
  HistoryInterval,
  MarketDataClient,
  MarketQuote,
  QuoteClientOptions,
  QuoteInstrument,
} from './quote-client.js';
import {
  isIsoDate,
  readCandles,
  readMarketQuote,
  readPrice,
  readQuote,
  type FullQuoteFields,
} from './quote-fields.js';
import { chunk, currentToken, groupByRequestKey, QuoteTransport } from './quote-transport.js';

/** Kite's public API origin. */
export const KITE_BASE_URL = 'https://api.kite.trade';

/** Documented limit of `/quote` ("Limits": 500 instruments). */
const KITE_MAX_QUOTE_INSTRUMENTS = 500;

/**
 * The value of one `i` parameter: percent-encoded except the `:` separator, which Kite's own
 * examples send as is (`i=NSE:INFY`); the space of index symbols becomes `%20` (`NSE:NIFTY%2050`).
 */
function encodeKiteKey(key: string): string {
  return encodeURIComponent(key).replace(/%3A/gi, ':');
}

/** OpenAlgo's interval names and Kite's (historical page, "Candle intervals"). */
const KITE_INTERVALS: Partial<Record<HistoryInterval, string>> = {
  '1m': 'minute',
  '3m': '3minute',
  '5m': '5minute',
  '10m': '10minute',
  '15m': '15minute',
  '30m': '30minute',
  '1h': '60minute',
  D: 'day',
};

/** The most days one historical request may span, by Kite interval. */
export const KITE_MAX_DAYS: Readonly<Record<string, number>> = {
  minute: 60,
  '3minute': 100,
  '5minute': 100,
  '10minute': 100,
  '15minute': 200,
  '30minute': 200,
  '60minute': 400,
  day: 2000,
};

/** The most windows one history call may take (25 × 60 days of minutes, 137 years of days). */
export const KITE_MAX_WINDOWS = 25;
/** The gap between two historical requests of one call: Kite allows 3 a second. */
const HISTORY_PACE_MS = 340;

/** `from`…`to` (ISO dates, both included) as consecutive windows of at most `days` days. */
export function dateWindows(from: string, to: string, days: number): Array<[string, string]> {
  const DAY = 86_400_000;
  const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  const end = Date.parse(`${to}T00:00:00Z`);
  const out: Array<[string, string]> = [];
  for (let start = Date.parse(`${from}T00:00:00Z`); start <= end; start += days * DAY)
    out.push([iso(start), iso(Math.min(end, start + (days - 1) * DAY))]);
  return out;
}

/** Kite's full quote: `ohlc.close` is the previous session's close; totals are `buy_quantity`. */
const KITE_FIELDS: FullQuoteFields = {
  prevClose: (raw) => {
    const ohlc = raw.ohlc as { close?: unknown } | undefined;
    return readPrice(ohlc?.close) ?? 0;
  },
  totalBuyQty: 'buy_quantity',
  totalSellQty: 'sell_quantity',
};

/** Kite's error body: `message` and `error_type` (TokenException, InputException, …). */
function readKiteError(json: unknown): { code?: string; message?: string } {
  const body = json as { message?: unknown; error_type?: unknown };
  return {
    code: typeof body.error_type === 'string' && body.error_type !== '' ? body.error_type : undefined,
    message: typeof body.message === 'string' && body.message !== '' ? body.message : undefined,
  };
}

/**
 * Zerodha's {@link QuoteClient}. Instruments are asked for as `brexchange:brsymbol` (the master
 * contract's Kite exchange and trading symbol, `NSE:NIFTY 50` for the NSE_INDEX `NIFTY`) and the
 * answer's keys are mapped back to algodesk's `EXCHANGE:SYMBOL`.
 */
export class ZerodhaQuoteClient implements MarketDataClient {
  readonly broker = 'zerodha';
  readonly maxBatch = KITE_MAX_QUOTE_INSTRUMENTS;
  readonly intervals = Object.keys(KITE_INTERVALS) as HistoryInterval[];
  private readonly http: QuoteTransport;

  constructor(private readonly opts: QuoteClientOptions) {
    this.http = new QuoteTransport('zerodha', 'Zerodha', opts, KITE_BASE_URL, readKiteError);
  }

  quotes(instruments: readonly QuoteInstrument[], signal?: AbortSignal): Promise<Map<string, Quote>> {
    return this.fetch(instruments, (raw, at) => readQuote(raw, at), signal);
  }

  marketQuotes(
    instruments: readonly QuoteInstrument[],
    signal?: AbortSignal,
  ): Promise<Map<string, MarketQuote>> {
    return this.fetch(instruments, (raw, at) => readMarketQuote(raw, at, KITE_FIELDS), signal);
  }

  async history(
    instrument: QuoteInstrument,
    interval: HistoryInterval,
    from: string,
    to: string,
    signal?: AbortSignal,
  ): Promise<Candle[]> {
    const kiteInterval = KITE_INTERVALS[interval];
    if (!kiteInterval) throw this.http.error('bad_request', `interval ${interval} is not one Kite serves`);
    if (!/^\d+$/.test(instrument.token))
      throw this.http.error('bad_request', `${instrument.symbol} has no Kite instrument token`);
    if (!isIsoDate(from) || !isIsoDate(to)) throw this.http.error('bad_request', 'dates are YYYY-MM-DD');
    const { headers, secrets } = this.credentials();
    const days = KITE_MAX_DAYS[kiteInterval] ?? 60;
    const windows = dateWindows(from, to, days);
    if (windows.length > KITE_MAX_WINDOWS)
      throw this.http.error(
        'bad_request',
        `at most ${KITE_MAX_WINDOWS * days} days of ${interval} candles per request (Kite serves ${days} a call)`,
      );
    const candles: Candle[] = [];
    for (const [n, [a, b]] of windows.entries()) {
      if (n > 0) await sleep(HISTORY_PACE_MS, undefined, { signal });
      const query = `from=${a}%2000:00:00&to=${b}%2023:59:59&oi=1`;
      const path = `/instruments/historical/${instrument.token}/${kiteInterval}?${query}`;
      const answer = await this.http.get(path, headers, signal);
      candles.push(...readCandles(this.http.unwrap(answer, secrets)));
    }
    return candles;
  }

  /** The credential headers; refused before any I/O (Kite would answer 403 at a rate-limit cost). */
  private credentials(): { headers: Record<string, string>; secrets: (string | undefined)[] } {
    const token = currentToken(this.opts.accessToken);
    const apiKey = this.opts.apiKey;
    if (token === undefined)
      throw this.http.error('no_token', 'no access token (broker session not connected)');
    if (!apiKey) throw this.http.error('no_token', 'no API key configured');
    return {
      headers: { 'x-kite-version': '3', authorization: `token ${apiKey}:${token}` },
      secrets: [token, apiKey],
    };
  }

  private async fetch<T>(
    instruments: readonly QuoteInstrument[],
    read: (raw: unknown, receivedAt: number) => T | undefined,
    signal?: AbortSignal,
  ): Promise<Map<string, T>> {
    const out = new Map<string, T>();
    const wanted = groupByRequestKey(instruments, (i) =>
      i.brexchange && i.brsymbol ? `${i.brexchange}:${i.brsymbol}` : undefined,
    );
    if (wanted.size === 0) return out;
    const { headers, secrets } = this.credentials();

    for (const keys of chunk([...wanted.keys()], this.maxBatch)) {
      const path = `/quote?${keys.map((k) => `i=${encodeKiteKey(k)}`).join('&')}`;
      const answer = await this.http.get(path, headers, signal);
      const data = this.http.unwrap(answer, secrets);
      for (const [key, raw] of Object.entries(data)) {
        const targets = wanted.get(key);
        if (!targets) continue;
        const quote = read(raw, answer.receivedAt);
        if (quote) for (const t of targets) out.set(t, quote);
      }
    }
    return out;
  }

  close(): Promise<void> {
    return this.http.close();
  }
}

/**
 * Upstox v2 full market quotes (upstox.com/developer/api-documentation/get-full-market-quote):
 * `GET /v2/market-quote/quotes?instrument_key=NSE_EQ|INE062A01020,NSE_FO|42546`, a comma-separated
 * list of at most 500 instrument keys, headers `Authorization: Bearer <token>` and
 * `Accept: application/json`. The answer's `data` is keyed `SEGMENT:TRADINGSYMBOL`
 * (`NSE_EQ:SBIN`), not by the key asked with; each quote carries the key as `instrument_token`,
 * which is how answers are matched (as OpenAlgo's Upstox adapter does), and the day's price band
 * as the top-level numbers `upper_circuit_limit` and `lower_circuit_limit`, named as Kite names
 * them (read by quote-fields.ts `readCircuit`: 0 is unknown, null). Errors are
 * `{"status":"error","errors":[{"errorCode":"UDAPI100050","message":…}]}` with 400/401/429/5xx
 * (…/api-documentation/error-codes).
 *
 * Historical candles (…/api-documentation/get-historical-candle-data):
 * `GET /v2/historical-candle/{instrument_key}/{interval}/{to_date}/{from_date}`, intervals
 * `1minute`, `30minute`, `day`, `week`, `month`; the answer is
 * `{"status":"success","data":{"candles":[["2023-10-01T00:00:00+05:30",o,h,l,c,v,oi]]}}`, newest first.
 */
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
  readQuote,
  roundPrice,
  type FullQuoteFields,
} from './quote-fields.js';
import { chunk, currentToken, groupByRequestKey, QuoteTransport } from './quote-transport.js';

/** Upstox's public API origin. */
export const UPSTOX_BASE_URL = 'https://api.upstox.com';

/** Documented limit of the full market quote ("up to 500 instruments in one go"). */
const UPSTOX_MAX_QUOTE_INSTRUMENTS = 500;

/** An instrument key: segment, `|`, exchange token or ISIN or index name (`NSE_INDEX|Nifty 50`). */
const INSTRUMENT_KEY = /^[A-Z][A-Z0-9_]*\|[^,|]+$/;

/** OpenAlgo's interval names and Upstox v2's. */
const UPSTOX_INTERVALS: Partial<Record<HistoryInterval, string>> = {
  '1m': '1minute',
  '30m': '30minute',
  D: 'day',
  W: 'week',
  M: 'month',
};

/**
 * Upstox's full quote: `ohlc.close` is today's running close, so the previous close is
 * `last_price - net_change` (as OpenAlgo's Upstox adapter computes it); totals are
 * `total_buy_quantity` and `total_sell_quantity`.
 */
const UPSTOX_FIELDS: FullQuoteFields = {
  prevClose: (raw, ltp) => {
    const change = raw.net_change;
    return typeof change === 'number' && Number.isFinite(change) ? roundPrice(ltp - change) : 0;
  },
  totalBuyQty: 'total_buy_quantity',
  totalSellQty: 'total_sell_quantity',
};

/** Upstox's error body: the first of `errors` (`errorCode`, `message`), else top-level fields. */
function readUpstoxError(json: unknown): { code?: string; message?: string } {
  const body = json as { errors?: unknown; message?: unknown; code?: unknown };
  const first: unknown = Array.isArray(body.errors) ? body.errors[0] : undefined;
  const e = (typeof first === 'object' && first !== null ? first : {}) as Record<string, unknown>;
  const str = (...vs: unknown[]) => vs.find((v): v is string => typeof v === 'string' && v !== '');
  return {
    code: str(e.errorCode, e.error_code, body.code),
    message: str(e.message, body.message),
  };
}

/**
 * Upstox's {@link QuoteClient}. The master contract's `token` for Upstox is the instrument key
 * (`NSE_EQ|INE062A01020`, see market/importers/upstox.ts); instruments whose token is not one
 * are skipped, since a single malformed key makes Upstox refuse the whole batch.
 */
export class UpstoxQuoteClient implements MarketDataClient {
  readonly broker = 'upstox';
  readonly maxBatch = UPSTOX_MAX_QUOTE_INSTRUMENTS;
  readonly intervals = Object.keys(UPSTOX_INTERVALS) as HistoryInterval[];
  private readonly http: QuoteTransport;

  constructor(private readonly opts: QuoteClientOptions) {
    this.http = new QuoteTransport('upstox', 'Upstox', opts, UPSTOX_BASE_URL, readUpstoxError);
  }

  quotes(instruments: readonly QuoteInstrument[], signal?: AbortSignal): Promise<Map<string, Quote>> {
    return this.fetch(instruments, (raw, at) => readQuote(raw, at), signal);
  }

  marketQuotes(
    instruments: readonly QuoteInstrument[],
    signal?: AbortSignal,
  ): Promise<Map<string, MarketQuote>> {
    return this.fetch(instruments, (raw, at) => readMarketQuote(raw, at, UPSTOX_FIELDS), signal);
  }

  async history(
    instrument: QuoteInstrument,
    interval: HistoryInterval,
    from: string,
    to: string,
    signal?: AbortSignal,
  ): Promise<Candle[]> {
    const upstoxInterval = UPSTOX_INTERVALS[interval];
    if (!upstoxInterval)
      throw this.http.error('bad_request', `interval ${interval} is not one Upstox serves`);
    if (!INSTRUMENT_KEY.test(instrument.token))
      throw this.http.error('bad_request', `${instrument.symbol} has no Upstox instrument key`);
    if (!isIsoDate(from) || !isIsoDate(to)) throw this.http.error('bad_request', 'dates are YYYY-MM-DD');
    const { headers, secrets } = this.credentials();
    const key = encodeURIComponent(instrument.token);
    const answer = await this.http.get(
      `/v2/historical-candle/${key}/${upstoxInterval}/${to}/${from}`,
      headers,
      signal,
    );
    return readCandles(this.http.unwrap(answer, secrets));
  }

  /** The credential headers; refused before any I/O (Upstox would answer 401 UDAPI100050). */
  private credentials(): { headers: Record<string, string>; secrets: (string | undefined)[] } {
    const token = currentToken(this.opts.accessToken);
    if (token === undefined)
      throw this.http.error('no_token', 'no access token (broker session not connected)');
    return {
      headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
      secrets: [token, this.opts.apiKey],
    };
  }

  private async fetch<T>(
    instruments: readonly QuoteInstrument[],
    read: (raw: unknown, receivedAt: number) => T | undefined,
    signal?: AbortSignal,
  ): Promise<Map<string, T>> {
    const out = new Map<string, T>();
    const wanted = groupByRequestKey(instruments, (i) =>
      INSTRUMENT_KEY.test(i.token) ? i.token : undefined,
    );
    if (wanted.size === 0) return out;
    // Fallback when a quote lacks `instrument_token`: its map key is `brexchange:brsymbol`.
    const byResponseKey = new Map<string, string>();
    for (const i of instruments)
      if (wanted.has(i.token)) byResponseKey.set(`${i.brexchange}:${i.brsymbol}`, i.token);

    const { headers, secrets } = this.credentials();

    for (const keys of chunk([...wanted.keys()], this.maxBatch)) {
      const path = `/v2/market-quote/quotes?instrument_key=${keys.map(encodeURIComponent).join(',')}`;
      const answer = await this.http.get(path, headers, signal);
      const data = this.http.unwrap(answer, secrets);
      for (const [key, raw] of Object.entries(data)) {
        const echoed = (raw as { instrument_token?: unknown } | null)?.instrument_token;
        const byKey = byResponseKey.get(key);
        const targets =
          (typeof echoed === 'string' ? wanted.get(echoed) : undefined) ??
          (byKey === undefined ? undefined : wanted.get(byKey));
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

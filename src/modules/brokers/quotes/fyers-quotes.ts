/**
 * Fyers API v3 market data (myapi.fyers.in/docsv3 "Data Api": Quotes, Market Depth, History),
 * over `https://api-t1.fyers.in/data`, header `Authorization: <app_id>:<access_token>`:
 *
 * - `GET /data/quotes?symbols=NSE:SBIN-EQ,…` (at most 50 symbols) answers
 *   `{"s":"ok","code":200,"d":[{"n":"NSE:SBIN-EQ","s":"ok","v":{"lp","bid","ask","open_price",
 *   "high_price","low_price","prev_close_price","volume","atp","tt",…}}]}`, matched back by `n`;
 * - `GET /data/depth?symbol=…&ohlcv_flag=1` (one symbol) answers `{"s":"ok","d":{"<symbol>":
 *   {"totalbuyqty","totalsellqty","bids":[{"price","volume","ord"}],"ask":[…],"o","h","l","c",
 *   "ltp","ltq","ltt","v","oi","lower_ckt","upper_ckt",…}}}` (`c` is the previous close);
 * - `GET /data/history?…` (fyers-history.ts).
 *
 * `quotes` (the sandbox's price source) reads the quotes API in batches of 50. `marketQuotes`
 * reads the depth API for a single instrument (five levels each side, totals, OI, circuit
 * limits: the depth and quote routes ask for one); for several (multiquotes, option chains) it
 * reads the quotes API, whose quote has only the best bid and ask (one level each, quantity 0),
 * no totals, OI or circuit limits.
 *
 * Rate: the docs' limits are 10 requests a second and 200 a minute per app and user (exceeding
 * the minute limit three times blocks the user for the day), so this client sends its requests
 * one after another at least {@link FYERS_DATA_INTERVAL_MS} apart (200 a minute), and never
 * retries: a rate-limit answer (HTTP 429 or code -429) rejects with a retryable
 * {@link QuoteError} carrying Fyers' status and message.
 */
import type { Quote } from '../../sandbox/core/types.js';
import {
  isRetryableStatus,
  QuoteError,
  type Candle,
  type HistoryInterval,
  type MarketDataClient,
  type MarketQuote,
  type QuoteClientOptions,
  type QuoteInstrument,
} from './quote-client.js';
import { isObject, readMarketQuote, readQuote, type FullQuoteFields } from './quote-fields.js';
import { chunk, currentToken, QuoteTransport, sanitize, type HttpAnswer } from './quote-transport.js';
import { joinCandles, Pacer } from './dhan-history.js';
import { FYERS_INTERVALS, fyersHistoryPlan, readFyersCandles } from './fyers-history.js';
import { FYERS_BASE_URL, isFyersOk, readFyersError } from '../fyers/fyers.mapping.js';

/** Documented limit of the quotes API: 50 symbols a request. */
export const FYERS_MAX_QUOTE_SYMBOLS = 50;
/** Least time between two data requests of one client: 200 a minute (the docs' minute limit). */
export const FYERS_DATA_INTERVAL_MS = 300;

const FYERS_SYMBOL = /^[A-Z]+:[^,\s]+$/;

/** Options: the common ones and the pacing. `apiKey` is the Fyers app id. */
export interface FyersQuoteClientOptions extends QuoteClientOptions {
  /** Least time between two data requests, ms (default {@link FYERS_DATA_INTERVAL_MS}). */
  minIntervalMs?: number;
}

const n = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** A quotes-API `v` as the shared readers' quote object (Kite's field names). */
function fromQuote(v: unknown): unknown {
  if (!isObject(v)) return v;
  const level = (price: unknown) => (n(price) > 0 ? [{ price: n(price), quantity: 0, orders: 0 }] : []);
  return {
    last_price: v.lp,
    ohlc: { open: v.open_price, high: v.high_price, low: v.low_price, close: v.prev_close_price },
    depth: { buy: level(v.bid), sell: level(v.ask) },
    volume: v.volume,
    timestamp: v.tt,
  };
}

/** A depth-API record as the shared readers' quote object. */
function fromDepth(d: unknown): unknown {
  if (!isObject(d)) return d;
  const side = (levels: unknown) =>
    (Array.isArray(levels) ? levels : []).map((l: unknown) =>
      isObject(l) ? { price: l.price, quantity: l.volume, orders: l.ord } : l,
    );
  return {
    last_price: d.ltp,
    ohlc: { open: d.o, high: d.h, low: d.l, close: d.c },
    depth: { buy: side(d.bids), sell: side(d.ask) },
    volume: d.v,
    oi: d.oi,
    last_quantity: d.ltq,
    totalbuyqty: d.totalbuyqty,
    totalsellqty: d.totalsellqty,
    upper_circuit_limit: d.upper_ckt,
    lower_circuit_limit: d.lower_ckt,
    timestamp: d.ltt,
  };
}

const FYERS_FIELDS: FullQuoteFields = {
  prevClose: (raw) => {
    const ohlc = isObject(raw.ohlc) ? raw.ohlc : {};
    return n(ohlc.close);
  },
  totalBuyQty: 'totalbuyqty',
  totalSellQty: 'totalsellqty',
};

/** Fyers' {@link MarketDataClient}; see the file comment. */
export class FyersQuoteClient implements MarketDataClient {
  readonly broker = 'fyers';
  readonly maxBatch = FYERS_MAX_QUOTE_SYMBOLS;
  readonly intervals = Object.keys(FYERS_INTERVALS) as HistoryInterval[];
  private readonly http: QuoteTransport;
  private readonly pacer: Pacer;

  constructor(private readonly opts: FyersQuoteClientOptions) {
    this.http = new QuoteTransport('fyers', 'Fyers', opts, FYERS_BASE_URL, readFyersError);
    this.pacer = new Pacer(opts.minIntervalMs ?? FYERS_DATA_INTERVAL_MS);
  }

  quotes(instruments: readonly QuoteInstrument[], signal?: AbortSignal): Promise<Map<string, Quote>> {
    return this.viaQuotes(instruments, (raw, at) => readQuote(fromQuote(raw), at), signal);
  }

  /** Full quotes: the depth API for one instrument, the quotes API for several (file comment). */
  async marketQuotes(
    instruments: readonly QuoteInstrument[],
    signal?: AbortSignal,
  ): Promise<Map<string, MarketQuote>> {
    const wanted = this.group(instruments);
    if (wanted.size !== 1)
      return this.viaQuotes(
        instruments,
        (raw, at) => readMarketQuote(fromQuote(raw), at, FYERS_FIELDS),
        signal,
      );
    const [symbol, targets] = [...wanted][0]!;
    const headers = this.headers();
    const q = new URLSearchParams({ symbol, ohlcv_flag: '1' });
    const answer = await this.send(`/data/depth?${q.toString()}`, headers, signal);
    const data = this.body(answer, headers.secrets).d;
    const out = new Map<string, MarketQuote>();
    const quote = isObject(data)
      ? readMarketQuote(fromDepth(data[symbol]), answer.receivedAt, FYERS_FIELDS)
      : undefined;
    if (quote) for (const t of targets) out.set(t, quote);
    return out;
  }

  /** Candles, oldest first: one request per window of fyers-history.ts, one after another. */
  async history(
    instrument: QuoteInstrument,
    interval: HistoryInterval,
    from: string,
    to: string,
    signal?: AbortSignal,
  ): Promise<Candle[]> {
    const plan = fyersHistoryPlan(instrument, interval, from, to);
    if ('refusal' in plan) throw this.http.error('bad_request', plan.refusal);
    if (plan.paths.length === 0) return [];
    const headers = this.headers();
    const candles: Candle[] = [];
    for (const path of plan.paths) {
      const answer = await this.send(path, headers, signal);
      candles.push(...readFyersCandles(this.body(answer, headers.secrets), plan.daily));
    }
    return joinCandles(candles);
  }

  close(): Promise<void> {
    return this.http.close();
  }

  /** Fyers symbol → the algodesk keys (`EXCHANGE:SYMBOL`) it answers for. */
  private group(instruments: readonly QuoteInstrument[]): Map<string, string[]> {
    const wanted = new Map<string, string[]>();
    for (const i of instruments) {
      if (!FYERS_SYMBOL.test(i.brsymbol)) continue;
      const target = `${i.exchange}:${i.symbol}`;
      const list = wanted.get(i.brsymbol);
      if (!list) wanted.set(i.brsymbol, [target]);
      else if (!list.includes(target)) list.push(target);
    }
    return wanted;
  }

  private async viaQuotes<T>(
    instruments: readonly QuoteInstrument[],
    read: (raw: unknown, receivedAt: number) => T | undefined,
    signal?: AbortSignal,
  ): Promise<Map<string, T>> {
    const out = new Map<string, T>();
    const wanted = this.group(instruments);
    if (wanted.size === 0) return out;
    const headers = this.headers();
    for (const symbols of chunk([...wanted.keys()], this.maxBatch)) {
      const answer = await this.send(
        `/data/quotes?symbols=${symbols.map(encodeURIComponent).join(',')}`,
        headers,
        signal,
      );
      const d = this.body(answer, headers.secrets).d;
      for (const row of Array.isArray(d) ? (d as unknown[]) : []) {
        if (!isObject(row) || !isFyersOk(row) || typeof row.n !== 'string') continue;
        const quote = read(row.v, answer.receivedAt);
        const targets = wanted.get(row.n);
        if (quote && targets) for (const t of targets) out.set(t, quote);
      }
    }
    return out;
  }

  /** The credential header; refused before any I/O (Fyers would answer -16/-17). */
  private headers(): { authorization: string; accept: string; secrets: (string | undefined)[] } {
    const token = currentToken(this.opts.accessToken);
    if (token === undefined)
      throw this.http.error('no_token', 'no access token (broker session not connected)');
    const appId = this.opts.apiKey ?? '';
    if (appId === '') throw this.http.error('no_token', 'no Fyers app id (BROKER_API_KEY)');
    return { authorization: `${appId}:${token}`, accept: 'application/json', secrets: [token, appId] };
  }

  /** One paced GET (credential headers only; `secrets` stay out of the request). */
  private send(
    path: string,
    h: { authorization: string; accept: string },
    signal?: AbortSignal,
  ): Promise<HttpAnswer> {
    const headers = { authorization: h.authorization, accept: h.accept };
    return this.pacer.run(() => this.http.get(path, headers, signal), signal);
  }

  /**
   * The body of an `"s":"ok"` answer; anything else is a QuoteError with Fyers' code and
   * sanitised message, retryable for HTTP 429/5xx and code -429.
   */
  private body(answer: HttpAnswer, secrets: readonly (string | undefined)[]): Record<string, unknown> {
    const { status, json } = answer;
    const ok = status >= 200 && status < 300;
    if (ok && isFyersOk(json)) return json;
    const said = readFyersError(json);
    const code = said.code ?? (ok ? 'bad_response' : `http_${status}`);
    const text = said.message
      ? sanitize(said.message, secrets)
      : json === undefined
        ? 'the answer is not JSON'
        : 'the answer is not a success';
    const err = new QuoteError({
      broker: 'fyers',
      status,
      code,
      retryable: isRetryableStatus(status) || code === '-429',
      message: `Fyers quotes: HTTP ${status} ${code}: ${text}`,
    });
    this.opts.logger?.warn(
      { broker: 'fyers', status, code, retryable: err.retryable, reason: err.message },
      'broker quote request failed',
    );
    throw err;
  }
}

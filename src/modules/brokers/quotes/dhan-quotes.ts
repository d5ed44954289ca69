/**
 * DhanHQ v2 market quotes (dhanhq.co/docs/v2/market-quote): `POST /marketfeed/quote` with a JSON
 * body mapping each exchange segment to its security ids (`{"NSE_EQ":[11536],"NSE_FNO":[49081]}`),
 * headers `access-token`, `client-id` (the Dhan client id) and `Accept`/`Content-Type:
 * application/json`. The answer is `{"status":"success","data":{"NSE_EQ":{"11536":{…}}}}`, keyed by
 * segment and then by security id as a string; each quote has `last_price`, `ohlc` (`close` is the
 * previous session's close, as OpenAlgo reads it), five-level `depth.buy`/`depth.sell`,
 * `buy_quantity`, `sell_quantity`, `volume`, `oi`, `last_quantity`, `upper_circuit_limit`,
 * `lower_circuit_limit` and `last_trade_time` written `dd/MM/yyyy HH:mm:ss` (IST; `01/01/1980
 * 00:00:00` when the instrument has not traded, read as no time: the receive time stands).
 *
 * Limits: at most 1000 instruments a request and one request a second ("Quote APIs" in the rate
 * limit table). A longer list goes in batches of 1000 (all segments counted together), one after
 * the other, each sent at least {@link DHAN_QUOTE_INTERVAL_MS} after the previous one of this
 * client, which is the throttling the docs ask for; a rate-limit answer (HTTP 429, DH-904 or the
 * Data API's 805) is not retried here, since the docs do not say to: it rejects with a retryable
 * {@link QuoteError} carrying Dhan's status and message. Errors are Dhan's `{"errorType",
 * "errorCode","errorMessage"}` or the Data API's `{"status":"failed","data":{"<code>":"<msg>"}}`.
 *
 * Historical candles come from `POST /charts/historical` (daily) and `POST /charts/intraday`
 * (1, 5, 15 and 60 minutes; 90 days a request, so longer ranges go in windows), read as
 * dhan-history.ts describes; chart requests are paced apart at the Data APIs' documented 5 a
 * second, apart from the quote pacing. Their refusals are read as the quote API's; a rate-limit
 * answer is not retried either, it rejects the call with a retryable {@link QuoteError}.
 */
import { Pool } from 'undici';
import type { Quote } from '../../sandbox/core/types.js';
import { systemClock, type Clock } from '../../../platform/clock.js';
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
import { chunk, currentToken, sanitize } from './quote-transport.js';
import { DHAN_SEGMENT_EXCHANGE, isDhanError, readDhanError } from '../dhan/dhan.mapping.js';
import {
  DHAN_CHART_INTERVAL_MS,
  DHAN_INTERVALS,
  dhanHistoryPlan,
  joinCandles,
  Pacer,
  readDhanCandles,
} from './dhan-history.js';

/** DhanHQ v2's API origin and path. */
export const DHAN_BASE_URL = 'https://api.dhan.co/v2';

/** Documented limit of the market quote APIs: 1000 instruments a request. */
export const DHAN_MAX_QUOTE_INSTRUMENTS = 1000;

/** Documented rate of the quote APIs: one request a second. */
export const DHAN_QUOTE_INTERVAL_MS = 1000;

/** Options of the Dhan quote client: the common ones, the Dhan client id and the pacing. */
export interface DhanQuoteClientOptions extends QuoteClientOptions {
  /** The Dhan client id (`client-id` header), or a function read on every call. */
  clientId: string | (() => string | undefined);
  /** Least time between two quote requests of this client, ms (default 1000, the documented rate). */
  minIntervalMs?: number;
  /** Least time between two chart requests of this client, ms (default 200: 5 a second). */
  chartIntervalMs?: number;
}

/** Rate-limit codes: the Trading API's DH-904 and the Data API's 805 ("Too many requests"). */
const RATE_LIMIT_CODES = new Set(['DH-904', '805']);

const SECURITY_ID = /^\d+$/;

/** `dd/MM/yyyy HH:mm:ss` → `yyyy-MM-dd HH:mm:ss` (IST), or undefined (also for 1980's placeholder). */
function dhanTime(v: unknown): string | undefined {
  const m = typeof v === 'string' ? /^(\d{2})\/(\d{2})\/(\d{4}) (\d{2}:\d{2}:\d{2})$/.exec(v.trim()) : null;
  if (!m || m[3] === '1980') return undefined;
  return `${m[3]}-${m[2]}-${m[1]} ${m[4]}`;
}

/** Dhan's quote object with its trade time where the shared readers look for one. */
const withTime = (raw: unknown): unknown =>
  isObject(raw) ? { ...raw, timestamp: dhanTime(raw.last_trade_time) } : raw;

const DHAN_FIELDS: FullQuoteFields = {
  prevClose: (raw) => {
    const ohlc = isObject(raw.ohlc) ? raw.ohlc : {};
    return typeof ohlc.close === 'number' && Number.isFinite(ohlc.close) ? ohlc.close : 0;
  },
  totalBuyQty: 'buy_quantity',
  totalSellQty: 'sell_quantity',
};

/** Dhan's {@link QuoteClient}; see the file comment. */
export class DhanQuoteClient implements MarketDataClient {
  readonly broker = 'dhan';
  readonly intervals = Object.keys(DHAN_INTERVALS) as HistoryInterval[];
  readonly maxBatch = DHAN_MAX_QUOTE_INSTRUMENTS;
  private readonly pool: Pool;
  private readonly prefix: string;
  private readonly clock: Clock;
  /** Quote requests of this client, one after another and paced (the rate is per user). */
  private readonly quotePacer: Pacer;
  /** Chart requests of this client, likewise (the Data APIs have their own rate). */
  private readonly chartPacer: Pacer;
  private closed = false;

  constructor(private readonly opts: DhanQuoteClientOptions) {
    const url = new URL(opts.baseUrl ?? DHAN_BASE_URL);
    this.prefix = url.pathname.replace(/\/+$/, '');
    const timeout = opts.timeoutMs ?? 5000;
    this.pool = new Pool(url.origin, {
      connections: 2,
      headersTimeout: timeout,
      bodyTimeout: timeout,
      connect: { timeout },
    });
    this.clock = opts.clock ?? systemClock;
    this.quotePacer = new Pacer(opts.minIntervalMs ?? DHAN_QUOTE_INTERVAL_MS);
    this.chartPacer = new Pacer(opts.chartIntervalMs ?? DHAN_CHART_INTERVAL_MS);
  }

  quotes(instruments: readonly QuoteInstrument[], signal?: AbortSignal): Promise<Map<string, Quote>> {
    return this.fetch(instruments, (raw, at) => readQuote(withTime(raw), at), signal);
  }

  /** Full quotes (depth, OHLC, volume, OI, circuit limits), batched as {@link quotes}. */
  marketQuotes(
    instruments: readonly QuoteInstrument[],
    signal?: AbortSignal,
  ): Promise<Map<string, MarketQuote>> {
    return this.fetch(instruments, (raw, at) => readMarketQuote(withTime(raw), at, DHAN_FIELDS), signal);
  }

  /**
   * Candles from the charts APIs, oldest first: one daily request, or intraday windows of 90 days
   * one after another (see dhan-history.ts); the first refusal rejects the call.
   */
  async history(
    instrument: QuoteInstrument,
    interval: HistoryInterval,
    from: string,
    to: string,
    signal?: AbortSignal,
  ): Promise<Candle[]> {
    const plan = dhanHistoryPlan(instrument, interval, from, to);
    if ('refusal' in plan) throw this.error('bad_request', plan.refusal);
    if (plan.requests.length === 0) return [];
    if (this.closed) throw this.error('closed', 'the client is closed');
    const token = currentToken(this.opts.accessToken);
    if (token === undefined) throw this.error('no_token', 'no access token (broker session not connected)');
    const clientId = currentToken(this.opts.clientId);
    const headers = { 'access-token': token, ...(clientId === undefined ? {} : { 'client-id': clientId }) };
    const secrets = [token, this.opts.apiKey];
    const candles: Candle[] = [];
    for (const { path, body } of plan.requests) {
      const { status, json } = await this.chartPacer.run(
        () => this.post(path, body, headers, secrets, signal),
        signal,
      );
      if (status < 200 || status >= 300 || !isObject(json) || isDhanError(json))
        throw this.refusal(status, json, secrets);
      candles.push(...readDhanCandles(json, plan.daily));
    }
    return joinCandles(candles);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.close();
  }

  private error(code: string, message: string, retryable = false, status?: number, cause?: unknown) {
    const err = new QuoteError({
      broker: 'dhan',
      code,
      message: `Dhan quotes: ${message}`,
      retryable,
      ...(status === undefined ? {} : { status }),
      cause,
    });
    if (code !== 'no_token' && code !== 'closed' && code !== 'bad_request')
      this.opts.logger?.warn(
        { broker: 'dhan', status, code, retryable, reason: err.message },
        'broker quote request failed',
      );
    return err;
  }

  private async fetch<T>(
    instruments: readonly QuoteInstrument[],
    read: (raw: unknown, receivedAt: number) => T | undefined,
    signal?: AbortSignal,
  ): Promise<Map<string, T>> {
    const out = new Map<string, T>();
    // `SEGMENT|id` → the algodesk keys it answers for.
    const wanted = new Map<string, string[]>();
    for (const i of instruments) {
      if (!Object.hasOwn(DHAN_SEGMENT_EXCHANGE, i.brexchange) || !SECURITY_ID.test(i.token)) continue;
      const key = `${i.brexchange}|${i.token}`;
      const target = `${i.exchange}:${i.symbol}`;
      const list = wanted.get(key);
      if (!list) wanted.set(key, [target]);
      else if (!list.includes(target)) list.push(target);
    }
    if (wanted.size === 0) return out;
    if (this.closed) throw this.error('closed', 'the client is closed');
    const token = currentToken(this.opts.accessToken);
    const clientId = currentToken(this.opts.clientId);
    if (token === undefined) throw this.error('no_token', 'no access token (broker session not connected)');
    if (clientId === undefined) throw this.error('no_token', 'no Dhan client id in the broker session');
    const secrets = [token, this.opts.apiKey];
    const headers = { 'access-token': token, 'client-id': clientId };

    for (const keys of chunk([...wanted.keys()], this.maxBatch)) {
      const body: Record<string, number[]> = {};
      for (const k of keys) {
        const [segment, id] = k.split('|') as [string, string];
        (body[segment] ??= []).push(Number(id));
      }
      const { status, json, receivedAt } = await this.quotePacer.run(() =>
        this.post('/marketfeed/quote', body, headers, secrets, signal),
      );
      if (status < 200 || status >= 300 || !isObject(json) || json.status !== 'success')
        throw this.refusal(status, json, secrets);
      const data = isObject(json.data) ? json.data : {};
      for (const [segment, byId] of Object.entries(data)) {
        if (!isObject(byId)) continue;
        for (const [id, raw] of Object.entries(byId)) {
          const targets = wanted.get(`${segment}|${id}`);
          if (!targets) continue;
          const quote = read(raw, receivedAt);
          if (quote) for (const t of targets) out.set(t, quote);
        }
      }
    }
    return out;
  }

  /**
   * A refusal as a {@link QuoteError}: Dhan's code and sanitised message; retryable for HTTP 429
   * and 5xx and for a rate-limit code whatever the status.
   */
  private refusal(status: number, json: unknown, secrets: readonly (string | undefined)[]): QuoteError {
    const ok = status >= 200 && status < 300;
    const said = readDhanError(json);
    const code = said.code ?? (ok ? 'bad_response' : `http_${status}`);
    const text = said.message
      ? sanitize(said.message, secrets)
      : json === undefined
        ? 'the answer is not JSON'
        : 'the answer is not a success';
    const retryable = isRetryableStatus(status) || RATE_LIMIT_CODES.has(code);
    return this.error(code, `HTTP ${status} ${text}`, retryable, status);
  }

  /** POSTs `body` as JSON to `path` (below the base URL's path) with the credential `headers`. */
  private async post(
    path: string,
    body: unknown,
    headers: Record<string, string>,
    secrets: readonly (string | undefined)[],
    signal?: AbortSignal,
  ): Promise<{ status: number; json: unknown; receivedAt: number }> {
    signal?.throwIfAborted();
    if (this.closed) throw this.error('closed', 'the client is closed');
    const started = performance.now();
    let status: number;
    let text: string;
    try {
      const res = await this.pool.request({
        method: 'POST',
        path: `${this.prefix}${path}`,
        headers: { ...headers, accept: 'application/json', 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal,
      });
      status = res.statusCode;
      text = await res.body.text();
    } catch (err) {
      if (signal?.aborted) throw signal.reason ?? err;
      const code = (err as { code?: unknown }).code;
      const detail = sanitize(err instanceof Error ? err.message : String(err), secrets);
      if (
        code === 'UND_ERR_HEADERS_TIMEOUT' ||
        code === 'UND_ERR_BODY_TIMEOUT' ||
        code === 'UND_ERR_CONNECT_TIMEOUT'
      )
        throw this.error('timeout', `timed out (${detail})`, true, undefined, err);
      if (code === 'UND_ERR_CLOSED' || code === 'UND_ERR_DESTROYED')
        throw this.error('closed', 'the client is closed', false, undefined, err);
      throw this.error('network', `request failed (${detail})`, true, undefined, err);
    }
    // Let undici hand the keep-alive socket back before a next batch (as quote-transport.ts does).
    await new Promise<void>((resolve) => setImmediate(resolve));
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    this.opts.logger?.debug(
      { broker: 'dhan', status, ms: Math.round(performance.now() - started) },
      'broker quote request',
    );
    return { status, json, receivedAt: this.clock.now() };
  }
}

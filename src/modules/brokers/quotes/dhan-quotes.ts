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
 * Historical candles (`/charts/historical`, `/charts/intraday`) are not served yet.
 */
import { setTimeout as sleep } from 'node:timers/promises';
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
import { DHAN_SEGMENT_EXCHANGE, readDhanError } from '../dhan/dhan.mapping.js';

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
  /** Least time between two requests of this client, ms (default 1000, the documented rate). */
  minIntervalMs?: number;
}

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
  /** None yet: Dhan's charts APIs are not written (docs/rules/brokers.md#dhan-adapter). */
  readonly intervals: readonly HistoryInterval[] = [];
  readonly maxBatch = DHAN_MAX_QUOTE_INSTRUMENTS;
  private readonly pool: Pool;
  private readonly prefix: string;
  private readonly clock: Clock;
  private readonly minIntervalMs: number;
  /** When the last request went out (performance.now()), for the pacing. */
  private lastSent = -Infinity;
  /** Requests of this client run one after another (the pacing is per client). */
  private queue: Promise<unknown> = Promise.resolve();
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
    this.minIntervalMs = opts.minIntervalMs ?? DHAN_QUOTE_INTERVAL_MS;
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

  /** A local `bad_request`: Dhan's candles are not read yet (nothing is sent). */
  history(instrument: QuoteInstrument, interval: HistoryInterval): Promise<Candle[]> {
    return Promise.reject(
      this.error('bad_request', `history (${interval}, ${instrument.symbol}) is not served for Dhan yet`),
    );
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
    if (code !== 'no_token' && code !== 'closed')
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

    for (const keys of chunk([...wanted.keys()], this.maxBatch)) {
      const body: Record<string, number[]> = {};
      for (const k of keys) {
        const [segment, id] = k.split('|') as [string, string];
        (body[segment] ??= []).push(Number(id));
      }
      const { status, json, receivedAt } = await this.paced(() => this.post(body, token, clientId, signal));
      const ok = status >= 200 && status < 300;
      if (!ok || !isObject(json) || json.status !== 'success') {
        const said = readDhanError(json);
        const code = said.code ?? (ok ? 'bad_response' : `http_${status}`);
        const text = said.message
          ? sanitize(said.message, secrets)
          : json === undefined
            ? 'the answer is not JSON'
            : 'the answer is not a success';
        throw this.error(code, `HTTP ${status} ${text}`, isRetryableStatus(status), status);
      }
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

  /** Runs `send` after the previous request of this client, at least `minIntervalMs` after it. */
  private paced<R>(send: () => Promise<R>): Promise<R> {
    const run = async () => {
      const wait = this.lastSent + this.minIntervalMs - performance.now();
      if (wait > 0) await sleep(wait);
      this.lastSent = performance.now();
      return send();
    };
    const next = this.queue.then(run, run);
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async post(
    body: Record<string, number[]>,
    token: string,
    clientId: string,
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
        path: `${this.prefix}/marketfeed/quote`,
        headers: {
          'access-token': token,
          'client-id': clientId,
          accept: 'application/json',
          'content-type': 'application/json',
        },
        body: JSON.stringify(body),
        signal,
      });
      status = res.statusCode;
      text = await res.body.text();
    } catch (err) {
      if (signal?.aborted) throw signal.reason ?? err;
      const code = (err as { code?: unknown }).code;
      const detail = sanitize(err instanceof Error ? err.message : String(err), [token]);
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

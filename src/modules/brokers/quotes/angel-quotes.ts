/**
 * Angel One SmartAPI market quotes (smartapi.angelone.in/docs/MarketData):
 * `POST /rest/secure/angelbroking/market/v1/quote` with `{"mode":"FULL","exchangeTokens":
 * {"NSE":["3045"],"NFO":["58662"]}}` — instruments by Angel's exchange (`exch_seg`) and symbol
 * token, at most 50 a request, and one request a second (SmartAPI forum topic 4056, "50-Symbol
 * Bulk Fetch and 1 Request Per Second Rate Limit"): batches are sent one after another, paced.
 * Headers as every SmartAPI call (angel/angel.auth.ts) with `Authorization: Bearer <jwt>`.
 *
 * The answer is `{"status":true,"data":{"fetched":[…],"unfetched":[…]}}`; a fetched quote
 * names its instrument by `exchange` and `symbolToken` and carries `ltp`, `open`, `high`, `low`,
 * `close` (the previous session's), `lastTradeQty`, `exchFeedTime` (`21-Jun-2023 10:46:10`, IST),
 * `tradeVolume`, `opnInterest`, `lowerCircuit`, `upperCircuit`, `totBuyQuan`, `totSellQuan` and
 * `depth.buy`/`depth.sell` (`price`, `quantity`, `orders`); instruments Angel could not serve are
 * listed in `unfetched` and left out of the result. Refusals are SmartAPI's `"status":false`
 * envelope (HTTP 200) with `errorcode` (angel/angel.mapping.ts gives them a status), or the rate
 * limiter's plain-text "Access denied because of exceeding access rate" (retryable).
 *
 * History comes from `historical/v1/getCandleData` (angel-history.ts: intervals, the days one
 * request may span, the windows of a longer range paced at 3 requests a second); its refusals are
 * read as the quote's, the rate limiter's text included (a retryable `rate_limited`, not retried:
 * the docs give a rate to keep to, not a retry).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Quote } from '../../sandbox/core/types.js';
import { systemClock, type Clock } from '../../../platform/clock.js';
import { OrderTransport, type HttpOutcome } from '../http/order-transport.js';
import { records, str } from '../http/book-fields.js';
import { angelHeaders, ANGEL_BASE_URL, type AngelOptions } from '../angel/angel.auth.js';
import { angelTime } from '../angel/angel.books.js';
import {
  angelErrorStatus,
  isAngelRateLimitText,
  isAngelSuccess,
  readAngelError,
} from '../angel/angel.mapping.js';
import {
  isRetryableStatus,
  QuoteError,
  type Candle,
  type DepthLevel,
  type HistoryInterval,
  type MarketDataClient,
  type MarketQuote,
  type QuoteClientOptions,
  type QuoteInstrument,
} from './quote-client.js';
import { isObject, parseQuoteTime, readCircuit, readPrice } from './quote-fields.js';
import { chunk, currentToken, groupByRequestKey, sanitize } from './quote-transport.js';
import {
  ANGEL_HISTORY_PACE_MS,
  ANGEL_HISTORY_PATH,
  ANGEL_INTERVALS,
  angelHistoryBodies,
  readAngelCandles,
} from './angel-history.js';

/** The quote endpoint. */
export const ANGEL_QUOTE_PATH = '/rest/secure/angelbroking/market/v1/quote';
/** Documented limit of one quote request. */
export const ANGEL_MAX_QUOTE_TOKENS = 50;
/** The gap between two quote requests of one call: Angel allows one a second. */
export const ANGEL_QUOTE_PACE_MS = 1_000;

/** Options of the Angel quote client: the quote options, Angel's headers, and the pacing. */
export type AngelQuoteOptions = QuoteClientOptions &
  Pick<AngelOptions, 'clientLocalIp' | 'clientPublicIp' | 'macAddress'> & {
    /** Gap between batches of one call, ms (default {@link ANGEL_QUOTE_PACE_MS}). */
    paceMs?: number;
    /** Gap between the history windows of one call, ms (default {@link ANGEL_HISTORY_PACE_MS}). */
    historyPaceMs?: number;
  };

/** A symbol token: digits (index tokens too: `99926000`). */
const TOKEN = /^\d+$/;

const count = (v: unknown): number => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : 0;
};

function bestPrice(levels: unknown): number {
  const first: unknown = Array.isArray(levels) ? levels[0] : undefined;
  return (isObject(first) ? readPrice(first.price) : undefined) ?? 0;
}

function depthSide(levels: unknown): DepthLevel[] {
  const out: DepthLevel[] = [];
  for (const l of Array.isArray(levels) ? (levels.slice(0, 5) as unknown[]) : []) {
    if (!isObject(l)) continue;
    const price = readPrice(l.price) ?? 0;
    const quantity = count(l.quantity);
    if (price === 0 && quantity === 0) continue;
    out.push({ price, quantity, orders: count(l.orders) });
  }
  return out;
}

const quoteTime = (raw: Record<string, unknown>, receivedAt: number) =>
  parseQuoteTime(angelTime(raw.exchFeedTime)) ?? receivedAt;

/** A sandbox {@link Quote} from a FULL quote; undefined without a usable `ltp`. */
export function readAngelQuote(raw: unknown, receivedAt: number): Quote | undefined {
  if (!isObject(raw)) return undefined;
  const ltp = readPrice(raw.ltp);
  if (ltp === undefined) return undefined;
  const depth = isObject(raw.depth) ? raw.depth : {};
  const close = readPrice(raw.close);
  return {
    ltp,
    bid: bestPrice(depth.buy),
    ask: bestPrice(depth.sell),
    high: readPrice(raw.high) ?? 0,
    low: readPrice(raw.low) ?? 0,
    ...(close ? { close } : {}),
    timestamp: quoteTime(raw, receivedAt),
  };
}

/** A {@link MarketQuote} from a FULL quote; undefined without a usable `ltp`. */
export function readAngelMarketQuote(raw: unknown, receivedAt: number): MarketQuote | undefined {
  if (!isObject(raw)) return undefined;
  const ltp = readPrice(raw.ltp);
  if (ltp === undefined) return undefined;
  const depth = isObject(raw.depth) ? raw.depth : {};
  return {
    open: readPrice(raw.open) ?? 0,
    high: readPrice(raw.high) ?? 0,
    low: readPrice(raw.low) ?? 0,
    ltp,
    prevClose: readPrice(raw.close) ?? 0,
    volume: count(raw.tradeVolume),
    oi: count(raw.opnInterest),
    ltq: count(raw.lastTradeQty),
    totalBuyQty: count(raw.totBuyQuan),
    totalSellQty: count(raw.totSellQuan),
    bids: depthSide(depth.buy),
    asks: depthSide(depth.sell),
    timestamp: quoteTime(raw, receivedAt),
    upperCircuit: readCircuit(raw.upperCircuit),
    lowerCircuit: readCircuit(raw.lowerCircuit),
  };
}

/**
 * Angel One's {@link MarketDataClient}. Instruments are asked for by the master contract's
 * `brexchange` (Angel's `exch_seg`) and `token` (its symbol token); instruments without a
 * numeric token are skipped.
 */
export class AngelQuoteClient implements MarketDataClient {
  readonly broker = 'angel';
  readonly maxBatch = ANGEL_MAX_QUOTE_TOKENS;
  readonly intervals = Object.keys(ANGEL_INTERVALS) as HistoryInterval[];
  private readonly http: OrderTransport;
  private readonly clock: Clock;

  constructor(private readonly opts: AngelQuoteOptions) {
    this.http = new OrderTransport('angel', 'Angel One', opts.baseUrl ?? ANGEL_BASE_URL, {
      timeoutMs: opts.timeoutMs ?? 5000,
      keepWarmMs: 0,
      logger: opts.logger,
    });
    this.clock = opts.clock ?? systemClock;
  }

  quotes(instruments: readonly QuoteInstrument[], signal?: AbortSignal): Promise<Map<string, Quote>> {
    return this.fetch(instruments, readAngelQuote, signal);
  }

  marketQuotes(
    instruments: readonly QuoteInstrument[],
    signal?: AbortSignal,
  ): Promise<Map<string, MarketQuote>> {
    return this.fetch(instruments, readAngelMarketQuote, signal);
  }

  /**
   * Candles from getCandleData, oldest first: the range in windows of the interval's most days,
   * asked one after the other (see angel-history.ts); the first refusal rejects the call.
   */
  async history(
    instrument: QuoteInstrument,
    interval: HistoryInterval,
    from: string,
    to: string,
    signal?: AbortSignal,
  ): Promise<Candle[]> {
    const plan = angelHistoryBodies(instrument, interval, from, to);
    if ('refusal' in plan) throw this.error('bad_request', plan.refusal);
    if (plan.bodies.length === 0) return [];
    const { headers, secrets } = this.credentials();
    const candles: Candle[] = [];
    for (const [n, body] of plan.bodies.entries()) {
      signal?.throwIfAborted();
      if (n > 0) await sleep(this.opts.historyPaceMs ?? ANGEL_HISTORY_PACE_MS, undefined, { signal });
      const outcome = await this.http.send({
        method: 'POST',
        path: ANGEL_HISTORY_PATH,
        headers,
        body: JSON.stringify(body),
      });
      signal?.throwIfAborted();
      candles.push(...readAngelCandles(this.unwrapData(outcome, secrets)));
    }
    return candles;
  }

  close(): Promise<void> {
    return this.http.close();
  }

  private error(code: string, message: string, retryable = false, status?: number): QuoteError {
    return new QuoteError({
      broker: 'angel',
      code,
      message: `Angel One quotes: ${message}`,
      retryable,
      status,
    });
  }

  private async fetch<T>(
    instruments: readonly QuoteInstrument[],
    read: (raw: unknown, receivedAt: number) => T | undefined,
    signal?: AbortSignal,
  ): Promise<Map<string, T>> {
    const out = new Map<string, T>();
    const wanted = groupByRequestKey(instruments, (i) =>
      TOKEN.test(i.token) && i.brexchange !== '' ? `${i.brexchange}:${i.token}` : undefined,
    );
    if (wanted.size === 0) return out;
    const { headers, secrets } = this.credentials();
    const batches = chunk([...wanted.keys()], this.maxBatch);
    for (const [n, keys] of batches.entries()) {
      signal?.throwIfAborted();
      if (n > 0) await sleep(this.opts.paceMs ?? ANGEL_QUOTE_PACE_MS, undefined, { signal });
      const exchangeTokens: Record<string, string[]> = {};
      for (const key of keys) {
        const at = key.lastIndexOf(':');
        (exchangeTokens[key.slice(0, at)] ??= []).push(key.slice(at + 1));
      }
      const outcome = await this.http.send({
        method: 'POST',
        path: ANGEL_QUOTE_PATH,
        headers,
        body: JSON.stringify({ mode: 'FULL', exchangeTokens }),
      });
      signal?.throwIfAborted();
      const raw = this.unwrapData(outcome, secrets);
      const data = isObject(raw) ? raw : {};
      const receivedAt = this.clock.now();
      for (const raw of records(data.fetched)) {
        const targets = wanted.get(`${str(raw.exchange)}:${str(raw.symbolToken)}`);
        if (!targets) continue;
        const quote = read(raw, receivedAt);
        if (quote) for (const t of targets) out.set(t, quote);
      }
    }
    return out;
  }

  /** The SmartAPI headers with the session's JWT; refused before any I/O without one or the key. */
  private credentials(): { headers: Record<string, string>; secrets: (string | undefined)[] } {
    const token = currentToken(this.opts.accessToken);
    if (token === undefined) throw this.error('no_token', 'no access token (broker session not connected)');
    if (!this.opts.apiKey) throw this.error('no_api_key', 'no API key (X-PrivateKey) configured');
    const headers = angelHeaders({ ...this.opts, apiKey: this.opts.apiKey }, token);
    return { headers, secrets: [token, this.opts.apiKey] };
  }

  /** The `data` of a success; anything else is a {@link QuoteError}, logged at warn. */
  private unwrapData(outcome: HttpOutcome, secrets: readonly (string | undefined)[]): unknown {
    let err: QuoteError;
    if (outcome.kind === 'failure')
      err = this.error(
        outcome.code,
        outcome.message.replace(/^Angel One:? ?/, ''),
        outcome.code !== 'closed',
      );
    else if (outcome.json === undefined) {
      const limited = isAngelRateLimitText(outcome.text);
      err = limited
        ? this.error(
            'rate_limited',
            `HTTP ${outcome.status}: access denied for exceeding the access rate`,
            true,
            outcome.status,
          )
        : this.error(
            'bad_response',
            `HTTP ${outcome.status}: the answer is not JSON`,
            isRetryableStatus(outcome.status),
            outcome.status,
          );
    } else if (outcome.status >= 200 && outcome.status < 300 && isAngelSuccess(outcome.json))
      return outcome.json.data;
    else {
      const said = readAngelError(outcome.json);
      const status = outcome.status >= 400 ? outcome.status : angelErrorStatus(said.code);
      const code = said.code ?? `http_${outcome.status}`;
      const text = said.message ? sanitize(said.message, secrets) : 'the answer is not a success';
      err = this.error(code, `HTTP ${status} ${code}: ${text}`, isRetryableStatus(status), status);
    }
    this.opts.logger?.warn(
      { broker: 'angel', status: err.status, code: err.code, retryable: err.retryable, reason: err.message },
      'broker quote request failed',
    );
    throw err;
  }
}

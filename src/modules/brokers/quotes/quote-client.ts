/**
 * Batched market quotes from the connected broker's REST API, for the sandbox's price source.
 *
 * This file holds the contract ({@link QuoteClient}, {@link QuoteError}, and the
 * {@link MarketDataClient} the market-data module reads full quotes and candles with). What the
 * broker clients share is next to it: quote-transport.ts (one undici `Pool` per origin
 * (ARCHITECTURE.md "outbound HTTP"), error mapping that never echoes a credential ("Secrets never
 * leave")) and quote-fields.ts (the reading of a quote object, whose fields Kite Connect v3 and
 * Upstox v2 name alike: `last_price`, `ohlc`, `depth`, `timestamp`).
 */
import type { Logger } from 'pino';
import type { Clock } from '../../../platform/clock.js';
import type { Quote } from '../../sandbox/core/types.js';

/** An instrument as the master contract knows it (fields of market/instrument.ts `Instrument`). */
export interface QuoteInstrument {
  /** Canonical symbol (`NIFTY18AUG2626000CE`). */
  symbol: string;
  /** Canonical exchange (`NFO`, `NSE_INDEX`). */
  exchange: string;
  /** The broker's trading symbol (`NIFTY2681826000CE`, `NIFTY 50`). */
  brsymbol: string;
  /** The broker's exchange or segment (`NFO`, `NSE_FO`). */
  brexchange: string;
  /** The broker's instrument token (Kite `instrument_token`, Upstox `instrument_key`). */
  token: string;
}

/** A broker's market-quote API, batched. */
export interface QuoteClient {
  /** Broker id (`zerodha`, `upstox`). */
  readonly broker: string;
  /** Most instruments one request may carry. */
  readonly maxBatch: number;
  /**
   * Quotes for the instruments, keyed by `${exchange}:${symbol}` (algodesk's symbol, see
   * `quoteKey` in sandbox/core/types.ts); instruments the broker did not return are absent. Splits
   * into batches of {@link maxBatch} requested one after another; the first failing batch
   * rejects the call with a {@link QuoteError} (an aborted `signal` rejects with its reason).
   */
  quotes(instruments: readonly QuoteInstrument[], signal?: AbortSignal): Promise<Map<string, Quote>>;
  /** Closes the connection pool; later calls reject with a `closed` {@link QuoteError}. */
  close(): Promise<void>;
}

/** Options of a broker quote client. */
export interface QuoteClientOptions {
  /** API origin (and optional path prefix); defaults to the broker's public API. */
  baseUrl?: string;
  /** The app's API key (Kite needs it in `Authorization`; Upstox does not). */
  apiKey?: string;
  /** The session's access token, or a function read on every call (the session can change). */
  accessToken: string | (() => string | undefined);
  /** The session's broker user id, read on every call (Dhan's quote API wants its client id). */
  brokerUserId?: () => string | undefined;
  /** Headers and body idle timeout per request, ms (default 5,000). */
  timeoutMs?: number;
  logger?: Logger;
  /** Receive time of quotes without a timestamp (default the system clock). */
  clock?: Clock;
}

/** Why a quote request failed. `status` is the broker's HTTP status (absent when none came). */
export class QuoteError extends Error {
  override readonly name = 'QuoteError';
  /** Broker id. */
  readonly broker: string;
  /** The broker's HTTP status; undefined for timeouts, network errors and local refusals. */
  readonly status: number | undefined;
  /**
   * The broker's error code (`TokenException`, `UDAPI100050`) or a local one: `no_token`,
   * `timeout`, `network`, `closed`, `bad_response`, `http_<status>`.
   */
  readonly code: string;
  /** True when the same request may succeed later: HTTP 429 or 5xx, timeouts, network errors. */
  readonly retryable: boolean;

  constructor(init: {
    broker: string;
    message: string;
    code: string;
    retryable: boolean;
    status?: number;
    cause?: unknown;
  }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.broker = init.broker;
    this.status = init.status;
    this.code = init.code;
    this.retryable = init.retryable;
  }
}

/** HTTP 429 and 5xx are worth retrying; other 4xx repeat until the request or session changes. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}
// ---- full quotes and history (the market-data module's /api/v1 data routes) ----------------------

/** One level of market depth. */
export interface DepthLevel {
  price: number;
  quantity: number;
  orders: number;
}

/**
 * Everything a full quote carries that OpenAlgo's quotes and depth answer with, in rupees and
 * units. Fields the broker did not send are 0, except the circuit limits, which are null (a 0 band
 * is unknown, never a real limit); depth sides keep the broker's padding rows out.
 */
export interface MarketQuote {
  open: number;
  high: number;
  low: number;
  ltp: number;
  /** Previous session's close. */
  prevClose: number;
  volume: number;
  oi: number;
  /** Last traded quantity. */
  ltq: number;
  totalBuyQty: number;
  totalSellQty: number;
  /** Best first, at most five levels. */
  bids: DepthLevel[];
  asks: DepthLevel[];
  /** When the quote was taken, epoch ms. */
  timestamp: number;
  /**
   * The day's upper circuit limit (the top of the exchange's price band); null or absent when the
   * source gave none or gave 0 (docs/rules/market-data.md#circuit-limits). A tick carries none.
   */
  upperCircuit?: number | null;
  /** The day's lower circuit limit; null or absent as {@link upperCircuit}. */
  lowerCircuit?: number | null;
}

/** One candle of the broker's historical API. */
export interface Candle {
  /** Candle start, epoch ms. */
  time: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
  oi: number;
}

/** OpenAlgo's interval names (its `intervals` page); each broker supports a subset. */
export const HISTORY_INTERVALS = ['1m', '3m', '5m', '10m', '15m', '30m', '1h', 'D', 'W', 'M'] as const;
export type HistoryInterval = (typeof HISTORY_INTERVALS)[number];

/** A {@link QuoteClient} that also reads full quotes (depth, OHLC, volume, OI) and candles. */
export interface MarketDataClient extends QuoteClient {
  /** The intervals {@link history} accepts for this broker. */
  readonly intervals: readonly HistoryInterval[];
  /** Full quotes keyed `EXCHANGE:SYMBOL`, batched as {@link QuoteClient.quotes} is. */
  marketQuotes(
    instruments: readonly QuoteInstrument[],
    signal?: AbortSignal,
  ): Promise<Map<string, MarketQuote>>;
  /**
   * Candles of one instrument from `from` to `to` (IST dates `YYYY-MM-DD`, both included), oldest
   * first. An interval outside {@link intervals} or an instrument without a usable token is a
   * local `bad_request` {@link QuoteError} (nothing is sent).
   */
  history(
    instrument: QuoteInstrument,
    interval: HistoryInterval,
    from: string,
    to: string,
    signal?: AbortSignal,
  ): Promise<Candle[]>;
}

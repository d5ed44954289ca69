/**
 * Batched market quotes from the connected broker's REST API, for the sandbox's price source.
 *
 * This file holds the contract ({@link QuoteClient}, {@link QuoteError}) and what
 * the broker clients share: one undici `Pool` per origin (ARCHITECTURE.md "outbound HTTP"), error
 * mapping that never echoes a credential ("Secrets never leave"), and the reading of a quote
 * object, whose fields Kite Connect v3 and Upstox v2 name alike (`last_price`, `ohlc`, `depth`,
 * `timestamp`).
 */
import type { Logger } from 'pino';
import { Pool } from 'undici';
import { systemClock, type Clock } from '../../../platform/clock.js';
import type { Quote } from '../../sandbox/types.js';

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
   * `quoteKey` in sandbox/types.ts); instruments the broker did not return are absent. Splits
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

/**
 * A broker's text made safe for a message or a log line: every credential replaced, `Bearer x`
 * and `token key:secret` forms masked whatever their value, control characters dropped, and at
 * most 300 characters kept.
 */
export function sanitize(text: string, secrets: readonly (string | undefined)[]): string {
  let s = text;
  for (const secret of secrets) if (secret && secret.length >= 4) s = s.split(secret).join('[redacted]');
  s = s
    .replace(/\bBearer\s+\S+/gi, 'Bearer [redacted]')
    .replace(/\btoken\s+[^\s:]+:\S+/gi, 'token [redacted]')
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f]+/g, ' ');
  return s.length > 300 ? `${s.slice(0, 300)}…` : s;
}

/** Splits `items` into runs of at most `size`. */
export function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * Groups instruments by the key the broker is asked with; each maps to the algodesk keys
 * (`EXCHANGE:SYMBOL`) its quote answers. Instruments whose request key is undefined are dropped.
 */
export function groupByRequestKey(
  instruments: readonly QuoteInstrument[],
  requestKey: (i: QuoteInstrument) => string | undefined,
): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const i of instruments) {
    const key = requestKey(i);
    if (key === undefined) continue;
    const target = `${i.exchange}:${i.symbol}`;
    const list = out.get(key);
    if (!list) out.set(key, [target]);
    else if (!list.includes(target)) list.push(target);
  }
  return out;
}

const IST_OFFSET_MS = (5 * 60 + 30) * 60_000;
const WALL_CLOCK = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?$/;
const ZONED = /(?:Z|[+-]\d{2}:?\d{2})$/;

/**
 * Epoch ms of a broker timestamp, or undefined when there is none usable:
 * - zoneless `YYYY-MM-DD HH:MM:SS` is IST wall-clock time (Kite: `2021-06-08 15:45:56`);
 * - ISO-8601 with a zone is read as written (Upstox: `2023-10-19T05:21:51.099+05:30`);
 * - digits are epoch milliseconds (seconds below 10^11; Upstox's SDK documents milliseconds).
 * Zero and earlier are "none": Kite sends `1970-01-01 05:30:00` for an instrument without ticks.
 */
export function parseQuoteTime(value: unknown): number | undefined {
  let ms: number;
  if (typeof value === 'number') ms = value < 1e11 ? value * 1000 : value;
  else if (typeof value !== 'string') return undefined;
  else {
    const s = value.trim();
    const m = WALL_CLOCK.exec(s);
    if (/^\d+$/.test(s)) {
      const n = Number(s);
      ms = n < 1e11 ? n * 1000 : n;
    } else if (m) {
      const [mo, d, h, mi, se] = [m[2], m[3], m[4], m[5], m[6]].map(Number) as [
        number,
        number,
        number,
        number,
        number,
      ];
      if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 59) return undefined;
      const frac = Number((m[7] ?? '').padEnd(3, '0').slice(0, 3));
      ms = Date.UTC(Number(m[1]), mo - 1, d, h, mi, se, frac) - IST_OFFSET_MS;
    } else if (ZONED.test(s)) ms = Date.parse(s);
    else return undefined;
  }
  return Number.isFinite(ms) && ms > 0 ? ms : undefined;
}

/**
 * A price in rupees as sent, or undefined when it is not a non-negative finite number. Upstox
 * sends single-precision values widened to double (`52.04999923706055` is float32 52.05): a
 * value with more than four decimals that is the float32 of a shorter decimal becomes that
 * decimal, so the sandbox's exact money accepts it. Values with up to four decimals are kept.
 */
export function readPrice(v: unknown): number | undefined {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) return undefined;
  const scaled = v * 10_000;
  if (Math.abs(scaled - Math.round(scaled)) <= 1e-6 + scaled * 1e-15) return v;
  for (let places = 0, f = 1; places <= 4; places++, f *= 10) {
    const c = Math.round(v * f) / f;
    if (Math.fround(c) === v) return c;
  }
  return v;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/** Price of the first depth level (the best), 0 when the side is empty or padded with zeros. */
function bestPrice(levels: unknown): number {
  if (!Array.isArray(levels) || levels.length === 0) return 0;
  const first: unknown = levels[0];
  return (isObject(first) ? readPrice(first.price) : undefined) ?? 0;
}

/**
 * A {@link Quote} from a broker quote object (`last_price`, `ohlc.high/low`, `depth.buy/sell`,
 * `timestamp`); `receivedAt` when the timestamp is missing or unusable. Undefined without a
 * usable `last_price`.
 */
export function readQuote(raw: unknown, receivedAt: number): Quote | undefined {
  if (!isObject(raw)) return undefined;
  const ltp = readPrice(raw.last_price);
  if (ltp === undefined) return undefined;
  const ohlc = isObject(raw.ohlc) ? raw.ohlc : {};
  const depth = isObject(raw.depth) ? raw.depth : {};
  return {
    ltp,
    bid: bestPrice(depth.buy),
    ask: bestPrice(depth.sell),
    high: readPrice(ohlc.high) ?? 0,
    low: readPrice(ohlc.low) ?? 0,
    timestamp: parseQuoteTime(raw.timestamp) ?? receivedAt,
  };
}

/** The access token now (a provider is read on every call). */
export function currentToken(source: QuoteClientOptions['accessToken']): string | undefined {
  const t = typeof source === 'function' ? source() : source;
  return t === undefined || t.trim() === '' ? undefined : t;
}

/** What one GET answered: status, the body parsed as JSON (undefined when it is not JSON). */
export interface HttpAnswer {
  status: number;
  json: unknown;
  receivedAt: number;
}

/** How a broker's error body reads. */
export type ErrorReader = (json: unknown) => { code?: string; message?: string };

/**
 * One broker origin: a keep-alive undici `Pool` (4 connections, headers and body timeouts) and
 * the mapping of transport failures and error answers to {@link QuoteError}s.
 */
export class QuoteTransport {
  private readonly pool: Pool;
  private readonly prefix: string;
  private closed = false;
  readonly clock: Clock;
  readonly logger: Logger | undefined;

  constructor(
    readonly broker: string,
    /** Broker name for messages (`Zerodha`). */
    private readonly label: string,
    opts: QuoteClientOptions,
    defaultBaseUrl: string,
    private readonly readError: ErrorReader,
  ) {
    const url = new URL(opts.baseUrl ?? defaultBaseUrl);
    this.prefix = url.pathname.replace(/\/+$/, '');
    const timeout = opts.timeoutMs ?? 5000;
    this.pool = new Pool(url.origin, {
      connections: 4,
      headersTimeout: timeout,
      bodyTimeout: timeout,
      connect: { timeout },
    });
    this.clock = opts.clock ?? systemClock;
    this.logger = opts.logger;
  }

  /** A local refusal or failure (never sent to the broker). */
  error(code: string, message: string, retryable = false, cause?: unknown): QuoteError {
    return new QuoteError({
      broker: this.broker,
      code,
      message: `${this.label} quotes: ${message}`,
      retryable,
      cause,
    });
  }

  /** GET `path` (below the base URL's path). Rejects with a QuoteError, or the abort reason. */
  async get(path: string, headers: Record<string, string>, signal?: AbortSignal): Promise<HttpAnswer> {
    if (this.closed) throw this.error('closed', 'the client is closed');
    signal?.throwIfAborted();
    const started = performance.now();
    let status: number;
    let text: string;
    try {
      const res = await this.pool.request({ method: 'GET', path: this.prefix + path, headers, signal });
      status = res.statusCode;
      text = await res.body.text();
    } catch (err) {
      if (signal?.aborted) throw signal.reason ?? err;
      throw this.transportError(err);
    }
    // undici hands a keep-alive socket to the next request only after a full event-loop turn
    // (it first checks that the server did not close it); without this yield a caller's next
    // batch would find the socket busy and open another connection.
    await new Promise<void>((resolve) => setImmediate(resolve));
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    this.logger?.debug(
      { broker: this.broker, status, ms: Math.round(performance.now() - started) },
      'broker quote request',
    );
    return { status, json, receivedAt: this.clock.now() };
  }

  /**
   * The `data` object of a success answer (`{"status":"success","data":{…}}`); anything else is a
   * QuoteError with the broker's code and sanitised message, logged at warn.
   */
  unwrap(answer: HttpAnswer, secrets: readonly (string | undefined)[]): Record<string, unknown> {
    const { status, json } = answer;
    const ok = status >= 200 && status < 300;
    if (ok && isObject(json) && json.status === 'success') return isObject(json.data) ? json.data : {};
    const said = isObject(json) ? this.readError(json) : {};
    const code = said.code ?? (ok ? 'bad_response' : `http_${status}`);
    const text = said.message
      ? sanitize(said.message, secrets)
      : json === undefined
        ? 'the answer is not JSON'
        : 'the answer is not a success';
    const err = new QuoteError({
      broker: this.broker,
      status,
      code,
      retryable: isRetryableStatus(status),
      message: `${this.label} quotes: HTTP ${status} ${code}: ${text}`,
    });
    this.logger?.warn(
      { broker: this.broker, status, code, retryable: err.retryable, reason: err.message },
      'broker quote request failed',
    );
    throw err;
  }

  private transportError(err: unknown): QuoteError {
    const code = (err as { code?: unknown }).code;
    const detail = sanitize(err instanceof Error ? err.message : String(err), []);
    let out: QuoteError;
    if (
      code === 'UND_ERR_HEADERS_TIMEOUT' ||
      code === 'UND_ERR_BODY_TIMEOUT' ||
      code === 'UND_ERR_CONNECT_TIMEOUT'
    )
      out = this.error('timeout', `timed out (${detail})`, true, err);
    else if (code === 'UND_ERR_CLOSED' || code === 'UND_ERR_DESTROYED')
      out = this.error('closed', 'the client is closed', false, err);
    else out = this.error('network', `request failed (${detail})`, true, err);
    this.logger?.warn(
      { broker: this.broker, code: out.code, retryable: out.retryable, reason: out.message },
      'broker quote request failed',
    );
    return out;
  }

  /** Closes the pool (idempotent). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.close();
  }
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
 * units. Fields the broker did not send are 0; depth sides keep the broker's padding rows out.
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

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** The depth levels of one side, padding rows (price and quantity 0) left out, at most five. */
function depthSide(levels: unknown): DepthLevel[] {
  if (!Array.isArray(levels)) return [];
  const out: DepthLevel[] = [];
  for (const l of levels.slice(0, 5) as unknown[]) {
    if (!isObject(l)) continue;
    const price = readPrice(l.price) ?? 0;
    const quantity = num(l.quantity);
    if (price === 0 && quantity === 0) continue;
    out.push({ price, quantity, orders: num(l.orders) });
  }
  return out;
}

/** How a broker's full quote names the fields that differ between Kite and Upstox. */
export interface FullQuoteFields {
  /** The previous close from the quote object. */
  prevClose(raw: Record<string, unknown>, ltp: number): number;
  totalBuyQty: string;
  totalSellQty: string;
}

/** A {@link MarketQuote} from a broker quote object; undefined without a usable `last_price`. */
export function readMarketQuote(
  raw: unknown,
  receivedAt: number,
  fields: FullQuoteFields,
): MarketQuote | undefined {
  if (!isObject(raw)) return undefined;
  const ltp = readPrice(raw.last_price);
  if (ltp === undefined) return undefined;
  const ohlc = isObject(raw.ohlc) ? raw.ohlc : {};
  const depth = isObject(raw.depth) ? raw.depth : {};
  return {
    open: readPrice(ohlc.open) ?? 0,
    high: readPrice(ohlc.high) ?? 0,
    low: readPrice(ohlc.low) ?? 0,
    ltp,
    prevClose: fields.prevClose(raw, ltp),
    volume: num(raw.volume),
    oi: num(raw.oi),
    ltq: num(raw.last_quantity),
    totalBuyQty: num(raw[fields.totalBuyQty]),
    totalSellQty: num(raw[fields.totalSellQty]),
    bids: depthSide(depth.buy),
    asks: depthSide(depth.sell),
    timestamp: parseQuoteTime(raw.timestamp) ?? receivedAt,
  };
}

/** A price rounded to four decimals (a difference of two float prices). */
export function roundPrice(v: number): number {
  return Math.round(v * 10_000) / 10_000;
}

/**
 * Epoch ms of a candle time as both brokers send it: ISO-8601 with a zone written `+0530` (Kite)
 * or `+05:30` (Upstox). Undefined when unreadable.
 */
export function parseCandleTime(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const ms = Date.parse(value.trim().replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
  return Number.isFinite(ms) ? ms : undefined;
}

/** Candles from `data.candles` rows `[time, open, high, low, close, volume, oi?]`; bad rows skipped. */
export function readCandles(data: Record<string, unknown>): Candle[] {
  const rows = Array.isArray(data.candles) ? (data.candles as unknown[]) : [];
  const out: Candle[] = [];
  for (const row of rows) {
    if (!Array.isArray(row)) continue;
    const time = parseCandleTime(row[0]);
    const [open, high, low, close] = [row[1], row[2], row[3], row[4]].map(readPrice);
    if (time === undefined || open === undefined || high === undefined) continue;
    if (low === undefined || close === undefined) continue;
    out.push({ time, open, high, low, close, volume: num(row[5]), oi: num(row[6]) });
  }
  return out.sort((a, b) => a.time - b.time);
}

/** `YYYY-MM-DD` that names a real calendar date. */
export function isIsoDate(s: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(s)) return false;
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
}

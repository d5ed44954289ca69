/**
 * The reading of a broker's quote and candle objects, whose fields Kite Connect v3 and Upstox v2
 * name alike (`last_price`, `ohlc`, `depth`, `timestamp`, `upper_circuit_limit`,
 * `lower_circuit_limit`, `candles`): times, prices, the sandbox's {@link Quote}, the market-data
 * module's {@link MarketQuote} and {@link Candle}s, and the `YYYY-MM-DD` dates of a history request.
 */
import type { Quote } from '../../sandbox/core/types.js';
import type { Candle, DepthLevel, MarketQuote } from './quote-client.js';

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

/** A non-null object (quote-transport.ts reads answers with it too). */
export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

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
// ---- full quotes and history (the market-data module's /api/v1 data routes) ----------------------

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

/**
 * A circuit limit as sent (`upper_circuit_limit`, `lower_circuit_limit`: top-level numbers in both
 * Kite's and Upstox's full quote), or null when it is missing, not a price, or 0: a 0 band is
 * "unknown", never a real limit (docs/rules/market-data.md#circuit-limits).
 */
export function readCircuit(v: unknown): number | null {
  const price = readPrice(v);
  return price === undefined || price === 0 ? null : price;
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
    upperCircuit: readCircuit(raw.upper_circuit_limit),
    lowerCircuit: readCircuit(raw.lower_circuit_limit),
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

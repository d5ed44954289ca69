/**
 * OpenAlgo's WebSocket protocol as its server and the official SDK speak it
 * (docs/rules/market-data.md#feed-protocol): parsing a client's message into a command, pure and
 * total (every input is a command or an error with OpenAlgo's code), and the server's messages.
 * The socket and the hub never look at raw JSON.
 */
import { MODE_NAMES, type DepthLevel, type FeedMode, type Tick } from './feed.types.js';

/** OpenAlgo's error codes (the `code` of `{status: "error", code, message}`). */
export type FeedErrorCode =
  | 'AUTHENTICATION_ERROR'
  | 'NOT_AUTHENTICATED'
  | 'INVALID_MODE'
  | 'INVALID_PARAMETERS'
  | 'INVALID_ACTION'
  | 'INVALID_JSON'
  | 'BROKER_ERROR'
  | 'RATE_LIMITED'
  | 'SUBSCRIPTION_LIMIT';

export interface FeedError {
  status: 'error';
  code: FeedErrorCode;
  message: string;
}

export const feedError = (code: FeedErrorCode, message: string): FeedError => ({
  status: 'error',
  code,
  message,
});

export interface SymbolRef {
  symbol: string;
  exchange: string;
}

/** What a client may ask, once parsed. */
export type Command =
  | { action: 'authenticate'; apiKey: string }
  | {
      action: 'subscribe';
      symbols: SymbolRef[];
      mode: FeedMode;
      depth: number;
      requestId?: string | number;
    }
  | { action: 'unsubscribe'; symbols: (SymbolRef & { mode: FeedMode })[] }
  | { action: 'unsubscribe_all' }
  | { action: 'subscribe_orders' }
  | { action: 'unsubscribe_orders' }
  | { action: 'get_broker_info' }
  | { action: 'get_supported_brokers' }
  | { action: 'ping'; timestamp?: string | number; pingId?: string | number };

/** Bounds of one message (the per-socket and per-install bounds are the hub's). */
export const PROTOCOL_LIMITS = {
  /** Symbols in one subscribe or unsubscribe. */
  symbolsPerMessage: 1000,
  /** Characters of a symbol or exchange (the longest real F&O symbol is about 40). */
  symbolLength: 64,
  /** Characters of an API key (keys are 64 hex characters; anything longer is not one). */
  apiKeyLength: 256,
  /** Depth levels a subscriber may ask for. */
  maxDepth: 50,
} as const;

const ALIASES: Readonly<Record<string, Command['action']>> = {
  authenticate: 'authenticate',
  auth: 'authenticate',
  subscribe: 'subscribe',
  unsubscribe: 'unsubscribe',
  unsubscribe_all: 'unsubscribe_all',
  subscribe_orders: 'subscribe_orders',
  unsubscribe_orders: 'unsubscribe_orders',
  get_broker_info: 'get_broker_info',
  get_supported_brokers: 'get_supported_brokers',
  ping: 'ping',
};

const MODE_WORDS: Readonly<Record<string, FeedMode>> = { ltp: 1, quote: 2, depth: 3, '1': 1, '2': 2, '3': 3 };

/** A mode as a client may write it (1, 2, 3, "LTP", "Quote", "Depth" in any case); undefined if not one. */
export function parseMode(raw: unknown): FeedMode | undefined {
  if (raw === 1 || raw === 2 || raw === 3) return raw;
  if (typeof raw === 'string') return MODE_WORDS[raw.trim().toLowerCase()];
  return undefined;
}

type Result = Command | FeedError;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A short echo of client text for an error message: never the whole frame, and only characters a
 * name holds (letters, digits, `_ . : -`), so no markup or control character travels back.
 */
const echo = (v: unknown): string =>
  String(v)
    .replace(/[^\w.:-]/g, '?')
    .slice(0, 40);

/** A small id or timestamp a client sends to be echoed back (string ≤ 64 characters or a finite number). */
function token(v: unknown): string | number | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && v.length <= 64) return v;
  return undefined;
}

function symbolRef(v: unknown): SymbolRef | undefined {
  if (!isObject(v)) return undefined;
  const { symbol, exchange } = v;
  const ok = (s: unknown): s is string =>
    typeof s === 'string' && s.trim().length > 0 && s.length <= PROTOCOL_LIMITS.symbolLength;
  return ok(symbol) && ok(exchange)
    ? { symbol: symbol.trim().toUpperCase(), exchange: exchange.trim().toUpperCase() }
    : undefined;
}

/** The symbols of a subscribe or unsubscribe: `symbols` (or `instruments`), or one top-level symbol. */
function symbolList(msg: Record<string, unknown>, missing: string): Record<string, unknown>[] | FeedError {
  const list = msg.symbols ?? msg.instruments;
  if (list === undefined) {
    if (msg.symbol !== undefined || msg.exchange !== undefined) return [msg];
    return feedError('INVALID_PARAMETERS', missing);
  }
  if (!Array.isArray(list) || list.length === 0)
    return feedError('INVALID_PARAMETERS', 'symbols must be a non-empty list of {symbol, exchange}');
  if (list.length > PROTOCOL_LIMITS.symbolsPerMessage)
    return feedError(
      'INVALID_PARAMETERS',
      `Too many symbols in one message: ${list.length} (at most ${PROTOCOL_LIMITS.symbolsPerMessage})`,
    );
  return list as Record<string, unknown>[];
}

function subscribe(msg: Record<string, unknown>): Result {
  const list = symbolList(msg, 'At least one symbol must be specified');
  if (!Array.isArray(list)) return list;
  const mode = msg.mode === undefined ? 2 : parseMode(msg.mode);
  if (mode === undefined)
    return feedError('INVALID_MODE', `Invalid mode ${echo(msg.mode)}: use 1 (LTP), 2 (Quote) or 3 (Depth)`);
  const depth = msg.depth ?? msg.depth_level ?? 5;
  if (typeof depth !== 'number' || !Number.isInteger(depth) || depth < 1 || depth > PROTOCOL_LIMITS.maxDepth)
    return feedError('INVALID_PARAMETERS', `depth must be an integer from 1 to ${PROTOCOL_LIMITS.maxDepth}`);
  const symbols: SymbolRef[] = [];
  for (const [i, entry] of list.entries()) {
    const ref = symbolRef(entry);
    if (!ref)
      return feedError(
        'INVALID_PARAMETERS',
        `symbols[${i}] needs a symbol and an exchange (text, at most ${PROTOCOL_LIMITS.symbolLength} characters)`,
      );
    symbols.push(ref);
  }
  const requestId = token(msg.request_id);
  return { action: 'subscribe', symbols, mode, depth, ...(requestId !== undefined ? { requestId } : {}) };
}

function unsubscribe(msg: Record<string, unknown>): Result {
  const list = symbolList(msg, 'Either symbols or unsubscribe_all is required');
  if (!Array.isArray(list)) return list;
  const fallback = msg.mode === undefined ? 2 : parseMode(msg.mode);
  if (fallback === undefined) return feedError('INVALID_MODE', `Invalid mode ${echo(msg.mode)}`);
  const symbols: (SymbolRef & { mode: FeedMode })[] = [];
  for (const [i, entry] of list.entries()) {
    const ref = symbolRef(entry);
    if (!ref) return feedError('INVALID_PARAMETERS', `symbols[${i}] needs a symbol and an exchange`);
    const raw = entry === msg ? undefined : entry.mode;
    const mode = raw === undefined ? fallback : parseMode(raw);
    if (mode === undefined) return feedError('INVALID_MODE', `Invalid mode ${echo(raw)} in symbols[${i}]`);
    symbols.push({ ...ref, mode });
  }
  return { action: 'unsubscribe', symbols };
}

/** Parses one client frame (text). Every input is a command or an error; nothing throws. */
export function parseClientMessage(text: string): Result {
  let msg: unknown;
  try {
    msg = JSON.parse(text);
  } catch {
    return feedError('INVALID_JSON', 'Invalid JSON message');
  }
  if (!isObject(msg)) return feedError('INVALID_JSON', 'A message is a JSON object with an action');
  const name = msg.action ?? msg.type;
  const action = typeof name === 'string' ? ALIASES[name.toLowerCase()] : undefined;
  if (!action)
    return feedError(
      'INVALID_ACTION',
      name === undefined ? 'action is required' : `Invalid action: ${echo(name)}`,
    );
  switch (action) {
    case 'authenticate': {
      const key = msg.api_key ?? msg.apikey;
      if (typeof key !== 'string' || key.length === 0 || key.length > PROTOCOL_LIMITS.apiKeyLength)
        return feedError('AUTHENTICATION_ERROR', 'API key is required');
      return { action, apiKey: key };
    }
    case 'subscribe':
      return subscribe(msg);
    case 'unsubscribe':
      return unsubscribe(msg);
    case 'ping': {
      const timestamp = token(msg.timestamp);
      const pingId = token(msg._pingId);
      return {
        action,
        ...(timestamp !== undefined ? { timestamp } : {}),
        ...(pingId !== undefined ? { pingId } : {}),
      };
    }
    default:
      return { action };
  }
}

export const isFeedError = (r: Result): r is FeedError => 'status' in r;

// ---- server → client ----

const round2 = (n: number) => Math.round(n * 100) / 100;
const orNull = (v: number | null | undefined): number | null => (v === undefined ? null : v);

function levels(side: DepthLevel[] | undefined, depth: number) {
  return (side ?? [])
    .slice(0, depth)
    .map((l) => ({ price: l.price, quantity: l.quantity, orders: l.orders }));
}

/** A tick's `data` for a subscriber in `mode` (with `depth` levels for Depth). */
export function tickData(tick: Tick, mode: FeedMode, depth: number): Record<string, unknown> {
  const base: Record<string, unknown> = { ltp: tick.ltp, ltt: tick.ltt, timestamp: tick.timestamp };
  if (mode === 1) return base;
  const close = orNull(tick.close);
  const change = close !== null && close > 0 ? round2(tick.ltp - close) : null;
  const quote = {
    ...base,
    open: orNull(tick.open),
    high: orNull(tick.high),
    low: orNull(tick.low),
    close,
    volume: orNull(tick.volume),
    average_price: orNull(tick.average_price),
    avg_trade_price: orNull(tick.average_price),
    last_quantity: orNull(tick.last_quantity),
    last_trade_quantity: orNull(tick.last_quantity),
    total_buy_quantity: orNull(tick.total_buy_quantity),
    total_sell_quantity: orNull(tick.total_sell_quantity),
    oi: orNull(tick.oi),
    change,
    change_percent: change !== null && close ? round2((change / close) * 100) : null,
  };
  if (mode === 2) return quote;
  return { ...quote, depth: { buy: levels(tick.depth?.buy, depth), sell: levels(tick.depth?.sell, depth) } };
}

/** The `market_data` message, serialized (built once and sent to every subscriber alike). */
export function marketDataMessage(
  symbol: string,
  exchange: string,
  mode: FeedMode,
  depth: number,
  tick: Tick,
  broker: string,
): string {
  return JSON.stringify({
    type: 'market_data',
    symbol,
    exchange,
    mode,
    data: tickData(tick, mode, depth),
    broker,
  });
}

export const modeName = (m: FeedMode) => MODE_NAMES[m];

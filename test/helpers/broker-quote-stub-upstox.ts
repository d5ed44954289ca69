/**
 * Upstox v2 quotes on loopback, on {@link BrokerStub}: `GET /v2/market-quote/quotes` and
 * `GET /v2/historical-candle/{key}/{interval}/{to}/{from}`, with Upstox's documented quote and
 * error bodies ({@link upstoxQuote}, {@link upstoxError}).
 */
import { BrokerStub, depth, type RecordedRequest, type StubAnswer } from './broker-stub.js';

/** Upstox's full-quote limit ("up to 500 instruments in one go"). */
export const UPSTOX_QUOTE_LIMIT = 500;

/**
 * A full quote object as Upstox documents it (get-full-market-quote): `instrument_token` is the
 * instrument key, `symbol` the trading symbol, `timestamp` ISO-8601 with the +05:30 offset, and the
 * circuit limits the top-level numbers `lower_circuit_limit` and `upper_circuit_limit` (0 unless
 * given, left out of the object when given as null).
 */
export function upstoxQuote(q: {
  instrumentKey: string;
  symbol: string;
  lastPrice: number;
  ohlc?: { open: number; high: number; low: number; close: number };
  bids?: readonly (readonly [number, number, number?])[];
  asks?: readonly (readonly [number, number, number?])[];
  /** Omitted from the object when null. */
  timestamp?: string | null;
  upperCircuitLimit?: number | null;
  lowerCircuitLimit?: number | null;
}): Record<string, unknown> {
  const ohlc = q.ohlc ?? { open: q.lastPrice, high: q.lastPrice, low: q.lastPrice, close: q.lastPrice };
  const out: Record<string, unknown> = {
    ohlc,
    depth: { buy: depth(q.bids ?? []), sell: depth(q.asks ?? []) },
    timestamp: q.timestamp ?? '2026-02-05T10:15:00.000+05:30',
    instrument_token: q.instrumentKey,
    symbol: q.symbol,
    last_price: q.lastPrice,
    volume: 0,
    average_price: q.lastPrice,
    oi: 0,
    net_change: 0,
    total_buy_quantity: 0,
    total_sell_quantity: 0,
    lower_circuit_limit: q.lowerCircuitLimit ?? 0,
    upper_circuit_limit: q.upperCircuitLimit ?? 0,
    last_trade_time: '1770266698000',
    oi_day_high: 0,
    oi_day_low: 0,
  };
  if (q.timestamp === null) delete out.timestamp;
  if (q.lowerCircuitLimit === null) delete out.lower_circuit_limit;
  if (q.upperCircuitLimit === null) delete out.upper_circuit_limit;
  return out;
}

/** Upstox's error body (`errors[]` with camelCase and snake_case copies, as the API sends). */
export function upstoxError(errorCode: string, message: string): Record<string, unknown> {
  const snake = { error_code: errorCode, property_path: null, invalid_value: null };
  return {
    status: 'error',
    errors: [{ errorCode, message, propertyPath: null, invalidValue: null, ...snake }],
  };
}

const UPSTOX_KEY = /^[A-Z][A-Z0-9_]*\|[^,|]+$/;

/**
 * Upstox v2 on loopback. `GET /v2/market-quote/quotes?instrument_key=a,b` needs
 * `Authorization: Bearer <token>` exactly (else 401 UDAPI100050, the body Upstox sends); errors
 * UDAPI1009 (no key), UDAPI1011 (malformed key), UDAPI100043 (over 500 keys) as its docs list
 * them. `data` is keyed `SEGMENT:SYMBOL` from each quote's `symbol`, not by the key asked with.
 */
export class UpstoxQuoteStub extends BrokerStub {
  /** What the full quote answers from, keyed by instrument key (`NSE_EQ|INE062A01020`). */
  readonly quotes = new Map<string, Record<string, unknown>>();
  private readonly token: { value: string };

  constructor(accessToken: string) {
    const token = { value: accessToken };
    super({
      check: (h) => h.authorization === `Bearer ${token.value}`,
      refusal: () => ({ status: 401, body: upstoxError('UDAPI100050', 'Invalid token used to access API') }),
    });
    this.token = token;
    this.route('GET', '/v2/market-quote/quotes', (req) => this.quote(req));
    this.routePrefix('GET', '/v2/historical-candle/', (req) => this.history(req));
  }

  /**
   * What the historical API answers from, keyed `instrument_key/interval` (`NSE_EQ|INE062A01020/day`):
   * candle rows `[time, open, high, low, close, volume, oi]`; answered newest first, as Upstox does.
   * The codes of its interval and date refusals are illustrative (Upstox's shape, not its list).
   */
  readonly candles = new Map<string, unknown[][]>();

  private history(req: RecordedRequest): StubAnswer {
    const parts = req.path.slice('/v2/historical-candle/'.length).split('/').map(decodeURIComponent);
    const [key, interval, to, from] = parts;
    const date = /^\d{4}-\d{2}-\d{2}$/;
    if (parts.length !== 4 || !UPSTOX_KEY.test(key ?? ''))
      return { status: 400, body: upstoxError('UDAPI1011', 'instrument_key is of invalid format') };
    if (!['1minute', '30minute', 'day', 'week', 'month'].includes(interval ?? ''))
      return { status: 400, body: upstoxError('UDAPI1020', 'Invalid interval') };
    if (!date.test(to ?? '') || !date.test(from ?? '') || from! > to!)
      return { status: 400, body: upstoxError('UDAPI1022', 'Invalid date range') };
    const rows = (this.candles.get(`${key}/${interval}`) ?? [])
      .filter((r) => {
        const day = String(r[0]).slice(0, 10);
        return day >= from! && day <= to!;
      })
      .sort((a, b) => String(b[0]).localeCompare(String(a[0])));
    return { status: 200, body: { status: 'success', data: { candles: rows } } };
  }

  /** The access token accepted from now on (a new session). */
  get accessToken(): string {
    return this.token.value;
  }
  set accessToken(t: string) {
    this.token.value = t;
  }

  private quote(req: RecordedRequest): StubAnswer {
    const raw = req.query.get('instrument_key');
    if (!raw) return { status: 400, body: upstoxError('UDAPI1009', 'instrument_key is required') };
    const keys = raw.split(',');
    if (keys.length > UPSTOX_QUOTE_LIMIT)
      return { status: 400, body: upstoxError('UDAPI100043', 'Maximum instrument key limit exceeded') };
    if (!keys.every((k) => UPSTOX_KEY.test(k)))
      return { status: 400, body: upstoxError('UDAPI1011', 'instrument_key is of invalid format') };
    const data: Record<string, unknown> = {};
    for (const k of keys) {
      const q = this.quotes.get(k);
      if (q) data[`${k.slice(0, k.indexOf('|'))}:${String(q.symbol)}`] = q;
    }
    return { status: 200, body: { status: 'success', data } };
  }
}

/** Starts an {@link UpstoxQuoteStub} accepting `accessToken`. */
export function startUpstoxQuoteStub(accessToken = 'upstox-access-token-9012'): Promise<UpstoxQuoteStub> {
  return new UpstoxQuoteStub(accessToken).start();
}

/**
 * Kite Connect v3 quotes on loopback, on {@link BrokerStub}: `GET /quote` and
 * `GET /instruments/historical/{token}/{interval}`, with Kite's documented quote and error bodies
 * ({@link kiteQuote}, {@link kiteError}).
 */
import { BrokerStub, depth, type RecordedRequest, type StubAnswer } from './broker-stub.js';

/** Kite's candle intervals (historical page) and the most days one request may span in each. */
const KITE_MAX_DAYS: Record<string, number> = {
  minute: 60,
  '3minute': 100,
  '5minute': 100,
  '10minute': 100,
  '15minute': 200,
  '30minute': 200,
  '60minute': 400,
  day: 2000,
};
const KITE_INTERVALS = Object.keys(KITE_MAX_DAYS);

/** Kite's `/quote` limit (kite.trade/docs/connect/v3/market-quotes, "Limits"). */
export const KITE_QUOTE_LIMIT = 500;

/** Credentials the Kite stub accepts. */
export interface KiteCredentials {
  apiKey: string;
  accessToken: string;
}

/**
 * A full quote object as Kite documents it (market-quotes "Response attributes"); `timestamp`
 * and `last_trade_time` are IST wall-clock strings without a zone. The circuit limits are the
 * top-level numbers `lower_circuit_limit` and `upper_circuit_limit`: 0 unless given, and left out
 * of the object when given as null.
 */
export function kiteQuote(q: {
  instrumentToken: number;
  lastPrice: number;
  ohlc?: { open: number; high: number; low: number; close: number };
  bids?: readonly (readonly [number, number, number?])[];
  asks?: readonly (readonly [number, number, number?])[];
  timestamp?: string | null;
  lastTradeTime?: string | null;
  upperCircuitLimit?: number | null;
  lowerCircuitLimit?: number | null;
}): Record<string, unknown> {
  const ohlc = q.ohlc ?? { open: q.lastPrice, high: q.lastPrice, low: q.lastPrice, close: q.lastPrice };
  const out: Record<string, unknown> = {
    instrument_token: q.instrumentToken,
    timestamp: q.timestamp === undefined ? '2026-08-18 10:15:00' : q.timestamp,
    last_trade_time: q.lastTradeTime === undefined ? '2026-08-18 10:14:58' : q.lastTradeTime,
    last_price: q.lastPrice,
    last_quantity: 1,
    buy_quantity: 0,
    sell_quantity: 0,
    volume: 0,
    average_price: q.lastPrice,
    oi: 0,
    oi_day_high: 0,
    oi_day_low: 0,
    net_change: 0,
    lower_circuit_limit: q.lowerCircuitLimit ?? 0,
    upper_circuit_limit: q.upperCircuitLimit ?? 0,
    ohlc,
    depth: { buy: depth(q.bids ?? []), sell: depth(q.asks ?? []) },
  };
  if (q.lowerCircuitLimit === null) delete out.lower_circuit_limit;
  if (q.upperCircuitLimit === null) delete out.upper_circuit_limit;
  return out;
}

/** Kite's body for an error (kite.trade/docs/connect/v3/exceptions). */
export function kiteError(message: string, errorType: string): Record<string, unknown> {
  return { status: 'error', message, data: null, error_type: errorType };
}

/**
 * Kite Connect v3 on loopback. `GET /quote` needs `Authorization: token api_key:access_token`
 * exactly (else 403 TokenException with Kite's own message) and `X-Kite-Version: 3`; it answers
 * the requested `i` keys found in {@link quotes} (others are absent, as Kite documents). More
 * than 500 keys is a 400 InputException here (the stub's rule, so batching is checked).
 */
export class KiteQuoteStub extends BrokerStub {
  /** What `/quote` answers from, keyed `EXCHANGE:TRADINGSYMBOL` (`NSE:NIFTY 50`). */
  readonly quotes = new Map<string, Record<string, unknown>>();
  private readonly creds: { value: KiteCredentials };

  constructor(credentials: KiteCredentials) {
    const creds = { value: { ...credentials } };
    super({
      check: (h) => h.authorization === `token ${creds.value.apiKey}:${creds.value.accessToken}`,
      refusal: () => ({
        status: 403,
        body: kiteError('Incorrect `api_key` or `access_token`.', 'TokenException'),
      }),
    });
    this.creds = creds;
    this.route('GET', '/quote', (req) => this.quote(req));
    this.routePrefix('GET', '/instruments/historical/', (req) => this.history(req));
  }

  /**
   * What the historical API answers from, keyed `instrument_token/interval` (`779521/5minute`):
   * candle rows `[time, open, high, low, close, volume, oi]` as Kite sends them.
   */
  readonly candles = new Map<string, unknown[][]>();

  private history(req: RecordedRequest): StubAnswer {
    const [token, interval] = req.path.slice('/instruments/historical/'.length).split('/');
    const from = req.query.get('from') ?? '';
    const to = req.query.get('to') ?? '';
    const stamp = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
    if (!KITE_INTERVALS.includes(interval ?? ''))
      return { status: 400, body: kiteError('invalid interval', 'InputException') };
    if (!stamp.test(from) || !stamp.test(to))
      return { status: 400, body: kiteError('invalid from or to', 'InputException') };
    const span = (Date.parse(to.slice(0, 10)) - Date.parse(from.slice(0, 10))) / 86_400_000 + 1;
    const max = KITE_MAX_DAYS[interval ?? ''] ?? 0;
    if (span > max)
      return { status: 400, body: kiteError(`interval exceeds max limit: ${max} days`, 'InputException') };
    const rows = (this.candles.get(`${token}/${interval}`) ?? []).filter((r) => {
      const day = String(r[0]).slice(0, 10);
      return day >= from.slice(0, 10) && day <= to.slice(0, 10);
    });
    return { status: 200, body: { status: 'success', data: { candles: rows } } };
  }

  /** The credentials accepted from now on (a new session). */
  get credentials(): KiteCredentials {
    return this.creds.value;
  }
  set credentials(c: KiteCredentials) {
    this.creds.value = { ...c };
  }

  private quote(req: RecordedRequest): StubAnswer {
    if (req.headers['x-kite-version'] !== '3')
      return { status: 400, body: kiteError('stub: X-Kite-Version: 3 is required', 'InputException') };
    const keys = req.query.getAll('i');
    if (keys.length === 0) return { status: 400, body: kiteError('No instruments', 'InputException') };
    if (keys.length > KITE_QUOTE_LIMIT)
      return { status: 400, body: kiteError('Too many instruments', 'InputException') };
    const data: Record<string, unknown> = {};
    for (const k of keys) {
      const q = this.quotes.get(k);
      if (q) data[k] = q;
    }
    return { status: 200, body: { status: 'success', data } };
  }
}

/** Starts a {@link KiteQuoteStub} accepting `credentials`. */
export function startKiteQuoteStub(
  credentials: KiteCredentials = { apiKey: 'kite-api-key-1234', accessToken: 'kite-access-token-5678' },
): Promise<KiteQuoteStub> {
  return new KiteQuoteStub(credentials).start();
}

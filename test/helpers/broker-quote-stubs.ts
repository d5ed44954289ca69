/**
 * Loopback stand-ins for the brokers' REST APIs (node:http on 127.0.0.1, port 0), speaking their
 * documented wire formats, so broker clients are tested over real HTTP (keep-alive, timeouts,
 * status codes) with no network.
 *
 * - {@link BrokerStub} is the broker-neutral core: routes, exact credential check, a record of
 *   every request (headers without the credential; only whether it matched), scripted failures
 *   and delays, and counts of accepted and open TCP connections. Other endpoints (orders) are
 *   added with {@link BrokerStub.route}.
 * - {@link startKiteQuoteStub}: Kite Connect v3 `GET /quote` and
 *   `GET /instruments/historical/{token}/{interval}`.
 * - {@link startUpstoxQuoteStub}: Upstox v2 `GET /v2/market-quote/quotes` and
 *   `GET /v2/historical-candle/{key}/{interval}/{to}/{from}`.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request as the stub saw it. The credential itself is never kept, only `authOk`. */
export interface RecordedRequest {
  method: string;
  /** Path and query as sent. */
  url: string;
  path: string;
  query: URLSearchParams;
  /** Request headers less `authorization`. */
  headers: IncomingHttpHeaders;
  body: string;
  /** Whether the credential headers were exactly the configured ones. */
  authOk: boolean;
}

/** An answer: an object body is sent as JSON, a string as is (`text/html` unless headers say). */
export interface StubAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** Answers one route; runs only for requests whose credentials matched. */
export type StubHandler = (req: RecordedRequest) => StubAnswer | Promise<StubAnswer>;

/** How a broker authenticates: the exact check and its documented refusal. */
export interface StubAuth {
  check(headers: IncomingHttpHeaders): boolean;
  refusal(): StubAnswer;
}

/** The broker-neutral loopback server; see the file comment. */
export class BrokerStub {
  /** Every request received, in order. */
  readonly requests: RecordedRequest[] = [];
  /** TCP connections accepted since start (keep-alive reuse keeps this at 1). */
  connections = 0;
  /** TCP connections open now. */
  openConnections = 0;
  private readonly routes = new Map<string, StubHandler>();
  private readonly prefixRoutes: [string, StubHandler][] = [];
  private readonly failures: StubAnswer[] = [];
  private readonly delays: number[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private server: Server | undefined;
  private origin = '';

  constructor(private readonly auth: StubAuth) {}

  /** `http://127.0.0.1:<port>`, the client's base URL. */
  get url(): string {
    return this.origin;
  }

  /** Serves `method path` (path without query) with `handler`. */
  route(method: string, path: string, handler: StubHandler): this {
    this.routes.set(`${method.toUpperCase()} ${path}`, handler);
    return this;
  }

  /** Serves every `method` path that starts with `prefix` (no exact route matched). */
  routePrefix(method: string, prefix: string, handler: StubHandler): this {
    this.prefixRoutes.push([`${method.toUpperCase()} ${prefix}`, handler]);
    return this;
  }

  /** The next `times` requests, whatever they are, get this answer (after any delay). */
  failNext(status: number, body: unknown, times = 1, headers?: Record<string, string>): void {
    for (let i = 0; i < times; i++) this.failures.push({ status, body, headers });
  }

  /** The next `times` requests are answered only after `ms` milliseconds. */
  delayNext(ms: number, times = 1): void {
    for (let i = 0; i < times; i++) this.delays.push(ms);
  }

  /** Forgets recorded requests and pending failures and delays (connection counts stay). */
  reset(): void {
    this.requests.length = 0;
    this.failures.length = 0;
    this.delays.length = 0;
  }

  /** Listens on 127.0.0.1 with an ephemeral port. */
  async start(): Promise<this> {
    // Kite's 500 `i=` parameters make request lines of ~15 KB, near Node's 16 KiB default.
    const server = createServer({ maxHeaderSize: 64 * 1024 }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const url = new URL(req.url ?? '/', 'http://stub');
        const headers = { ...req.headers };
        delete headers.authorization;
        const recorded: RecordedRequest = {
          method: req.method ?? 'GET',
          url: req.url ?? '/',
          path: url.pathname,
          query: url.searchParams,
          headers,
          body: Buffer.concat(chunks).toString('utf8'),
          authOk: this.auth.check(req.headers),
        };
        this.requests.push(recorded);
        const delay = this.delays.shift() ?? 0;
        const send = (answer: StubAnswer) => {
          if (res.destroyed) return;
          const json = typeof answer.body !== 'string';
          const text = json ? JSON.stringify(answer.body) : (answer.body as string);
          res.writeHead(answer.status, {
            'content-type': json ? 'application/json' : 'text/html',
            ...answer.headers,
          });
          res.end(text);
        };
        // A delay of 0 still answers from a timer, so close() discards every pending answer.
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          void this.answer(recorded).then(send, (err: unknown) =>
            send({ status: 500, body: `stub handler failed: ${String(err)}` }),
          );
        }, delay);
        this.timers.add(timer);
      });
    });
    server.on('connection', (socket) => {
      this.connections++;
      this.openConnections++;
      socket.on('close', () => this.openConnections--);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.server = server;
    this.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this;
  }

  private async answer(req: RecordedRequest): Promise<StubAnswer> {
    const failure = this.failures.shift();
    if (failure) return failure;
    if (!req.authOk) return this.auth.refusal();
    const line = `${req.method} ${req.path}`;
    const handler =
      this.routes.get(line) ?? this.prefixRoutes.find(([prefix]) => line.startsWith(prefix))?.[1];
    if (!handler)
      return { status: 404, body: { status: 'error', message: `stub: no route ${req.method} ${req.path}` } };
    return handler(req);
  }

  /** Stops listening and drops every connection (pending delayed answers are discarded). */
  async close(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** One level of market depth as both brokers send it. */
export interface DepthLevel {
  price: number;
  quantity: number;
  orders: number;
}

/** Five depth levels: the given ones, then rows of zeros, as both brokers pad an empty book. */
export function depth(
  levels: readonly (readonly [price: number, quantity: number, orders?: number])[],
): DepthLevel[] {
  const out = levels.slice(0, 5).map(([price, quantity, orders = 1]) => ({ price, quantity, orders }));
  while (out.length < 5) out.push({ price: 0, quantity: 0, orders: 0 });
  return out;
}

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
 * and `last_trade_time` are IST wall-clock strings without a zone.
 */
export function kiteQuote(q: {
  instrumentToken: number;
  lastPrice: number;
  ohlc?: { open: number; high: number; low: number; close: number };
  bids?: readonly (readonly [number, number, number?])[];
  asks?: readonly (readonly [number, number, number?])[];
  timestamp?: string | null;
  lastTradeTime?: string | null;
}): Record<string, unknown> {
  const ohlc = q.ohlc ?? { open: q.lastPrice, high: q.lastPrice, low: q.lastPrice, close: q.lastPrice };
  return {
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
    lower_circuit_limit: 0,
    upper_circuit_limit: 0,
    ohlc,
    depth: { buy: depth(q.bids ?? []), sell: depth(q.asks ?? []) },
  };
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

/** Upstox's full-quote limit ("up to 500 instruments in one go"). */
export const UPSTOX_QUOTE_LIMIT = 500;

/**
 * A full quote object as Upstox documents it (get-full-market-quote): `instrument_token` is the
 * instrument key, `symbol` the trading symbol, `timestamp` ISO-8601 with the +05:30 offset.
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
    lower_circuit_limit: 0,
    upper_circuit_limit: 0,
    last_trade_time: '1770266698000',
    oi_day_high: 0,
    oi_day_low: 0,
  };
  if (q.timestamp === null) delete out.timestamp;
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

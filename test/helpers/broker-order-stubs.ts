/**
 * Loopback stand-ins for the brokers' order and login endpoints, on {@link BrokerStub} (real
 * HTTP: keep-alive, timeouts, status codes), speaking the documented formats:
 *
 * - {@link KiteOrderStub}: Kite Connect v3 `POST /orders/regular`, `PUT|DELETE
 *   /orders/regular/:id`, `GET /orders/:id` (history), `GET /orders` (the day's order book, each
 *   order's current record), `POST /session/token` (checksum checked).
 * - {@link UpstoxOrderStub}: Upstox v2 `POST /v2/order/place`, `PUT /v2/order/modify`,
 *   `DELETE /v2/order/cancel`, `GET /v2/order/details`, `GET /v2/order/retrieve-all` (the day's
 *   order book), `POST /v2/login/authorization/token` (client_secret and redirect_uri checked).
 *
 * Both keep a day's book: with `fillMarketOrders` on, a MARKET order fills at once at the
 * instrument's price (`prices`, default 100) and shows as complete in the orders list, as one
 * trade and in the net position; other orders (and every order with it off, the default the
 * strategy tests' scripted fills need) stay open until `settle`d or cancelled. Kite also serves `GET /trades`,
 * `/portfolio/positions`, `/portfolio/holdings`, `/user/margins`; Upstox `GET
 * /v2/order/trades/get-trades-for-day`, `/v2/portfolio/short-term-positions`,
 * `/v2/portfolio/long-term-holdings`, `/v2/user/get-funds-and-margin` (documented shapes;
 * holdings from `holdingRows`, cash from `cash`). Both serve their margin calculator
 * (Kite `POST /margins/basket`, Upstox `POST /v2/charges/margin`; figures by the rule in
 * broker-margin-stubs.ts).
 *
 * Bodies are parsed (`forms()`/`bodies()`); `failNext`/`delayNext` script answers;
 * `refusePlacement` refuses the n-th placement from now; `omitOrderId` drops the id from
 * successes; `connections` counts TCP connections. Order endpoints need the exact credential,
 * token endpoints none (`credentialOf` tells what a request carried).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { Writable } from 'node:stream';
import type { Logger } from 'pino';
import type { BrokerOrder } from '../../src/modules/brokers/broker-adapter.js';
import type { QuoteInstrument } from '../../src/modules/brokers/quotes/quote-client.js';
import { createLogger } from '../../src/platform/logger.js';
import {
  BrokerStub,
  kiteError,
  upstoxError,
  type RecordedRequest,
  type StubAnswer,
  type StubHandler,
} from './broker-quote-stubs.js';
import { kiteBasketAnswer, upstoxMarginAnswer } from './broker-margin-stubs.js';

/** Which credential a request carried: the accepted one, none, or another. */
export type Credential = 'exact' | 'absent' | 'wrong';

type Body = Record<string, unknown>;

/** The price a MARKET order fills at when the test set none. */
export const DEFAULT_PRICE = 100;

/** One fill of the stub's day. */
export interface StubFill {
  tradeId: string;
  orderId: string;
  tradingsymbol: string;
  /** Kite's exchange, or Upstox's instrument key (its segment names the exchange). */
  exchange: string;
  token: string | number;
  product: string;
  side: string;
  quantity: number;
  price: number;
  at: string;
  tag: string;
}

/** A net position built from the fills. */
interface StubPosition extends StubFill {
  buyQty: number;
  buyValue: number;
  sellQty: number;
  sellValue: number;
}

/** Quantity, average, realised and unrealised P&L of a net position at `ltp`. */
export function positionFigures(
  p: Pick<StubPosition, 'buyQty' | 'buyValue' | 'sellQty' | 'sellValue'>,
  ltp: number,
) {
  const quantity = p.buyQty - p.sellQty;
  const buyAvg = p.buyQty ? p.buyValue / p.buyQty : 0;
  const sellAvg = p.sellQty ? p.sellValue / p.sellQty : 0;
  const average = quantity > 0 ? buyAvg : quantity < 0 ? sellAvg : 0;
  const realised = Math.min(p.buyQty, p.sellQty) * (sellAvg - buyAvg);
  const unrealised = quantity * (ltp - average);
  return { quantity, average, buyAvg, sellAvg, realised, unrealised, pnl: realised + unrealised };
}
const form = (req: RecordedRequest) => Object.fromEntries(new URLSearchParams(req.body));

/**
 * A {@link BrokerStub} whose auth gate lets requests without a credential through to the route
 * (the token endpoints need none) and records, in request order, what each carried.
 */
abstract class OrderStub extends BrokerStub {
  /** When true, successful place/modify/cancel answers carry no order id. */
  omitOrderId = false;
  /** Orders by id: their records, oldest first (the last is the state now). */
  readonly orders = new Map<string, Body[]>();
  /** When true, a MARKET order fills at placement (a trade and a position); see the file comment. */
  fillMarketOrders = false;
  /** The day's fills, oldest first (each a MARKET order filled at placement). */
  readonly fills: StubFill[] = [];
  /** Fill and last prices by the broker's trading symbol (default {@link DEFAULT_PRICE}). */
  readonly prices = new Map<string, number>();
  /** Delivery holdings the portfolio endpoint lists (the broker's own record shape). */
  holdingRows: Body[] = [];
  /** Cash available for trading, rupees. */
  cash = 250_000;
  private clockSeconds = 0;
  private readonly seen: Credential[];
  private seq = 0;
  /** Placements received (authenticated), and the scripted refusals by placement number. */
  private placements = 0;
  private readonly refusals = new Map<number, StubAnswer>();

  protected constructor(
    expected: () => string,
    private readonly refusal: () => StubAnswer,
  ) {
    const seen: Credential[] = [];
    super({
      check: (h: IncomingHttpHeaders) => {
        const kind: Credential =
          h.authorization === undefined ? 'absent' : h.authorization === expected() ? 'exact' : 'wrong';
        seen.push(kind); // check runs once per request, just before it is recorded: same index
        return kind !== 'wrong';
      },
      refusal,
    });
    this.seen = seen;
  }

  /** The credential `req` carried. */
  credentialOf(req: RecordedRequest): Credential | undefined {
    return this.seen[this.requests.indexOf(req)];
  }

  override reset(): void {
    super.reset();
    this.seen.length = 0;
  }

  /** Serves `method path` to requests with the exact credential; the others get the refusal. */
  protected authed(method: string, path: string, handler: StubHandler): void {
    this.route(method, path, (req) => (this.credentialOf(req) === 'exact' ? handler(req) : this.refusal()));
  }

  /**
   * The `nth` placement from now (1 = the next one) is answered with `status` and `body` instead
   * of being placed; the others are served as usual (a split refused part-way).
   */
  refusePlacement(nth: number, status: number, body: unknown): void {
    this.refusals.set(this.placements + nth, { status, body });
  }

  /** Counts a placement; the refusal scripted for it, if any. */
  protected scriptedRefusal(): StubAnswer | undefined {
    return this.refusals.get(++this.placements);
  }

  /** The price of a trading symbol now. */
  priceOf(tradingsymbol: string): number {
    return this.prices.get(tradingsymbol) ?? DEFAULT_PRICE;
  }

  /** A broker timestamp (IST `YYYY-MM-DD HH:MM:SS`), one second later on every call. */
  protected stamp(): string {
    const t = new Date(Date.UTC(2026, 7, 18, 9, 15, 0) + ++this.clockSeconds * 1000).toISOString();
    return `${t.slice(0, 10)} ${t.slice(11, 19)}`;
  }

  /** Net positions from the fills, by symbol, exchange key and product, in first-fill order. */
  protected netPositions(): StubPosition[] {
    const by = new Map<string, StubPosition>();
    for (const f of this.fills) {
      const key = `${f.tradingsymbol}|${f.exchange}|${f.product}`;
      const p = by.get(key) ?? { ...f, buyQty: 0, buyValue: 0, sellQty: 0, sellValue: 0 };
      if (f.side === 'BUY') {
        p.buyQty += f.quantity;
        p.buyValue += f.quantity * f.price;
      } else {
        p.sellQty += f.quantity;
        p.sellValue += f.quantity * f.price;
      }
      by.set(key, p);
    }
    return [...by.values()];
  }

  /** A new order id (`first + n`), in the broker's 15-digit style. */
  protected nextId(first: number): string {
    return String(first + ++this.seq);
  }

  /** The current record of order `id`. */
  protected last(id: string): Body | undefined {
    const history = this.orders.get(id);
    return history?.[history.length - 1];
  }

  /** The day's order book: every order's current record, in placement order. */
  protected book(): Body[] {
    return [...this.orders.values()].map((history) => history[history.length - 1]!);
  }
}

// ---- Kite Connect v3 -----------------------------------------------------------------------------

/** What the Kite stub accepts. */
export interface KiteOrderCredentials {
  apiKey: string;
  apiSecret: string;
  accessToken: string;
}

const ORDER_TYPES = ['MARKET', 'LIMIT', 'SL', 'SL-M'];
const KITE_REQUIRED = ['tradingsymbol', 'exchange', 'transaction_type', 'order_type', 'quantity', 'product'];
const KITE_FINAL = ['COMPLETE', 'CANCELLED', 'REJECTED'];
const KITE_NUMBERS = ['quantity', 'price', 'trigger_price', 'disclosed_quantity'];
const kiteOk = (data: unknown): StubAnswer => ({ status: 200, body: { status: 'success', data } });
const kiteFail = (s: number, type: string, msg: string): StubAnswer => ({
  status: s,
  body: kiteError(msg, type),
});
const kiteInput = (message: string) => kiteFail(400, 'InputException', message);
/** A Kite form with its numeric fields as numbers (an order record's types). */
const kiteRecord = (f: Record<string, string>): Body =>
  Object.fromEntries(Object.entries(f).map(([k, v]) => [k, KITE_NUMBERS.includes(k) ? Number(v) : v]));

/** Kite Connect v3 orders and login on loopback; see the file comment. */
export class KiteOrderStub extends OrderStub {
  /** Request tokens the token endpoint accepts (each once). */
  readonly requestTokens = new Set<string>();
  /** The `user_id` a login reports. */
  userId = 'ZX4821';
  /** Kite's `instrument_token` of each trading symbol (0 when the test set none). */
  readonly tokens = new Map<string, number>();
  private readonly creds: { value: KiteOrderCredentials };

  /** The settings that point algodesk's Zerodha adapter at this stub with its credentials. */
  appEnv(): Record<string, string> {
    return {
      BROKER_NAME: 'zerodha',
      BROKER_API_KEY: this.creds.value.apiKey,
      BROKER_API_SECRET: this.creds.value.apiSecret,
      BROKER_REDIRECT_URL: 'http://127.0.0.1:5000/zerodha/callback',
      BROKER_API_BASE_URL: this.url,
    };
  }

  /** Kite's order ids received for `side`, in order, with the quantity each asked for. */
  placed(side: 'BUY' | 'SELL'): Array<{ id: string; quantity: number }> {
    return [...this.orders.entries()]
      .filter(([, history]) => history[0]!.transaction_type === side)
      .map(([id, history]) => ({ id, quantity: Number(history[0]!.quantity) }));
  }

  /** Appends a final state to an order's history (what the exchange did with it). */
  settle(id: string, status: 'COMPLETE' | 'REJECTED' | 'OPEN', filled?: number): void {
    const history = this.orders.get(id)!;
    const last = history.at(-1)!;
    const quantity = Number(last.quantity);
    const filledQuantity = filled ?? (status === 'COMPLETE' ? quantity : 0);
    history.push({
      ...last,
      status,
      filled_quantity: filledQuantity,
      pending_quantity: status === 'OPEN' ? quantity - filledQuantity : 0,
      status_message: status === 'REJECTED' ? 'RMS: Margin exceeds' : null,
    });
  }

  constructor(credentials: KiteOrderCredentials) {
    const creds = { value: { ...credentials } };
    super(
      () => `token ${creds.value.apiKey}:${creds.value.accessToken}`,
      () => kiteFail(403, 'TokenException', 'Incorrect `api_key` or `access_token`.'),
    );
    this.creds = creds;
    this.authed('POST', '/orders/regular', (r) => this.place(r));
    this.authed('GET', '/orders', (r) => this.versioned(r) ?? kiteOk(this.book()));
    this.authed('GET', '/trades', (r) => this.versioned(r) ?? kiteOk(this.kiteTrades()));
    this.authed('GET', '/portfolio/positions', (r) => this.versioned(r) ?? kiteOk(this.kitePositions()));
    this.authed('GET', '/portfolio/holdings', (r) => this.versioned(r) ?? kiteOk(this.holdingRows));
    this.authed('GET', '/user/margins', (r) => this.versioned(r) ?? kiteOk(this.kiteMargins()));
    this.authed('POST', '/margins/basket', (r) => this.basket(r));
    this.route('POST', '/session/token', (r) => this.session(r));
  }

  /** The credentials accepted now (a login replaces the access token). */
  get credentials(): KiteOrderCredentials {
    return this.creds.value;
  }

  /** Form bodies of the requests to `path` (all when omitted), in order. */
  forms(path?: string): Record<string, string>[] {
    return this.requests.filter((r) => path === undefined || r.path === path).map(form);
  }

  /** A fresh request token the token endpoint will accept once. */
  issueRequestToken(token = randomBytes(16).toString('hex')): string {
    this.requestTokens.add(token);
    return token;
  }

  /** Adds an order whose history is `history`, with its modify, cancel and history routes. */
  addOrder(id: string, history: Body[]): void {
    this.orders.set(id, history);
    this.authed('PUT', `/orders/regular/${id}`, (r) => this.change(id, r, 'MODIFY PENDING', 'OPEN'));
    this.authed('DELETE', `/orders/regular/${id}`, (r) => this.change(id, r, 'CANCEL PENDING', 'CANCELLED'));
    this.authed('GET', `/orders/${id}`, (r) => this.versioned(r) ?? kiteOk(this.orders.get(id)));
  }

  /** Kite's version header (every call) and form content type (calls with a body). */
  private versioned(req: RecordedRequest): StubAnswer | undefined {
    if (req.headers['x-kite-version'] !== '3') return kiteInput('stub: X-Kite-Version: 3 is required');
    if (req.body !== '' && req.headers['content-type'] !== 'application/x-www-form-urlencoded')
      return kiteInput('stub: a form body is required');
    return undefined;
  }

  private place(req: RecordedRequest): StubAnswer {
    const refused = this.scriptedRefusal();
    if (refused) return refused;
    const f = form(req);
    const bad =
      this.versioned(req) ??
      KITE_REQUIRED.filter((k) => !f[k]).map((k) => kiteInput(`Missing or empty field \`${k}\`.`))[0];
    if (bad) return bad;
    if (!ORDER_TYPES.includes(f.order_type!)) return kiteInput('Invalid `order_type`.');
    if (!['CNC', 'NRML', 'MIS', 'MTF'].includes(f.product!)) return kiteInput('Invalid `product`.');
    if ((f.order_type === 'MARKET' || f.order_type === 'SL-M') && !f.market_protection)
      return kiteInput(
        'Market orders without market protection are not allowed via API. Please set market protection or use a Limit order.',
      );
    if ((f.tag ?? '').length > 20) return kiteInput('Invalid `tag`: at most 20 characters.');
    if (this.omitOrderId) return kiteOk({});
    const id = this.nextId(250818000000000);
    const at = this.stamp();
    const quantity = Number(f.quantity);
    const record = {
      placed_by: this.userId,
      order_id: id,
      variety: 'regular',
      instrument_token: this.tokens.get(f.tradingsymbol!) ?? 0,
      order_timestamp: at,
      exchange_timestamp: at,
      average_price: 0,
      filled_quantity: 0,
      pending_quantity: quantity,
      status_message: null,
      ...kiteRecord(f),
    };
    const statuses = ['PUT ORDER REQ RECEIVED', 'VALIDATION PENDING', 'OPEN'];
    const history: Body[] = statuses.map((status) => ({ ...record, status }));
    if (this.fillMarketOrders && f.order_type === 'MARKET') {
      const price = this.priceOf(f.tradingsymbol!);
      history.push({
        ...record,
        status: 'COMPLETE',
        average_price: price,
        filled_quantity: quantity,
        pending_quantity: 0,
      });
      this.fills.push({
        tradeId: String(90_000_000 + this.fills.length + 1),
        orderId: id,
        tradingsymbol: f.tradingsymbol!,
        exchange: f.exchange!,
        token: record.instrument_token,
        product: f.product!,
        side: f.transaction_type!,
        quantity,
        price,
        at,
        tag: f.tag ?? '',
      });
    }
    this.addOrder(id, history);
    return kiteOk({ order_id: id });
  }

  /** `GET /trades` (kite.trade/docs/connect/v3/orders#trades). */
  private kiteTrades(): Body[] {
    return this.fills.map((f) => ({
      trade_id: f.tradeId,
      order_id: f.orderId,
      exchange: f.exchange,
      tradingsymbol: f.tradingsymbol,
      instrument_token: f.token,
      product: f.product,
      average_price: f.price,
      quantity: f.quantity,
      exchange_order_id: `13000000${f.orderId.slice(-6)}`,
      transaction_type: f.side,
      fill_timestamp: f.at,
      order_timestamp: f.at.slice(11),
      exchange_timestamp: f.at,
    }));
  }

  /** `GET /portfolio/positions`: `net` and `day` (the same here: nothing carried overnight). */
  private kitePositions(): Body {
    const net = this.netPositions().map((p) => {
      const ltp = this.priceOf(p.tradingsymbol);
      const n = positionFigures(p, ltp);
      return {
        tradingsymbol: p.tradingsymbol,
        exchange: p.exchange,
        instrument_token: p.token,
        product: p.product,
        quantity: n.quantity,
        overnight_quantity: 0,
        multiplier: 1,
        average_price: n.average,
        close_price: 0,
        last_price: ltp,
        value: p.sellValue - p.buyValue,
        pnl: n.pnl,
        m2m: n.pnl,
        unrealised: n.unrealised,
        realised: n.realised,
        buy_quantity: p.buyQty,
        buy_price: n.buyAvg,
        buy_value: p.buyValue,
        sell_quantity: p.sellQty,
        sell_price: n.sellAvg,
        sell_value: p.sellValue,
      };
    });
    return { net, day: net };
  }

  /** `GET /user/margins` (kite.trade/docs/connect/v3/user#funds-and-margins). */
  private kiteMargins(): Body {
    const used = this.netPositions().reduce((a, p) => a + Math.abs(p.buyValue - p.sellValue), 0);
    const segment = (cash: number, debits: number) => ({
      enabled: true,
      net: cash - debits,
      available: {
        adhoc_margin: 0,
        cash,
        opening_balance: cash,
        live_balance: cash - debits,
        collateral: 0,
        intraday_payin: 0,
      },
      utilised: {
        debits,
        exposure: 0,
        m2m_realised: 0,
        m2m_unrealised: 0,
        option_premium: 0,
        payout: 0,
        span: 0,
        holding_sales: 0,
        turnover: 0,
        liquid_collateral: 0,
        stock_collateral: 0,
        delivery: 0,
      },
    });
    return { equity: segment(this.cash, used), commodity: segment(0, 0) };
  }

  /** `POST /margins/basket`: a JSON array of orders (broker-margin-stubs.ts computes the figures). */
  private basket(req: RecordedRequest): StubAnswer {
    if (req.headers['x-kite-version'] !== '3') return kiteInput('stub: X-Kite-Version: 3 is required');
    if (req.headers['content-type'] !== 'application/json') return kiteInput('stub: a JSON body is required');
    if (req.query.get('consider_positions') !== 'true')
      return kiteInput('stub: consider_positions=true expected');
    let body: unknown;
    try {
      body = JSON.parse(req.body);
    } catch {
      return kiteInput('stub: the body is not JSON');
    }
    return kiteBasketAnswer(body, (s) => this.priceOf(s));
  }

  /** Modify or cancel: refused once the order is final, else two history entries. */
  private change(id: string, req: RecordedRequest, pending: string, done: string): StubAnswer {
    const bad = this.versioned(req);
    if (bad) return bad;
    const last = this.last(id)!;
    if (KITE_FINAL.includes(String(last.status)))
      return kiteInput(`Order cannot be changed as it is ${String(last.status)}.`);
    const changed = { ...last, ...kiteRecord(form(req)) };
    this.orders.get(id)!.push({ ...changed, status: pending }, { ...changed, status: done });
    return kiteOk(this.omitOrderId ? {} : { order_id: id });
  }

  /** `POST /session/token`: api_key, single-use request_token, checksum over the secret. */
  private session(req: RecordedRequest): StubAnswer {
    const bad = this.versioned(req);
    if (bad) return bad;
    const f = form(req);
    const { apiKey, apiSecret } = this.creds.value;
    if (f.api_key !== apiKey) return kiteInput('Invalid `api_key`.');
    if (!f.request_token || !this.requestTokens.delete(f.request_token))
      return kiteFail(403, 'TokenException', 'Token is invalid or has expired.');
    const sum = createHash('sha256').update(`${apiKey}${f.request_token}${apiSecret}`).digest('hex');
    if (f.checksum !== sum) return kiteFail(403, 'TokenException', 'Invalid `checksum`.');
    const accessToken = `kiteSESSION${randomBytes(8).toString('hex')}`;
    this.creds.value = { ...this.creds.value, accessToken };
    return kiteOk({
      user_type: 'individual',
      email: 'trader@example.com',
      user_name: 'Kite Connect',
      broker: 'ZERODHA',
      user_id: this.userId,
      api_key: apiKey,
      access_token: accessToken,
      public_token: `pub${randomBytes(8).toString('hex')}`,
      refresh_token: '',
      login_time: '2026-08-18 09:05:12',
    });
  }
}

/** Starts a {@link KiteOrderStub}. */
export function startKiteOrderStub(credentials: KiteOrderCredentials): Promise<KiteOrderStub> {
  return new KiteOrderStub(credentials).start();
}

// ---- Upstox v2 -----------------------------------------------------------------------------------

/** What the Upstox stub accepts. */
export interface UpstoxOrderCredentials {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  accessToken: string;
}

const UPSTOX_KEY = /^[A-Z][A-Z0-9_]*\|[^,|]+$/;
const upOk = (data: unknown): StubAnswer => ({ status: 200, body: { status: 'success', data } });
const upBad = (code: string, msg: string, s = 400): StubAnswer => ({
  status: s,
  body: upstoxError(code, msg),
});
const NOT_FOUND = () => upBad('UDAPI100010', 'Order not found');
/** Upstox segments → the `exchange` its records name. */
const UPSTOX_EXCHANGES: Record<string, string> = {
  NSE_EQ: 'NSE',
  BSE_EQ: 'BSE',
  NSE_FO: 'NFO',
  BSE_FO: 'BFO',
  NCD_FO: 'CDS',
  BCD_FO: 'BCD',
  MCX_FO: 'MCX',
};

/** Upstox v2 orders and login on loopback; see the file comment. */
export class UpstoxOrderStub extends OrderStub {
  /** Authorization codes the token endpoint accepts (each once, whatever the outcome). */
  readonly codes = new Set<string>();
  userId = 'UP7731';
  /** The trading symbol of each instrument key (default: the key's part after `|`). */
  readonly symbols = new Map<string, string>();
  private readonly creds: { value: UpstoxOrderCredentials };

  constructor(credentials: UpstoxOrderCredentials) {
    const creds = { value: { ...credentials } };
    super(
      () => `Bearer ${creds.value.accessToken}`,
      () => upBad('UDAPI100050', 'Invalid token used to access API', 401),
    );
    this.creds = creds;
    this.authed('POST', '/v2/order/place', (r) => this.json(r, (b) => this.place(b)));
    this.authed('PUT', '/v2/order/modify', (r) => this.json(r, (b) => this.modify(b)));
    this.authed('DELETE', '/v2/order/cancel', (r) => this.cancel(r.query.get('order_id') ?? ''));
    this.authed('GET', '/v2/order/details', (r) => {
      const last = this.last(r.query.get('order_id') ?? '');
      return last ? upOk(last) : NOT_FOUND();
    });
    this.authed('GET', '/v2/order/retrieve-all', () => upOk(this.book()));
    this.authed('GET', '/v2/order/trades/get-trades-for-day', () => upOk(this.upTrades()));
    this.authed('GET', '/v2/portfolio/short-term-positions', () => upOk(this.upPositions()));
    this.authed('GET', '/v2/portfolio/long-term-holdings', () => upOk(this.holdingRows));
    this.authed('GET', '/v2/user/get-funds-and-margin', () => upOk(this.upFunds()));
    this.authed('POST', '/v2/charges/margin', (r) =>
      this.json(r, (b) =>
        upstoxMarginAnswer(
          b,
          (key) => this.symbols.get(key) ?? key.slice(key.indexOf('|') + 1),
          (s) => this.priceOf(s),
        ),
      ),
    );
    this.route('POST', '/v2/login/authorization/token', (r) => this.token(r));
  }

  /** The credentials accepted now (a login replaces the access token). */
  get credentials(): UpstoxOrderCredentials {
    return this.creds.value;
  }

  /** JSON bodies of the requests to `path` (all when omitted), in order. */
  bodies(path?: string): Body[] {
    return this.requests
      .filter((r) => path === undefined || r.path === path)
      .map((r) => (r.body ? (JSON.parse(r.body) as Body) : {}));
  }

  /** A fresh authorization code the token endpoint will accept once. */
  issueCode(code = randomBytes(4).toString('hex')): string {
    this.codes.add(code);
    return code;
  }

  /** Runs `handler` on a JSON object body sent with the documented headers. */
  private json(req: RecordedRequest, handler: (body: Body) => StubAnswer): StubAnswer {
    if (req.headers.accept !== 'application/json')
      return upBad('UDAPI100036', 'stub: Accept: application/json');
    if (req.headers['content-type'] !== 'application/json') return upBad('UDAPI100036', 'stub: JSON body');
    let body: unknown;
    try {
      body = JSON.parse(req.body);
    } catch {
      body = undefined;
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      return upBad('UDAPI100038', 'Invalid input passed to the API');
    return handler(body as Body);
  }

  private place(b: Body): StubAnswer {
    const refused = this.scriptedRefusal();
    if (refused) return refused;
    const num = (k: string) => typeof b[k] === 'number' && Number.isFinite(b[k]);
    if (!Number.isInteger(b.quantity) || (b.quantity as number) <= 0)
      return upBad('UDAPI1000', 'stub: quantity');
    if (!['D', 'I', 'MTF'].includes(String(b.product))) return upBad('UDAPI1002', 'stub: product');
    if (!['DAY', 'IOC'].includes(String(b.validity))) return upBad('UDAPI1055', "The 'validity' is invalid");
    if (!UPSTOX_KEY.test(String(b.instrument_token))) return upBad('UDAPI1011', 'instrument_key is invalid');
    if (!ORDER_TYPES.includes(String(b.order_type))) return upBad('UDAPI1056', "The 'order_type' is invalid");
    if (!['BUY', 'SELL'].includes(String(b.transaction_type))) return upBad('UDAPI1003', 'stub: side');
    if (!num('price') || !num('trigger_price') || !num('disclosed_quantity') || b.is_amo !== false)
      return upBad('UDAPI100038', 'stub: price, trigger_price, disclosed_quantity numbers; is_amo false');
    if ((b.order_type === 'MARKET' || b.order_type === 'SL-M') && b.price !== 0)
      return upBad('UDAPI1040', 'Price not required');
    if (this.omitOrderId) return upOk({});
    const id = this.nextId(260205000000000);
    const key = String(b.instrument_token);
    const tradingsymbol = this.symbols.get(key) ?? key.slice(key.indexOf('|') + 1);
    const at = this.stamp();
    const quantity = b.quantity as number;
    const record: Body = {
      exchange: UPSTOX_EXCHANGES[key.slice(0, key.indexOf('|'))] ?? key.slice(0, key.indexOf('|')),
      ...b,
      order_id: id,
      status: 'open',
      placed_by: this.userId,
      trading_symbol: tradingsymbol,
      tradingsymbol,
      average_price: 0,
      filled_quantity: 0,
      pending_quantity: quantity,
      status_message: null,
      order_timestamp: at,
      exchange_timestamp: at,
      tag: b.tag ?? null,
    };
    const history = [record];
    if (this.fillMarketOrders && b.order_type === 'MARKET') {
      const price = this.priceOf(tradingsymbol);
      history.push({
        ...record,
        status: 'complete',
        average_price: price,
        filled_quantity: quantity,
        pending_quantity: 0,
      });
      this.fills.push({
        tradeId: String(50_000_000 + this.fills.length + 1),
        orderId: id,
        tradingsymbol,
        exchange: key,
        token: key,
        product: String(b.product),
        side: String(b.transaction_type),
        quantity,
        price,
        at,
        tag: typeof b.tag === 'string' ? b.tag : '',
      });
    }
    this.orders.set(id, history);
    return upOk({ order_id: id });
  }

  private modify(b: Body): StubAnswer {
    if ('disclosed_quantity' in b && b.disclosed_quantity === 0)
      return upBad('UDAPI100038', 'stub: disclosed_quantity must be non-zero when provided');
    const last = this.last(String(b.order_id));
    if (!last) return NOT_FOUND();
    this.orders.get(String(b.order_id))!.push({ ...last, ...b, status: 'open' });
    return upOk(this.omitOrderId ? {} : { order_id: b.order_id });
  }

  private cancel(id: string): StubAnswer {
    const last = this.last(id);
    if (!last) return NOT_FOUND();
    if (last.status !== 'open')
      return upBad('UDAPI100040', 'Cancel of already cancelled/rejected/completed order is not allowed');
    this.orders.get(id)!.push({ ...last, status: 'cancelled' });
    return upOk(this.omitOrderId ? {} : { order_id: id });
  }

  /** `GET /v2/order/trades/get-trades-for-day`. */
  private upTrades(): Body[] {
    return this.fills.map((f) => ({
      exchange: UPSTOX_EXCHANGES[f.exchange.slice(0, f.exchange.indexOf('|'))],
      product: f.product,
      trading_symbol: f.tradingsymbol,
      tradingsymbol: f.tradingsymbol,
      instrument_token: f.token,
      order_type: 'MARKET',
      transaction_type: f.side,
      quantity: f.quantity,
      exchange_order_id: `11000000${f.orderId.slice(-6)}`,
      order_id: f.orderId,
      exchange_timestamp: f.at,
      average_price: f.price,
      trade_id: f.tradeId,
      order_ref_id: f.tag,
      order_timestamp: f.at,
    }));
  }

  /** `GET /v2/portfolio/short-term-positions`. */
  private upPositions(): Body[] {
    return this.netPositions().map((p) => {
      const ltp = this.priceOf(p.tradingsymbol);
      const n = positionFigures(p, ltp);
      return {
        exchange: UPSTOX_EXCHANGES[p.exchange.slice(0, p.exchange.indexOf('|'))],
        multiplier: 1,
        value: p.sellValue - p.buyValue,
        pnl: n.pnl,
        product: p.product,
        instrument_token: p.token,
        average_price: n.average,
        buy_value: p.buyValue,
        overnight_quantity: 0,
        day_buy_value: p.buyValue,
        day_buy_price: n.buyAvg,
        day_buy_quantity: p.buyQty,
        day_sell_value: p.sellValue,
        day_sell_price: n.sellAvg,
        day_sell_quantity: p.sellQty,
        quantity: n.quantity,
        last_price: ltp,
        unrealised: n.unrealised,
        realised: n.realised,
        sell_value: p.sellValue,
        trading_symbol: p.tradingsymbol,
        tradingsymbol: p.tradingsymbol,
        close_price: 0,
        buy_price: n.buyAvg,
        sell_price: n.sellAvg,
      };
    });
  }

  /** `GET /v2/user/get-funds-and-margin`. */
  private upFunds(): Body {
    const used = this.netPositions().reduce((a, p) => a + Math.abs(p.buyValue - p.sellValue), 0);
    const segment = (available: number, usedMargin: number) => ({
      used_margin: usedMargin,
      payin_amount: 0,
      span_margin: 0,
      adhoc_margin: 0,
      notional_cash: 0,
      available_margin: available,
      exposure_margin: 0,
    });
    return { equity: segment(this.cash - used, used), commodity: segment(0, 0) };
  }

  /** `POST /v2/login/authorization/token`: single-use code, client credentials, redirect URI. */
  private token(req: RecordedRequest): StubAnswer {
    if (req.headers['content-type'] !== 'application/x-www-form-urlencoded')
      return upBad('UDAPI100036', 'stub: form body required');
    const f = form(req);
    const c = this.creds.value;
    const known = f.code !== undefined && this.codes.delete(f.code);
    if (f.client_id !== c.clientId || f.client_secret !== c.clientSecret || f.redirect_uri !== c.redirectUri)
      return upBad('UDAPI100016', 'Invalid Credentials', 401);
    if (f.grant_type !== 'authorization_code') return upBad('UDAPI100036', 'Invalid Input');
    if (!known) return upBad('UDAPI100057', 'Invalid Auth code');
    const accessToken = `eyJupstoxSESSION${randomBytes(8).toString('hex')}`;
    this.creds.value = { ...c, accessToken };
    const profile = { email: 'trader@example.com', broker: 'UPSTOX', user_name: 'Upstox Trader' };
    const status = { user_type: 'individual', poa: false, is_active: true };
    const body = {
      ...profile,
      user_id: this.userId,
      ...status,
      access_token: accessToken,
      extended_token: null,
    };
    return { status: 200, body };
  }
}

/** Starts an {@link UpstoxOrderStub}. */
export function startUpstoxOrderStub(credentials: UpstoxOrderCredentials): Promise<UpstoxOrderStub> {
  return new UpstoxOrderStub(credentials).start();
}

// ---- test plumbing -------------------------------------------------------------------------------

/** A debug logger writing into memory, and the text written so far. */
export function captureLogs(): { logger: Logger; logs: () => string } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(chunk.toString());
      cb();
    },
  });
  return { logger: createLogger('debug', sink), logs: () => lines.join('') };
}

/** An algodesk order for instrument `i`: MARKET CNC BUY 1 without prices, unless overridden. */
export function orderFor(i: QuoteInstrument, o: Partial<BrokerOrder> = {}): BrokerOrder {
  const { symbol, exchange, brsymbol, brexchange, token } = i;
  const rest = { side: 'BUY', priceType: 'MARKET', product: 'CNC', price: '0', triggerPrice: '0' } as const;
  return { symbol, exchange, brsymbol, brexchange, token, ...rest, quantity: 1, disclosedQuantity: 0, ...o };
}

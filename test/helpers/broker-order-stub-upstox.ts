/**
 * Upstox v2 orders and login on loopback ({@link UpstoxOrderStub}, on {@link OrderStub}):
 * `POST /v2/order/place`, `PUT /v2/order/modify`, `DELETE /v2/order/cancel`,
 * `GET /v2/order/details`, `GET /v2/order/retrieve-all` (the day's order book),
 * `POST /v2/login/authorization/token` (client_secret and redirect_uri checked);
 * `GET /v2/order/trades/get-trades-for-day`, `/v2/portfolio/short-term-positions`,
 * `/v2/portfolio/long-term-holdings` (from `holdingRows`), `/v2/user/get-funds-and-margin` (cash
 * from `cash`) in the documented shapes (broker-order-stub-upstox-portfolio.ts), and the margin
 * calculator `POST /v2/charges/margin` (figures by the rule in broker-margin-stubs.ts); v3 GTT
 * orders `/v3/order/gtt/*` as `gtt` (broker-gtt-stub-upstox.ts). Bodies are parsed with `bodies()`.
 */
import { randomBytes } from 'node:crypto';
import { UpstoxGttStub } from './broker-gtt-stub-upstox.js';
import { upstoxMarginAnswer } from './broker-margin-stubs.js';
import { OrderStub, ORDER_TYPES, form, type Body } from './broker-order-stub-base.js';
import { UPSTOX_EXCHANGES, upFunds, upPositions, upTrades } from './broker-order-stub-upstox-portfolio.js';
import { upstoxError } from './broker-quote-stub-upstox.js';
import type { RecordedRequest, StubAnswer } from './broker-stub.js';

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

/** Upstox v2 orders and login on loopback; see the file comment. */
export class UpstoxOrderStub extends OrderStub {
  /** Authorization codes the token endpoint accepts (each once, whatever the outcome). */
  readonly codes = new Set<string>();
  userId = 'UP7731';
  /** The trading symbol of each instrument key (default: the key's part after `|`). */
  readonly symbols = new Map<string, string>();
  private readonly creds: { value: UpstoxOrderCredentials };
  /** GTT orders (`/v3/order/gtt/*`, broker-gtt-stub-upstox.ts): received requests and the book. */
  readonly gtt: UpstoxGttStub;

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
    this.authed('GET', '/v2/order/trades/get-trades-for-day', () => upOk(upTrades(this.fills)));
    this.authed('GET', '/v2/portfolio/short-term-positions', () =>
      upOk(upPositions(this.netPositions(), (s) => this.priceOf(s))),
    );
    this.authed('GET', '/v2/portfolio/long-term-holdings', () => upOk(this.holdingRows));
    this.authed('GET', '/v2/user/get-funds-and-margin', () => upOk(upFunds(this.netPositions(), this.cash)));
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
    this.gtt = new UpstoxGttStub({
      serve: (method, path, handler) => this.authed(method, path, handler),
      json: (r, handler) => this.json(r, handler),
      symbolOf: (key) => this.symbols.get(key) ?? key.slice(key.indexOf('|') + 1),
    });
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

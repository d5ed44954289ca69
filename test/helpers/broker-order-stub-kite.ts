/**
 * Kite Connect v3 orders and login on loopback ({@link KiteOrderStub}, on {@link OrderStub}):
 * `POST /orders/regular`, `PUT|DELETE /orders/regular/:id`, `GET /orders/:id` (history),
 * `GET /orders` (the day's order book, each order's current record), `POST /session/token`
 * (checksum checked); `GET /trades`, `/portfolio/positions`, `/portfolio/holdings` (from
 * `holdingRows`), `/user/margins` (cash from `cash`) in the documented shapes
 * (broker-order-stub-kite-portfolio.ts), and the margin calculator `POST /margins/basket`
 * (figures by the rule in broker-margin-stubs.ts); GTT triggers `/gtt/triggers` as `gtt`
 * (broker-gtt-stub-kite.ts). Bodies are parsed with `forms()`.
 */
import { createHash, randomBytes } from 'node:crypto';
import { KiteGttStub } from './broker-gtt-stub-kite.js';
import { kiteBasketAnswer } from './broker-margin-stubs.js';
import { OrderStub, ORDER_TYPES, form, type Body } from './broker-order-stub-base.js';
import { kiteMargins, kitePositions, kiteTrades } from './broker-order-stub-kite-portfolio.js';
import { kiteError } from './broker-quote-stub-kite.js';
import type { RecordedRequest, StubAnswer } from './broker-stub.js';

/** What the Kite stub accepts. */
export interface KiteOrderCredentials {
  apiKey: string;
  apiSecret: string;
  accessToken: string;
}

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
  /** GTT triggers (`/gtt/triggers`, broker-gtt-stub-kite.ts): received requests and the book. */
  readonly gtt: KiteGttStub;

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
    // Kite's varieties share the body: an after-market order is POST /orders/amo.
    this.authed('POST', '/orders/amo', (r) => this.place(r));
    this.authed('GET', '/orders', (r) => this.versioned(r) ?? kiteOk(this.book()));
    this.authed('GET', '/trades', (r) => this.versioned(r) ?? kiteOk(kiteTrades(this.fills)));
    this.authed(
      'GET',
      '/portfolio/positions',
      (r) => this.versioned(r) ?? kiteOk(kitePositions(this.netPositions(), (s) => this.priceOf(s))),
    );
    this.authed('GET', '/portfolio/holdings', (r) => this.versioned(r) ?? kiteOk(this.holdingRows));
    this.authed(
      'GET',
      '/user/margins',
      (r) => this.versioned(r) ?? kiteOk(kiteMargins(this.netPositions(), this.cash)),
    );
    this.authed('POST', '/margins/basket', (r) => this.basket(r));
    this.route('POST', '/session/token', (r) => this.session(r));
    this.gtt = new KiteGttStub({
      serve: (method, path, handler) => this.authed(method, path, handler),
      check: (r) => this.versioned(r),
      tokenOf: (s) => this.tokens.get(s) ?? 0,
      stamp: () => this.stamp(),
      userId: () => this.userId,
    });
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

/**
 * Kite Connect v3 GTT on loopback ({@link KiteGttStub}, served by the Kite order stub as
 * `stub.gtt`), written from kite.trade/docs/connect/v3/gtt:
 *
 * - `POST /gtt/triggers`, `PUT /gtt/triggers/:id`: a form of `type` (`single` | `two-leg`),
 *   `condition` (JSON `{exchange, tradingsymbol, trigger_values, last_price}`) and `orders` (JSON
 *   `[{exchange, tradingsymbol, transaction_type, quantity, order_type, product, price}]`);
 *   `single` takes one trigger value and one order, `two-leg` two ascending values with the last
 *   price between them and two orders; `order_type` must be LIMIT; a trigger equal to the last
 *   price is refused. Only an `active` GTT may be modified or deleted.
 * - `DELETE /gtt/triggers/:id` marks it `deleted`.
 * - All three answer `{"status":"success","data":{"trigger_id":<int>}}`.
 * - `GET /gtt/triggers` lists every GTT object (`id`, `user_id`, `parent_trigger`, `type`,
 *   `created_at`, `updated_at`, `expires_at`, `status`, `condition` with `instrument_token`,
 *   `orders` with `result`, `meta`), whatever its status; `GET /gtt/triggers/:id` one of them.
 *
 * Error texts are the stub's own (Kite documents none for GTT), in Kite's envelope
 * (`InputException`, 400). Tests read what arrived from {@link KiteGttStub.received} (the form
 * fields with `condition` and `orders` parsed) and seed book rows with {@link KiteGttStub.add}.
 */
import { kiteQuote } from './broker-quote-stub-kite.js';
import { form, type Body } from './broker-order-stub-base.js';
import { kiteError } from './broker-quote-stub-kite.js';
import type { RecordedRequest, StubAnswer, StubHandler } from './broker-stub.js';

/** One GTT request as the stub received it: the form as sent, and its JSON fields parsed. */
export interface KiteGttRequest {
  method: string;
  path: string;
  /** The form fields exactly as sent (strings). */
  form: Record<string, string>;
  /** `condition` and `orders` parsed (undefined when absent or not JSON). */
  condition?: unknown;
  orders?: unknown;
}

/** What the Kite order stub lends its GTT routes. */
export interface KiteGttHost {
  /** Serves `method path` to requests with the exact credential. */
  serve(method: string, path: string, handler: StubHandler): void;
  /** The version-header and form checks of every Kite call (an answer when they fail). */
  check(req: RecordedRequest): StubAnswer | undefined;
  /** Kite's instrument token of a trading symbol. */
  tokenOf(tradingsymbol: string): number;
  /** An IST timestamp, later on every call. */
  stamp(): string;
  userId(): string;
}

const ok = (data: unknown): StubAnswer => ({ status: 200, body: { status: 'success', data } });
const input = (message: string): StubAnswer => ({ status: 400, body: kiteError(message, 'InputException') });
const isRec = (v: unknown): v is Body => typeof v === 'object' && v !== null && !Array.isArray(v);
const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const parse = (s: string | undefined): unknown => {
  if (s === undefined) return undefined;
  try {
    return JSON.parse(s) as unknown;
  } catch {
    return undefined;
  }
};

/** Kite's GTT triggers on loopback; see the file comment. */
export class KiteGttStub {
  /** The GTT book: each GTT object as `GET /gtt/triggers` lists it, by id. */
  readonly triggers = new Map<number, Body>();
  /** Last prices `GET /quote` answers, keyed `EXCHANGE:TRADINGSYMBOL` (`NSE:SBIN`). */
  readonly lastPrices = new Map<string, number>();
  /** Every GTT request received with the exact credential, in order. */
  readonly received: KiteGttRequest[] = [];
  private seq = 0;

  constructor(private readonly host: KiteGttHost) {
    host.serve('POST', '/gtt/triggers', (r) => this.place(r));
    // The last price a GTT is set against (Kite's GET /quote, the documented full-quote shape).
    host.serve('GET', '/quote', (r) => {
      const data: Record<string, unknown> = {};
      for (const key of r.query.getAll('i')) {
        const ltp = this.lastPrices.get(key);
        const tradingsymbol = key.slice(key.indexOf(':') + 1);
        if (ltp !== undefined)
          data[key] = kiteQuote({ instrumentToken: this.host.tokenOf(tradingsymbol), lastPrice: ltp });
      }
      return this.host.check(r) ?? ok(data);
    });
    host.serve('GET', '/gtt/triggers', (r) => this.host.check(r) ?? ok([...this.triggers.values()]));
  }

  /** The requests received for `method` (all when omitted). */
  requests(method?: string): KiteGttRequest[] {
    return this.received.filter((r) => method === undefined || r.method === method);
  }

  /**
   * Seeds a GTT object into the book (the documented shape; `fields` override the defaults: an
   * active single BUY of INFY at 702 over a last price of 798) with its routes; its id.
   */
  add(fields: Partial<Body> & { condition?: Body; orders?: Body[] } = {}): number {
    const id = typeof fields.id === 'number' ? fields.id : this.nextId();
    const at = this.host.stamp();
    const condition = {
      exchange: 'NSE',
      last_price: 798,
      tradingsymbol: 'INFY',
      trigger_values: [702],
      instrument_token: this.host.tokenOf('INFY'),
      ...fields.condition,
    };
    const order = {
      exchange: condition.exchange,
      tradingsymbol: condition.tradingsymbol,
      product: 'CNC',
      order_type: 'LIMIT',
      transaction_type: 'BUY',
      quantity: 1,
      price: 702,
      result: null,
    };
    this.triggers.set(id, {
      id,
      user_id: this.host.userId(),
      parent_trigger: null,
      type: 'single',
      created_at: at,
      updated_at: at,
      expires_at: '2027-08-18 09:15:00',
      status: 'active',
      meta: {},
      ...fields,
      condition,
      orders: fields.orders ?? [order],
    });
    this.routes(id);
    return id;
  }

  private nextId(): number {
    return 105_099 + ++this.seq;
  }

  private routes(id: number): void {
    const path = `/gtt/triggers/${id}`;
    this.host.serve('PUT', path, (r) => this.modify(id, r));
    this.host.serve('DELETE', path, (r) => this.remove(id, r));
    this.host.serve('GET', path, (r) => this.host.check(r) ?? ok(this.triggers.get(id)));
  }

  /** Records `req`; the refusal of its form, or its parsed type, condition and orders. */
  private read(req: RecordedRequest): StubAnswer | { type: string; condition: Body; orders: Body[] } {
    const f = form(req);
    const condition = parse(f.condition);
    const orders = parse(f.orders);
    this.received.push({ method: req.method, path: req.path, form: f, condition, orders });
    const bad = this.host.check(req);
    if (bad) return bad;
    const type = f.type;
    if (type !== 'single' && type !== 'two-leg') return input('Invalid `type`.');
    if (!isRec(condition)) return input('Invalid `condition`.');
    if (!Array.isArray(orders) || !orders.every(isRec)) return input('Invalid `orders`.');
    const legs = type === 'two-leg' ? 2 : 1;
    const values = condition.trigger_values;
    const last = condition.last_price;
    if (typeof condition.exchange !== 'string' || typeof condition.tradingsymbol !== 'string')
      return input('stub: condition needs exchange and tradingsymbol');
    if (!finite(last) || last <= 0) return input('stub: condition needs last_price');
    if (!Array.isArray(values) || values.length !== legs || !values.every((v) => finite(v) && v > 0))
      return input(`stub: a ${type} trigger takes ${legs} trigger value(s)`);
    if (legs === 1 && values[0] === last) return input('stub: the trigger must differ from last_price');
    if (legs === 2 && !(values[0] < last && last < values[1]))
      return input('stub: two-leg trigger values must be ascending with last_price between them');
    if (orders.length !== legs) return input(`stub: a ${type} trigger takes ${legs} order(s)`);
    for (const o of orders) {
      if (o.order_type !== 'LIMIT') return input('stub: GTT orders must be LIMIT');
      if (o.exchange !== condition.exchange || o.tradingsymbol !== condition.tradingsymbol)
        return input('stub: every order must name the condition instrument');
      if (o.transaction_type !== 'BUY' && o.transaction_type !== 'SELL')
        return input('Invalid `transaction_type`.');
      if (!Number.isInteger(o.quantity) || (o.quantity as number) <= 0) return input('Invalid `quantity`.');
      if (!['CNC', 'NRML', 'MIS'].includes(String(o.product))) return input('Invalid `product`.');
      if (!finite(o.price) || o.price <= 0) return input('Invalid `price`.');
    }
    return { type, condition, orders };
  }

  private place(req: RecordedRequest): StubAnswer {
    const got = this.read(req);
    if ('status' in got && 'body' in got) return got;
    const { type, condition, orders } = got;
    const instrument_token = this.host.tokenOf(String(condition.tradingsymbol));
    const id = this.add({
      type,
      condition: { ...condition, instrument_token },
      orders: orders.map((o) => ({ ...o, result: null })),
    });
    return ok({ trigger_id: id });
  }

  private modify(id: number, req: RecordedRequest): StubAnswer {
    const got = this.read(req);
    if ('status' in got && 'body' in got) return got;
    const gtt = this.triggers.get(id)!;
    if (gtt.status !== 'active') return input(`stub: the trigger is ${String(gtt.status)}, not active`);
    const { type, condition, orders } = got;
    const old = gtt.condition as Body;
    gtt.type = type;
    gtt.condition = { ...condition, instrument_token: old.instrument_token };
    gtt.orders = orders.map((o) => ({ ...o, result: null }));
    gtt.updated_at = this.host.stamp();
    return ok({ trigger_id: id });
  }

  private remove(id: number, req: RecordedRequest): StubAnswer {
    this.received.push({ method: req.method, path: req.path, form: form(req) });
    const bad = this.host.check(req);
    if (bad) return bad;
    const gtt = this.triggers.get(id)!;
    if (gtt.status !== 'active') return input(`stub: the trigger is ${String(gtt.status)}, not active`);
    gtt.status = 'deleted';
    gtt.updated_at = this.host.stamp();
    return ok({ trigger_id: id });
  }
}

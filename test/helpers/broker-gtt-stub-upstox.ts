/**
 * Upstox v3 GTT on loopback ({@link UpstoxGttStub}, served by the Upstox order stub as
 * `stub.gtt`), written from upstox.com/developer/api-documentation (place-gtt-order,
 * modify-gtt-order, cancel-gtt-order, get-gtt-order-details):
 *
 * - `POST /v3/order/gtt/place` `{type, quantity, product, instrument_token, transaction_type,
 *   rules:[{strategy, trigger_type, trigger_price, trailing_gap?, market_protection?}]}`: `type`
 *   SINGLE takes exactly one rule, MULTIPLE two or three, no strategy twice; an ENTRY rule is
 *   mandatory (ABOVE, BELOW or IMMEDIATE), TARGET and STOPLOSS take IMMEDIATE only and the side
 *   opposite to the entry's.
 * - `PUT /v3/order/gtt/modify` `{type, quantity, gtt_order_id, rules}` (the same rule checks).
 * - `DELETE /v3/order/gtt/cancel` with the JSON body `{gtt_order_id}`.
 * - All three answer `{"status":"success","data":{"gtt_order_ids":["GTT-…"]},"metadata":{latency}}`.
 * - `GET /v3/order/gtt` (`?gtt_order_id=` for one) lists GTT details: `type`, `exchange` (the
 *   segment), `quantity`, `product`, `trading_symbol`, `instrument_token`, `gtt_order_id`,
 *   `created_at`/`expires_at` as epoch microseconds, and `rules[]` of `{strategy, status, message,
 *   trigger_type, trigger_price, transaction_type, order_id}` (an ENTRY rule is SCHEDULED, the
 *   exits INACTIVE until it fills; a cancelled GTT's rules are CANCELLED).
 *
 * Errors are Upstox's envelope with the documented codes where there is one (UDAPI1126, 1134,
 * 1135, 1136, 1137, 1141, 1143), otherwise the stub's own text. Tests read the JSON bodies that
 * arrived from {@link UpstoxGttStub.received} and seed book rows with {@link UpstoxGttStub.add}.
 */
import { upstoxQuote } from './broker-quote-stub-upstox.js';
import type { Body } from './broker-order-stub-base.js';
import { upstoxError } from './broker-quote-stub-upstox.js';
import type { RecordedRequest, StubAnswer, StubHandler } from './broker-stub.js';

/** One GTT request as the stub received it (`body` parsed; `{}` for none). */
export interface UpstoxGttRequest {
  method: string;
  path: string;
  body: Body;
}

/** What the Upstox order stub lends its GTT routes. */
export interface UpstoxGttHost {
  /** Serves `method path` to requests with the exact credential. */
  serve(method: string, path: string, handler: StubHandler): void;
  /** Runs `handler` on a JSON object body sent with the documented headers. */
  json(req: RecordedRequest, handler: (body: Body) => StubAnswer): StubAnswer;
  /** The trading symbol of an instrument key. */
  symbolOf(key: string): string;
}

/** 2026-08-18 09:15 IST in epoch microseconds, the stub's first creation time. */
export const UPSTOX_GTT_EPOCH_US = Date.UTC(2026, 7, 18, 3, 45, 0) * 1000;
/** A year, in microseconds (a GTT's validity). */
const YEAR_US = 365 * 86_400 * 1_000_000;

const UPSTOX_KEY = /^[A-Z][A-Z0-9_]*\|[^,|]+$/;
const ok = (id: string): StubAnswer => ({
  status: 200,
  body: { status: 'success', data: { gtt_order_ids: [id] }, metadata: { latency: 88 } },
});
const bad = (code: string, message: string, status = 400): StubAnswer => ({
  status,
  body: upstoxError(code, message),
});
const isRec = (v: unknown): v is Body => typeof v === 'object' && v !== null && !Array.isArray(v);
const opposite = (side: unknown) => (side === 'BUY' ? 'SELL' : 'BUY');

/** Upstox's GTT orders on loopback; see the file comment. */
export class UpstoxGttStub {
  /** The GTT book: each GTT's details as `GET /v3/order/gtt` lists them, by id. */
  readonly orders = new Map<string, Body>();
  /** Last prices the full-quote API answers, by instrument key (`NSE_EQ|INE062A01020`). */
  readonly lastPrices = new Map<string, number>();
  /** Every GTT request received with the exact credential, in order. */
  readonly received: UpstoxGttRequest[] = [];
  private seq = 0;

  constructor(private readonly host: UpstoxGttHost) {
    host.serve('POST', '/v3/order/gtt/place', (r) => this.body(r, (b) => this.place(b)));
    host.serve('PUT', '/v3/order/gtt/modify', (r) => this.body(r, (b) => this.modify(b)));
    host.serve('DELETE', '/v3/order/gtt/cancel', (r) => this.body(r, (b) => this.cancel(b)));
    host.serve('GET', '/v3/order/gtt', (r) => this.list(r));
    // The last price a GTT is set against (Upstox's full market quote, its documented shape).
    host.serve('GET', '/v2/market-quote/quotes', (r) => {
      const data: Record<string, unknown> = {};
      for (const key of (r.query.get('instrument_key') ?? '').split(',')) {
        const ltp = this.lastPrices.get(key);
        const symbol = this.host.symbolOf(key);
        if (ltp !== undefined)
          data[`${key.slice(0, key.indexOf('|'))}:${symbol}`] = upstoxQuote({
            instrumentKey: key,
            symbol,
            lastPrice: ltp,
          });
      }
      return { status: 200, body: { status: 'success', data } };
    });
  }

  /** The bodies received at `path` (all GTT requests when omitted). */
  bodies(path?: string): Body[] {
    return this.received.filter((r) => path === undefined || r.path === path).map((r) => r.body);
  }

  /**
   * Seeds GTT details into the book (the documented shape; `fields` override the defaults: a
   * SINGLE BUY of NHPC, ENTRY BELOW 80 SCHEDULED, product D); its id.
   */
  add(fields: Partial<Body> = {}): string {
    const id = typeof fields.gtt_order_id === 'string' ? fields.gtt_order_id : this.nextId();
    const created = UPSTOX_GTT_EPOCH_US + this.seq * 1_000_000;
    const key = typeof fields.instrument_token === 'string' ? fields.instrument_token : 'NSE_EQ|INE848E01016';
    this.orders.set(id, {
      type: 'SINGLE',
      exchange: key.slice(0, key.indexOf('|')),
      quantity: 1,
      product: 'D',
      rules: [
        {
          strategy: 'ENTRY',
          status: 'SCHEDULED',
          message: '',
          trigger_type: 'BELOW',
          trigger_price: 80,
          transaction_type: 'BUY',
          order_id: null,
        },
      ],
      trading_symbol: this.host.symbolOf(key),
      instrument_token: key,
      gtt_order_id: id,
      expires_at: created + YEAR_US,
      created_at: created,
      ...fields,
    });
    return id;
  }

  private nextId(): string {
    return `GTT-CU2623${String(80_000_000 + ++this.seq).padStart(10, '0')}`;
  }

  /** Records the request, then runs `handler` on its JSON body (documented headers checked). */
  private body(req: RecordedRequest, handler: (b: Body) => StubAnswer): StubAnswer {
    let body: Body = {};
    try {
      const parsed: unknown = req.body ? JSON.parse(req.body) : {};
      if (isRec(parsed)) body = parsed;
    } catch {
      // recorded as {}; the host's JSON check refuses it
    }
    this.received.push({ method: req.method, path: req.path, body });
    return this.host.json(req, handler);
  }

  /** The documented checks of `type`, `quantity` and `rules`: a refusal, or none. */
  private rules(b: Body): StubAnswer | undefined {
    if (b.type !== 'SINGLE' && b.type !== 'MULTIPLE')
      return bad('UDAPI1126', 'Please provide valid gtt type');
    if (!Number.isInteger(b.quantity) || (b.quantity as number) <= 0)
      return bad('UDAPI100036', 'stub: quantity');
    const rules = Array.isArray(b.rules) ? b.rules : [];
    if (!rules.every(isRec)) return bad('UDAPI100036', 'stub: rules must be objects');
    if (b.type === 'SINGLE' && rules.length !== 1)
      return bad('UDAPI1136', 'SINGLE type GTT order requires exactly one rule');
    if (b.type === 'MULTIPLE' && (rules.length < 2 || rules.length > 3))
      return bad('UDAPI1137', 'MULTIPLE type GTT order requires 2 to 3 rules');
    const strategies = rules.map((r) => r.strategy);
    if (new Set(strategies).size !== strategies.length) return bad('UDAPI100036', 'stub: duplicate strategy');
    for (const r of rules) {
      if (!['ENTRY', 'TARGET', 'STOPLOSS'].includes(String(r.strategy)))
        return bad('UDAPI100036', 'stub: strategy');
      if (typeof r.trigger_price !== 'number' || !(r.trigger_price > 0))
        return bad('UDAPI100036', 'stub: trigger_price must be a positive number');
      if (r.strategy === 'ENTRY' && !['ABOVE', 'BELOW', 'IMMEDIATE'].includes(String(r.trigger_type)))
        return bad('UDAPI100036', 'stub: ENTRY trigger_type');
      if (r.strategy !== 'ENTRY' && r.trigger_type !== 'IMMEDIATE')
        return bad('UDAPI1143', 'Trigger type must be IMMEDIATE for non-ENTRY rules');
      const mp = r.market_protection;
      if (mp !== undefined && (!Number.isInteger(mp) || (mp as number) < -1 || (mp as number) > 25))
        return bad('UDAPI100036', 'stub: market_protection');
    }
    if (!strategies.includes('ENTRY')) return bad('UDAPI1141', 'ENTRY strategy is mandatory');
    return undefined;
  }

  /** The stored rules of `rules` for the entry side `side` (exits INACTIVE, opposite side). */
  private stored(rules: Body[], side: unknown): Body[] {
    return rules.map((r) => ({
      strategy: r.strategy,
      status: r.strategy === 'ENTRY' ? 'SCHEDULED' : 'INACTIVE',
      message: '',
      trigger_type: r.trigger_type,
      trigger_price: r.trigger_price,
      transaction_type: r.strategy === 'ENTRY' ? side : opposite(side),
      order_id: null,
    }));
  }

  private place(b: Body): StubAnswer {
    const refused = this.rules(b);
    if (refused) return refused;
    if (!['D', 'I', 'MTF'].includes(String(b.product))) return bad('UDAPI100036', 'stub: product');
    if (!UPSTOX_KEY.test(String(b.instrument_token))) return bad('UDAPI1011', 'instrument_key is invalid');
    if (b.transaction_type !== 'BUY' && b.transaction_type !== 'SELL')
      return bad('UDAPI100036', 'stub: transaction_type');
    const key = String(b.instrument_token);
    const id = this.add({
      type: b.type,
      quantity: b.quantity,
      product: b.product,
      instrument_token: key,
      rules: this.stored(b.rules as Body[], b.transaction_type),
    });
    return ok(id);
  }

  /** The GTT `b.gtt_order_id` names, or the documented refusal. */
  private find(b: Body): { gtt: Body } | { refusal: StubAnswer } {
    const id = b.gtt_order_id;
    if (typeof id !== 'string' || id === '') return { refusal: bad('UDAPI1134', 'gtt_order_id is required') };
    if (!id.startsWith('GTT-')) return { refusal: bad('UDAPI1135', "GTT order ID must start with 'GTT-'") };
    const gtt = this.orders.get(id);
    return gtt ? { gtt } : { refusal: bad('UDAPI100036', `stub: no GTT order ${id}`, 404) };
  }

  private modify(b: Body): StubAnswer {
    const found = this.find(b);
    if ('refusal' in found) return found.refusal;
    const refused = this.rules(b);
    if (refused) return refused;
    const g = found.gtt;
    const entry = (g.rules as Body[]).find((r) => r.strategy === 'ENTRY');
    g.type = b.type;
    g.quantity = b.quantity;
    g.rules = this.stored(b.rules as Body[], entry?.transaction_type);
    return ok(String(g.gtt_order_id));
  }

  private cancel(b: Body): StubAnswer {
    const found = this.find(b);
    if ('refusal' in found) return found.refusal;
    const g = found.gtt;
    g.rules = (g.rules as Body[]).map((r) => ({ ...r, status: 'CANCELLED' }));
    return ok(String(g.gtt_order_id));
  }

  private list(req: RecordedRequest): StubAnswer {
    this.received.push({ method: req.method, path: req.path, body: {} });
    const id = req.query.get('gtt_order_id');
    const all = [...this.orders.values()].filter((g) => id === null || g.gtt_order_id === id);
    return { status: 200, body: { status: 'success', data: all, metadata: { latency: 24 } } };
  }
}

/**
 * Fyers API v3 on loopback ({@link FyersStub}, on {@link OrderStub}), answering as
 * myapi.fyers.in/docsv3 documents (the answers' shapes are the docs' samples; where the docs give
 * no sample, as for most refusals, the stub says so beside it). Point clients at `stub.url`
 * (the origin: trading under `/api/v3`, data under `/data`):
 *
 * - `POST /api/v3/validate-authcode` (grant type, `appIdHash` = SHA-256 of `app_id:app_secret`
 *   and the auth code checked) and `POST /api/v3/validate-refresh-token` (refresh token and PIN);
 *   their recorded bodies keep no credential: each credential field reads `exact` or `wrong`;
 * - `POST|PATCH|DELETE /api/v3/orders/sync` (place: required fields, codes, prices by type and
 *   the documented order-tag rule checked; modify and cancel refused once the order is final),
 *   answering `{"s":"ok","code":1101|1103,"message","id"}`; `GET /api/v3/orders` (the day's book,
 *   `?id=` and `?order_tag=` filters), `/tradebook`, `/positions`, `/holdings` (from
 *   `holdingRows`), `/funds` (cash from `cash`), from the stub's fills: with `fillMarketOrders` on
 *   a MARKET order fills at once at the instrument's price (`prices` by Fyers symbol, default 100)
 *   and shows status 2; other orders stay 6 (pending) until `settle`d or cancelled;
 * - `POST /api/v3/multiorder/margin` (figures by broker-margin-stubs.ts's rule);
 * - `GET /data/quotes`, `/data/depth`, `/data/history` (broker-history-stub-fyers.ts).
 *
 * Every other route needs `Authorization: <app_id>:<access_token>`; another value gets HTTP 401
 * with code -16 (the error table's "unable to authenticate user token"; message the stub's). The
 * token is never kept: the recorded requests lose the header (`credentialOf` says whether it
 * matched). Instruments: `instruments` (Fyers symbol → fyToken and exchange/segment codes).
 */
import { createHash } from 'node:crypto';
import { legFigures } from './broker-margin-stubs.js';
import { OrderStub, type Body } from './broker-order-stub-base.js';
import type { RecordedRequest, StubAnswer } from './broker-stub.js';
import { FyersDataDesk, fyersError, fyersFundLimit, fyersPositionBook } from './broker-history-stub-fyers.js';

/** What the Fyers stub accepts. */
export interface FyersCredentials {
  appId: string;
  appSecret: string;
  accessToken: string;
  refreshToken: string;
  authCode: string;
  pin: string;
}

/** The refusal of a request without the exact credential. */
export const FYERS_INVALID_TOKEN = fyersError(401, -16, 'Could not authenticate the user');
const input = (message: string) => fyersError(400, -50, message);
const PRODUCT_TYPES = ['CNC', 'INTRADAY', 'MARGIN', 'CO', 'BO', 'MTF'];
const FINAL = [1, 2, 5, 7];
const ORDER_TAG = /^[A-Za-z0-9]{1,30}$/;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const ok = (body: Body): StubAnswer => ({ status: 200, body: { s: 'ok', code: 200, message: '', ...body } });

/** Exchange and segment codes by symbol-master file (docs "Exchange", "Segment"). */
export const FYERS_CODES: Readonly<Record<string, [number, number]>> = {
  NSE_CM: [10, 10],
  NSE_FO: [10, 11],
  NSE_CD: [10, 12],
  BSE_CM: [12, 10],
  BSE_FO: [12, 11],
  MCX_COM: [11, 20],
};

/** Fyers API v3 on loopback; see the file comment. */
export class FyersStub extends OrderStub {
  /** Fyers symbol → fyToken and exchange/segment codes (what the books show for it). */
  readonly instruments = new Map<string, { fyToken: string; exchange: number; segment: number }>();
  /** The data routes' answers and rate limit. */
  readonly data = new FyersDataDesk();
  private readonly creds: FyersCredentials;

  constructor(credentials: FyersCredentials) {
    const creds = { ...credentials };
    super(
      () => `${creds.appId}:${creds.accessToken}`,
      () => FYERS_INVALID_TOKEN,
    );
    this.creds = creds;
    this.route('POST', '/api/v3/validate-authcode', (r) => this.login(r, 'authorization_code'));
    this.route('POST', '/api/v3/validate-refresh-token', (r) => this.login(r, 'refresh_token'));
    this.authed('POST', '/api/v3/orders/sync', (r) => this.place(r));
    this.authed('PATCH', '/api/v3/orders/sync', (r) => this.modify(r));
    this.authed('DELETE', '/api/v3/orders/sync', (r) => this.cancel(r));
    this.authed('GET', '/api/v3/orders', (r) => ok({ orderBook: this.filtered(r) }));
    this.authed('GET', '/api/v3/tradebook', () => ok({ tradeBook: this.trades() }));
    this.authed('GET', '/api/v3/positions', () =>
      ok(
        fyersPositionBook(
          this.netPositions(),
          (s) => this.priceOf(s),
          (s) => this.instrumentOf(s),
        ),
      ),
    );
    this.authed('GET', '/api/v3/holdings', () => ok({ holdings: this.holdingRows, overall: {} }));
    this.authed('GET', '/api/v3/funds', () =>
      ok({ fund_limit: fyersFundLimit(this.cash, this.netPositions()) }),
    );
    this.authed('POST', '/api/v3/multiorder/margin', (r) => this.margin(r));
    this.authed('GET', '/data/quotes', (r) => this.data.limited() ?? this.data.quote(r));
    this.authed('GET', '/data/depth', (r) => this.data.limited() ?? this.data.depth(r));
    this.authed('GET', '/data/history', (r) => this.data.limited() ?? this.data.history(r));
  }

  /** JSON bodies of the requests to `method path` (all requests when omitted), in order. */
  bodies(path?: string, method?: string): Body[] {
    return this.requests
      .filter((r) => (path === undefined || r.path === path) && (method === undefined || r.method === method))
      .map((r) => (r.body === '' ? {} : (JSON.parse(r.body) as Body)));
  }

  /** Appends a state to an order's history: 2 traded, 5 rejected, 6 pending, 7 expired. */
  settle(id: string, status: 2 | 5 | 6 | 7, filled?: number): void {
    const history = this.orders.get(id)!;
    const last = history.at(-1)!;
    const qty = Number(last.qty);
    const filledQty = filled ?? (status === 2 ? qty : 0);
    history.push({
      ...last,
      status,
      filledQty,
      remainingQuantity: status === 6 ? qty - filledQty : 0,
      tradedPrice: filledQty > 0 ? this.priceOf(String(last.symbol)) : 0,
      message: status === 5 ? 'RMS:Margin Exceeds' : '',
      orderDateTime: this.fyTime(),
    });
  }

  /** `DD-Mon-YYYY HH:MM:SS` (IST), as the books write times. */
  private fyTime(): string {
    const [d, t] = this.stamp().split(' ') as [string, string];
    const [y, m, day] = d.split('-') as [string, string, string];
    return `${day}-${MONTHS[Number(m) - 1]!}-${y} ${t}`;
  }

  private json(req: RecordedRequest): Body | undefined {
    try {
      const b: unknown = JSON.parse(req.body);
      return typeof b === 'object' && b !== null && !Array.isArray(b) ? (b as Body) : undefined;
    } catch {
      return undefined;
    }
  }

  /** The token endpoints; the recorded body's credentials are replaced by `exact`/`wrong`. */
  private login(req: RecordedRequest, grant: string): StubAnswer {
    const b = this.json(req) ?? {};
    const c = this.creds;
    const hash = createHash('sha256').update(`${c.appId}:${c.appSecret}`).digest('hex');
    const mark = (k: string, want: string) =>
      b[k] === undefined ? undefined : b[k] === want ? 'exact' : 'wrong';
    const seen: Body = {
      grant_type: b.grant_type,
      appIdHash: mark('appIdHash', hash),
      ...(grant === 'authorization_code'
        ? { code: mark('code', c.authCode) }
        : { refresh_token: mark('refresh_token', c.refreshToken), pin: mark('pin', c.pin) }),
    };
    req.body = JSON.stringify(seen);
    if (b.grant_type !== grant) return input('Invalid grant_type');
    if (seen.appIdHash !== 'exact') return fyersError(400, -352, 'Invalid app id hash');
    if (grant === 'authorization_code') {
      if (seen.code !== 'exact') return fyersError(400, -17, 'Invalid auth code');
      return ok({ access_token: c.accessToken, refresh_token: c.refreshToken });
    }
    if (seen.refresh_token !== 'exact') return fyersError(400, -17, 'Invalid refresh token');
    if (seen.pin !== 'exact') return fyersError(400, -50, 'Invalid pin');
    return ok({ access_token: c.accessToken });
  }

  /** The instrument fields of a symbol's records. */
  instrumentOf(symbol: string): { fyToken: string; exchange: number; segment: number } {
    const known = this.instruments.get(symbol);
    if (known) return known;
    const [exchange, segment] =
      FYERS_CODES[`${symbol.slice(0, 3)}_${symbol.startsWith('MCX') ? 'COM' : 'CM'}`]!;
    return { fyToken: `FY${symbol}`, exchange, segment };
  }

  private place(req: RecordedRequest): StubAnswer {
    const refused = this.scriptedRefusal();
    if (refused) return refused;
    const b = this.json(req);
    if (!b) return input('Invalid JSON body');
    for (const k of ['symbol', 'qty', 'type', 'side', 'productType', 'validity'])
      if (b[k] === undefined || b[k] === '') return input(`${k} is required`);
    if (!/^[A-Z]+:\S+$/.test(String(b.symbol))) return fyersError(400, -300, 'Invalid symbol');
    if (!Number.isInteger(b.qty) || Number(b.qty) <= 0) return input('Invalid qty');
    if (![1, 2, 3, 4].includes(Number(b.type))) return input('Invalid order type');
    if (![1, -1].includes(Number(b.side))) return input('Invalid side');
    if (!PRODUCT_TYPES.includes(String(b.productType))) return input('Invalid productType');
    if (!['DAY', 'IOC'].includes(String(b.validity))) return input('Invalid validity');
    if (typeof b.offlineOrder !== 'boolean') return input('Invalid offlineOrder');
    const bad = this.checkPrices(b);
    if (bad) return bad;
    if (b.orderTag !== undefined && (!ORDER_TAG.test(String(b.orderTag)) || b.orderTag === 'Untagged'))
      return input('Invalid orderTag');
    if (this.omitOrderId)
      return { status: 200, body: { s: 'ok', code: 1101, message: 'Order submitted successfully.' } };
    const id = this.nextId(26_081_800_000_000);
    const symbol = String(b.symbol);
    const ins = this.instrumentOf(symbol);
    const qty = Number(b.qty);
    const record: Body = {
      clientId: 'X******',
      id,
      exchOrdId: '',
      qty,
      remainingQuantity: qty,
      filledQty: 0,
      discloseQty: Number(b.disclosedQty ?? 0),
      limitPrice: Number(b.limitPrice ?? 0),
      stopPrice: Number(b.stopPrice ?? 0),
      tradedPrice: 0,
      type: b.type,
      fyToken: ins.fyToken,
      exchange: ins.exchange,
      segment: ins.segment,
      symbol,
      instrument: 0,
      message: '',
      offlineOrder: b.offlineOrder,
      orderDateTime: this.fyTime(),
      orderValidity: b.validity,
      pan: '',
      productType: b.productType,
      side: b.side,
      status: 6,
      source: 'API',
      slNo: this.orders.size + 1,
      orderNumStatus: `${id}:6`,
      disclosedQty: Number(b.disclosedQty ?? 0),
      orderTag: b.orderTag === undefined ? '2:Untagged' : `1:${String(b.orderTag)}`,
      takeProfit: 0,
      stopLoss: 0,
    };
    const history: Body[] = [{ ...record, status: 4 }, record];
    if (this.fillMarketOrders && b.type === 2) {
      const price = this.priceOf(symbol);
      history.push({ ...record, status: 2, tradedPrice: price, filledQty: qty, remainingQuantity: 0 });
      this.fills.push({
        tradeId: String(52_605_000 + this.fills.length + 1),
        orderId: id,
        tradingsymbol: symbol,
        exchange: symbol.slice(0, symbol.indexOf(':')),
        token: ins.fyToken,
        product: String(b.productType),
        side: b.side === 1 ? 'BUY' : 'SELL',
        quantity: qty,
        price,
        at: String(record.orderDateTime),
        tag: String(record.orderTag),
      });
    }
    this.orders.set(id, history);
    return {
      status: 200,
      body: { s: 'ok', code: 1101, message: `Order submitted successfully. Your Order Ref. No.${id}`, id },
    };
  }

  /** Limit and stop-limit need `limitPrice`, stop and stop-limit `stopPrice`. */
  private checkPrices(b: Body): StubAnswer | undefined {
    const t = Number(b.type);
    if ((t === 1 || t === 4) && !(Number(b.limitPrice) > 0)) return input('Invalid limitPrice');
    if ((t === 3 || t === 4) && !(Number(b.stopPrice) > 0)) return input('Invalid stopPrice');
    return undefined;
  }

  private pending(b: Body | undefined, verb: string): { id: string; last: Body } | StubAnswer {
    const id = String(b?.id ?? '');
    const last = this.last(id);
    if (!b || !last) return fyersError(400, -51, 'Invalid order id');
    if (FINAL.includes(Number(last.status)))
      return fyersError(400, -99, `Order is not pending and cannot be ${verb}`);
    return { id, last };
  }

  private modify(req: RecordedRequest): StubAnswer {
    const b = this.json(req);
    const p = this.pending(b, 'modified');
    if ('status' in p) return p;
    const next: Body = { ...p.last, ...b, type: b!.type ?? p.last.type };
    if (b!.type === undefined) return input('type is required');
    const bad = this.checkPrices(next);
    if (bad) return bad;
    const qty = Number(b!.qty ?? p.last.qty);
    this.orders.get(p.id)!.push({
      ...next,
      qty,
      remainingQuantity: qty - Number(p.last.filledQty),
      orderDateTime: this.fyTime(),
    });
    const body: Body = { s: 'ok', code: 1101, message: 'Successfully modified order' };
    return { status: 200, body: this.omitOrderId ? body : { ...body, id: p.id } };
  }

  private cancel(req: RecordedRequest): StubAnswer {
    const p = this.pending(this.json(req), 'cancelled');
    if ('status' in p) return p;
    this.orders.get(p.id)!.push({ ...p.last, status: 1, remainingQuantity: 0, orderDateTime: this.fyTime() });
    const body: Body = { s: 'ok', code: 1103, message: 'Successfully cancelled order' };
    return { status: 200, body: this.omitOrderId ? body : { ...body, id: p.id } };
  }

  /** The book, filtered by `?id=` or `?order_tag=` as the docs' "Order Filter" requests do. */
  private filtered(req: RecordedRequest): Body[] {
    const id = req.query.get('id');
    const tag = req.query.get('order_tag');
    return this.book().filter((o) => (id === null || o.id === id) && (tag === null || o.orderTag === tag));
  }

  /** `GET /tradebook` rows (docs "Trades" sample). */
  private trades(): Body[] {
    return this.fills.map((f, n) => {
      const ins = this.instrumentOf(f.tradingsymbol);
      return {
        clientId: 'X******',
        orderDateTime: f.at,
        orderNumber: f.orderId,
        exchangeOrderNo: `1100000${f.orderId.slice(-9)}`,
        exchange: ins.exchange,
        side: f.side === 'BUY' ? 1 : -1,
        segment: ins.segment,
        orderType: 2,
        fyToken: String(f.token),
        productType: f.product,
        tradedQty: f.quantity,
        tradePrice: f.price,
        tradeValue: f.quantity * f.price,
        tradeNumber: f.tradeId,
        row: n + 1,
        symbol: f.tradingsymbol,
        orderTag: f.tag,
      };
    });
  }

  /** `POST /multiorder/margin`: `{"data":[legs]}`; figures by broker-margin-stubs.ts's rule. */
  private margin(req: RecordedRequest): StubAnswer {
    const legs = this.json(req)?.data;
    if (!Array.isArray(legs) || legs.length === 0) return input('data is required');
    let total = 0;
    for (const l of legs as Body[]) {
      for (const k of ['symbol', 'qty', 'side', 'type', 'productType'])
        if (l[k] === undefined || l[k] === '') return input(`${k} is required`);
      const symbol = String(l.symbol);
      const price = Number(l.limitPrice) > 0 ? Number(l.limitPrice) : this.priceOf(symbol);
      const seg = this.instrumentOf(symbol).segment;
      total += legFigures({
        derivative: seg !== 10,
        option: /(CE|PE)$/.test(symbol),
        side: l.side === 1 ? 'BUY' : 'SELL',
        intraday: l.productType === 'INTRADAY',
        value: Number(l.qty) * price,
      }).total;
    }
    const data = { margin_avail: this.cash, margin_total: total, margin_new_order: total };
    return { status: 200, body: { code: 200, message: '', data, s: 'ok' } };
  }
}

/** Starts a {@link FyersStub}. */
export function startFyersStub(credentials: FyersCredentials): Promise<FyersStub> {
  return new FyersStub(credentials).start();
}

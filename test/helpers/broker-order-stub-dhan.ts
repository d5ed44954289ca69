/**
 * DhanHQ v2 on loopback ({@link DhanStub}, on {@link OrderStub}), answering as dhanhq.co/docs/v2
 * documents (orders, portfolio, funds, market-quote, annexure), under `/v2` like the real origin
 * (point clients at `stub.url + '/v2'`, {@link DhanStub.baseUrl}):
 *
 * - `POST /v2/orders` (JSON; required fields, enums and prices checked; `dhanClientId` must be the
 *   account's), `PUT|DELETE /v2/orders/{id}` (refused once the order is final), answering
 *   `{"orderId","orderStatus"}`; `GET /v2/orders/{id}`, `GET /v2/orders` (the day's book, each
 *   order's current record), `GET /v2/orders/external/{correlation-id}`;
 * - `GET /v2/trades`, `/v2/positions`, `/v2/holdings` (from `holdingRows`), `/v2/fundlimit` (cash
 *   from `cash`), from the stub's fills: with `fillMarketOrders` on a MARKET order fills at once at
 *   the instrument's price (`prices` by trading symbol, default 100) and shows TRADED; other orders
 *   stay PENDING until `settle`d or cancelled;
 * - `GET /v2/profile` (the token's account: `dhanClientId`, `tokenValidity` as `DD/MM/YYYY HH:mm`
 *   IST from {@link DhanStub.tokenValidity}, segments, DDPI, data plan), as the user-profile page shows;
 * - `POST /v2/margincalculator` (one order; figures by broker-margin-stubs.ts's rule);
 * - `POST /v2/marketfeed/quote` (needs the `client-id` header too; at most 1000 instruments; one
 *   request per `quoteIntervalMs`, default the documented 1 s, else a rate-limit refusal), answering
 *   from `quotes` keyed `SEGMENT|securityId`.
 *
 * Every route needs the header `access-token` equal to the account's token; another token gets
 * DH-901 ("Client ID or user generated access token is invalid or expired.") with HTTP 401 (the
 * docs give the body, not the status). Errors use the documented envelope `{"errorType",
 * "errorCode","errorMessage"}`: DH-905 input (400), DH-906 order (400), DH-904 rate limit (429).
 * The token is never kept: the recorded requests lose the `access-token` header (only whether it
 * matched is kept, `credentialOf`). Instruments' trading symbols come from `instruments`
 * (`SEGMENT|securityId` → trading symbol), else `SEC<id>`.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { legFigures } from './broker-margin-stubs.js';
import { OrderStub, positionFigures, type Body, type Credential } from './broker-order-stub-base.js';
import type { RecordedRequest, StubAnswer } from './broker-stub.js';

/** What the Dhan stub accepts. */
export interface DhanCredentials {
  accessToken: string;
  clientId: string;
}

const SEGMENTS = ['NSE_EQ', 'NSE_FNO', 'NSE_CURRENCY', 'BSE_EQ', 'BSE_FNO', 'BSE_CURRENCY', 'MCX_COMM'];
const QUOTE_SEGMENTS = [...SEGMENTS, 'IDX_I'];
const PRODUCT_TYPES = ['CNC', 'INTRADAY', 'MARGIN', 'MTF', 'CO', 'BO'];
const DHAN_ORDER_TYPES = ['LIMIT', 'MARKET', 'STOP_LOSS', 'STOP_LOSS_MARKET'];
const FINAL = ['TRADED', 'CANCELLED', 'REJECTED', 'EXPIRED'];
const CORRELATION_ID = /^[A-Za-z0-9 _-]{1,30}$/;

/** Dhan's error envelope (docs "Errors"). */
export function dhanError(errorType: string, errorCode: string, errorMessage: string): Body {
  return { errorType, errorCode, errorMessage };
}
const input = (message: string): StubAnswer => ({
  status: 400,
  body: dhanError('Input_Exception', 'DH-905', message),
});
const orderError = (message: string): StubAnswer => ({
  status: 400,
  body: dhanError('Order_Error', 'DH-906', message),
});
/** The documented DH-901 refusal. */
export const DHAN_INVALID_TOKEN: StubAnswer = {
  status: 401,
  body: dhanError(
    'Invalid_Authentication',
    'DH-901',
    'Client ID or user generated access token is invalid or expired.',
  ),
};
/** The documented DH-904 refusal. */
export const DHAN_RATE_LIMIT: StubAnswer = {
  status: 429,
  body: dhanError(
    'Rate_Limit',
    'DH-904',
    'Too many requests on server from single user breaching rate limits. Try throttling API calls.',
  ),
};
const ok = (body: unknown): StubAnswer => ({ status: 200, body });

/** A full quote as the market-quote page documents it (`POST /marketfeed/quote`). */
export function dhanQuote(q: {
  lastPrice: number;
  ohlc?: { open: number; high: number; low: number; close: number };
  bids?: readonly (readonly [number, number, number?])[];
  asks?: readonly (readonly [number, number, number?])[];
  lastTradeTime?: string;
  upper?: number;
  lower?: number;
}): Body {
  const side = (levels: readonly (readonly [number, number, number?])[] = []) => {
    const out = levels.slice(0, 5).map(([price, quantity, orders = 1]) => ({ quantity, orders, price }));
    while (out.length < 5) out.push({ quantity: 0, orders: 0, price: 0 });
    return out;
  };
  return {
    average_price: 0,
    buy_quantity: 1825,
    depth: { buy: side(q.bids), sell: side(q.asks) },
    last_price: q.lastPrice,
    last_quantity: 5,
    last_trade_time: q.lastTradeTime ?? '18/08/2026 10:14:58',
    lower_circuit_limit: q.lower ?? 0,
    net_change: 0,
    ohlc: q.ohlc ?? { open: q.lastPrice, close: q.lastPrice, high: q.lastPrice, low: q.lastPrice },
    oi: 0,
    oi_day_high: 0,
    oi_day_low: 0,
    sell_quantity: 0,
    upper_circuit_limit: q.upper ?? 0,
    volume: 1200,
  };
}

const DAY_MS = 86_400_000;

/** `at` as the profile's `tokenValidity` shows it: `DD/MM/YYYY HH:mm`, IST. */
function istValidity(at: number): string {
  const [date, time] = new Date(at + 330 * 60_000).toISOString().split('T') as [string, string];
  const [y, m, d] = date.split('-');
  return `${d}/${m}/${y} ${time.slice(0, 5)}`;
}

/** DhanHQ v2 on loopback; see the file comment. */
export class DhanStub extends OrderStub {
  /** `SEGMENT|securityId` → Dhan trading symbol (what the books and order records show). */
  readonly instruments = new Map<string, string>();
  /** What the market quote answers from, keyed `SEGMENT|securityId`. */
  readonly quotes = new Map<string, Body>();
  /** Least time between two quote requests before a rate-limit refusal, ms (docs: 1/s). */
  quoteIntervalMs = 1000;
  /**
   * What `GET /v2/profile` says the token is valid until (IST, the docs' `DD/MM/YYYY HH:mm`): by
   * default 08:45 IST on the morning after tomorrow. Not a fixed date: a journey on the wall clock
   * (the browser tests) finds the session lapsed from that morning on.
   */
  tokenValidity = istValidity(Math.floor(Date.now() / DAY_MS + 2) * DAY_MS + (8 * 60 + 45 - 330) * 60_000);
  private lastQuoteAt = -Infinity;
  private readonly creds: { value: DhanCredentials };
  private readonly kinds = new WeakMap<RecordedRequest, Credential>();

  constructor(credentials: DhanCredentials) {
    const creds = { value: { ...credentials } };
    // The base's gate reads `Authorization` (which Dhan does not use): absent, so every request
    // reaches its route, where `authed` checks the `access-token` header.
    super(
      () => `\u0000never`,
      () => DHAN_INVALID_TOKEN,
    );
    this.creds = creds;
    // Record what the token header was, then drop it from the record.
    const push = this.requests.push.bind(this.requests);
    this.requests.push = (...rs: RecordedRequest[]) => {
      for (const r of rs) {
        this.kinds.set(r, this.classify(r.headers));
        delete r.headers['access-token'];
      }
      return push(...rs);
    };
    this.authed('POST', '/v2/orders', (r) => this.place(r));
    this.authed('GET', '/v2/orders', () => ok(this.book()));
    this.routePrefix('GET', '/v2/orders/', (r) => this.gate(r, () => this.getOrder(r)));
    this.routePrefix('PUT', '/v2/orders/', (r) => this.gate(r, () => this.modify(r)));
    this.routePrefix('DELETE', '/v2/orders/', (r) => this.gate(r, () => this.cancel(r)));
    this.authed('GET', '/v2/trades', () => ok(this.trades()));
    this.authed('GET', '/v2/positions', () => ok(this.positionRows()));
    this.authed('GET', '/v2/holdings', () => ok(this.holdingRows));
    this.authed('GET', '/v2/fundlimit', () => ok(this.fundLimit()));
    this.authed('GET', '/v2/profile', () =>
      ok({
        dhanClientId: this.creds.value.clientId,
        tokenValidity: this.tokenValidity,
        activeSegment: 'Equity, Derivative, Currency, Commodity',
        ddpi: 'Active',
        mtf: 'Deactive',
        dataPlan: 'Active',
        dataValidity: '2026-12-31 23:59:59.0',
      }),
    );
    this.authed('POST', '/v2/margincalculator', (r) => this.margin(r));
    this.authed('POST', '/v2/marketfeed/quote', (r) => this.quote(r));
  }

  /** The base URL the clients are given (`…/v2`). */
  get baseUrl(): string {
    return `${this.url}/v2`;
  }

  /** The credentials accepted now. */
  get credentials(): DhanCredentials {
    return this.creds.value;
  }
  set credentials(c: DhanCredentials) {
    this.creds.value = { ...c };
  }

  override credentialOf(req: RecordedRequest): Credential | undefined {
    return this.kinds.get(req);
  }

  /** JSON bodies of the requests to `method path` (all requests when omitted), in order. */
  bodies(path?: string, method?: string): Body[] {
    return this.requests
      .filter((r) => (path === undefined || r.path === path) && (method === undefined || r.method === method))
      .map((r) => (r.body === '' ? {} : (JSON.parse(r.body) as Body)));
  }

  /** Appends a state to an order's history (what the exchange did with it). */
  settle(id: string, status: 'TRADED' | 'REJECTED' | 'PENDING' | 'EXPIRED', filled?: number): void {
    const history = this.orders.get(id)!;
    const last = history.at(-1)!;
    const quantity = Number(last.quantity);
    const filledQty = filled ?? (status === 'TRADED' ? quantity : 0);
    history.push({
      ...last,
      orderStatus: status,
      filledQty,
      remainingQuantity: status === 'PENDING' ? quantity - filledQty : 0,
      averageTradedPrice: filledQty > 0 ? this.priceOf(String(last.tradingSymbol)) : 0,
      omsErrorDescription: status === 'REJECTED' ? 'RMS:Margin Exceeds' : '',
      updateTime: this.stamp(),
    });
  }

  private classify(h: IncomingHttpHeaders): Credential {
    const t = h['access-token'];
    return t === undefined ? 'absent' : t === this.creds.value.accessToken ? 'exact' : 'wrong';
  }

  /** Runs `handler` for a request with the exact token, else the DH-901 refusal. */
  private gate(req: RecordedRequest, handler: () => StubAnswer): StubAnswer {
    return this.credentialOf(req) === 'exact' ? handler() : DHAN_INVALID_TOKEN;
  }

  protected override authed(method: string, path: string, handler: (r: RecordedRequest) => StubAnswer): void {
    this.route(method, path, (r) => this.gate(r, () => handler(r)));
  }

  private symbolOf(segment: string, id: string): string {
    return this.instruments.get(`${segment}|${id}`) ?? `SEC${id}`;
  }

  private json(req: RecordedRequest): Body | StubAnswer {
    if (req.headers['content-type'] !== 'application/json') return input('stub: a JSON body is required');
    try {
      const b: unknown = JSON.parse(req.body);
      return typeof b === 'object' && b !== null && !Array.isArray(b)
        ? (b as Body)
        : input('stub: not an object');
    } catch {
      return input('stub: the body is not JSON');
    }
  }

  private place(req: RecordedRequest): StubAnswer {
    const refused = this.scriptedRefusal();
    if (refused) return refused;
    const b = this.json(req);
    if ('status' in b && 'body' in b) return b as StubAnswer;
    for (const k of [
      'dhanClientId',
      'transactionType',
      'exchangeSegment',
      'productType',
      'orderType',
      'validity',
      'securityId',
      'quantity',
    ])
      if (b[k] === undefined || b[k] === '') return input(`Missing required field ${k}`);
    if (b.dhanClientId !== this.creds.value.clientId) return DHAN_INVALID_TOKEN;
    if (!['BUY', 'SELL'].includes(String(b.transactionType))) return input('Invalid transactionType');
    if (!SEGMENTS.includes(String(b.exchangeSegment))) return input('Invalid exchangeSegment');
    if (!PRODUCT_TYPES.includes(String(b.productType))) return input('Invalid productType');
    if (!DHAN_ORDER_TYPES.includes(String(b.orderType))) return input('Invalid orderType');
    if (!['DAY', 'IOC'].includes(String(b.validity))) return input('Invalid validity');
    if (typeof b.securityId !== 'string') return input('securityId is a string');
    const bad = this.checkPrices(b);
    if (bad) return bad;
    if (b.correlationId !== undefined && !CORRELATION_ID.test(String(b.correlationId)))
      return input('Invalid correlationId');
    if (this.omitOrderId) return ok({ orderStatus: 'PENDING' });
    const id = this.nextId(52_608_180_000);
    const at = this.stamp();
    const quantity = Number(b.quantity);
    const segment = String(b.exchangeSegment);
    const tradingSymbol = this.symbolOf(segment, b.securityId);
    const record: Body = {
      dhanClientId: b.dhanClientId,
      orderId: id,
      correlationId: b.correlationId ?? '',
      orderStatus: 'PENDING',
      transactionType: b.transactionType,
      exchangeSegment: segment,
      productType: b.productType,
      orderType: b.orderType,
      validity: b.validity,
      tradingSymbol,
      securityId: b.securityId,
      quantity,
      disclosedQuantity: Number(b.disclosedQuantity ?? 0),
      price: Number(b.price ?? 0),
      triggerPrice: Number(b.triggerPrice ?? 0),
      afterMarketOrder: b.afterMarketOrder === true,
      boProfitValue: 0,
      boStopLossValue: 0,
      legName: null,
      createTime: at,
      updateTime: at,
      exchangeTime: at,
      drvExpiryDate: null,
      drvOptionType: null,
      drvStrikePrice: 0,
      omsErrorCode: null,
      omsErrorDescription: '',
      algoId: '0',
      remainingQuantity: quantity,
      averageTradedPrice: 0,
      filledQty: 0,
    };
    const history: Body[] = [{ ...record, orderStatus: 'TRANSIT' }, record];
    if (this.fillMarketOrders && b.orderType === 'MARKET') {
      const price = this.priceOf(tradingSymbol);
      history.push({
        ...record,
        orderStatus: 'TRADED',
        averageTradedPrice: price,
        filledQty: quantity,
        remainingQuantity: 0,
      });
      this.fills.push({
        tradeId: String(90_000_000 + this.fills.length + 1),
        orderId: id,
        tradingsymbol: tradingSymbol,
        exchange: segment,
        token: b.securityId,
        product: String(b.productType),
        side: String(b.transactionType),
        quantity,
        price,
        at,
        tag: String(b.correlationId ?? ''),
      });
    }
    this.orders.set(id, history);
    return ok({ orderId: id, orderStatus: 'PENDING' });
  }

  /** LIMIT and STOP_LOSS need a price, STOP_LOSS and STOP_LOSS_MARKET a trigger. */
  private checkPrices(b: Body): StubAnswer | undefined {
    const t = String(b.orderType);
    if ((t === 'LIMIT' || t === 'STOP_LOSS') && !(Number(b.price) > 0)) return input('Price is required');
    if ((t === 'STOP_LOSS' || t === 'STOP_LOSS_MARKET') && !(Number(b.triggerPrice) > 0))
      return input('Trigger price is required');
    return undefined;
  }

  private idOf(req: RecordedRequest): string {
    return decodeURIComponent(req.path.slice('/v2/orders/'.length));
  }

  private getOrder(req: RecordedRequest): StubAnswer {
    const rest = this.idOf(req);
    if (rest.startsWith('external/')) {
      const cid = rest.slice('external/'.length);
      const found = this.book()
        .filter((o) => o.correlationId === cid)
        .at(-1);
      return found ? ok(found) : orderError('Order not found for the correlation id');
    }
    const last = this.last(rest);
    return last ? ok(last) : orderError('Invalid order id');
  }

  private modify(req: RecordedRequest): StubAnswer {
    const id = this.idOf(req);
    const last = this.last(id);
    if (!last) return orderError('Invalid order id');
    const b = this.json(req);
    if ('status' in b && 'body' in b) return b as StubAnswer;
    if (b.dhanClientId !== this.creds.value.clientId) return DHAN_INVALID_TOKEN;
    if (b.orderId !== id) return input('orderId does not match the path');
    if (!DHAN_ORDER_TYPES.includes(String(b.orderType))) return input('Invalid orderType');
    const bad = this.checkPrices(b);
    if (bad) return bad;
    if (FINAL.includes(String(last.orderStatus)))
      return orderError(`Order is ${String(last.orderStatus)} and cannot be modified`);
    const quantity = Number(b.quantity ?? last.quantity);
    this.orders.get(id)!.push({
      ...last,
      orderType: b.orderType,
      quantity,
      price: Number(b.price ?? 0),
      triggerPrice: Number(b.triggerPrice ?? 0),
      disclosedQuantity: Number(b.disclosedQuantity ?? 0),
      validity: b.validity ?? last.validity,
      remainingQuantity: quantity - Number(last.filledQty),
      updateTime: this.stamp(),
    });
    return ok(this.omitOrderId ? { orderStatus: 'PENDING' } : { orderId: id, orderStatus: 'PENDING' });
  }

  private cancel(req: RecordedRequest): StubAnswer {
    const id = this.idOf(req);
    const last = this.last(id);
    if (!last) return orderError('Invalid order id');
    if (FINAL.includes(String(last.orderStatus)))
      return orderError(`Order is ${String(last.orderStatus)} and cannot be cancelled`);
    this.orders
      .get(id)!
      .push({ ...last, orderStatus: 'CANCELLED', remainingQuantity: 0, updateTime: this.stamp() });
    return ok(this.omitOrderId ? { orderStatus: 'CANCELLED' } : { orderId: id, orderStatus: 'CANCELLED' });
  }

  /** `GET /trades` (orders page, "Trade Book"). */
  private trades(): Body[] {
    return this.fills.map((f) => ({
      dhanClientId: this.creds.value.clientId,
      orderId: f.orderId,
      exchangeOrderId: `1100000${f.orderId.slice(-6)}`,
      exchangeTradeId: f.tradeId,
      transactionType: f.side,
      exchangeSegment: f.exchange,
      productType: f.product,
      orderType: 'MARKET',
      tradingSymbol: f.tradingsymbol,
      securityId: String(f.token),
      tradedQuantity: f.quantity,
      tradedPrice: f.price,
      createTime: f.at,
      updateTime: f.at,
      exchangeTime: f.at,
      drvExpiryDate: null,
      drvOptionType: null,
      drvStrikePrice: 0,
    }));
  }

  /** `GET /positions` (portfolio page). */
  private positionRows(): Body[] {
    return this.netPositions().map((p) => {
      const ltp = this.priceOf(p.tradingsymbol);
      const n = positionFigures(p, ltp);
      return {
        dhanClientId: this.creds.value.clientId,
        tradingSymbol: p.tradingsymbol,
        securityId: String(p.token),
        positionType: n.quantity > 0 ? 'LONG' : n.quantity < 0 ? 'SHORT' : 'CLOSED',
        exchangeSegment: p.exchange,
        productType: p.product,
        buyAvg: n.buyAvg,
        buyQty: p.buyQty,
        costPrice: n.average,
        sellAvg: n.sellAvg,
        sellQty: p.sellQty,
        netQty: n.quantity,
        realizedProfit: n.realised,
        unrealizedProfit: n.unrealised,
        rbiReferenceRate: 1.0,
        multiplier: 1,
        carryForwardBuyQty: 0,
        carryForwardSellQty: 0,
        carryForwardBuyValue: 0,
        carryForwardSellValue: 0,
        dayBuyQty: p.buyQty,
        daySellQty: p.sellQty,
        dayBuyValue: p.buyValue,
        daySellValue: p.sellValue,
        drvExpiryDate: '0001-01-01',
        drvOptionType: null,
        drvStrikePrice: 0,
        crossCurrency: false,
      };
    });
  }

  /** `GET /fundlimit` (funds page; `availabelBalance` spelled as Dhan spells it). */
  private fundLimit(): Body {
    const used = this.netPositions().reduce((a, p) => a + Math.abs(p.buyValue - p.sellValue), 0);
    return {
      dhanClientId: this.creds.value.clientId,
      availabelBalance: this.cash - used,
      sodLimit: this.cash,
      collateralAmount: 0,
      receiveableAmount: 0,
      utilizedAmount: used,
      blockedPayoutAmount: 0,
      withdrawableBalance: this.cash - used,
    };
  }

  /** `POST /margincalculator`: one order; figures by broker-margin-stubs.ts's rule. */
  private margin(req: RecordedRequest): StubAnswer {
    const b = this.json(req);
    if ('status' in b && 'body' in b) return b as StubAnswer;
    for (const k of [
      'dhanClientId',
      'exchangeSegment',
      'transactionType',
      'quantity',
      'productType',
      'securityId',
      'price',
    ])
      if (b[k] === undefined || b[k] === '') return input(`Missing required field ${k}`);
    if (b.dhanClientId !== this.creds.value.clientId) return DHAN_INVALID_TOKEN;
    const segment = String(b.exchangeSegment);
    const symbol = this.symbolOf(segment, String(b.securityId));
    const price = Number(b.price) > 0 ? Number(b.price) : this.priceOf(symbol);
    const f = legFigures({
      derivative: segment !== 'NSE_EQ' && segment !== 'BSE_EQ',
      option: /-(CE|PE)$/.test(symbol),
      side: String(b.transactionType),
      intraday: b.productType === 'INTRADAY',
      value: Number(b.quantity) * price,
    });
    return ok({
      totalMargin: f.total,
      spanMargin: f.span,
      exposureMargin: f.exposure,
      availableBalance: this.cash,
      variableMargin: f.equity,
      insufficientBalance: Math.max(0, f.total - this.cash),
      brokerage: 20,
      leverage: b.productType === 'INTRADAY' ? '5.00' : '1.00',
    });
  }

  /** `POST /marketfeed/quote`: `client-id` too, ≤ 1000 instruments, one request per interval. */
  private quote(req: RecordedRequest): StubAnswer {
    if (req.headers['client-id'] !== this.creds.value.clientId) return DHAN_INVALID_TOKEN;
    const now = performance.now();
    if (now - this.lastQuoteAt < this.quoteIntervalMs) return DHAN_RATE_LIMIT;
    this.lastQuoteAt = now;
    const b = this.json(req);
    if ('status' in b && 'body' in b) return b as StubAnswer;
    let count = 0;
    const data: Record<string, Record<string, Body>> = {};
    for (const [segment, ids] of Object.entries(b)) {
      if (!QUOTE_SEGMENTS.includes(segment) || !Array.isArray(ids))
        return input(`Invalid segment ${segment}`);
      count += ids.length;
      for (const id of ids as unknown[]) {
        if (typeof id !== 'number') return input('security ids are numbers');
        const q = this.quotes.get(`${segment}|${id}`);
        if (q) (data[segment] ??= {})[String(id)] = q;
      }
    }
    if (count > 1000)
      return {
        status: 400,
        body: dhanError('Data_Error', '804', 'Requested number of instruments exceeds limit'),
      };
    return ok({ data, status: 'success' });
  }
}

/** Starts a {@link DhanStub}. */
export function startDhanStub(credentials: DhanCredentials): Promise<DhanStub> {
  return new DhanStub(credentials).start();
}

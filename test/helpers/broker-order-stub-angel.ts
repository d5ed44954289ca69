/**
 * Angel One SmartAPI on loopback ({@link AngelStub}, on {@link OrderStub}), answering in the
 * documented shapes (smartapi.angelone.in/docs: User, Orders, Portfolio, MarketData, Margin;
 * SmartAPI forum announcements where the docs page changed: the 20-character `ordertag` and its
 * AB4008 refusal, topic 4859; the 50-token quote, topic 4056; the gateway's AG8001 body):
 *
 * - `POST /rest/auth/angelbroking/user/v1/loginByPassword` `{clientcode, password, totp}`,
 *   checked against the credentials given to the stub (AB1000 for client code or PIN, AB1050 for
 *   the TOTP); a success issues a new JWT (JWT-shaped, with `exp` when {@link AngelStub.jwtExp}
 *   is set), refresh token and feed token; `POST …/jwt/v1/generateTokens` `{refreshToken}`
 *   rotates all three (AB8050 for another refresh token);
 * - `POST /rest/secure/angelbroking/order/v1/placeOrder`, `modifyOrder`, `cancelOrder` (ids in
 *   the body), `GET getOrderBook` (each order's current record, `data: null` when there is none),
 *   `getTradeBook`, `getPosition`, `portfolio/v1/getAllHolding` (and `getHolding`),
 *   `user/v1/getRMS`; `POST margin/v1/batch` (figures by the rule in broker-margin-stubs.ts) and
 *   `market/v1/quote` (from {@link AngelStub.quotes}, at most 50 tokens).
 *
 * Secure routes need `Authorization: Bearer <the current JWT>` (else the gateway's
 * `{"success":false,"message":"Invalid Token","errorCode":"AG8001"}`), `X-PrivateKey` = the API
 * key (else AG8004 "Invalid API Key") and the other SmartAPI headers and a JSON body; a
 * violation of what the stub checks but Angel does not document is HTTP 400 `"errorcode":"STUB"`.
 * Refusals are HTTP 200 with `"status":false`, as SmartAPI answers them. With `fillMarketOrders`
 * on, a MARKET order completes at placement at the instrument's price (`prices`), as one trade
 * and in the net position (see broker-order-stub-base.ts); other orders rest (`open`, or
 * `trigger pending` for the stop-loss types) until `settle`d or cancelled.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { QuoteInstrument } from '../../src/modules/brokers/quotes/quote-client.js';
import { parseAngel } from '../../src/modules/market/importers/angel.js';
import { named, rows } from './broker-quote-fixtures.js';
import { marketFixture } from './market-fixtures.js';
import { basketFigures, type StubMarginLeg } from './broker-margin-stubs.js';
import { OrderStub, positionFigures, type Body, type StubPosition } from './broker-order-stub-base.js';
import { depth, type RecordedRequest, type StubAnswer } from './broker-stub.js';

/** What the Angel stub accepts: the app's key, the user's login, and the session it starts with. */
export interface AngelStubCredentials {
  apiKey: string;
  clientCode: string;
  pin: string;
  totp: string;
  jwt: string;
  refreshToken: string;
  feedToken: string;
}

const AUTH = '/rest/auth/angelbroking';
const SECURE = '/rest/secure/angelbroking';
export const ANGEL_STUB_PATHS = {
  login: `${AUTH}/user/v1/loginByPassword`,
  refresh: `${AUTH}/jwt/v1/generateTokens`,
  place: `${SECURE}/order/v1/placeOrder`,
  modify: `${SECURE}/order/v1/modifyOrder`,
  cancel: `${SECURE}/order/v1/cancelOrder`,
  orderBook: `${SECURE}/order/v1/getOrderBook`,
  tradeBook: `${SECURE}/order/v1/getTradeBook`,
  positions: `${SECURE}/order/v1/getPosition`,
  allHoldings: `${SECURE}/portfolio/v1/getAllHolding`,
  holdings: `${SECURE}/portfolio/v1/getHolding`,
  rms: `${SECURE}/user/v1/getRMS`,
  margin: `${SECURE}/margin/v1/batch`,
  quote: `${SECURE}/market/v1/quote`,
} as const;

/** The documented quote limit per request. */
export const ANGEL_STUB_QUOTE_LIMIT = 50;
/** The stub's limit of margin positions per request. */
export const ANGEL_STUB_MARGIN_LIMIT = 50;

/** SmartAPI's error envelope. */
export const angelError = (message: string, errorcode: string) => ({
  status: false,
  message,
  errorcode,
  data: null,
});
/** SmartAPI's success envelope, HTTP 200. */
export const angelOk = (data: unknown): StubAnswer => ({
  status: 200,
  body: { status: true, message: 'SUCCESS', errorcode: '', data },
});
/** A SmartAPI refusal: HTTP 200, `"status":false`. */
export const angelFail = (message: string, errorcode: string): StubAnswer => ({
  status: 200,
  body: angelError(message, errorcode),
});
/** The gateway's answer to a missing, wrong or expired JWT. */
export const ANGEL_INVALID_TOKEN = {
  success: false,
  message: 'Invalid Token',
  errorCode: 'AG8001',
  data: '',
};
/** The rate limiter's plain-text answer. */
export const ANGEL_RATE_LIMIT_TEXT = 'Access denied because of exceeding access rate';

const stubFail = (message: string): StubAnswer => ({
  status: 400,
  body: angelError(`stub: ${message}`, 'STUB'),
});

const VARIETIES = ['NORMAL', 'STOPLOSS', 'AMO', 'ROBO'];
const ORDER_TYPES = ['MARKET', 'LIMIT', 'STOPLOSS_LIMIT', 'STOPLOSS_MARKET'];
const PRODUCT_TYPES = ['DELIVERY', 'CARRYFORWARD', 'MARGIN', 'INTRADAY', 'BO'];
const PLACE_REQUIRED = [
  'variety',
  'tradingsymbol',
  'symboltoken',
  'transactiontype',
  'exchange',
  'ordertype',
  'producttype',
  'duration',
  'quantity',
];
const MODIFY_REQUIRED = [
  'variety',
  'orderid',
  'ordertype',
  'producttype',
  'duration',
  'price',
  'quantity',
  'tradingsymbol',
  'symboltoken',
  'exchange',
];
const FINAL = ['complete', 'cancelled', 'rejected'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `2026-08-18 09:15:01` as Angel writes times: `18-Aug-2026 09:15:01`. */
export const angelStamp = (s: string) =>
  `${s.slice(8, 10)}-${MONTHS[Number(s.slice(5, 7)) - 1]}-${s.slice(0, 4)} ${s.slice(11)}`;

const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');

/**
 * A FULL-mode quote as the market data page documents it; depth padded to five levels of zeros.
 * LTP and OHLC modes answer the leading fields of it.
 */
export function angelQuote(q: {
  exchange: string;
  tradingSymbol: string;
  symbolToken: string;
  ltp: number;
  open?: number;
  high?: number;
  low?: number;
  close?: number;
  bids?: readonly (readonly [number, number, number?])[];
  asks?: readonly (readonly [number, number, number?])[];
  exchFeedTime?: string;
  volume?: number;
  oi?: number;
  lowerCircuit?: number;
  upperCircuit?: number;
}): Record<string, unknown> {
  return {
    exchange: q.exchange,
    tradingSymbol: q.tradingSymbol,
    symbolToken: q.symbolToken,
    ltp: q.ltp,
    open: q.open ?? q.ltp,
    high: q.high ?? q.ltp,
    low: q.low ?? q.ltp,
    close: q.close ?? q.ltp,
    lastTradeQty: 46,
    exchFeedTime: q.exchFeedTime ?? '18-Aug-2026 10:15:00',
    exchTradeTime: q.exchFeedTime ?? '18-Aug-2026 10:14:59',
    netChange: 0,
    percentChange: 0,
    avgPrice: q.ltp,
    tradeVolume: q.volume ?? 0,
    opnInterest: q.oi ?? 0,
    lowerCircuit: q.lowerCircuit ?? 0,
    upperCircuit: q.upperCircuit ?? 0,
    totBuyQuan: (q.bids ?? []).reduce((a, l) => a + l[1], 0),
    totSellQuan: (q.asks ?? []).reduce((a, l) => a + l[1], 0),
    '52WeekLow': 0,
    '52WeekHigh': 0,
    depth: { buy: depth(q.bids ?? []), sell: depth(q.asks ?? []) },
  };
}

/** Angel One SmartAPI on loopback; see the file comment. */
export class AngelStub extends OrderStub {
  /** Trading symbols by symbol token (the margin calculator names instruments by token). */
  readonly symbols = new Map<string, string>();
  /** FULL quotes by `EXCHANGE:TOKEN` (`NSE:3045`). */
  readonly quotes = new Map<string, Record<string, unknown>>();
  /** The `exp` claim (epoch seconds) of the JWTs a login or refresh issues; none when undefined. */
  jwtExp: number | undefined;
  private readonly creds: { value: AngelStubCredentials };
  private readonly unique = new Map<string, string>();

  constructor(credentials: AngelStubCredentials) {
    const creds = { value: { ...credentials } };
    super(
      () => `Bearer ${creds.value.jwt}`,
      () => ({ status: 200, body: ANGEL_INVALID_TOKEN }),
    );
    this.creds = creds;
    const P = ANGEL_STUB_PATHS;
    this.route('POST', P.login, (r) => this.login(r));
    this.route('POST', P.refresh, (r) => this.refresh(r));
    this.secure('POST', P.place, (r, b) => this.place(b));
    this.secure('POST', P.modify, (r, b) => this.modify(b));
    this.secure('POST', P.cancel, (r, b) => this.cancel(b));
    this.secure('GET', P.orderBook, () => angelOk(this.orders.size ? this.book() : null));
    this.secure('GET', P.tradeBook, () => angelOk(this.fills.length ? this.trades() : null));
    this.secure('GET', P.positions, () => angelOk(this.fills.length ? this.positionRows() : null));
    this.secure('GET', P.allHoldings, () =>
      angelOk({ holdings: this.holdingRows, totalholding: this.totals() }),
    );
    this.secure('GET', P.holdings, () => angelOk(this.holdingRows));
    this.secure('GET', P.rms, () => angelOk(this.rms()));
    this.secure('POST', P.margin, (r, b) => this.margin(b));
    this.secure('POST', P.quote, (r, b) => this.quote(b));
  }

  /** The credentials accepted now (a login or refresh replaces the session's tokens). */
  get credentials(): AngelStubCredentials {
    return this.creds.value;
  }

  /** JSON bodies of the requests to `path` (all when omitted), in order. */
  bodies(path?: string): Body[] {
    return this.requests
      .filter((r) => path === undefined || r.path === path)
      .map((r) => (r.body === '' ? {} : (JSON.parse(r.body) as Body)));
  }

  /** Appends a final state to an order's history (what the exchange did with it). */
  settle(id: string, status: 'complete' | 'rejected' | 'open', filled?: number): void {
    const history = this.orders.get(id)!;
    const last = history.at(-1)!;
    const quantity = Number(last.quantity);
    const filledShares = filled ?? (status === 'complete' ? quantity : 0);
    history.push({
      ...last,
      status,
      orderstatus: status,
      filledshares: String(filledShares),
      unfilledshares: String(status === 'open' ? quantity - filledShares : 0),
      averageprice: filledShares > 0 ? this.priceOf(String(last.tradingsymbol)) : 0,
      text: status === 'rejected' ? 'RMS:Margin Exceeds,Required:95417.84, Available:1021.05' : '',
    });
  }

  /** Serves a secure route: the JWT (else AG8001), the SmartAPI headers, a JSON body on POST. */
  private secure(
    method: string,
    path: string,
    handler: (req: RecordedRequest, body: Body) => StubAnswer,
  ): void {
    this.authed(method, path, (req) => {
      const bad = this.checkHeaders(req);
      if (bad) return bad;
      if (method === 'GET') return handler(req, {});
      let body: unknown;
      try {
        body = JSON.parse(req.body);
      } catch {
        return stubFail('the body is not JSON');
      }
      if (typeof body !== 'object' || body === null || Array.isArray(body))
        return stubFail('a JSON object body');
      return handler(req, body as Body);
    });
  }

  /** The headers every SmartAPI call carries. */
  private checkHeaders(req: RecordedRequest): StubAnswer | undefined {
    const h = req.headers;
    if (h['x-privatekey'] !== this.creds.value.apiKey) return angelFail('Invalid API Key', 'AG8004');
    if (h['x-usertype'] !== 'USER') return stubFail('X-UserType: USER is required');
    if (h['x-sourceid'] !== 'WEB') return stubFail('X-SourceID: WEB is required');
    for (const k of ['x-clientlocalip', 'x-clientpublicip', 'x-macaddress'])
      if (!h[k]) return stubFail(`header ${k} is required`);
    if (h.accept !== 'application/json') return stubFail('Accept: application/json is required');
    if (req.method === 'POST' && h['content-type'] !== 'application/json')
      return stubFail('Content-Type: application/json is required');
    return undefined;
  }

  /** A JWT-shaped token (`exp` when {@link jwtExp} is set). */
  private issueJwt(): string {
    const claims = { username: this.creds.value.clientCode, ...(this.jwtExp ? { exp: this.jwtExp } : {}) };
    return `${b64({ alg: 'HS512' })}.${b64({ ...claims, token: randomBytes(8).toString('hex') })}.${randomBytes(16).toString('base64url')}`;
  }

  /** New JWT, refresh and feed tokens: the session from now on. */
  private rotate(): StubAnswer {
    const jwt = this.issueJwt();
    const refreshToken = `angelREFRESH${randomBytes(8).toString('hex')}`;
    const feedToken = `angelFEED${randomBytes(8).toString('hex')}`;
    this.creds.value = { ...this.creds.value, jwt, refreshToken, feedToken };
    return angelOk({ jwtToken: jwt, refreshToken, feedToken });
  }

  private login(req: RecordedRequest): StubAnswer {
    const bad = this.checkHeaders(req);
    if (bad) return bad;
    let b: Body;
    try {
      b = JSON.parse(req.body) as Body;
    } catch {
      return stubFail('the body is not JSON');
    }
    const c = this.creds.value;
    if (b.clientcode !== c.clientCode || b.password !== c.pin)
      return angelFail('Invalid Email Or Password', 'AB1000');
    if (b.totp !== c.totp) return angelFail('Invalid totp', 'AB1050');
    return this.rotate();
  }

  private refresh(req: RecordedRequest): StubAnswer {
    const bad = this.checkHeaders(req);
    if (bad) return bad;
    let b: Body;
    try {
      b = JSON.parse(req.body) as Body;
    } catch {
      return stubFail('the body is not JSON');
    }
    if (b.refreshToken !== this.creds.value.refreshToken) return angelFail('Invalid Refresh Token', 'AB8050');
    return this.rotate();
  }

  /** Field rules placement and modification share; the first refusal, if any. */
  private orderRules(b: Body, required: readonly string[]): StubAnswer | undefined {
    const missing = required.find((k) => b[k] === undefined || b[k] === '');
    if (missing) return stubFail(`${missing} is required`);
    const notString = Object.entries(b).find(([, v]) => typeof v !== 'string');
    if (notString) return stubFail(`${notString[0]}: the documented examples send strings`);
    if (!VARIETIES.includes(String(b.variety))) return angelFail('Invalid Order Variety', 'AB1008');
    if (!ORDER_TYPES.includes(String(b.ordertype)))
      return stubFail(`unknown ordertype ${String(b.ordertype)}`);
    const stoploss = String(b.ordertype).startsWith('STOPLOSS_');
    if (stoploss !== (b.variety === 'STOPLOSS') && b.variety !== 'AMO')
      return angelFail('Invalid Order Variety', 'AB1008');
    if (!PRODUCT_TYPES.includes(String(b.producttype))) return angelFail('Invalid Product Type', 'AB1012');
    if (!/^[1-9]\d*$/.test(String(b.quantity))) return stubFail('quantity must be a positive whole number');
    return undefined;
  }

  private place(b: Body): StubAnswer {
    const refused = this.scriptedRefusal();
    if (refused) return refused;
    const bad = this.orderRules(b, PLACE_REQUIRED);
    if (bad) return bad;
    if (String(b.ordertag ?? '').length > 20)
      return angelFail('Ordertag length should not exceed 20 characters', 'AB4008');
    if (this.omitOrderId) return angelOk({ script: b.tradingsymbol });
    const id = this.nextId(260818000000000);
    const uniqueorderid = `${randomBytes(4).toString('hex')}-${randomBytes(2).toString('hex')}-${randomBytes(6).toString('hex')}`;
    this.unique.set(id, uniqueorderid);
    const at = angelStamp(this.stamp());
    const quantity = Number(b.quantity);
    const record: Body = {
      variety: b.variety,
      ordertype: b.ordertype,
      producttype: b.producttype,
      duration: b.duration,
      price: Number(b.price ?? 0),
      triggerprice: Number(b.triggerprice ?? 0),
      quantity: String(quantity),
      disclosedquantity: String(b.disclosedquantity ?? '0'),
      squareoff: 0,
      stoploss: 0,
      trailingstoploss: 0,
      tradingsymbol: b.tradingsymbol,
      transactiontype: b.transactiontype,
      exchange: b.exchange,
      symboltoken: b.symboltoken,
      ordertag: b.ordertag ?? '',
      instrumenttype: '',
      strikeprice: -1,
      optiontype: '',
      expirydate: '',
      lotsize: '1',
      cancelsize: '0',
      averageprice: 0,
      filledshares: '0',
      unfilledshares: String(quantity),
      orderid: id,
      text: '',
      status: 'open pending',
      orderstatus: 'open pending',
      updatetime: at,
      exchtime: at,
      exchorderupdatetime: at,
      fillid: '',
      filltime: '',
      parentorderid: '',
      uniqueorderid,
    };
    const resting = String(b.ordertype).startsWith('STOPLOSS_') ? 'trigger pending' : 'open';
    const history: Body[] = [record, { ...record, status: resting, orderstatus: resting }];
    if (this.fillMarketOrders && b.ordertype === 'MARKET') {
      const price = this.priceOf(String(b.tradingsymbol));
      history.push({
        ...record,
        status: 'complete',
        orderstatus: 'complete',
        averageprice: price,
        filledshares: String(quantity),
        unfilledshares: '0',
      });
      this.fills.push({
        tradeId: String(50_005_750 + this.fills.length),
        orderId: id,
        tradingsymbol: String(b.tradingsymbol),
        exchange: String(b.exchange),
        token: String(b.symboltoken),
        product: String(b.producttype),
        side: String(b.transactiontype),
        quantity,
        price,
        at: at.slice(-8),
        tag: String(b.ordertag ?? ''),
      });
    }
    this.orders.set(id, history);
    return angelOk({ script: b.tradingsymbol, orderid: id, uniqueorderid });
  }

  private modify(b: Body): StubAnswer {
    const bad = this.orderRules(b, MODIFY_REQUIRED);
    if (bad) return bad;
    const id = String(b.orderid);
    const last = this.last(id);
    if (!last) return angelFail('Order not found', 'AB1013');
    if (FINAL.includes(String(last.status))) return stubFail(`the order is ${String(last.status)}`);
    const quantity = Number(b.quantity);
    const resting = String(b.ordertype).startsWith('STOPLOSS_') ? 'trigger pending' : 'open';
    this.orders.get(id)!.push({
      ...last,
      variety: b.variety,
      ordertype: b.ordertype,
      producttype: b.producttype,
      price: Number(b.price),
      triggerprice: Number(b.triggerprice ?? 0),
      quantity: String(quantity),
      unfilledshares: String(quantity - Number(last.filledshares)),
      status: resting,
      orderstatus: resting,
      updatetime: angelStamp(this.stamp()),
    });
    return angelOk(this.omitOrderId ? {} : { orderid: id, uniqueorderid: this.unique.get(id) });
  }

  private cancel(b: Body): StubAnswer {
    if (!VARIETIES.includes(String(b.variety))) return angelFail('Invalid Order Variety', 'AB1008');
    const id = String(b.orderid ?? '');
    const last = this.last(id);
    if (!last) return angelFail('Order not found', 'AB1013');
    if (FINAL.includes(String(last.status))) return stubFail(`the order is ${String(last.status)}`);
    this.orders.get(id)!.push({
      ...last,
      status: 'cancelled',
      orderstatus: 'cancelled',
      unfilledshares: '0',
      cancelsize: last.unfilledshares,
      updatetime: angelStamp(this.stamp()),
    });
    return angelOk(this.omitOrderId ? {} : { orderid: id, uniqueorderid: this.unique.get(id) });
  }

  /** `getTradeBook` records (strings, as documented; `filltime` a time of day). */
  private trades(): Body[] {
    return this.fills.map((f) => ({
      exchange: f.exchange,
      producttype: f.product,
      tradingsymbol: f.tradingsymbol,
      instrumenttype: '',
      symbolgroup: 'EQ',
      strikeprice: '-1',
      optiontype: '',
      expirydate: '',
      marketlot: '1',
      precision: '2',
      multiplier: '-1',
      tradevalue: (f.quantity * f.price).toFixed(2),
      transactiontype: f.side,
      fillprice: f.price.toFixed(2),
      fillsize: String(f.quantity),
      orderid: f.orderId,
      fillid: f.tradeId,
      filltime: f.at,
    }));
  }

  /** `getPosition` records: the documented fields (strings) and the live API's ltp and P&L. */
  private positionRows(): Body[] {
    return this.netPositions().map((p: StubPosition) => {
      const ltp = this.priceOf(p.tradingsymbol);
      const n = positionFigures(p, ltp);
      return {
        exchange: p.exchange,
        symboltoken: String(p.token),
        producttype: p.product,
        tradingsymbol: p.tradingsymbol,
        symbolname: p.tradingsymbol.replace(/-EQ$/, ''),
        instrumenttype: '',
        priceden: '1',
        pricenum: '1',
        genden: '1',
        gennum: '1',
        precision: '2',
        multiplier: '-1',
        boardlotsize: '1',
        buyqty: String(p.buyQty),
        sellqty: String(p.sellQty),
        buyamount: p.buyValue.toFixed(2),
        sellamount: p.sellValue.toFixed(2),
        symbolgroup: 'EQ',
        strikeprice: '-1',
        optiontype: '',
        expirydate: '',
        lotsize: '1',
        cfbuyqty: '0',
        cfsellqty: '0',
        cfbuyamount: '0',
        cfsellamount: '0',
        buyavgprice: n.buyAvg.toFixed(2),
        sellavgprice: n.sellAvg.toFixed(2),
        avgnetprice: n.average.toFixed(2),
        netvalue: (p.sellValue - p.buyValue).toFixed(2),
        netqty: String(n.quantity),
        totalbuyvalue: p.buyValue.toFixed(2),
        totalsellvalue: p.sellValue.toFixed(2),
        netprice: n.average.toFixed(2),
        ltp: ltp.toFixed(2),
        close: ltp.toFixed(2),
        pnl: n.pnl.toFixed(2),
        realised: n.realised.toFixed(2),
        unrealised: n.unrealised.toFixed(2),
      };
    });
  }

  /** `getAllHolding`'s `totalholding` over {@link holdingRows}. */
  private totals(): Body | null {
    if (this.holdingRows.length === 0) return null;
    const sum = (f: (r: Body) => number) => this.holdingRows.reduce((a, r) => a + f(r), 0);
    const inv = sum((r) => Number(r.quantity) * Number(r.averageprice));
    const value = sum((r) => Number(r.quantity) * Number(r.ltp));
    return {
      totalholdingvalue: value,
      totalinvvalue: inv,
      totalprofitandloss: value - inv,
      totalpnlpercentage: inv ? Math.round(((value - inv) / inv) * 10_000) / 100 : 0,
    };
  }

  /** `getRMS`: every figure a string; cash less what the positions used. */
  private rms(): Body {
    const positions = this.netPositions();
    const used = positions.reduce((a, p) => a + Math.abs(p.buyValue - p.sellValue), 0);
    const m2m = positions.reduce(
      (a, p) => {
        const n = positionFigures(p, this.priceOf(p.tradingsymbol));
        return { realised: a.realised + n.realised, unrealised: a.unrealised + n.unrealised };
      },
      { realised: 0, unrealised: 0 },
    );
    const available = (this.cash - used).toFixed(2);
    return {
      net: available,
      availablecash: available,
      availableintradaypayin: '0',
      availablelimitmargin: '0',
      collateral: '0',
      m2munrealized: m2m.unrealised.toFixed(2),
      m2mrealized: m2m.realised.toFixed(2),
      utiliseddebits: used.toFixed(2),
      utilisedspan: '0',
      utilisedoptionpremium: '0',
      utilisedholdingsales: '0',
      utilisedexposure: '0',
      utilisedturnover: '0',
      utilisedpayout: '0',
    };
  }

  /** `margin/v1/batch`: `{positions:[…]}` by token (figures by broker-margin-stubs.ts's rule). */
  private margin(b: Body): StubAnswer {
    const list = b.positions;
    if (!Array.isArray(list) || list.length === 0) return stubFail('positions is required');
    if (list.length > ANGEL_STUB_MARGIN_LIMIT)
      return stubFail(`at most ${ANGEL_STUB_MARGIN_LIMIT} positions`);
    const legs: StubMarginLeg[] = [];
    for (const raw of list as Body[]) {
      for (const k of ['exchange', 'productType', 'token', 'tradeType'])
        if (typeof raw[k] !== 'string' || raw[k] === '') return stubFail(`${k} is required`);
      if (!Number.isInteger(raw.qty) || (raw.qty as number) <= 0)
        return stubFail('qty: a positive JSON number');
      if (typeof raw.price !== 'number') return stubFail('price: a JSON number');
      if (!PRODUCT_TYPES.includes(String(raw.productType)))
        return angelFail('Invalid Product Type', 'AB1012');
      const symbol = this.symbols.get(String(raw.token)) ?? '';
      const price = raw.price > 0 ? raw.price : this.priceOf(symbol);
      legs.push({
        derivative: !['NSE', 'BSE'].includes(String(raw.exchange)),
        option: /(CE|PE)$/.test(symbol),
        side: String(raw.tradeType),
        intraday: raw.productType === 'INTRADAY',
        value: (raw.qty as number) * price,
      });
    }
    const f = basketFigures(legs);
    return angelOk({
      totalMarginRequired: f.final.total,
      marginComponents: {
        netPremium: f.initial.premium,
        spanMargin: f.final.span,
        marginBenefit: Math.round((f.initial.total - f.final.total) * 100) / 100,
        deliveryMargin: f.initial.equity,
      },
      marginBreakup: (list as Body[]).map((raw, i) => ({
        exchange: raw.exchange,
        productType: raw.productType,
        totalMarginRequired: f.each[i]!.total,
      })),
      optionsBuy: { totOptionsPremium: f.initial.premium, optionDetails: [] },
    });
  }

  /** `market/v1/quote`: `{mode, exchangeTokens}`; found tokens in `fetched`, the rest `unfetched`. */
  private quote(b: Body): StubAnswer {
    const mode = String(b.mode);
    if (!['FULL', 'LTP', 'OHLC'].includes(mode)) return stubFail('mode is FULL, LTP or OHLC');
    const ex = b.exchangeTokens;
    if (typeof ex !== 'object' || ex === null || Array.isArray(ex))
      return stubFail('exchangeTokens is required');
    const asked = Object.entries(ex as Record<string, unknown>).flatMap(([exchange, tokens]) =>
      Array.isArray(tokens) ? tokens.map((t) => [exchange, t] as const) : [],
    );
    if (asked.length === 0) return stubFail('no tokens');
    if (asked.length > ANGEL_STUB_QUOTE_LIMIT) return stubFail(`at most ${ANGEL_STUB_QUOTE_LIMIT} tokens`);
    if (asked.some(([, t]) => typeof t !== 'string')) return stubFail('tokens are strings');
    const fetched: Body[] = [];
    const unfetched: Body[] = [];
    for (const [exchange, token] of asked) {
      const q = this.quotes.get(`${exchange}:${String(token)}`);
      if (!q) {
        unfetched.push({
          exchange,
          symbolToken: token,
          message: 'Symbol token not found',
          errorCode: 'AB1018',
        });
        continue;
      }
      const keep =
        mode === 'LTP'
          ? ['exchange', 'tradingSymbol', 'symbolToken', 'ltp']
          : mode === 'OHLC'
            ? ['exchange', 'tradingSymbol', 'symbolToken', 'ltp', 'open', 'high', 'low', 'close']
            : Object.keys(q);
      fetched.push(Object.fromEntries(keep.map((k) => [k, q[k]])));
    }
    return angelOk({ fetched, unfetched });
  }
}

/** Starts an {@link AngelStub}. */
export function startAngelStub(credentials: AngelStubCredentials): Promise<AngelStub> {
  return new AngelStub(credentials).start();
}

// ---- test plumbing -------------------------------------------------------------------------------

/** Credentials of the Angel tests; distinctive, so any leak into a message or a log is caught. */
export const ANGEL_CREDS: AngelStubCredentials = {
  apiKey: 'angelKEYq7Wz3',
  clientCode: 'D8412735',
  pin: '4829',
  totp: '731945',
  jwt: 'eyJhbGciOiJIUzUxMiJ9.angelJWTx5Kp2Lm.sig9Qr',
  refreshToken: 'angelREFRESHt6Yb1',
  feedToken: 'angelFEEDm3Vc8',
};

/** Instruments of the Angel tests, read from the Angel master by the real importer. */
export type AngelSet = Record<'sbin' | 'nifty' | 'ce' | 'pe' | 'fut' | 'sensexCe', QuoteInstrument> & {
  list: QuoteInstrument[];
};

/** The documented-rows Angel master (test/fixtures/market/angel) through the real importer. */
export async function loadAngelInstruments(): Promise<AngelSet> {
  const list = await rows(
    parseAngel(createReadStream(marketFixture('angel', 'OpenAPIScripMaster_documented_rows.json'))),
  );
  return {
    list,
    ...named(list, {
      sbin: 'NSE:SBIN',
      nifty: 'NSE_INDEX:NIFTY',
      ce: 'NFO:NIFTY18AUG2626000CE',
      pe: 'NFO:NIFTY18AUG2626000PE',
      fut: 'NFO:BANKNIFTY25AUG26FUT',
      sensexCe: 'BFO:SENSEX20AUG2678000CE',
    }),
  } as AngelSet;
}

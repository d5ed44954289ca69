/**
 * Angel One SmartAPI behind the broker contract (smartapi.angelone.in/docs): JSON `POST`s to
 * `/rest/secure/angelbroking/order/v1/placeOrder`, `modifyOrder` and `cancelOrder` (answer
 * `{"status":true,"data":{"orderid","uniqueorderid"}}`), and `GET`s of the day's books
 * `order/v1/getOrderBook`, `getTradeBook`, `getPosition`, `portfolio/v1/getAllHolding` and
 * `user/v1/getRMS` (angel.books.ts maps them); `margin/v1/batch` is the margin calculator
 * (angel.margin.ts); quotes are quotes/angel-quotes.ts. Every call carries Angel's headers and
 * `Authorization: Bearer <jwt>` (angel.auth.ts). Follows OpenAlgo's broker/angel/api/order_api.py;
 * the order mapping is angel.mapping.ts.
 *
 * Answers: SmartAPI refuses most requests with HTTP 200 and `"status":false` plus `errorcode`
 * and `message`; such a refusal becomes a failure with a status by its code
 * ({@link angelErrorStatus}: 401 session, 404 not found, 502 Angel's own fault, else 400) and
 * Angel's message. An HTTP error status is passed through as it came; the rate limiter's
 * plain-text "Access denied because of exceeding access rate" is 429.
 *
 * - `orderStatus`: Angel's single-order endpoint (`order/v1/details/{uniqueorderid}`) takes the
 *   unique order id, which the contract does not keep, so the order is looked up in the order book.
 * - `ordersByTag`: Angel has no query by tag; the day's order book is filtered by `ordertag`
 *   (compared with the tag as placement sent it: cut to 20 characters).
 * - Both answer records in the field names Kite's and Upstox's share (angel.books.ts
 *   `angelOrderRecord`, Angel's own fields beside them), as the orders module reads them.
 * - Login is by client code, PIN and TOTP ({@link AngelAdapter.login}); `loginUrl` and
 *   `exchangeCode` refuse.
 */
import type {
  BasketMargin,
  BookFunds,
  BookHolding,
  BookOrder,
  BookPosition,
  BookResult,
  BookTrade,
  BrokerAdapter,
  BrokerOrder,
  BrokerResult,
  BrokerSession,
  LoginField,
  LoginResult,
} from '../broker-adapter.js';
import type { QuoteClient } from '../quotes/quote-client.js';
import { AngelQuoteClient } from '../quotes/angel-quotes.js';
import { BrokerLoginError, readOrderId, scrub, type ResultSpec } from '../http/broker-result.js';
import { OrderTransport, type HttpOutcome, type HttpRequest } from '../http/order-transport.js';
import { QuoteClientSet } from '../http/quote-clients.js';
import { bookRead, readBook, type Rec } from '../http/book-fields.js';
import { refuse } from '../http/broker-gtt.js';
import { sanitize } from '../quotes/quote-transport.js';
import {
  ANGEL_BASE_URL,
  ANGEL_NO_REDIRECT,
  angelHeaders,
  angelLogin,
  angelRefresh,
  type AngelCredentials,
  type AngelLoginResult,
  type AngelOptions,
} from './angel.auth.js';
import {
  angelFunds,
  angelHoldings,
  angelOrderRecord,
  angelOrders,
  angelPositions,
  angelTrades,
} from './angel.books.js';
import { ANGEL_MARGIN_MAX, angelBasketMargin, angelMarginBody } from './angel.margin.js';
import {
  angelCancelBody,
  angelErrorStatus,
  angelModifyBody,
  angelPlaceBody,
  angelTag,
  isAngelRateLimitText,
  isAngelSuccess,
  readAngelError,
} from './angel.mapping.js';

const ORDER = '/rest/secure/angelbroking/order/v1';
const PATHS = {
  place: `${ORDER}/placeOrder`,
  modify: `${ORDER}/modifyOrder`,
  cancel: `${ORDER}/cancelOrder`,
  orderBook: `${ORDER}/getOrderBook`,
  tradeBook: `${ORDER}/getTradeBook`,
  positions: `${ORDER}/getPosition`,
  holdings: '/rest/secure/angelbroking/portfolio/v1/getAllHolding',
  funds: '/rest/secure/angelbroking/user/v1/getRMS',
  margin: '/rest/secure/angelbroking/margin/v1/batch',
} as const;

/** Answer fields that hold an Angel credential wherever they appear. */
/** Angel's form login (smartapi.angelone.in/docs/User): the account's client code, PIN and TOTP. */
const ANGEL_LOGIN_FIELDS: readonly LoginField[] = [
  {
    name: 'client_code',
    label: 'Client code',
    secret: false,
    pattern: '[A-Za-z0-9]{1,32}',
    hint: 'Your Angel One client id (as on the login page)',
  },
  { name: 'pin', label: 'PIN', secret: true, pattern: '[0-9]{4,8}', hint: 'Your Angel One login PIN' },
  {
    name: 'totp',
    label: 'TOTP code',
    secret: true,
    pattern: '[0-9]{6}',
    hint: 'The 6-digit code of the authenticator app enabled for SmartAPI',
  },
];

const ANGEL_SECRET_FIELDS = new Set(['jwttoken', 'refreshtoken', 'feedtoken', 'password', 'totp']);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/** `value` with Angel's credential-named fields masked (then {@link scrub} masks the rest). */
function maskAngelFields(value: unknown, depth = 0): unknown {
  if (depth > 32 || !isObject(value)) return value;
  if (Array.isArray(value)) return value.map((v) => maskAngelFields(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value))
    out[k] =
      ANGEL_SECRET_FIELDS.has(k.toLowerCase()) && v !== null && v !== ''
        ? '[redacted]'
        : maskAngelFields(v, depth + 1);
  return out;
}

/** How one SmartAPI answer is read (the `ResultSpec` of broker-result.ts, less the error reader). */
type AngelSpec = Pick<ResultSpec, 'op' | 'secrets' | 'read' | 'missing' | 'logger'>;

/**
 * The `BrokerResult` of one SmartAPI call: a success is HTTP 2xx with `"status":true` and an order
 * id (or a list its reader accepts); `"status":false` is a failure with Angel's message and a
 * status by its error code; an HTTP error keeps its status; a transport failure is 502/504.
 */
export function angelResult(outcome: HttpOutcome, spec: AngelSpec): BrokerResult {
  const log = (r: BrokerResult, code?: string) => {
    const fields = { broker: 'angel', op: spec.op, status: r.httpStatus, ms: r.roundTripMs };
    if (r.ok) spec.logger?.debug(fields, 'broker order call');
    else spec.logger?.warn({ ...fields, code, reason: r.message }, 'broker order call failed');
    return r;
  };
  if (outcome.kind === 'failure')
    return log(
      {
        httpStatus: outcome.status,
        ok: false,
        message: outcome.message,
        raw: null,
        roundTripMs: outcome.roundTripMs,
      },
      outcome.code,
    );
  const { status, json, text, roundTripMs } = outcome;
  const raw = json === undefined ? sanitize(text, spec.secrets) : scrub(maskAngelFields(json), spec.secrets);
  if (json === undefined) {
    const limited = isAngelRateLimitText(text);
    const message = limited
      ? 'Angel One: access denied for exceeding the access rate'
      : `Angel One answered HTTP ${status} without a JSON body`;
    const httpStatus = limited ? 429 : status >= 400 ? status : 502;
    return log(
      { httpStatus, ok: false, message, raw, roundTripMs },
      limited ? 'rate_limited' : `http_${status}`,
    );
  }
  if (status >= 200 && status < 300 && isAngelSuccess(json)) {
    const read = spec.read(json.data, json as Record<string, unknown>);
    const kept = read.raw === undefined ? raw : scrub(maskAngelFields(read.raw), spec.secrets);
    if (read.orderId !== undefined)
      return log({ httpStatus: status, ok: true, orderId: read.orderId, raw: kept, roundTripMs });
    if (read.list) return log({ httpStatus: status, ok: true, raw: kept, roundTripMs });
    const message = spec.missing ?? 'Angel One answered success without an order id';
    return log({ httpStatus: status, ok: false, message, raw: kept, roundTripMs }, 'no_order_id');
  }
  const said = readAngelError(json);
  const httpStatus = status >= 400 ? status : angelErrorStatus(said.code);
  const message = said.message
    ? sanitize(said.message, spec.secrets)
    : `Angel One answered HTTP ${status} without an error message`;
  return log({ httpStatus, ok: false, message, raw, roundTripMs }, said.code ?? `http_${status}`);
}

/** Reads `data.orderid` of a place/modify/cancel answer. */
const orderIdOfData = (data: unknown) => ({
  orderId: isObject(data) ? readOrderId(data.orderid) : undefined,
});

/** The live Angel One adapter: one keep-alive pool to the SmartAPI origin. */
export class AngelAdapter implements BrokerAdapter {
  readonly name = 'angel';
  private readonly http: OrderTransport;
  private readonly quoteClients = new QuoteClientSet();

  constructor(private readonly opts: AngelOptions) {
    this.http = new OrderTransport('angel', 'Angel One', opts.baseUrl ?? ANGEL_BASE_URL, opts);
  }

  placeOrder(order: BrokerOrder, session: BrokerSession): Promise<BrokerResult> {
    return this.call('place', session, 'POST', PATHS.place, angelPlaceBody(order), orderIdOfData);
  }

  modifyOrder(orderId: string, order: BrokerOrder, session: BrokerSession): Promise<BrokerResult> {
    const read = (data: unknown) => ({ orderId: orderIdOfData(data).orderId ?? orderId });
    return this.call('modify', session, 'POST', PATHS.modify, angelModifyBody(orderId, order), read);
  }

  cancelOrder(orderId: string, session: BrokerSession): Promise<BrokerResult> {
    const read = (data: unknown) => ({ orderId: orderIdOfData(data).orderId ?? orderId });
    return this.call('cancel', session, 'POST', PATHS.cancel, angelCancelBody(orderId), read);
  }

  /** The order's record in the day's order book (`raw`); 404 when the book does not list it. */
  async orderStatus(orderId: string, session: BrokerSession): Promise<BrokerResult> {
    const read = (data: unknown) => ({
      list: true,
      raw:
        (Array.isArray(data) ? data.find((o) => isObject(o) && String(o.orderid) === orderId) : null) ?? null,
    });
    const r = await this.call('status', session, 'GET', PATHS.orderBook, undefined, read);
    if (!r.ok) return r;
    if (!isObject(r.raw))
      return {
        ...r,
        ok: false,
        httpStatus: 404,
        raw: null,
        message: `Angel One's order book has no order ${orderId}`,
      };
    return { ...r, raw: angelOrderRecord(r.raw), orderId };
  }

  /** The day's order book kept to the orders whose `ordertag` is `tag` as placement sent it. */
  ordersByTag(tag: string, session: BrokerSession): Promise<BrokerResult> {
    const sent = angelTag(tag) ?? tag;
    const read = (data: unknown) => ({
      list: true,
      raw: Array.isArray(data)
        ? data.filter((o) => isObject(o) && o.ordertag === sent).map((o) => angelOrderRecord(o as Rec))
        : [],
    });
    return this.call('orders', session, 'GET', PATHS.orderBook, undefined, read);
  }

  async orderBook(session: BrokerSession): Promise<BookResult<BookOrder[]>> {
    return readBook(await this.book('orderbook', session, PATHS.orderBook), angelOrders);
  }

  async tradeBook(session: BrokerSession): Promise<BookResult<BookTrade[]>> {
    const now = (this.opts.clock ?? Date).now();
    return readBook(await this.book('tradebook', session, PATHS.tradeBook), (d) => angelTrades(d, now));
  }

  async positions(session: BrokerSession): Promise<BookResult<BookPosition[]>> {
    return readBook(await this.book('positions', session, PATHS.positions), angelPositions);
  }

  async holdings(session: BrokerSession): Promise<BookResult<BookHolding[]>> {
    return readBook(await this.book('holdings', session, PATHS.holdings), angelHoldings);
  }

  async funds(session: BrokerSession): Promise<BookResult<BookFunds>> {
    return readBook(await this.book('funds', session, PATHS.funds), angelFunds);
  }

  /** `POST margin/v1/batch`; more than {@link ANGEL_MARGIN_MAX} legs is refused unsent. */
  async basketMargin(
    orders: readonly BrokerOrder[],
    session: BrokerSession,
  ): Promise<BookResult<BasketMargin>> {
    if (orders.length === 0) return refuse(400, 'Angel One: the basket is empty');
    if (orders.length > ANGEL_MARGIN_MAX)
      return refuse(
        400,
        `Angel One's margin calculator takes at most ${ANGEL_MARGIN_MAX} positions a request`,
      );
    const r = await this.call('margin', session, 'POST', PATHS.margin, angelMarginBody(orders), bookRead);
    return readBook(r, angelBasketMargin);
  }

  quoteClient(session: () => BrokerSession | undefined): QuoteClient {
    return this.quoteClients.track(
      new AngelQuoteClient({
        ...this.opts,
        accessToken: () => session()?.accessToken,
      }),
    );
  }

  /** Angel has no browser login: throws a {@link BrokerLoginError} (400) saying so. */
  loginUrl(_state: string): string {
    throw new BrokerLoginError('angel', 400, 'unsupported', ANGEL_NO_REDIRECT);
  }

  /** Angel has no login callback: rejects with a {@link BrokerLoginError} (400) saying so. */
  exchangeCode(_code: string): Promise<LoginResult> {
    return Promise.reject(new BrokerLoginError('angel', 400, 'unsupported', ANGEL_NO_REDIRECT));
  }

  /** Logs in with client code, PIN and TOTP over this adapter's pool (angel.auth.ts). */
  login(creds: AngelCredentials): Promise<AngelLoginResult> {
    return angelLogin(this.opts, creds, this.http);
  }

  /** Renews a session with its refresh token (angel.auth.ts). */
  refresh(tokens: {
    refreshToken: string;
    accessToken?: string;
    brokerUserId?: string;
  }): Promise<AngelLoginResult> {
    return angelRefresh(this.opts, tokens, this.http);
  }

  /** The console's and the API's form login: client code, PIN and TOTP. */
  readonly loginFields: readonly LoginField[] = ANGEL_LOGIN_FIELDS;

  /** {@link login} with the form's values (`client_code`, `pin`, `totp`). */
  loginWith(values: Readonly<Record<string, string>>): Promise<LoginResult> {
    return this.login({
      clientCode: values.client_code ?? '',
      pin: values.pin ?? '',
      totp: values.totp ?? '',
    });
  }

  /** {@link refresh} of a stored session; one without a refresh token is refused (log in again). */
  refreshSession(session: BrokerSession): Promise<LoginResult> {
    if (!session.refreshToken)
      return Promise.reject(
        new BrokerLoginError('angel', 401, 'no_refresh_token', 'Angel One session has no refresh token'),
      );
    return this.refresh({
      refreshToken: session.refreshToken,
      accessToken: session.accessToken,
      ...(session.brokerUserId !== undefined ? { brokerUserId: session.brokerUserId } : {}),
    });
  }

  async close(): Promise<void> {
    await Promise.all([this.http.close(), this.quoteClients.closeAll()]);
  }

  private book(op: string, session: BrokerSession, path: string): Promise<BrokerResult> {
    return this.call(op, session, 'GET', path, undefined, bookRead);
  }

  /** One authenticated call; a missing token is refused before any I/O (Angel would say AG8003). */
  private async call(
    op: string,
    session: BrokerSession,
    method: HttpRequest['method'],
    path: string,
    json: unknown,
    read: ResultSpec['read'],
  ): Promise<BrokerResult> {
    const token = session.accessToken;
    if (!token || token.trim() === '')
      return {
        httpStatus: 401,
        ok: false,
        message: 'Angel One: no access token (broker session not connected)',
        raw: null,
        roundTripMs: 0,
      };
    const headers = angelHeaders(this.opts, token);
    const body = json === undefined ? undefined : JSON.stringify(json);
    const outcome = await this.http.send({ method, path, headers, body });
    return angelResult(outcome, {
      op,
      secrets: [token, this.opts.apiKey, this.opts.apiSecret],
      read,
      logger: this.opts.logger,
    });
  }
}

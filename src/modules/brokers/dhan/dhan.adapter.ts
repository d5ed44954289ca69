/**
 * DhanHQ v2 behind the broker contract (dhanhq.co/docs/v2): JSON over `https://api.dhan.co/v2`,
 * every call with the header `access-token: <token>`:
 *
 * - orders: `POST /orders`, `PUT /orders/{order-id}`, `DELETE /orders/{order-id}`, answering
 *   `{"orderId","orderStatus"}`; `GET /orders/{order-id}` (one order's record); `GET /orders`
 *   (the day's order book, also what `ordersByTag` filters by `correlationId`: one reference may
 *   tag several orders of a split, and `GET /orders/external/{correlation-id}` answers only one);
 *   bodies and the product/price-type mapping in dhan.mapping.ts, `dhanClientId` being the
 *   session's broker user id (the Dhan client id);
 * - books: `GET /trades`, `/positions`, `/holdings`, `/fundlimit` (dhan.books.ts);
 * - margin: `POST /margincalculator`, one order a request, a basket summed leg by leg
 *   (dhan.margin.ts);
 * - quotes: `POST /marketfeed/quote` (quotes/dhan-quotes.ts, with the `client-id` header).
 *
 * Answers are bare JSON (an object or a list, no `status` envelope); errors are
 * `{"errorType","errorCode","errorMessage"}` (DH-901 invalid token, DH-904 rate limit, DH-905
 * input, DH-906 order error, …), passed through with Dhan's HTTP status and message. Nothing is
 * retried: the docs ask a client over the rate limit to throttle, not to repeat, and a placement
 * is never sent twice. Dhan's limits (order APIs 10/s, 250/min, 1000/h, 7000/day; non-trading
 * 20/s; quotes 1/s) are the caller's to keep, except the quote client, which paces itself.
 *
 * Login: Dhan's individual access token is generated on web.dhan.co and pasted, in the console's
 * `/broker` form or `POST /broker/login/form` ({@link DhanAdapter.loginWith}: `GET /profile` checks
 * it and says whose it is, `dhanClientId`, and until when, `tokenValidity`), or with
 * `broker-session set --broker dhan` (the client id as `broker_user_id`). The partner consent
 * flow needs partner credentials Dhan issues offline, so no browser login is offered here:
 * {@link DhanAdapter.loginUrl} and {@link DhanAdapter.exchangeCode} refuse with a 400 that says so.
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
import { DHAN_BASE_URL, DhanQuoteClient } from '../quotes/dhan-quotes.js';
import {
  BrokerLoginError,
  jwtExpiry,
  readOrderId,
  toBrokerResult,
  type ResultSpec,
} from '../http/broker-result.js';
import {
  OrderTransport,
  type BrokerAdapterOptions,
  type HttpOutcome,
  type HttpRequest,
} from '../http/order-transport.js';
import { QuoteClientSet } from '../http/quote-clients.js';
import { bookRead, isRec, readBook } from '../http/book-fields.js';
import {
  dhanFunds,
  dhanHoldings,
  dhanOrderRecord,
  dhanOrders,
  dhanPositions,
  dhanTrades,
} from './dhan.books.js';
import { addDhanMargins, dhanLegMargin, dhanMarginBody } from './dhan.margin.js';
import { dhanModifyBody, dhanPlaceBody, dhanTag, isDhanError, readDhanError } from './dhan.mapping.js';

/** Why the Dhan adapter offers no browser login (the login routes answer it as a 400). */
export const DHAN_NO_BROWSER_LOGIN =
  'Dhan: browser login is not offered; generate an access token on web.dhan.co and set it with ' +
  '`broker-session set --broker dhan` (token on stdin, your Dhan client id as the broker user id)';

/** `tokenValidity` of Dhan's profile (`30/03/2025 15:37`, IST) as epoch ms; undefined when unreadable. */
export function dhanValidity(v: unknown): number | undefined {
  const m = typeof v === 'string' ? /^(\d{2})\/(\d{2})\/(\d{4}) (\d{2}):(\d{2})$/.exec(v.trim()) : null;
  if (!m) return undefined;
  const [, dd, mm, yyyy, hh, mi] = m as unknown as [string, string, string, string, string, string];
  const t = Date.parse(`${yyyy}-${mm}-${dd}T${hh}:${mi}:00+05:30`);
  return Number.isFinite(t) ? t : undefined;
}

/** The refusal of {@link DhanAdapter.loginUrl}: a 400 (`statusCode` is what the HTTP layer reads). */
export class DhanLoginUnavailable extends Error {
  override readonly name = 'DhanLoginUnavailable';
  readonly statusCode = 400;
  readonly httpStatus = 400;
  constructor() {
    super(DHAN_NO_BROWSER_LOGIN);
  }
}

/** Reads `orderId` of a place/modify/cancel answer (`fallback`: the id asked about). */
const orderIdOf = (fallback?: string) => (data: unknown) => ({
  orderId: (isRec(data) ? readOrderId(data.orderId) : undefined) ?? fallback,
  raw: data,
});

/** "No holdings available": Dhan's answer for an empty demat, which is an empty book. */
const NO_HOLDINGS = /no holdings/i;

/** A local refusal before any I/O. */
const refused = (httpStatus: number, message: string): BrokerResult => ({
  httpStatus,
  ok: false,
  message,
  raw: null,
  roundTripMs: 0,
});

/** The live Dhan adapter: one keep-alive pool to the DhanHQ API origin. */
export class DhanAdapter implements BrokerAdapter {
  readonly name = 'dhan';
  private readonly http: OrderTransport;
  private readonly quoteClients = new QuoteClientSet();

  constructor(private readonly opts: BrokerAdapterOptions) {
    this.http = new OrderTransport('dhan', 'Dhan', opts.baseUrl ?? DHAN_BASE_URL, opts);
  }

  placeOrder(order: BrokerOrder, session: BrokerSession): Promise<BrokerResult> {
    return this.withClient(session, (clientId) =>
      this.call('place', session, 'POST', '/orders', dhanPlaceBody(order, clientId), orderIdOf()),
    );
  }

  modifyOrder(orderId: string, order: BrokerOrder, session: BrokerSession): Promise<BrokerResult> {
    const path = `/orders/${encodeURIComponent(orderId)}`;
    return this.withClient(session, (clientId) =>
      this.call('modify', session, 'PUT', path, dhanModifyBody(orderId, order, clientId), orderIdOf(orderId)),
    );
  }

  cancelOrder(orderId: string, session: BrokerSession): Promise<BrokerResult> {
    const path = `/orders/${encodeURIComponent(orderId)}`;
    return this.call('cancel', session, 'DELETE', path, undefined, orderIdOf(orderId));
  }

  /** `raw` is the order's record in the Kite/Upstox field names, Dhan's own under `dhan`. */
  orderStatus(orderId: string, session: BrokerSession): Promise<BrokerResult> {
    const path = `/orders/${encodeURIComponent(orderId)}`;
    const read = (data: unknown) => {
      const rec: unknown = Array.isArray(data) ? data[data.length - 1] : data;
      return isRec(rec) && Object.keys(rec).length > 0
        ? { orderId: readOrderId(rec.orderId) ?? orderId, raw: dhanOrderRecord(rec) }
        : {};
    };
    return this.call('status', session, 'GET', path, undefined, read, 'Dhan returned no order record');
  }

  /** The day's order book (`GET /orders`), kept to the orders whose `correlationId` is the tag. */
  ordersByTag(tag: string, session: BrokerSession): Promise<BrokerResult> {
    const wanted = dhanTag(tag);
    const read = (data: unknown) =>
      Array.isArray(data)
        ? {
            list: true,
            raw: data
              .filter((o) => isRec(o) && wanted !== undefined && o.correlationId === wanted)
              .map((o) => dhanOrderRecord(o as Record<string, unknown>)),
          }
        : {};
    return this.call('orders', session, 'GET', '/orders', undefined, read, 'Dhan returned no order book');
  }

  /** `GET /orders`: the day's orders. */
  async orderBook(session: BrokerSession): Promise<BookResult<BookOrder[]>> {
    return readBook(await this.book('orderbook', session, '/orders'), dhanOrders);
  }

  /** `GET /trades`: the day's fills. */
  async tradeBook(session: BrokerSession): Promise<BookResult<BookTrade[]>> {
    return readBook(await this.book('tradebook', session, '/trades'), dhanTrades);
  }

  /** `GET /positions`. */
  async positions(session: BrokerSession): Promise<BookResult<BookPosition[]>> {
    return readBook(await this.book('positions', session, '/positions'), dhanPositions);
  }

  /** `GET /holdings`; Dhan's "No holdings available" refusal is an empty book. */
  async holdings(session: BrokerSession): Promise<BookResult<BookHolding[]>> {
    const r = await this.book('holdings', session, '/holdings');
    if (!r.ok && r.httpStatus >= 400 && r.httpStatus < 500 && NO_HOLDINGS.test(r.message ?? ''))
      return { ok: true, data: [], roundTripMs: r.roundTripMs };
    return readBook(r, dhanHoldings);
  }

  /** `GET /fundlimit`, with M2M summed from `GET /positions`. */
  async funds(session: BrokerSession): Promise<BookResult<BookFunds>> {
    const [limit, positions] = await Promise.all([
      this.book('funds', session, '/fundlimit'),
      this.positions(session),
    ]);
    if (!positions.ok && limit.ok) return positions;
    return readBook(limit, (raw) => dhanFunds(raw, positions.ok ? positions.data : []));
  }

  /**
   * `POST /margincalculator` once per leg, one after the other, the figures added (no hedge
   * benefit between legs: dhan.margin.ts); the first refused leg answers for the basket.
   */
  async basketMargin(
    orders: readonly BrokerOrder[],
    session: BrokerSession,
  ): Promise<BookResult<BasketMargin>> {
    const clientId = this.clientIdOf(session);
    if (typeof clientId !== 'string') return readBook(clientId, () => addDhanMargins([]));
    const parts: BasketMargin[] = [];
    let roundTripMs = 0;
    for (const o of orders) {
      const body = dhanMarginBody(o, clientId);
      const r = await this.call('margin', session, 'POST', '/margincalculator', body, bookRead);
      const m = readBook(r, dhanLegMargin);
      if (!m.ok) return { ...m, roundTripMs: roundTripMs + m.roundTripMs };
      parts.push(m.data);
      roundTripMs += m.roundTripMs;
    }
    return { ok: true, data: addDhanMargins(parts), roundTripMs };
  }

  quoteClient(session: () => BrokerSession | undefined): QuoteClient {
    return this.quoteClients.track(
      new DhanQuoteClient({
        baseUrl: this.opts.baseUrl,
        accessToken: () => session()?.accessToken,
        clientId: () => session()?.brokerUserId,
        timeoutMs: this.opts.timeoutMs,
        logger: this.opts.logger,
      }),
    );
  }

  /** No browser login (see the file comment): throws a {@link DhanLoginUnavailable}. */
  loginUrl(_state: string): string {
    throw new DhanLoginUnavailable();
  }

  /** No login callback to exchange (see the file comment). */
  exchangeCode(_code: string): Promise<LoginResult> {
    return Promise.reject(new BrokerLoginError('dhan', 400, 'not_supported', DHAN_NO_BROWSER_LOGIN));
  }

  /** Dhan's calls carry the user's token and client id only: no app key. */
  readonly needsAppKey = false;

  /** The form login: the access token generated on web.dhan.co, pasted. */
  readonly loginFields: readonly LoginField[] = [
    {
      name: 'access_token',
      label: 'Access token',
      secret: true,
      pattern: '[\\x21-\\x7e]{16,4096}',
      hint: 'Dhan web → Profile → DhanHQ Trading APIs → Generate access token',
    },
  ];

  /**
   * Checks the pasted token with `GET /profile`: the session's broker user id is the profile's
   * `dhanClientId`, its expiry the profile's `tokenValidity` (IST), else the token's own `exp`.
   * A refused token is a {@link BrokerLoginError} with Dhan's message (never the token).
   */
  async loginWith(values: Readonly<Record<string, string>>): Promise<LoginResult> {
    const accessToken = values.access_token ?? '';
    const r = await this.book('profile', { accessToken }, '/profile');
    if (!r.ok) {
      const status = r.httpStatus === 502 || r.httpStatus === 504 ? r.httpStatus : 401;
      throw new BrokerLoginError('dhan', status, 'refused', `Dhan login failed: ${r.message ?? 'refused'}`);
    }
    const profile = isRec(r.raw) ? r.raw : {};
    const clientId = typeof profile.dhanClientId === 'string' ? profile.dhanClientId.trim() : '';
    if (!/^\d{1,20}$/.test(clientId))
      throw new BrokerLoginError(
        'dhan',
        502,
        'no_client_id',
        'Dhan login failed: the profile named no client id',
      );
    const expiresAt = dhanValidity(profile.tokenValidity) ?? jwtExpiry(accessToken);
    this.opts.logger?.info({ broker: 'dhan', brokerUserId: clientId }, 'broker login succeeded');
    return {
      session: { accessToken, brokerUserId: clientId },
      ...(expiresAt !== undefined ? { expiresAt } : {}),
    };
  }

  async close(): Promise<void> {
    await Promise.all([this.http.close(), this.quoteClients.closeAll()]);
  }

  private book(op: string, session: BrokerSession, path: string): Promise<BrokerResult> {
    return this.call(op, session, 'GET', path, undefined, bookRead);
  }

  /** The session's Dhan client id, or the refusal of a call that needs one. */
  private clientIdOf(session: BrokerSession): string | BrokerResult {
    const id = session.brokerUserId?.trim();
    return id
      ? id
      : refused(401, 'Dhan: no client id in the broker session (set the Dhan client id as broker_user_id)');
  }

  private withClient(
    session: BrokerSession,
    send: (clientId: string) => Promise<BrokerResult>,
  ): Promise<BrokerResult> {
    const clientId = this.clientIdOf(session);
    return typeof clientId === 'string' ? send(clientId) : Promise.resolve(clientId);
  }

  /** One authenticated call; a missing token is refused before any I/O (Dhan would say DH-901). */
  private async call(
    op: string,
    session: BrokerSession,
    method: HttpRequest['method'],
    path: string,
    json: Record<string, unknown> | undefined,
    read: ResultSpec['read'],
    missing?: string,
  ): Promise<BrokerResult> {
    const token = session.accessToken;
    if (!token || token.trim() === '')
      return refused(401, 'Dhan: no access token (broker session not connected)');
    const headers: Record<string, string> = { 'access-token': token, accept: 'application/json' };
    if (json) headers['content-type'] = 'application/json';
    const outcome = await this.http.send({
      method,
      path,
      headers,
      body: json ? JSON.stringify(json) : undefined,
    });
    return toBrokerResult(enveloped(outcome), {
      broker: 'dhan',
      label: 'Dhan',
      op,
      secrets: [token, this.opts.apiKey, this.opts.apiSecret],
      readError: readDhanError,
      read,
      missing,
      logger: this.opts.logger,
    });
  }
}

/**
 * A 2xx Dhan answer that is not an error body, in the `{"status":"success","data":…}` envelope
 * the shared result reader expects (Dhan sends bare objects and lists; a 2xx without a JSON body,
 * which a cancellation may be, is a success with no data).
 */
function enveloped(outcome: HttpOutcome): HttpOutcome {
  if (outcome.kind !== 'answer' || outcome.status < 200 || outcome.status >= 300) return outcome;
  if (isDhanError(outcome.json)) return outcome;
  const data = outcome.json === undefined ? {} : outcome.json;
  return { ...outcome, json: { status: 'success', data } };
}

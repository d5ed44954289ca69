/**
 * Fyers API v3 behind the broker contract (myapi.fyers.in/docsv3): JSON over
 * `https://api-t1.fyers.in/api/v3`, every call with `Authorization: <app_id>:<access_token>`:
 *
 * - orders: `POST /orders/sync` (place), `PATCH /orders/sync` (modify), `DELETE /orders/sync`
 *   with `{"id"}` (cancel), each answering `{"s":"ok","code":1101|1103,"message","id"}` (code 201:
 *   sent without acknowledgement, "check orderbook"); bodies in fyers.mapping.ts;
 * - `GET /orders?id=<id>` (one order's record: `orderStatus`); `GET /orders` (the day's order
 *   book, which `ordersByTag` filters by `orderTag`, the books writing it `1:<tag>`);
 * - books: `GET /tradebook`, `/positions`, `/holdings`, `/funds` (fyers.books.ts);
 * - margin: `POST /multiorder/margin` (fyers.margin.ts);
 * - quotes, depth, history: quotes/fyers-quotes.ts, over `https://api-t1.fyers.in/data`.
 *
 * Answers: `{"s":"ok"|"error","code","message",…}`; a refusal keeps Fyers' HTTP status and
 * message (an `"s":"error"` with a 2xx gets a status by its code: fyers.mapping.ts
 * `fyersErrorStatus`). Nothing is retried (a placement is never sent twice); the docs' limits
 * (10 a second, 200 a minute, 100,000 a day, the user blocked for the day after three breaches
 * of the minute limit) are the caller's to keep, except the quote client, which paces itself.
 *
 * Login: the redirect flow of fyers.auth.ts (`loginUrl(state)`, `exchangeCode(auth_code)`). The
 * refresh call needs the user's PIN, so it is offered as {@link FyersAdapter.refresh} and the
 * contract's unattended `refreshSession` is not implemented: the session lapses at 06:00 IST and
 * the user logs in again.
 *
 * `PATCH`: the shared transport's request type names GET/POST/PUT/DELETE only; undici sends any
 * method, so the modification goes through {@link asMethod} until that type names PATCH.
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
  LoginResult,
} from '../broker-adapter.js';
import type { QuoteClient } from '../quotes/quote-client.js';
import { FyersQuoteClient } from '../quotes/fyers-quotes.js';
import { BrokerLoginError, readOrderId, toBrokerResult, type ResultSpec } from '../http/broker-result.js';
import {
  OrderTransport,
  type BrokerAdapterOptions,
  type HttpOutcome,
  type HttpRequest,
} from '../http/order-transport.js';
import { QuoteClientSet } from '../http/quote-clients.js';
import { bookRead, isRec, readBook, type Rec } from '../http/book-fields.js';
import { refuse } from '../http/broker-gtt.js';
import { fyersExchange, fyersLoginUrl, fyersRefresh } from './fyers.auth.js';
import {
  fyersFunds,
  fyersHoldings,
  fyersOrderRecord,
  fyersOrders,
  fyersPositions,
  fyersTrades,
} from './fyers.books.js';
import { fyersBasketMargin, fyersMarginBody } from './fyers.margin.js';
import {
  bookTag,
  FYERS_API,
  FYERS_BASE_URL,
  fyersErrorStatus,
  fyersModifyBody,
  fyersPlaceBody,
  fyersTag,
  isFyersOk,
  readFyersError,
} from './fyers.mapping.js';

const PATHS = {
  order: `${FYERS_API}/orders/sync`,
  orders: `${FYERS_API}/orders`,
  trades: `${FYERS_API}/tradebook`,
  positions: `${FYERS_API}/positions`,
  holdings: `${FYERS_API}/holdings`,
  funds: `${FYERS_API}/funds`,
  margin: `${FYERS_API}/multiorder/margin`,
} as const;

/** A method the shared transport's type does not name yet (see the file comment). */

/** Reads `id` of a place/modify/cancel answer (`fallback`: the id asked about). */
const orderIdOf = (fallback?: string) => (data: unknown) => ({
  orderId: (isRec(data) ? readOrderId(data.id) : undefined) ?? fallback,
});

/** The records of an order-book answer. */
const bookRows = (data: unknown): Rec[] =>
  isRec(data) && Array.isArray(data.orderBook) ? data.orderBook.filter(isRec) : [];

/**
 * A 2xx `"s":"ok"` answer in the `{"status":"success","data":…}` envelope the shared reader
 * expects (its data the whole body); a 2xx `"s":"error"` with the status of its code.
 */
function enveloped(outcome: HttpOutcome): HttpOutcome {
  if (outcome.kind !== 'answer' || outcome.status < 200 || outcome.status >= 300) return outcome;
  if (isFyersOk(outcome.json)) return { ...outcome, json: { status: 'success', data: outcome.json } };
  const status = fyersErrorStatus(readFyersError(outcome.json).code);
  return { ...outcome, status: outcome.json === undefined ? 502 : status };
}

/** The live Fyers adapter: one keep-alive pool to the API origin. */
export class FyersAdapter implements BrokerAdapter {
  readonly name = 'fyers';
  private readonly http: OrderTransport;
  private readonly quoteClients = new QuoteClientSet();

  constructor(private readonly opts: BrokerAdapterOptions) {
    this.http = new OrderTransport('fyers', 'Fyers', opts.baseUrl ?? FYERS_BASE_URL, opts);
  }

  placeOrder(order: BrokerOrder, session: BrokerSession): Promise<BrokerResult> {
    return this.call('place', session, 'POST', PATHS.order, fyersPlaceBody(order), orderIdOf());
  }

  modifyOrder(orderId: string, order: BrokerOrder, session: BrokerSession): Promise<BrokerResult> {
    const body = fyersModifyBody(orderId, order);
    return this.call('modify', session, 'PATCH', PATHS.order, body, orderIdOf(orderId));
  }

  cancelOrder(orderId: string, session: BrokerSession): Promise<BrokerResult> {
    return this.call('cancel', session, 'DELETE', PATHS.order, { id: orderId }, orderIdOf(orderId));
  }

  /** `GET /orders?id=…`: `raw` is the order's record in the shared names (fyers.books.ts). */
  async orderStatus(orderId: string, session: BrokerSession): Promise<BrokerResult> {
    const path = `${PATHS.orders}?id=${encodeURIComponent(orderId)}`;
    const read = (data: unknown) => {
      const rec = bookRows(data).find((o) => String(o.id) === orderId);
      return rec ? { orderId, raw: fyersOrderRecord(rec) } : {};
    };
    const r = await this.call(
      'status',
      session,
      'GET',
      path,
      undefined,
      read,
      `Fyers lists no order ${orderId}`,
    );
    return !r.ok && r.httpStatus >= 200 && r.httpStatus < 300 ? { ...r, httpStatus: 404, raw: null } : r;
  }

  /** The day's order book (`GET /orders`) kept to the orders whose `orderTag` is `1:<tag>`. */
  ordersByTag(tag: string, session: BrokerSession): Promise<BrokerResult> {
    const wanted = fyersTag(tag);
    const read = (data: unknown) => ({
      list: true,
      raw: bookRows(data)
        .filter((o) => wanted !== undefined && bookTag(o.orderTag) === wanted)
        .map(fyersOrderRecord),
    });
    return this.call('orders', session, 'GET', PATHS.orders, undefined, read);
  }

  async orderBook(session: BrokerSession): Promise<BookResult<BookOrder[]>> {
    return readBook(await this.book('orderbook', session, PATHS.orders), fyersOrders);
  }

  async tradeBook(session: BrokerSession): Promise<BookResult<BookTrade[]>> {
    return readBook(await this.book('tradebook', session, PATHS.trades), fyersTrades);
  }

  async positions(session: BrokerSession): Promise<BookResult<BookPosition[]>> {
    return readBook(await this.book('positions', session, PATHS.positions), fyersPositions);
  }

  async holdings(session: BrokerSession): Promise<BookResult<BookHolding[]>> {
    return readBook(await this.book('holdings', session, PATHS.holdings), fyersHoldings);
  }

  /** `GET /funds`, with M2M summed from `GET /positions`. */
  async funds(session: BrokerSession): Promise<BookResult<BookFunds>> {
    const [limit, positions] = await Promise.all([
      this.book('funds', session, PATHS.funds),
      this.positions(session),
    ]);
    if (!positions.ok && limit.ok) return positions;
    return readBook(limit, (raw) => fyersFunds(raw, positions.ok ? positions.data : []));
  }

  /** `POST /multiorder/margin` for the whole basket (fyers.margin.ts). */
  async basketMargin(
    orders: readonly BrokerOrder[],
    session: BrokerSession,
  ): Promise<BookResult<BasketMargin>> {
    if (orders.length === 0) return refuse(400, 'Fyers: the basket is empty');
    const r = await this.call('margin', session, 'POST', PATHS.margin, fyersMarginBody(orders), bookRead);
    return readBook(r, fyersBasketMargin);
  }

  quoteClient(session: () => BrokerSession | undefined): QuoteClient {
    return this.quoteClients.track(
      new FyersQuoteClient({
        baseUrl: this.opts.baseUrl,
        apiKey: this.opts.apiKey,
        accessToken: () => session()?.accessToken,
        timeoutMs: this.opts.timeoutMs,
        logger: this.opts.logger,
      }),
    );
  }

  /** Where the browser logs in (`generate-authcode`); `state` comes back with the `auth_code`. */
  loginUrl(state: string): string {
    return fyersLoginUrl(this.opts, state);
  }

  /** Exchanges the callback's `auth_code` (`validate-authcode`). */
  exchangeCode(code: string): Promise<LoginResult> {
    return fyersExchange(this.http, this.opts, code);
  }

  /**
   * Renews the access token with the session's refresh token and the user's PIN
   * (`validate-refresh-token`). Called by hand only: see the file comment.
   */
  refresh(session: BrokerSession, pin: string): Promise<LoginResult> {
    if (!session.refreshToken)
      return Promise.reject(
        new BrokerLoginError('fyers', 401, 'no_refresh_token', 'Fyers session has no refresh token'),
      );
    return fyersRefresh(this.http, this.opts, { refreshToken: session.refreshToken, pin });
  }

  async close(): Promise<void> {
    await Promise.all([this.http.close(), this.quoteClients.closeAll()]);
  }

  private book(op: string, session: BrokerSession, path: string): Promise<BrokerResult> {
    return this.call(op, session, 'GET', path, undefined, bookRead);
  }

  /** One authenticated call; a missing token is refused before any I/O (Fyers would say -16). */
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
      return { ...refuse(401, 'Fyers: no access token (broker session not connected)'), raw: null };
    const headers: Record<string, string> = {
      authorization: `${this.opts.apiKey}:${token}`,
      accept: 'application/json',
    };
    if (json) headers['content-type'] = 'application/json';
    const outcome = await this.http.send({
      method,
      path,
      headers,
      body: json ? JSON.stringify(json) : undefined,
    });
    return toBrokerResult(enveloped(outcome), {
      broker: 'fyers',
      label: 'Fyers',
      op,
      secrets: [token, this.opts.apiKey, this.opts.apiSecret],
      readError: readFyersError,
      read,
      missing,
      logger: this.opts.logger,
    });
  }
}

/**
 * Zerodha Kite Connect v3 behind the broker contract (kite.trade/docs/connect/v3/orders):
 * `POST /orders/regular`, `PUT` and `DELETE /orders/regular/:order_id` (form bodies, answer
 * `{"status":"success","data":{"order_id":…}}`) and `GET /orders/:order_id` (the order's history,
 * oldest first: the last entry is its state now). Every call carries `X-Kite-Version: 3` and
 * `Authorization: token api_key:access_token`; `GET /orders` (the day's order book) finds orders by
 * the tag they were sent with and, with `GET /trades`, `/portfolio/positions`,
 * `/portfolio/holdings` and `/user/margins`, serves the live books (zerodha.books.ts);
 * `POST /margins/basket` is the margin calculator (JSON, zerodha.margin.ts); `/gtt/triggers` the
 * GTT orders (zerodha.gtt.ts); errors are `{"status":"error","message",
 * "error_type"}` with Kite's status (400 InputException, 403 TokenException, 429, 500 General,
 * 502 Network, 503 Data…), passed through as they came. Follows OpenAlgo's
 * broker/zerodha/api/order_api.py; mapping in zerodha.mapping.ts, login in zerodha.auth.ts.
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
  BrokerGtt,
  BrokerGttRow,
  BrokerOrder,
  BrokerResult,
  BrokerSession,
  LoginResult,
} from '../broker-adapter.js';
import type { QuoteClient } from '../quotes/quote-client.js';
import { KITE_BASE_URL, ZerodhaQuoteClient } from '../quotes/zerodha-quotes.js';
import { formBody, readOrderId, toBrokerResult, type ResultSpec } from '../http/broker-result.js';
import { OrderTransport, type BrokerAdapterOptions, type HttpRequest } from '../http/order-transport.js';
import { QuoteClientSet } from '../http/quote-clients.js';
import { bookRead, readBook } from '../http/book-fields.js';
import { kiteExchange, kiteLoginUrl } from './zerodha.auth.js';
import { kiteFunds, kiteHoldings, kiteOrders, kitePositions, kiteTrades } from './zerodha.books.js';
import { kiteBasketBody, kiteBasketMargin } from './zerodha.margin.js';
import { KiteGttClient } from './zerodha.gtt.js';
import { kiteModifyForm, kitePlaceForm, readKiteError, type KiteForm } from './zerodha.mapping.js';

const FORM = 'application/x-www-form-urlencoded';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/** Reads `data.order_id` of a place/modify/cancel answer. */
const orderIdOfData = (data: unknown) => ({
  orderId: isObject(data) ? readOrderId(data.order_id) : undefined,
});

/** The live Zerodha adapter: one keep-alive pool to the Kite API origin. */
export class ZerodhaAdapter implements BrokerAdapter {
  readonly name = 'zerodha';
  private readonly http: OrderTransport;
  private readonly quoteClients = new QuoteClientSet();
  /** GTT triggers (`/gtt/triggers`, zerodha.gtt.ts) over this adapter's authenticated calls. */
  private readonly gtt = new KiteGttClient((...a) => this.call(...a));

  constructor(private readonly opts: BrokerAdapterOptions) {
    this.http = new OrderTransport('zerodha', 'Zerodha', opts.baseUrl ?? KITE_BASE_URL, opts);
  }

  placeOrder(order: BrokerOrder, session: BrokerSession): Promise<BrokerResult> {
    const form = kitePlaceForm(order);
    // Kite's order variety is the path: an after-market order is `POST /orders/amo`.
    const variety = order.amo === true ? 'amo' : 'regular';
    return this.call('place', session, 'POST', `/orders/${variety}`, { form }, orderIdOfData);
  }

  modifyOrder(orderId: string, order: BrokerOrder, session: BrokerSession): Promise<BrokerResult> {
    const path = `/orders/regular/${encodeURIComponent(orderId)}`;
    return this.call('modify', session, 'PUT', path, { form: kiteModifyForm(order) }, orderIdOfData);
  }

  cancelOrder(orderId: string, session: BrokerSession): Promise<BrokerResult> {
    const path = `/orders/regular/${encodeURIComponent(orderId)}`;
    return this.call('cancel', session, 'DELETE', path, undefined, orderIdOfData);
  }

  /** `raw` is the last entry of the order's history (its current state). */
  orderStatus(orderId: string, session: BrokerSession): Promise<BrokerResult> {
    const path = `/orders/${encodeURIComponent(orderId)}`;
    const read = (data: unknown) => {
      const last: unknown = Array.isArray(data) ? data[data.length - 1] : undefined;
      return isObject(last) ? { orderId: readOrderId(last.order_id) ?? orderId, raw: last } : {};
    };
    return this.call(
      'status',
      session,
      'GET',
      path,
      undefined,
      read,
      `Zerodha returned no history for the order`,
    );
  }

  /** The day's order book (`GET /orders`), kept to the orders whose `tag` (or `tags`) holds `tag`. */
  ordersByTag(tag: string, session: BrokerSession): Promise<BrokerResult> {
    const read = (data: unknown) =>
      Array.isArray(data)
        ? {
            list: true,
            raw: data.filter(
              (o) => isObject(o) && (o.tag === tag || (Array.isArray(o.tags) && o.tags.includes(tag))),
            ),
          }
        : {};
    return this.call('orders', session, 'GET', '/orders', undefined, read, 'Zerodha returned no order book');
  }

  /** `GET /orders`: the day's orders (zerodha.books.ts maps them). */
  async orderBook(session: BrokerSession): Promise<BookResult<BookOrder[]>> {
    return readBook(await this.book('orderbook', session, '/orders'), kiteOrders);
  }

  /** `GET /trades`: the day's fills. */
  async tradeBook(session: BrokerSession): Promise<BookResult<BookTrade[]>> {
    return readBook(await this.book('tradebook', session, '/trades'), kiteTrades);
  }

  /** `GET /portfolio/positions`: the net positions. */
  async positions(session: BrokerSession): Promise<BookResult<BookPosition[]>> {
    return readBook(await this.book('positions', session, '/portfolio/positions'), kitePositions);
  }

  /** `GET /portfolio/holdings`. */
  async holdings(session: BrokerSession): Promise<BookResult<BookHolding[]>> {
    return readBook(await this.book('holdings', session, '/portfolio/holdings'), kiteHoldings);
  }

  /** `GET /user/margins`: both segments. */
  async funds(session: BrokerSession): Promise<BookResult<BookFunds>> {
    return readBook(await this.book('funds', session, '/user/margins'), kiteFunds);
  }

  /** `POST /margins/basket`, the user's open positions considered (Kite's basket screen does). */
  async basketMargin(
    orders: readonly BrokerOrder[],
    session: BrokerSession,
  ): Promise<BookResult<BasketMargin>> {
    const path = '/margins/basket?consider_positions=true';
    const json = kiteBasketBody(orders);
    return readBook(await this.call('margin', session, 'POST', path, { json }, bookRead), kiteBasketMargin);
  }

  placeGtt(gtt: BrokerGtt, session: BrokerSession): Promise<BookResult<{ triggerId: string }>> {
    return this.gtt.placeGtt(gtt, session);
  }

  modifyGtt(id: string, gtt: BrokerGtt, session: BrokerSession): Promise<BookResult<{ triggerId: string }>> {
    return this.gtt.modifyGtt(id, gtt, session);
  }

  cancelGtt(id: string, session: BrokerSession): Promise<BookResult<{ triggerId: string }>> {
    return this.gtt.cancelGtt(id, session);
  }

  gttBook(session: BrokerSession): Promise<BookResult<BrokerGttRow[]>> {
    return this.gtt.gttBook(session);
  }

  private book(op: string, session: BrokerSession, path: string): Promise<BrokerResult> {
    return this.call(op, session, 'GET', path, undefined, bookRead);
  }

  quoteClient(session: () => BrokerSession | undefined): QuoteClient {
    return this.quoteClients.track(
      new ZerodhaQuoteClient({
        baseUrl: this.opts.baseUrl,
        apiKey: this.opts.apiKey,
        accessToken: () => session()?.accessToken,
        timeoutMs: this.opts.timeoutMs,
        logger: this.opts.logger,
      }),
    );
  }

  loginUrl(state: string): string {
    return kiteLoginUrl(this.opts.apiKey, state, this.opts.loginBaseUrl);
  }

  exchangeCode(code: string): Promise<LoginResult> {
    return kiteExchange(this.http, this.opts, code);
  }

  async close(): Promise<void> {
    await Promise.all([this.http.close(), this.quoteClients.closeAll()]);
  }

  /** One authenticated call; a missing token is refused before any I/O (Kite would say 403). */
  private async call(
    op: string,
    session: BrokerSession,
    method: HttpRequest['method'],
    path: string,
    payload: { form: KiteForm } | { json: unknown } | undefined,
    read: ResultSpec['read'],
    missing?: string,
  ): Promise<BrokerResult> {
    const token = session.accessToken;
    if (!token || token.trim() === '')
      return {
        httpStatus: 401,
        ok: false,
        message: 'Zerodha: no access token (broker session not connected)',
        raw: null,
        roundTripMs: 0,
      };
    const headers: Record<string, string> = {
      'x-kite-version': '3',
      authorization: `token ${this.opts.apiKey}:${token}`,
    };
    let body: string | undefined;
    if (payload && 'form' in payload) {
      headers['content-type'] = FORM;
      body = formBody(payload.form);
    } else if (payload) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(payload.json);
    }
    const outcome = await this.http.send({ method, path, headers, body });
    return toBrokerResult(outcome, {
      broker: 'zerodha',
      label: 'Zerodha',
      op,
      secrets: [token, this.opts.apiKey, this.opts.apiSecret],
      readError: readKiteError,
      read,
      missing,
      logger: this.opts.logger,
    });
  }
}

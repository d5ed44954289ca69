/**
 * Upstox v2 behind the broker contract (upstox.com/developer/api-documentation/orders). The
 * documented v2 order endpoints live on the low-latency host: `POST /v2/order/place`,
 * `PUT /v2/order/modify` (JSON bodies) and `DELETE /v2/order/cancel?order_id=` on
 * `https://api-hft.upstox.com`; `GET /v2/order/details?order_id=`, `GET /v2/order/retrieve-all`
 * (the day's order book), the books (trades, positions, holdings, funds: upstox.books.ts), the
 * margin calculator `POST /v2/charges/margin` (upstox.margin.ts), the v3 GTT endpoints
 * (`/v3/order/gtt/*`, upstox.gtt.ts) and the
 * login token exchange on `https://api.upstox.com`. One keep-alive pool per origin (one in all when both URLs name
 * the same origin). Headers `Authorization: Bearer <token>` and `Accept: application/json`;
 * success `{"status":"success","data":{"order_id":…}}`; errors `{"status":"error","errors":
 * [{"errorCode","message",…}]}` with Upstox's status, passed through as they came.
 *
 * OpenAlgo (broker/upstox/api/order_api.py) has moved placement, modification and cancellation
 * to the v3 endpoints (`/v3/order/place` answers `data.order_ids`, a list, because v3 may slice
 * an order); this adapter follows the documented v2 API — v2 is marked
 * deprecated in Upstox's docs but still served. Both hosts are configurable.
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
import { UPSTOX_BASE_URL, UpstoxQuoteClient } from '../quotes/upstox-quotes.js';
import { readOrderId, toBrokerResult, type ResultSpec } from '../http/broker-result.js';
import { OrderTransport, type BrokerAdapterOptions, type HttpRequest } from '../http/order-transport.js';
import { QuoteClientSet } from '../http/quote-clients.js';
import { bookRead, readBook } from '../http/book-fields.js';
import { upstoxExchange, upstoxLoginUrl } from './upstox.auth.js';
import { upstoxFunds, upstoxHoldings, upstoxOrders, upstoxPositions, upstoxTrades } from './upstox.books.js';
import { addMargins, upstoxBasketMargin, upstoxMarginBodies } from './upstox.margin.js';
import { readUpstoxError, upstoxModifyBody, upstoxPlaceBody } from './upstox.mapping.js';
import { UpstoxGttClient } from './upstox.gtt.js';

/** Upstox's documented host of the v2 place/modify/cancel endpoints. */
export const UPSTOX_HFT_BASE_URL = 'https://api-hft.upstox.com';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/** Reads `data.order_id` of a place/modify/cancel answer. */
const orderIdOfData = (data: unknown) => ({
  orderId: isObject(data) ? readOrderId(data.order_id) : undefined,
});

/** The live Upstox adapter. */
export class UpstoxAdapter implements BrokerAdapter {
  readonly name = 'upstox';
  /** api.upstox.com: order details, token exchange. */
  private readonly api: OrderTransport;
  /** api-hft.upstox.com: place, modify, cancel (the same transport when the origins match). */
  private readonly orders: OrderTransport;
  private readonly quoteClients = new QuoteClientSet();
  /** GTT orders (`/v3/order/gtt/*` on api.upstox.com, upstox.gtt.ts). */
  private readonly gtt = new UpstoxGttClient((...a) => this.call(this.api, ...a));

  constructor(private readonly opts: BrokerAdapterOptions) {
    const apiUrl = opts.baseUrl ?? UPSTOX_BASE_URL;
    const orderUrl = opts.orderBaseUrl ?? opts.baseUrl ?? UPSTOX_HFT_BASE_URL;
    this.api = new OrderTransport('upstox', 'Upstox', apiUrl, opts);
    this.orders =
      new URL(orderUrl).href === new URL(apiUrl).href
        ? this.api
        : new OrderTransport('upstox', 'Upstox', orderUrl, opts);
  }

  placeOrder(order: BrokerOrder, session: BrokerSession): Promise<BrokerResult> {
    return this.call(
      this.orders,
      'place',
      session,
      'POST',
      '/v2/order/place',
      upstoxPlaceBody(order),
      orderIdOfData,
    );
  }

  modifyOrder(orderId: string, order: BrokerOrder, session: BrokerSession): Promise<BrokerResult> {
    const body = upstoxModifyBody(orderId, order);
    return this.call(this.orders, 'modify', session, 'PUT', '/v2/order/modify', body, orderIdOfData);
  }

  cancelOrder(orderId: string, session: BrokerSession): Promise<BrokerResult> {
    const path = `/v2/order/cancel?order_id=${encodeURIComponent(orderId)}`;
    return this.call(this.orders, 'cancel', session, 'DELETE', path, undefined, orderIdOfData);
  }

  /** `raw` is the order record Upstox returns (`data`). */
  orderStatus(orderId: string, session: BrokerSession): Promise<BrokerResult> {
    const path = `/v2/order/details?order_id=${encodeURIComponent(orderId)}`;
    const read = (data: unknown) =>
      isObject(data) ? { orderId: readOrderId(data.order_id) ?? orderId, raw: data } : {};
    return this.call(
      this.api,
      'status',
      session,
      'GET',
      path,
      undefined,
      read,
      'Upstox returned no order record',
    );
  }

  /** The day's order book (`GET /v2/order/retrieve-all`), kept to the orders whose `tag` is `tag`. */
  ordersByTag(tag: string, session: BrokerSession): Promise<BrokerResult> {
    const read = (data: unknown) =>
      Array.isArray(data) ? { list: true, raw: data.filter((o) => isObject(o) && o.tag === tag) } : {};
    return this.call(
      this.api,
      'orders',
      session,
      'GET',
      '/v2/order/retrieve-all',
      undefined,
      read,
      'Upstox returned no order book',
    );
  }

  /** `GET /v2/order/retrieve-all`: the day's orders (upstox.books.ts maps them). */
  async orderBook(session: BrokerSession): Promise<BookResult<BookOrder[]>> {
    return readBook(await this.book('orderbook', session, '/v2/order/retrieve-all'), upstoxOrders);
  }

  /** `GET /v2/order/trades/get-trades-for-day`. */
  async tradeBook(session: BrokerSession): Promise<BookResult<BookTrade[]>> {
    const r = await this.book('tradebook', session, '/v2/order/trades/get-trades-for-day');
    return readBook(r, upstoxTrades);
  }

  /** `GET /v2/portfolio/short-term-positions`. */
  async positions(session: BrokerSession): Promise<BookResult<BookPosition[]>> {
    const r = await this.book('positions', session, '/v2/portfolio/short-term-positions');
    return readBook(r, upstoxPositions);
  }

  /** `GET /v2/portfolio/long-term-holdings`. */
  async holdings(session: BrokerSession): Promise<BookResult<BookHolding[]>> {
    const r = await this.book('holdings', session, '/v2/portfolio/long-term-holdings');
    return readBook(r, upstoxHoldings);
  }

  /** `GET /v2/user/get-funds-and-margin`, with M2M summed from the positions. */
  async funds(session: BrokerSession): Promise<BookResult<BookFunds>> {
    const [margin, positions] = await Promise.all([
      this.book('funds', session, '/v2/user/get-funds-and-margin'),
      this.positions(session),
    ]);
    if (!positions.ok) return positions;
    return readBook(margin, (raw) => upstoxFunds(raw, positions.data));
  }

  /** `POST /v2/charges/margin`, in slices of Upstox's limit, one after the other (figures added). */
  async basketMargin(
    orders: readonly BrokerOrder[],
    session: BrokerSession,
  ): Promise<BookResult<BasketMargin>> {
    const parts: BasketMargin[] = [];
    let roundTripMs = 0;
    for (const body of upstoxMarginBodies(orders)) {
      const r = await this.call(this.api, 'margin', session, 'POST', '/v2/charges/margin', body, bookRead);
      const m = readBook(r, upstoxBasketMargin);
      if (!m.ok) return m;
      parts.push(m.data);
      roundTripMs += m.roundTripMs;
    }
    return { ok: true, data: addMargins(parts), roundTripMs };
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
    return this.call(this.api, op, session, 'GET', path, undefined, bookRead);
  }

  quoteClient(session: () => BrokerSession | undefined): QuoteClient {
    return this.quoteClients.track(
      new UpstoxQuoteClient({
        baseUrl: this.opts.baseUrl,
        accessToken: () => session()?.accessToken,
        timeoutMs: this.opts.timeoutMs,
        logger: this.opts.logger,
      }),
    );
  }

  loginUrl(state: string): string {
    return upstoxLoginUrl(this.opts, state);
  }

  exchangeCode(code: string): Promise<LoginResult> {
    return upstoxExchange(this.api, this.opts, code);
  }

  async close(): Promise<void> {
    await Promise.all([this.api.close(), this.orders.close(), this.quoteClients.closeAll()]);
  }

  /** One authenticated call; a missing token is refused before any I/O (Upstox would say 401). */
  private async call(
    http: OrderTransport,
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
      return {
        httpStatus: 401,
        ok: false,
        message: 'Upstox: no access token (broker session not connected)',
        raw: null,
        roundTripMs: 0,
      };
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'application/json' };
    if (json) headers['content-type'] = 'application/json';
    const outcome = await http.send({ method, path, headers, body: json ? JSON.stringify(json) : undefined });
    return toBrokerResult(outcome, {
      broker: 'upstox',
      label: 'Upstox',
      op,
      secrets: [token, this.opts.apiKey, this.opts.apiSecret],
      readError: readUpstoxError,
      read,
      missing,
      logger: this.opts.logger,
    });
  }
}

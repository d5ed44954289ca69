/**
 * Shoonya (Finvasia) and Flattrade behind the broker contract: one adapter for the Noren OMS both
 * run (NorenApi-Py README, github.com/kambalatech/NorenApi-Py; OpenAlgo's broker/shoonya and
 * broker/flattrade), constructed with a {@link NorenVariant} (name, REST base, login kind;
 * noren.mapping.ts). Every call is `POST <base>/<Endpoint>` with the form body
 * `jData=<json>&jKey=<token>`: `PlaceOrder`, `ModifyOrder`, `CancelOrder` (answers `norenordno` or
 * `result`), `OrderBook`, `TradeBook`, `PositionBook`, `Holdings` (`prd: "C"`), `Limits`
 * (noren.books.ts maps them), `SingleOrdHist`, `GetBasketMargin` (noren.margin.ts); quotes and
 * candles are quotes/noren-quotes.ts. Every jData names the user (`uid`, and `actid` for the
 * account calls): the session's `brokerUserId`, which both logins set (noren.auth.ts).
 *
 * Answers: a refusal is HTTP 200 `{"stat":"Not_Ok","emsg"}`; it becomes a failure with Noren's
 * message and a status by its text (noren.mapping.ts `norenErrorStatus`), except a book's
 * `no data`, which is an empty book. An HTTP error keeps its status; a transport failure is 502/504.
 *
 * - `orderStatus`: `SingleOrdHist` lists the order's states newest first; the first is the state
 *   now, answered as a record in the shared field names ({@link norenOrderRecord}).
 * - `ordersByTag`: the day's order book kept to the orders whose `remarks` is the tag as placement
 *   sent it (trimmed).
 * - Login: Shoonya by form (user id, password, TOTP: QuickAuth); Flattrade by redirect
 *   (`loginUrl`, `exchangeCode`). Each refuses the other's way with a 400.
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
import { NorenQuoteClient } from '../quotes/noren-quotes.js';
import { BrokerLoginError, readOrderId, scrub } from '../http/broker-result.js';
import { OrderTransport, type HttpOutcome } from '../http/order-transport.js';
import { QuoteClientSet } from '../http/quote-clients.js';
import { readBook, type Rec } from '../http/book-fields.js';
import { refuse } from '../http/broker-gtt.js';
import { sanitize } from '../quotes/quote-transport.js';
import {
  NOREN_FORM_HEADERS,
  norenExchangeCode,
  norenLoginUrl,
  norenQuickAuth,
  type NorenCredentials,
  type NorenLoginResult,
  type NorenOptions,
} from './noren.auth.js';
import {
  norenFunds,
  norenHoldings,
  norenOrderRecord,
  norenOrders,
  norenPositions,
  norenTrades,
} from './noren.books.js';
import { NOREN_MARGIN_MAX, norenBasketMargin, norenMarginData } from './noren.margin.js';
import {
  isNoData,
  isNorenOk,
  norenCancelData,
  norenErrorStatus,
  norenForm,
  norenModifyData,
  norenPlaceData,
  norenRemarks,
  readNorenError,
  type NorenData,
  type NorenVariant,
} from './noren.mapping.js';

/** Shoonya's form login: the user id, the password and the TOTP of the moment. */
const QUICKAUTH_FIELDS: readonly LoginField[] = [
  {
    name: 'user_id',
    label: 'User id',
    secret: false,
    pattern: '[A-Za-z0-9]{1,32}',
    hint: 'Your client id (as on the login page)',
  },
  { name: 'password', label: 'Password', secret: true, pattern: '.{1,128}', hint: 'Your trading password' },
  {
    name: 'totp',
    label: 'TOTP code',
    secret: true,
    pattern: '[0-9]{6}',
    hint: 'The 6-digit code of the authenticator app enabled for the API',
  },
];

/** Answer fields that hold a Noren credential wherever they appear. */
const SECRET_FIELDS = new Set(['susertoken', 'jkey', 'token', 'pwd', 'appkey']);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/** `value` with Noren's credential-named fields masked (the instrument `token` of a record is kept). */
function maskFields(value: unknown, depth = 0): unknown {
  if (depth > 32 || !isObject(value)) return value;
  if (Array.isArray(value)) return value.map((v) => maskFields(v, depth + 1));
  const out: Record<string, unknown> = {};
  const record = 'tsym' in value || 'exch' in value;
  for (const [k, v] of Object.entries(value)) {
    const secret = SECRET_FIELDS.has(k.toLowerCase()) && !(record && k === 'token');
    out[k] = secret && v !== null && v !== '' ? '[redacted]' : maskFields(v, depth + 1);
  }
  return out;
}

/** How one answer is read: the order id of a success, or what `raw` keeps of a list. */
interface ReadSpec {
  op: string;
  /** An empty book's `no data` refusal reads as `[]`. */
  book?: boolean;
  read(json: unknown): { orderId?: string; raw?: unknown; list?: boolean };
}

/** The order id of a place/modify/cancel answer (`norenordno`, or `result`). */
const orderIdOf = (json: unknown) =>
  isObject(json) ? (readOrderId(json.norenordno) ?? readOrderId(json.result)) : undefined;

const asList = (json: unknown) => ({ list: true, raw: json ?? null });

/** The live Noren adapter (one variant), one keep-alive pool to its REST origin. */
export class NorenAdapter implements BrokerAdapter {
  readonly name: string;
  readonly loginFields?: readonly LoginField[];
  private readonly http: OrderTransport;
  private readonly quoteClients = new QuoteClientSet();

  constructor(
    readonly variant: NorenVariant,
    private readonly opts: NorenOptions,
  ) {
    this.name = variant.name;
    this.http = new OrderTransport(variant.name, variant.label, opts.baseUrl ?? variant.baseUrl, opts);
    if (variant.login === 'quickauth') this.loginFields = QUICKAUTH_FIELDS;
  }

  placeOrder(order: BrokerOrder, session: BrokerSession): Promise<BrokerResult> {
    const read = (json: unknown) => ({ orderId: orderIdOf(json) });
    return this.call(session, 'PlaceOrder', (uid) => norenPlaceData(order, uid), { op: 'place', read });
  }

  modifyOrder(orderId: string, order: BrokerOrder, session: BrokerSession): Promise<BrokerResult> {
    const read = (json: unknown) => ({ orderId: orderIdOf(json) ?? orderId });
    const data = (uid: string) => norenModifyData(orderId, order, uid);
    return this.call(session, 'ModifyOrder', data, { op: 'modify', read });
  }

  cancelOrder(orderId: string, session: BrokerSession): Promise<BrokerResult> {
    const read = (json: unknown) => ({ orderId: orderIdOf(json) ?? orderId });
    return this.call(session, 'CancelOrder', (uid) => norenCancelData(orderId, uid), { op: 'cancel', read });
  }

  /**
   * `SingleOrdHist`: the order's newest state (`raw`, shared field names); 404 when unknown (Noren
   * answers an unknown order's history with "no data").
   */
  async orderStatus(orderId: string, session: BrokerSession): Promise<BrokerResult> {
    const r = await this.call(session, 'SingleOrdHist', (uid) => ({ uid, norenordno: orderId }), {
      op: 'status',
      book: true,
      read: (json) => ({ list: true, raw: Array.isArray(json) ? (json.find(isObject) ?? null) : null }),
    });
    if (!r.ok) return r;
    if (!isObject(r.raw))
      return {
        ...r,
        ok: false,
        httpStatus: 404,
        raw: null,
        message: `${this.variant.label} has no order ${orderId}`,
      };
    return { ...r, raw: norenOrderRecord(r.raw), orderId };
  }

  /** The day's order book kept to the orders whose `remarks` is `tag` as placement sent it. */
  ordersByTag(tag: string, session: BrokerSession): Promise<BrokerResult> {
    const sent = norenRemarks(tag) ?? tag;
    const read = (json: unknown) => ({
      list: true,
      raw: Array.isArray(json)
        ? json.filter((o) => isObject(o) && o.remarks === sent).map((o) => norenOrderRecord(o as Rec))
        : [],
    });
    return this.call(session, 'OrderBook', (uid) => ({ uid }), { op: 'orders', book: true, read });
  }

  async orderBook(session: BrokerSession): Promise<BookResult<BookOrder[]>> {
    return readBook(await this.book(session, 'OrderBook', 'orderbook'), norenOrders);
  }

  async tradeBook(session: BrokerSession): Promise<BookResult<BookTrade[]>> {
    return readBook(await this.book(session, 'TradeBook', 'tradebook'), norenTrades);
  }

  async positions(session: BrokerSession): Promise<BookResult<BookPosition[]>> {
    return readBook(await this.book(session, 'PositionBook', 'positions'), norenPositions);
  }

  async holdings(session: BrokerSession): Promise<BookResult<BookHolding[]>> {
    return readBook(await this.book(session, 'Holdings', 'holdings', { prd: 'C' }), norenHoldings);
  }

  async funds(session: BrokerSession): Promise<BookResult<BookFunds>> {
    const r = await this.call(session, 'Limits', (uid) => ({ uid, actid: uid }), {
      op: 'funds',
      read: (json) => ({ list: true, raw: json }),
    });
    return readBook(r, norenFunds);
  }

  /** `GetBasketMargin`; an empty basket or more than {@link NOREN_MARGIN_MAX} legs is refused unsent. */
  async basketMargin(
    orders: readonly BrokerOrder[],
    session: BrokerSession,
  ): Promise<BookResult<BasketMargin>> {
    if (orders.length === 0) return refuse(400, `${this.variant.label}: the basket is empty`);
    if (orders.length > NOREN_MARGIN_MAX)
      return refuse(400, `${this.variant.label}: at most ${NOREN_MARGIN_MAX} positions a margin request`);
    const r = await this.call(session, 'GetBasketMargin', (uid) => norenMarginData(orders, uid), {
      op: 'margin',
      read: (json) => ({ list: true, raw: json }),
    });
    return readBook(r, norenBasketMargin);
  }

  quoteClient(session: () => BrokerSession | undefined): QuoteClient {
    return this.quoteClients.track(
      new NorenQuoteClient({
        ...this.opts,
        variant: this.variant,
        accessToken: () => session()?.accessToken,
        brokerUserId: () => session()?.brokerUserId,
      }),
    );
  }

  /** Flattrade's login page; Shoonya has none (a {@link BrokerLoginError}, 400). */
  loginUrl(state: string): string {
    if (this.variant.login !== 'redirect') throw this.noRedirect();
    return norenLoginUrl(this.variant, this.opts, state);
  }

  /** Flattrade's request-code exchange; Shoonya has none (rejects with a 400). */
  exchangeCode(code: string): Promise<LoginResult> {
    if (this.variant.login !== 'redirect') return Promise.reject(this.noRedirect());
    return norenExchangeCode(this.variant, this.opts, code);
  }

  /** Shoonya's QuickAuth over this adapter's pool. */
  login(creds: NorenCredentials): Promise<NorenLoginResult> {
    if (this.variant.login !== 'quickauth')
      return Promise.reject(
        new BrokerLoginError(
          this.name,
          400,
          'unsupported',
          `${this.variant.label} logs in through its login page`,
        ),
      );
    return norenQuickAuth(this.variant, this.opts, creds, this.http);
  }

  /** {@link login} with the form's values (`user_id`, `password`, `totp`). */
  loginWith(values: Readonly<Record<string, string>>): Promise<LoginResult> {
    return this.login({
      userId: values.user_id ?? '',
      password: values.password ?? '',
      totp: values.totp ?? '',
    });
  }

  async close(): Promise<void> {
    await Promise.all([this.http.close(), this.quoteClients.closeAll()]);
  }

  private noRedirect(): BrokerLoginError {
    const message = `${this.variant.label} logs in with user id, password and TOTP, not a redirect`;
    return new BrokerLoginError(this.name, 400, 'unsupported', message);
  }

  private book(
    session: BrokerSession,
    endpoint: string,
    op: string,
    extra: NorenData = {},
  ): Promise<BrokerResult> {
    return this.call(session, endpoint, (uid) => ({ uid, actid: uid, ...extra }), {
      op,
      book: true,
      read: asList,
    });
  }

  /** One authenticated call; a session without token or user id is refused before any I/O. */
  private async call(
    session: BrokerSession,
    endpoint: string,
    data: (uid: string) => NorenData,
    spec: ReadSpec,
  ): Promise<BrokerResult> {
    const token = session.accessToken;
    const uid = session.brokerUserId;
    if (!token || token.trim() === '' || !uid)
      return {
        httpStatus: 401,
        ok: false,
        message: `${this.variant.label}: no session token and user id (broker session not connected)`,
        raw: null,
        roundTripMs: 0,
      };
    const outcome = await this.http.send({
      method: 'POST',
      path: `/${endpoint}`,
      headers: NOREN_FORM_HEADERS,
      body: norenForm(data(uid), token),
    });
    return this.result(outcome, spec, [token, this.opts.apiKey, this.opts.apiSecret]);
  }

  /** The `BrokerResult` of one answer (see the file comment), logged without a credential. */
  private result(
    outcome: HttpOutcome,
    spec: ReadSpec,
    secrets: readonly (string | undefined)[],
  ): BrokerResult {
    const log = (r: BrokerResult, code?: string) => {
      const fields = { broker: this.name, op: spec.op, status: r.httpStatus, ms: r.roundTripMs };
      if (r.ok) this.opts.logger?.debug(fields, 'broker order call');
      else this.opts.logger?.warn({ ...fields, code, reason: r.message }, 'broker order call failed');
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
    const label = this.variant.label;
    const raw = json === undefined ? sanitize(text, secrets) : scrub(maskFields(json), secrets);
    if (json === undefined) {
      const message = `${label} answered HTTP ${status} without a JSON body`;
      return log(
        { httpStatus: status >= 400 ? status : 502, ok: false, message, raw, roundTripMs },
        `http_${status}`,
      );
    }
    const said = Array.isArray(json) ? {} : readNorenError(json);
    const ok2xx = status >= 200 && status < 300;
    if (ok2xx && (Array.isArray(json) || isNorenOk(json) || (spec.book === true && isNoData(said.message)))) {
      const read = spec.read(Array.isArray(json) || isNorenOk(json) ? json : []);
      const kept = read.raw === undefined ? raw : scrub(maskFields(read.raw), secrets);
      if (read.orderId !== undefined)
        return log({ httpStatus: status, ok: true, orderId: read.orderId, raw: kept, roundTripMs });
      if (read.list) return log({ httpStatus: status, ok: true, raw: kept, roundTripMs });
      const message = `${label} answered success without an order id`;
      return log({ httpStatus: status, ok: false, message, raw: kept, roundTripMs }, 'no_order_id');
    }
    const httpStatus = status >= 400 ? status : norenErrorStatus(said.message);
    const message = said.message
      ? `${label}: ${sanitize(said.message, secrets)}`
      : `${label} answered HTTP ${status} without an error message`;
    return log({ httpStatus, ok: false, message, raw, roundTripMs }, said.code ?? `http_${status}`);
  }
}

/**
 * The contract of a live broker: what the placeorder pipeline, the
 * book routes in live mode and the sandbox's price source need from a broker, and the login
 * flow that produces its session. One implementation per broker (`zerodha/`, `upstox/`), loaded
 * by name through the registry (`broker-registry.ts`).
 */
import type { QuoteClient } from './quotes/quote-client.js';
import type { Action, GttPriceType, GttProduct, PriceType, Product } from '../../domain/orders.js';

/** An order as algodesk sends it to a broker: canonical fields plus the master contract's mapping. */
export interface BrokerOrder {
  /** Canonical symbol and exchange (`SBIN`, `NSE`), as the client sent them. */
  symbol: string;
  exchange: string;
  /** The broker's own trading symbol, exchange/segment and instrument token (master contract). */
  brsymbol: string;
  brexchange: string;
  token: string;
  side: Action;
  priceType: PriceType;
  product: Product;
  quantity: number;
  /** Rupees as decimal strings exactly as validated (`"0"` when the price type has none). */
  price: string;
  triggerPrice: string;
  disclosedQuantity: number;
  /** The strategy tag (brokers that carry a tag get it, truncated to their limit). */
  tag?: string;
  /** An after-market order: sent as the broker's AMO (Kite's `amo` variety, Upstox's `is_amo`). */
  amo?: boolean;
}

/** The session a broker call runs under: the access token (decrypted only in memory). */
export interface BrokerSession {
  accessToken: string;
  /** The broker's user id, when the login reported one. */
  brokerUserId?: string;
  /** Renews `accessToken` when the broker has such a call (Angel One's `generateTokens`). */
  refreshToken?: string;
  /** The broker's tick-stream credential, when it is not the access token (Angel's feed token). */
  feedToken?: string;
}

/**
 * What a broker said. `httpStatus` is the broker's own status (the pipeline passes it through:
 * spec "Order placement rules" step 8 — never rewritten to a generic 500); `orderId` is set only
 * on success. `message` is the broker's error text, sanitised: never a credential.
 */
export interface BrokerResult {
  httpStatus: number;
  ok: boolean;
  orderId?: string;
  message?: string;
  /** The broker's parsed response body (for the order log; never holds a credential). */
  raw: unknown;
  /** Round trip of the HTTP call, ms (latency statistics). */
  roundTripMs: number;
}

/**
 * One field of a broker's form login (docs/rules/brokers.md#broker-sessions): the console shows
 * it, the user fills it, {@link BrokerAdapter.loginWith} takes it. A `secret` field's value
 * (a PIN, a TOTP code, a pasted token) is never logged, stored or echoed.
 */
export interface LoginField {
  /** The key in the values `loginWith` receives (`client_code`, `pin`, `totp`, `access_token`). */
  name: string;
  label: string;
  secret: boolean;
  /** What a value must match (a JavaScript regular expression, whole value); checked before any I/O. */
  pattern: string;
  /** Said under the field (where the user finds the value). */
  hint?: string;
}

/** Which broker, through which broker app (0 or absent: the bootstrap app from `BROKER_*`). */
export interface BrokerChoice {
  broker: string;
  appId?: number;
}

/** Result of exchanging a login callback's code for a session. */
export interface LoginResult {
  session: BrokerSession;
  /** When the token stops working (epoch ms), when the broker says. */
  expiresAt?: number;
}

/**
 * The broker's books in one neutral form, before algodesk maps the instrument back to its own
 * symbol (the service does that through the master contract by `token`, else `brsymbol`). Amounts
 * are rupee numbers as the broker sent them; statuses, actions, price types and products are
 * already OpenAlgo's words (mapped by each adapter's `*.books.ts`).
 */
export interface BookInstrument {
  /** The broker's trading symbol and its exchange mapped to algodesk's (`NSE`, `NFO`, …). */
  brsymbol: string;
  exchange: string;
  /** The broker's exchange or segment code as it sent it (`NSE`, `NSE_FO`). */
  brexchange: string;
  /** The instrument token as the master contract stores it (Kite number as digits, Upstox key). */
  token: string;
}

export type BookOrderStatus = 'open' | 'trigger pending' | 'complete' | 'cancelled' | 'rejected';

export interface BookOrder extends BookInstrument {
  orderid: string;
  action: Action;
  quantity: number;
  price: number;
  trigger_price: number;
  pricetype: PriceType;
  product: Product;
  order_status: BookOrderStatus;
  average_price: number;
  filled_quantity: number;
  pending_quantity: number;
  rejection_reason: string;
  /** `YYYY-MM-DD HH:MM:SS` IST, as the broker wrote it. */
  timestamp: string;
  /** The order's tag ("" when none). */
  strategy: string;
}

export interface BookTrade extends BookInstrument {
  tradeid: string;
  orderid: string;
  action: Action;
  quantity: number;
  average_price: number;
  product: Product;
  timestamp: string;
  strategy: string;
}

export interface BookPosition extends BookInstrument {
  product: Product;
  /** Net signed quantity. */
  quantity: number;
  average_price: number;
  ltp: number;
  pnl: number;
  realized_pnl: number;
  unrealized_pnl: number;
}

export interface BookHolding extends BookInstrument {
  quantity: number;
  average_price: number;
  ltp: number;
  pnl: number;
}

export interface BookFunds {
  availablecash: number;
  collateral: number;
  m2mrealized: number;
  m2munrealized: number;
  utiliseddebits: number;
}

/**
 * A book read from the broker: its rows, or the broker's refusal (`httpStatus` passed through,
 * 504 for a timeout, 502 for a broken connection) with a sanitised message.
 */
export type BookResult<T> =
  | { ok: true; data: T; roundTripMs: number }
  | { ok: false; httpStatus: number; message: string; roundTripMs: number };

/** The book operations a broker may offer; a broker without one is refused with a 4xx naming it. */
export interface BrokerBooks {
  orderBook(session: BrokerSession): Promise<BookResult<BookOrder[]>>;
  tradeBook(session: BrokerSession): Promise<BookResult<BookTrade[]>>;
  positions(session: BrokerSession): Promise<BookResult<BookPosition[]>>;
  holdings(session: BrokerSession): Promise<BookResult<BookHolding[]>>;
  funds(session: BrokerSession): Promise<BookResult<BookFunds>>;
}

/**
 * The margin a basket of orders needs, as the broker's calculator states it (rupees): `total`
 * with the basket's hedge benefit, `initialTotal` before it (the legs each on their own, or as
 * the broker first states them), and the SPAN and exposure parts of `total`.
 */
export interface BasketMargin {
  total: number;
  span: number;
  exposure: number;
  initialTotal: number;
}

/**
 * A GTT (good-till-triggered) order as algodesk sends it to a broker (docs/rules/orders.md#gtt-orders):
 * a `single` trigger with one order, or a `two-leg` OCO pair (stoploss and target) whose legs
 * share the side, product and quantity. Prices in rupees.
 */
export interface BrokerGtt {
  type: 'single' | 'two-leg';
  symbol: string;
  exchange: string;
  brsymbol: string;
  brexchange: string;
  token: string;
  /** The instrument's tick (rupees), for a MARKET leg's protected limit. */
  tickSize: number;
  action: Action;
  product: GttProduct;
  quantity: number;
  /** LIMIT, or MARKET (sent as the broker accepts it: a protected LIMIT, or market protection). */
  priceType: GttPriceType;
  /** Trigger prices, ascending: one for `single`; [stoploss, target] for `two-leg`. */
  triggers: number[];
  /** Each leg's limit price, in the order of `triggers` (0 for MARKET). */
  prices: number[];
  /** The instrument's last price now (the side of each trigger is decided against it). */
  lastPrice: number;
}

/** One GTT as the broker's book lists it, before its instrument is mapped back to algodesk's symbol. */
export interface BrokerGttRow {
  triggerId: string;
  type: 'single' | 'two-leg';
  /** The broker's status, lower case (`active`, `triggered`, `cancelled`, …). */
  status: string;
  brsymbol: string;
  brexchange: string;
  /** The broker's instrument key, when its book states one (Upstox). */
  token?: string;
  triggers: number[];
  lastPrice: number;
  legs: { action: Action; quantity: number; price: number; priceType: string; product: string }[];
  /** IST `YYYY-MM-DD HH:MM:SS`, or '' when the broker does not say. */
  createdAt: string;
  updatedAt: string;
  expiresAt: string;
}

/** The GTT operations a broker may offer (absent: the GTT APIs refuse with a 4xx naming the broker). */
export interface BrokerGttApi {
  placeGtt(gtt: BrokerGtt, session: BrokerSession): Promise<BookResult<{ triggerId: string }>>;
  modifyGtt(
    triggerId: string,
    gtt: BrokerGtt,
    session: BrokerSession,
  ): Promise<BookResult<{ triggerId: string }>>;
  cancelGtt(triggerId: string, session: BrokerSession): Promise<BookResult<{ triggerId: string }>>;
  /** The broker's active GTTs. */
  gttBook(session: BrokerSession): Promise<BookResult<BrokerGttRow[]>>;
}

export interface BrokerAdapter extends Partial<BrokerBooks>, Partial<BrokerGttApi> {
  /** Broker id (`zerodha`, `upstox`): `BROKER_NAME`. */
  readonly name: string;
  placeOrder(order: BrokerOrder, session: BrokerSession): Promise<BrokerResult>;
  modifyOrder(orderId: string, order: BrokerOrder, session: BrokerSession): Promise<BrokerResult>;
  cancelOrder(orderId: string, session: BrokerSession): Promise<BrokerResult>;
  /** One order's state as the broker reports it (`raw` holds the broker's order record). */
  orderStatus(orderId: string, session: BrokerSession): Promise<BrokerResult>;
  /**
   * The day's orders carrying `tag` (the reference algodesk sent them with): `raw` holds their
   * order records as the broker lists them, an empty list when none does. Finds an order whose
   * placement answer a crash cut off.
   */
  ordersByTag(tag: string, session: BrokerSession): Promise<BrokerResult>;
  /**
   * The broker's margin calculator for a basket of orders (none is placed); absent when the
   * broker has none, and then the margin API refuses with a 4xx naming the broker.
   */
  basketMargin?(orders: readonly BrokerOrder[], session: BrokerSession): Promise<BookResult<BasketMargin>>;
  /** The quote client of this broker under `session` (the sandbox's price source uses it). */
  quoteClient(session: () => BrokerSession | undefined): QuoteClient;
  /** Where the operator's browser goes to log in at the broker (`state` is echoed back). */
  loginUrl(state: string): string;
  /** Exchanges the login callback's request code for a session. */
  exchangeCode(code: string): Promise<LoginResult>;
  /**
   * The fields of the broker's form login, when it logs in without a redirect (Angel One: client
   * code, PIN, TOTP; Dhan: client id and a pasted access token). Absent: redirect login only.
   */
  readonly loginFields?: readonly LoginField[];
  /** Logs in with the values of {@link loginFields} (each already matched to its pattern). */
  loginWith?(values: Readonly<Record<string, string>>): Promise<LoginResult>;
  /** False when the broker's calls need no app key (`BROKER_API_KEY`): Dhan's token is the user's own. */
  readonly needsAppKey?: boolean;
  /** Renews a session with its refresh token, when the broker has such a call (Angel One). */
  refreshSession?(session: BrokerSession): Promise<LoginResult>;
  /** Closes pooled connections. */
  close(): Promise<void>;
}

/**
 * The contract of a live broker: what the placeorder pipeline, the
 * book routes in live mode and the sandbox's price source need from a broker, and the login
 * flow that produces its session. One implementation per broker (`zerodha/`, `upstox/`), loaded
 * by name through the registry (`broker-registry.ts`).
 */
import type { QuoteClient } from './quotes/quote-client.js';
import type { Action, PriceType, Product } from '../../domain/orders.js';

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
}

/** The session a broker call runs under: the access token (decrypted only in memory). */
export interface BrokerSession {
  accessToken: string;
  /** The broker's user id, when the login reported one. */
  brokerUserId?: string;
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

/** Result of exchanging a login callback's code for a session. */
export interface LoginResult {
  session: BrokerSession;
  /** When the token stops working (epoch ms), when the broker says. */
  expiresAt?: number;
}

export interface BrokerAdapter {
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
  /** The quote client of this broker under `session` (the sandbox's price source uses it). */
  quoteClient(session: () => BrokerSession | undefined): QuoteClient;
  /** Where the operator's browser goes to log in at the broker (`state` is echoed back). */
  loginUrl(state: string): string;
  /** Exchanges the login callback's request code for a session. */
  exchangeCode(code: string): Promise<LoginResult>;
  /** Closes pooled connections. */
  close(): Promise<void>;
}

/**
 * What the live contract suite (live-contract.ts) needs of a broker ({@link LiveRig}, one per
 * broker in live-rigs.ts) and the world it runs in ({@link startLiveWorld}): the broker's loopback
 * stub and the real app on its own database, the broker's master contract imported, the
 * administrator's broker session set, live mode on, and the suite's two instruments (an NSE
 * equity and a derivative, on NFO unless the rig names another exchange) resolved from the
 * contract and taught to the stub.
 */
import type { Broker } from '../../src/domain/brokers.js';
import {
  ACTIONS,
  PRICE_TYPES,
  PRODUCTS,
  type Action,
  type PriceType,
  type Product,
} from '../../src/domain/orders.js';
import type { BrokerSession } from '../../src/modules/brokers/broker-adapter.js';
import type { Dialect } from '../../src/platform/db/database.js';
import type { OrderStub } from '../helpers/broker-order-stub-base.js';
import type { RecordedRequest, StubAnswer, StubHandler } from '../helpers/broker-stub.js';
import { startOrdersApp, type OrdersApp } from '../helpers/orders-app.js';

export type Body = Record<string, unknown>;

/** One of the suite's instruments, as the master contract maps it. */
export interface LiveInstrument {
  symbol: string;
  exchange: string;
  brsymbol: string;
  brexchange: string;
  token: string;
  lot: number;
}

/** An order as the stub received it, mapped back to OpenAlgo's words. */
export interface SentOrder {
  /** The instrument as the broker's request named it (compare with {@link RigStub.nameOf}). */
  instrument: string;
  side: Action;
  quantity: number;
  priceType: PriceType;
  product: Product;
  price: number;
  trigger: number;
}

/** An order in the stub's book: its first record's id, side, quantity and tag, its status now. */
export interface BookedOrder {
  id: string;
  side: string;
  quantity: number;
  tag: string;
  /** The broker's status now, lower case. */
  status: string;
}

/** A full quote to seed: prices in rupees, depth levels `[price, quantity]`. */
export interface QuoteSeed {
  ltp: number;
  open: number;
  high: number;
  low: number;
  prevClose: number;
  bids: [number, number][];
  asks: [number, number][];
}

/** A daily candle to seed (`date` is the IST trading day). */
export interface CandleSeed {
  date: string;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
}

/** A broker's loopback stub as the suite drives it. */
export interface RigStub {
  stub: OrderStub;
  /** The base URL the adapter is given (`BROKER_API_BASE_URL`). */
  url: string;
  /** Tells the stub the instrument (its trading symbol by token, as its books name it). */
  teach(i: LiveInstrument): void;
  /** How the broker's order request names `i` (what {@link SentOrder.instrument} holds). */
  nameOf(i: LiveInstrument): string;
  /** Every placement the stub received, oldest first, in OpenAlgo's words. */
  sent(): SentOrder[];
  /** The stub's book of orders, in placement order. */
  booked(): BookedOrder[];
  /** The exchange filled order `id` (it completes at the stub's price). */
  fill(id: string): void;
  /** The demat holds `quantity` of `i` (one of them T1 where the broker says so) bought at `average`. */
  holding(i: LiveInstrument, h: { quantity: number; average: number; ltp: number }): void;
  /** The broker's full quote of `i`. */
  seedQuote(i: LiveInstrument, q: QuoteSeed): void;
  /** The broker's daily candles of `i`. */
  seedDaily(i: LiveInstrument, rows: readonly CandleSeed[]): void;
  close(): Promise<void>;
}

/** OpenAlgo's interval groups (`/api/v1/intervals`); a group left out is empty. */
export type IntervalGroups = Partial<
  Record<'months' | 'weeks' | 'days' | 'hours' | 'minutes' | 'seconds', string[]>
>;

/** A broker under the suite. */
export interface LiveRig {
  broker: Broker;
  /** Canonical symbols of the suite's NSE equity and derivative. */
  symbols: { eq: string; fno: string };
  /**
   * The derivative's exchange when it is not NFO (Fyers' master fixtures have no NSE_FO file:
   * its derivative is on BFO).
   */
  fnoExchange?: string;
  /** The app's broker settings besides `BROKER_NAME` and the base URL (its API key, …). */
  env: Record<string, string>;
  /** The master contract bytes imported as the live one. */
  contract(): Buffer;
  /** The administrator's broker session the stub accepts. */
  session(): BrokerSession;
  /** A session the stub refuses, and the HTTP status the refusal is answered with. */
  wrongSession: { session: BrokerSession; status: number };
  /** A documented refusal of a placement (what the stub answers) and what the API answers. */
  refusal: { status: number; body: unknown; message: string; answered?: number };
  /** The history intervals the broker serves, in OpenAlgo's groups. */
  intervals: IntervalGroups;
  /** An interval the broker does not serve. */
  unservedInterval: string;
  /** Whether the broker's position book carries a last price (Dhan's does not: ltp 0). */
  positionLtp: boolean;
  /**
   * Whether the broker's holdings carry a last price (default true; Noren's get_holdings has none:
   * ltp 0, the holding valued at cost).
   */
  holdingLtp?: boolean;
  /** Starts the stub (its quotes and charts served). */
  startStub(): Promise<RigStub>;
}

const oneOf = <T extends string>(list: readonly T[], v: unknown, what: string): T => {
  if (!(list as readonly unknown[]).includes(v)) throw new Error(`not an OpenAlgo ${what}: ${String(v)}`);
  return v as T;
};

/** A placement read from a stub's request, numbers parsed and words checked to be OpenAlgo's. */
export function neutral(o: Record<keyof SentOrder, unknown>): SentOrder {
  return {
    instrument: String(o.instrument),
    side: oneOf(ACTIONS, o.side, 'action'),
    quantity: Number(o.quantity),
    priceType: oneOf(PRICE_TYPES, o.priceType, 'price type'),
    product: oneOf(PRODUCTS, o.product, 'product'),
    price: Number(o.price ?? 0),
    trigger: Number(o.trigger ?? 0),
  };
}

/**
 * A route of `stub` that forwards a request with the accepted credential to another stub at
 * `origin` (the quote stubs' documented market-data APIs), sending `credential` as its headers;
 * a request without the accepted credential is forwarded without it (the other stub refuses it).
 */
export function forwardTo(stub: OrderStub, origin: string, credential: Record<string, string>): StubHandler {
  return async (req: RecordedRequest): Promise<StubAnswer> => {
    const kept = Object.fromEntries(
      ['accept', 'x-kite-version'].flatMap((k) => (req.headers[k] ? [[k, String(req.headers[k])]] : [])),
    );
    const headers = stub.credentialOf(req) === 'exact' ? { ...kept, ...credential } : kept;
    const res = await fetch(`${origin}${req.url}`, { headers });
    return { status: res.status, body: (await res.json()) as unknown };
  };
}

/** The epoch seconds of 00:00 IST of `date` (`YYYY-MM-DD`). */
export const istMidnight = (date: string) => Date.parse(`${date}T00:00:00+05:30`) / 1000;

/** The suite's world: the stub, the app, the two instruments. */
export interface LiveWorld {
  rig: LiveRig;
  s: RigStub;
  o: OrdersApp;
  eq: LiveInstrument;
  fno: LiveInstrument;
  close(): Promise<void>;
}

/** Resolves a canonical symbol in the live contract. */
async function resolve(o: OrdersApp, symbol: string, exchange: string): Promise<LiveInstrument> {
  const i = await o.t.services.market.contracts.get(symbol, exchange);
  if (!i) throw new Error(`${symbol} on ${exchange} is not in the contract`);
  const { brsymbol, brexchange, token, lotsize } = i;
  return { symbol, exchange, brsymbol, brexchange, token, lot: lotsize };
}

/** Starts the rig's stub and an app on it in live mode (see the file comment). */
export async function startLiveWorld(rig: LiveRig, dialect: Dialect): Promise<LiveWorld> {
  const s = await rig.startStub();
  const o = await startOrdersApp(dialect, {
    broker: rig.broker,
    stubUrl: s.url,
    contract: rig.contract(),
    timeoutMs: 1_000,
    env: { SMART_ORDER_RATE_LIMIT: '100000 per second' },
  });
  await o.setMode(false);
  const eq = await resolve(o, rig.symbols.eq, 'NSE');
  const fno = await resolve(o, rig.symbols.fno, rig.fnoExchange ?? 'NFO');
  s.teach(eq);
  s.teach(fno);
  return {
    rig,
    s,
    o,
    eq,
    fno,
    async close() {
      await o.close();
      await s.close();
    },
  };
}

/**
 * The order stubs' common core: {@link OrderStub}, a {@link BrokerStub} that keeps a day's book
 * and gates order endpoints on the exact credential (token endpoints need none; `credentialOf`
 * tells what a request carried), and what both brokers' stubs share.
 *
 * With `fillMarketOrders` on, a MARKET order fills at once at the instrument's price (`prices`,
 * default 100) and shows as complete in the orders list, as one trade and in the net position;
 * other orders (and every order with it off, the default the strategy tests' scripted fills need)
 * stay open until `settle`d or cancelled. `refusePlacement` refuses the n-th placement from now;
 * `omitOrderId` drops the id from successes.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { BrokerStub, type RecordedRequest, type StubAnswer, type StubHandler } from './broker-stub.js';

/** Which credential a request carried: the accepted one, none, or another. */
export type Credential = 'exact' | 'absent' | 'wrong';

/** A JSON object body or order record. */
export type Body = Record<string, unknown>;

/** The order types both brokers take. */
export const ORDER_TYPES = ['MARKET', 'LIMIT', 'SL', 'SL-M'];

/** The price a MARKET order fills at when the test set none. */
export const DEFAULT_PRICE = 100;

/** One fill of the stub's day. */
export interface StubFill {
  tradeId: string;
  orderId: string;
  tradingsymbol: string;
  /** Kite's exchange, or Upstox's instrument key (its segment names the exchange). */
  exchange: string;
  token: string | number;
  product: string;
  side: string;
  quantity: number;
  price: number;
  at: string;
  tag: string;
}

/** A net position built from the fills. */
export interface StubPosition extends StubFill {
  buyQty: number;
  buyValue: number;
  sellQty: number;
  sellValue: number;
}

/** Quantity, average, realised and unrealised P&L of a net position at `ltp`. */
export function positionFigures(
  p: Pick<StubPosition, 'buyQty' | 'buyValue' | 'sellQty' | 'sellValue'>,
  ltp: number,
) {
  const quantity = p.buyQty - p.sellQty;
  const buyAvg = p.buyQty ? p.buyValue / p.buyQty : 0;
  const sellAvg = p.sellQty ? p.sellValue / p.sellQty : 0;
  const average = quantity > 0 ? buyAvg : quantity < 0 ? sellAvg : 0;
  const realised = Math.min(p.buyQty, p.sellQty) * (sellAvg - buyAvg);
  const unrealised = quantity * (ltp - average);
  return { quantity, average, buyAvg, sellAvg, realised, unrealised, pnl: realised + unrealised };
}

/** A request's form body as an object. */
export const form = (req: RecordedRequest) => Object.fromEntries(new URLSearchParams(req.body));

/**
 * A {@link BrokerStub} whose auth gate lets requests without a credential through to the route
 * (the token endpoints need none) and records, in request order, what each carried.
 */
export abstract class OrderStub extends BrokerStub {
  /** When true, successful place/modify/cancel answers carry no order id. */
  omitOrderId = false;
  /** Orders by id: their records, oldest first (the last is the state now). */
  readonly orders = new Map<string, Body[]>();
  /** When true, a MARKET order fills at placement (a trade and a position); see the file comment. */
  fillMarketOrders = false;
  /** The day's fills, oldest first (each a MARKET order filled at placement). */
  readonly fills: StubFill[] = [];
  /** Fill and last prices by the broker's trading symbol (default {@link DEFAULT_PRICE}). */
  readonly prices = new Map<string, number>();
  /** Delivery holdings the portfolio endpoint lists (the broker's own record shape). */
  holdingRows: Body[] = [];
  /** Cash available for trading, rupees. */
  cash = 250_000;
  private clockSeconds = 0;
  private readonly seen: Credential[];
  private seq = 0;
  /** Placements received (authenticated), and the scripted refusals by placement number. */
  private placements = 0;
  private readonly refusals = new Map<number, StubAnswer>();

  protected constructor(
    expected: () => string,
    private readonly refusal: () => StubAnswer,
  ) {
    const seen: Credential[] = [];
    super({
      check: (h: IncomingHttpHeaders) => {
        const kind: Credential =
          h.authorization === undefined ? 'absent' : h.authorization === expected() ? 'exact' : 'wrong';
        seen.push(kind); // check runs once per request, just before it is recorded: same index
        return kind !== 'wrong';
      },
      refusal,
    });
    this.seen = seen;
  }

  /** The credential `req` carried. */
  credentialOf(req: RecordedRequest): Credential | undefined {
    return this.seen[this.requests.indexOf(req)];
  }

  override reset(): void {
    super.reset();
    this.seen.length = 0;
  }

  /** Serves `method path` to requests with the exact credential; the others get the refusal. */
  protected authed(method: string, path: string, handler: StubHandler): void {
    this.route(method, path, (req) => (this.credentialOf(req) === 'exact' ? handler(req) : this.refusal()));
  }

  /**
   * The `nth` placement from now (1 = the next one) is answered with `status` and `body` instead
   * of being placed; the others are served as usual (a split refused part-way).
   */
  refusePlacement(nth: number, status: number, body: unknown): void {
    this.refusals.set(this.placements + nth, { status, body });
  }

  /** Counts a placement; the refusal scripted for it, if any. */
  protected scriptedRefusal(): StubAnswer | undefined {
    return this.refusals.get(++this.placements);
  }

  /** The price of a trading symbol now. */
  priceOf(tradingsymbol: string): number {
    return this.prices.get(tradingsymbol) ?? DEFAULT_PRICE;
  }

  /** A broker timestamp (IST `YYYY-MM-DD HH:MM:SS`), one second later on every call. */
  protected stamp(): string {
    const t = new Date(Date.UTC(2026, 7, 18, 9, 15, 0) + ++this.clockSeconds * 1000).toISOString();
    return `${t.slice(0, 10)} ${t.slice(11, 19)}`;
  }

  /** Net positions from the fills, by symbol, exchange key and product, in first-fill order. */
  protected netPositions(): StubPosition[] {
    const by = new Map<string, StubPosition>();
    for (const f of this.fills) {
      const key = `${f.tradingsymbol}|${f.exchange}|${f.product}`;
      const p = by.get(key) ?? { ...f, buyQty: 0, buyValue: 0, sellQty: 0, sellValue: 0 };
      if (f.side === 'BUY') {
        p.buyQty += f.quantity;
        p.buyValue += f.quantity * f.price;
      } else {
        p.sellQty += f.quantity;
        p.sellValue += f.quantity * f.price;
      }
      by.set(key, p);
    }
    return [...by.values()];
  }

  /** A new order id (`first + n`), in the broker's 15-digit style. */
  protected nextId(first: number): string {
    return String(first + ++this.seq);
  }

  /** The current record of order `id`. */
  protected last(id: string): Body | undefined {
    const history = this.orders.get(id);
    return history?.[history.length - 1];
  }

  /** The day's order book: every order's current record, in placement order. */
  protected book(): Body[] {
    return [...this.orders.values()].map((history) => history[history.length - 1]!);
  }
}

/**
 * Order management in live mode, through the broker adapter
 * (docs/rules/orders.md#live-order-management): `orderstatus`, `cancelorder`, `modifyorder`, the
 * books (`orderbook`, `tradebook`, `positionbook`, `holdings`, `funds`), `openposition`,
 * `cancelallorder` and `closeposition` go to the user's broker with their broker session; the
 * broker's status is passed through like placeorder's. Book rows name the broker's instrument;
 * each is mapped back to algodesk's symbol through the master contract (by token, else the
 * broker's symbol is kept). closeposition places each closing order through the placement
 * pipeline (or the Action Center for a semi-automatic key), like placeorder. The books are read
 * in live-books.ts; cancelallorder and closeposition are written in live-bulk-orders.ts.
 */
import type { BrokerResult } from '../brokers/broker-adapter.js';
import {
  liveFunds,
  liveHoldings,
  liveOrderbook,
  livePositionbook,
  liveTradebook,
} from '../brokers/live-book-format.js';
import type { Instrument } from '../market/instrument.js';
import type { LiveCallAnswer, PipelineAnswer } from './order-pipeline.types.js';
import { orderStatusFromBook, orderStatusOf } from './live-order-status.js';
import { brokerOrderMargin, liveMargin, type LiveMarginLeg } from './live-margin.js';
import { liveCancelGtt, liveGtt, liveGttBook } from './live-gtt.js';
import type { GttRequest } from '../sandbox/service/gtt.js';
import type { OrderInput } from './order-rules.js';
import type { Action, PriceType, Product } from '../../domain/orders.js';
import { LiveBooks, type LiveBooksDeps } from './live-books.js';
import { cancelAllOrders, closeAllPositions } from './live-bulk-orders.js';

export interface LiveOrdersDeps extends LiveBooksDeps {
  /** The instrument by symbol: of `broker`'s instrument file when given and not the live contract's. */
  instrument(symbol: string, exchange: string, broker?: string): Promise<Instrument | undefined>;
  /**
   * Places one order as placeorder does (the pipeline, or the Action Center queue when `semiAuto`):
   * closeposition's closing orders.
   */
  place?(userId: number, order: OrderInput, semiAuto: boolean): Promise<PipelineAnswer>;
}

/** A modifyorder request in live mode (validated by the book schema). */
export interface LiveModify {
  symbol: string;
  exchange: string;
  action: Action;
  product: Product;
  pricetype: PriceType;
  quantity: number;
  price: string;
  trigger_price: string;
  disclosed_quantity: number;
}

export class LiveOrdersService {
  private readonly books: LiveBooks;

  constructor(private readonly deps: LiveOrdersDeps) {
    this.books = new LiveBooks(deps);
  }

  async orderbook(userId: number): Promise<LiveCallAnswer> {
    const r = await this.books.read(userId, 'orderBook');
    if (!r.ok) return r.answer;
    return {
      status: 200,
      body: { status: 'success', data: liveOrderbook(await this.books.mapped(r.data, r.broker)) },
    };
  }

  async tradebook(userId: number): Promise<LiveCallAnswer> {
    const r = await this.books.read(userId, 'tradeBook');
    if (!r.ok) return r.answer;
    return {
      status: 200,
      body: { status: 'success', data: liveTradebook(await this.books.mapped(r.data, r.broker)) },
    };
  }

  async positionbook(userId: number): Promise<LiveCallAnswer> {
    const r = await this.books.read(userId, 'positions');
    if (!r.ok) return r.answer;
    return {
      status: 200,
      body: { status: 'success', data: livePositionbook(await this.books.mapped(r.data, r.broker)) },
    };
  }

  async holdings(userId: number): Promise<LiveCallAnswer> {
    const r = await this.books.read(userId, 'holdings');
    if (!r.ok) return r.answer;
    return {
      status: 200,
      body: { status: 'success', data: liveHoldings(await this.books.mapped(r.data, r.broker)) },
    };
  }

  async funds(userId: number): Promise<LiveCallAnswer> {
    const r = await this.books.read(userId, 'funds');
    if (!r.ok) return r.answer;
    return { status: 200, body: { status: 'success', data: liveFunds(r.data) } };
  }

  /**
   * OpenAlgo's openposition: the net quantity of the position in `symbol`, `exchange`, `product`
   * at the broker, as a string (`"0"` when there is none).
   */
  async openPosition(
    userId: number,
    q: { symbol: string; exchange: string; product: string },
  ): Promise<LiveCallAnswer> {
    const r = await this.books.read(userId, 'positions');
    if (!r.ok) return r.answer;
    const rows = await this.books.mapped(r.data, r.broker);
    const quantity = rows
      .filter((p) => p.symbol === q.symbol && p.exchange === q.exchange && p.product === q.product)
      .reduce((a, p) => a + p.quantity, 0);
    return { status: 200, body: { status: 'success', quantity: String(quantity) } };
  }

  /**
   * The signed part of the broker's position in (symbol, exchange, product) a new closing order
   * could still close: the net quantity less the pending quantity of working orders on the closing
   * side (the scanner's exits and square-off read it, so two exits never close one position twice).
   */
  async closable(
    userId: number,
    q: { symbol: string; exchange: string; product: string },
  ): Promise<{ ok: true; quantity: number } | { ok: false; answer: LiveCallAnswer }> {
    const same = (r: { symbol: string; exchange: string; product: string }) =>
      r.symbol === q.symbol && r.exchange === q.exchange && r.product === q.product;
    const p = await this.books.read(userId, 'positions');
    if (!p.ok) return p;
    const net = (await this.books.mapped(p.data, p.broker)).filter(same).reduce((a, r) => a + r.quantity, 0);
    if (net === 0) return { ok: true, quantity: 0 };
    const o = await this.books.read(userId, 'orderBook');
    if (!o.ok) return o;
    const closing = net > 0 ? 'SELL' : 'BUY';
    const pending = (await this.books.mapped(o.data, o.broker))
      .filter((r) => same(r) && r.action === closing)
      .filter((r) => r.order_status === 'open' || r.order_status === 'trigger pending')
      .reduce((a, r) => a + r.pending_quantity, 0);
    const left = Math.max(0, Math.abs(net) - pending);
    return { ok: true, quantity: net > 0 ? left : -left };
  }

  /** cancelallorder: every working order cancelled (live-bulk-orders.ts). */
  cancelAll(userId: number): Promise<LiveCallAnswer> {
    return cancelAllOrders(this.books, userId);
  }

  /** closeposition: every open position closed like placeorder (live-bulk-orders.ts). */
  async closeAll(userId: number, strategy: string | undefined, semiAuto: boolean): Promise<LiveCallAnswer> {
    if (!this.deps.place) throw new Error('closeposition needs the placement pipeline');
    return closeAllPositions(this.books, this.deps.place.bind(this.deps), userId, strategy, semiAuto);
  }

  private static answer(
    r: BrokerResult,
    ok: () => { status: 'success'; [field: string]: unknown },
  ): LiveCallAnswer {
    if (r.ok) return { status: 200, body: ok() };
    return {
      status: r.httpStatus >= 400 ? r.httpStatus : 500,
      body: { status: 'error', message: r.message ?? 'The broker refused the request' },
    };
  }

  async cancel(userId: number, orderid: string): Promise<LiveCallAnswer> {
    const b = await this.books.broker(userId);
    if ('status' in b) return b;
    const r = await b.adapter.cancelOrder(orderid, b.session);
    return LiveOrdersService.answer(r, () => ({ status: 'success', orderid }));
  }

  async status(userId: number, orderid: string): Promise<LiveCallAnswer> {
    const b = await this.books.broker(userId);
    if ('status' in b) return b;
    // As OpenAlgo does: the order's row of the day's book, in algodesk's symbol and product words.
    const book = b.adapter.orderBook ? await this.books.read(userId, 'orderBook') : undefined;
    if (book?.ok) {
      const [row] = await this.books.mapped(
        book.data.filter((o) => o.orderid === orderid),
        book.broker,
      );
      if (row) return { status: 200, body: { status: 'success', data: orderStatusFromBook(row) } };
    }
    const r = await b.adapter.orderStatus(orderid, b.session);
    if (r.ok && (r.raw === null || r.raw === undefined))
      return { status: 404, body: { status: 'error', message: `Order ${orderid} not found` } };
    return LiveOrdersService.answer(r, () => ({ status: 'success', data: orderStatusOf(orderid, r.raw) }));
  }

  /**
   * The day's orders the user's broker holds with reference `tag` (OpenAlgo's orderstatus fields
   * of each); throws when the broker cannot be asked or does not answer.
   */
  async ordersByTag(userId: number, tag: string): Promise<Record<string, unknown>[]> {
    const b = await this.books.broker(userId);
    if ('status' in b) throw new Error(b.body.message);
    const r = await b.adapter.ordersByTag(tag, b.session);
    if (!r.ok)
      throw new Error(`the broker's order book is unavailable (${r.httpStatus}): ${r.message ?? ''}`);
    const list: unknown[] = Array.isArray(r.raw) ? r.raw : [];
    return list.map((rec) =>
      orderStatusOf(String((rec as { order_id?: unknown } | null)?.order_id ?? ''), rec),
    );
  }

  /** GTT orders at the broker (live-gtt.ts). */
  private get gttDeps() {
    return {
      broker: (u: number) => this.books.broker(u),
      instrument: this.deps.instrument,
      ...(this.deps.instrumentsByToken ? { instrumentsByToken: this.deps.instrumentsByToken } : {}),
    };
  }

  gtt(userId: number, req: GttRequest, triggerId?: string): Promise<LiveCallAnswer> {
    return liveGtt(this.gttDeps, userId, req, triggerId);
  }

  cancelGtt(userId: number, triggerId: string): Promise<LiveCallAnswer> {
    return liveCancelGtt(this.gttDeps, userId, triggerId);
  }

  gttBook(userId: number): Promise<LiveCallAnswer> {
    return liveGttBook(this.gttDeps, userId);
  }

  /** The broker's figures for one order, for the sandbox's margin rule (live-margin.ts). */
  orderMargin(userId: number, leg: LiveMarginLeg) {
    return brokerOrderMargin(
      { broker: (u) => this.books.broker(u), instrument: this.deps.instrument },
      userId,
      leg,
    );
  }

  /** The broker's margin calculator for a basket (live-margin.ts); nothing is placed. */
  margin(userId: number, legs: readonly LiveMarginLeg[]): Promise<LiveCallAnswer> {
    return liveMargin(
      { broker: (u) => this.books.broker(u), instrument: this.deps.instrument },
      userId,
      legs,
    );
  }

  async modify(userId: number, orderid: string, m: LiveModify): Promise<LiveCallAnswer> {
    const b = await this.books.broker(userId);
    if ('status' in b) return b;
    const inst = await this.deps.instrument(m.symbol, m.exchange, b.adapter.name);
    if (!inst)
      return {
        status: 400,
        body: {
          status: 'error',
          message: `Symbol '${m.symbol}' not found on ${m.exchange} in the master contract`,
        },
      };
    const r = await b.adapter.modifyOrder(
      orderid,
      {
        symbol: m.symbol,
        exchange: m.exchange,
        brsymbol: inst.brsymbol,
        brexchange: inst.brexchange,
        token: inst.token,
        side: m.action,
        priceType: m.pricetype,
        product: m.product,
        quantity: m.quantity,
        price: m.price,
        triggerPrice: m.trigger_price,
        disclosedQuantity: m.disclosed_quantity,
      },
      b.session,
    );
    return LiveOrdersService.answer(r, () => ({ status: 'success', orderid }));
  }
}

/**
 * Order management in live mode, through the broker adapter
 * (docs/rules/orders.md#live-order-management): `orderstatus`, `cancelorder`, `modifyorder`, the
 * books (`orderbook`, `tradebook`, `positionbook`, `holdings`, `funds`), `openposition`,
 * `cancelallorder` and `closeposition` go to the user's broker with their broker session; the
 * broker's status is passed through like placeorder's. Book rows name the broker's instrument;
 * each is mapped back to algodesk's symbol through the master contract (by token, else the
 * broker's symbol is kept). closeposition places each closing order through the placement
 * pipeline (or the Action Center for a semi-automatic key), like placeorder.
 */
import type {
  BookInstrument,
  BookResult,
  BrokerAdapter,
  BrokerBooks,
  BrokerResult,
  BrokerSession,
} from '../brokers/broker-adapter.js';
import {
  liveFunds,
  liveHoldings,
  liveOrderbook,
  livePositionbook,
  liveTradebook,
  type Mapped,
} from '../brokers/live-book-format.js';
import type { Instrument } from '../market/instrument.js';
import { UnreadableSessionError } from '../brokers/broker-sessions.service.js';
import type { LiveCallAnswer, PipelineAnswer, RefusedBody } from './order-pipeline.types.js';
import { orderStatusOf } from './live-order-status.js';
import { brokerLabel as label, liveMargin, type LiveMarginLeg } from './live-margin.js';
import type { OrderInput } from './order-rules.js';
import { closingAction, type Action, type PriceType, type Product } from '../../domain/orders.js';

export interface LiveOrdersDeps {
  brokerSession: (userId: number) => Promise<{ broker: string; session: BrokerSession } | undefined>;
  adapter: (broker: string) => BrokerAdapter | undefined;
  instrument(symbol: string, exchange: string): Promise<Instrument | undefined>;
  /** The master contract's instruments with the broker's `token` (reverse lookup), on `exchange`. */
  instrumentsByToken?(token: string, exchange?: string): Promise<Instrument[]>;
  /**
   * Places one order as placeorder does (the pipeline, or the Action Center queue when `semiAuto`):
   * closeposition's closing orders.
   */
  place?(userId: number, order: OrderInput, semiAuto: boolean): Promise<PipelineAnswer>;
}

/** What each book operation is called in a refusal. */
const BOOK_NAMES: Record<keyof BrokerBooks, string> = {
  orderBook: 'the order book',
  tradeBook: 'the trade book',
  positions: 'positions',
  holdings: 'holdings',
  funds: 'funds',
};

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
  constructor(private readonly deps: LiveOrdersDeps) {}

  private async broker(
    userId: number,
  ): Promise<{ adapter: BrokerAdapter; session: BrokerSession } | { status: number; body: RefusedBody }> {
    const s = await this.deps.brokerSession(userId).catch((err: unknown) => {
      if (err instanceof UnreadableSessionError) return 'unreadable' as const;
      throw err;
    });
    if (s === 'unreadable')
      return {
        status: 403,
        body: {
          status: 'error',
          message: 'Your stored broker session cannot be read by this install: log in to your broker again',
        },
      };
    if (!s)
      return {
        status: 403,
        body: { status: 'error', message: 'No broker session: log in to your broker first' },
      };
    const adapter = this.deps.adapter(s.broker);
    if (!adapter)
      return { status: 404, body: { status: 'error', message: 'Broker-specific module not found' } };
    return { adapter, session: s.session };
  }

  /**
   * One book of the user's broker: the adapter's operation, or 400 naming the broker when its
   * adapter does not offer it; the broker's refusal with its own status (504 on a timeout).
   */
  private async read<K extends keyof BrokerBooks>(
    userId: number,
    op: K,
  ): Promise<
    | { ok: true; data: Awaited<ReturnType<BrokerBooks[K]>> extends BookResult<infer T> ? T : never }
    | { ok: false; answer: LiveCallAnswer }
  > {
    const b = await this.broker(userId);
    if ('status' in b) return { ok: false, answer: b };
    const fn = b.adapter[op] as ((session: BrokerSession) => Promise<BookResult<unknown>>) | undefined;
    if (!fn)
      return {
        ok: false,
        answer: {
          status: 400,
          body: {
            status: 'error',
            message: `${label(b.adapter.name)} does not offer ${BOOK_NAMES[op]} through algodesk's broker adapter`,
          },
        },
      };
    const r = await fn.call(b.adapter, b.session).catch((): BookResult<never> => ({
      ok: false,
      httpStatus: 500,
      message: `${label(b.adapter.name)}: the broker call failed`,
      roundTripMs: 0,
    }));
    if (!r.ok)
      return {
        ok: false,
        answer: {
          status: r.httpStatus >= 400 ? r.httpStatus : 500,
          body: { status: 'error', message: r.message },
        },
      };
    return { ok: true, data: r.data as never };
  }

  /**
   * Each row with algodesk's symbol and exchange: the master contract's instrument with the
   * row's token (on its exchange when several), else the broker's symbol as it is.
   */
  private async mapped<T extends BookInstrument>(rows: readonly T[]): Promise<Mapped<T>[]> {
    const cache = new Map<string, Instrument | undefined>();
    const out: Mapped<T>[] = [];
    for (const r of rows) {
      const key = `${r.token}|${r.exchange}`;
      if (!cache.has(key)) {
        const found =
          r.token !== '' && this.deps.instrumentsByToken
            ? await this.deps.instrumentsByToken(r.token, r.exchange || undefined)
            : [];
        cache.set(key, found.find((i) => i.brexchange === r.brexchange) ?? found[0]);
      }
      const inst = cache.get(key);
      out.push({ ...r, symbol: inst?.symbol ?? r.brsymbol, exchange: inst?.exchange ?? r.exchange });
    }
    return out;
  }

  async orderbook(userId: number): Promise<LiveCallAnswer> {
    const r = await this.read(userId, 'orderBook');
    if (!r.ok) return r.answer;
    return { status: 200, body: { status: 'success', data: liveOrderbook(await this.mapped(r.data)) } };
  }

  async tradebook(userId: number): Promise<LiveCallAnswer> {
    const r = await this.read(userId, 'tradeBook');
    if (!r.ok) return r.answer;
    return { status: 200, body: { status: 'success', data: liveTradebook(await this.mapped(r.data)) } };
  }

  async positionbook(userId: number): Promise<LiveCallAnswer> {
    const r = await this.read(userId, 'positions');
    if (!r.ok) return r.answer;
    return { status: 200, body: { status: 'success', data: livePositionbook(await this.mapped(r.data)) } };
  }

  async holdings(userId: number): Promise<LiveCallAnswer> {
    const r = await this.read(userId, 'holdings');
    if (!r.ok) return r.answer;
    return { status: 200, body: { status: 'success', data: liveHoldings(await this.mapped(r.data)) } };
  }

  async funds(userId: number): Promise<LiveCallAnswer> {
    const r = await this.read(userId, 'funds');
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
    const r = await this.read(userId, 'positions');
    if (!r.ok) return r.answer;
    const rows = await this.mapped(r.data);
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
    const p = await this.read(userId, 'positions');
    if (!p.ok) return p;
    const net = (await this.mapped(p.data)).filter(same).reduce((a, r) => a + r.quantity, 0);
    if (net === 0) return { ok: true, quantity: 0 };
    const o = await this.read(userId, 'orderBook');
    if (!o.ok) return o;
    const closing = net > 0 ? 'SELL' : 'BUY';
    const pending = (await this.mapped(o.data))
      .filter((r) => same(r) && r.action === closing)
      .filter((r) => r.order_status === 'open' || r.order_status === 'trigger pending')
      .reduce((a, r) => a + r.pending_quantity, 0);
    const left = Math.max(0, Math.abs(net) - pending);
    return { ok: true, quantity: net > 0 ? left : -left };
  }

  /**
   * cancelallorder: every order of the day's book still working (`open`, `trigger pending`) is
   * cancelled one by one; success even when some fail (OpenAlgo's shape).
   */
  async cancelAll(userId: number): Promise<LiveCallAnswer> {
    const r = await this.read(userId, 'orderBook');
    if (!r.ok) return r.answer;
    const b = await this.broker(userId);
    if ('status' in b) return b;
    const working = r.data.filter((o) => o.order_status === 'open' || o.order_status === 'trigger pending');
    const canceled: string[] = [];
    const failed: Array<{ orderid: string; message: string }> = [];
    for (const o of working) {
      const c = await b.adapter.cancelOrder(o.orderid, b.session).catch((): BrokerResult => ({
        httpStatus: 500,
        ok: false,
        message: 'the broker call failed',
        raw: null,
        roundTripMs: 0,
      }));
      if (c.ok) canceled.push(o.orderid);
      else failed.push({ orderid: o.orderid, message: c.message ?? 'The broker refused the cancellation' });
    }
    return {
      status: 200,
      body: {
        status: 'success',
        message:
          working.length === 0
            ? 'No open orders to cancel'
            : `Canceled ${canceled.length} orders. Failed to cancel ${failed.length} orders.`,
        canceled_orders: canceled,
        failed_cancellations: failed,
      },
    };
  }

  /**
   * closeposition: a MARKET order for −quantity in the position's product for every open net
   * position the broker reports, each placed like placeorder (events, latency, the Action
   * Center for a semi-automatic key). A position whose symbol the master contract lacks cannot
   * be placed and counts as failed.
   */
  async closeAll(userId: number, strategy: string | undefined, semiAuto: boolean): Promise<LiveCallAnswer> {
    if (!this.deps.place) throw new Error('closeposition needs the placement pipeline');
    const r = await this.read(userId, 'positions');
    if (!r.ok) return r.answer;
    const open = (await this.mapped(r.data)).filter((p) => p.quantity !== 0);
    if (open.length === 0)
      return { status: 200, body: { status: 'success', message: 'No open positions to close' } };
    let closed = 0;
    for (const p of open) {
      const a = await this.deps.place(
        userId,
        {
          strategy: strategy ?? '',
          symbol: p.symbol,
          exchange: p.exchange,
          action: closingAction(p.quantity),
          quantity: Math.abs(p.quantity),
          pricetype: 'MARKET',
          product: p.product,
          price: '0',
          trigger_price: '0',
          disclosed_quantity: '0',
        },
        semiAuto,
      );
      if (a.status === 200) closed += 1;
    }
    const failed = open.length - closed;
    return {
      status: 200,
      body: {
        status: 'success',
        message: semiAuto
          ? `Closing orders queued for approval in the Action Center for ${closed} positions`
          : failed === 0
            ? 'All Open Positions Squared Off'
            : `Closing orders placed for ${closed} positions; ${failed} could not be closed`,
        closed_positions: closed,
        failed_closures: failed,
      },
    };
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
    const b = await this.broker(userId);
    if ('status' in b) return b;
    const r = await b.adapter.cancelOrder(orderid, b.session);
    return LiveOrdersService.answer(r, () => ({ status: 'success', orderid }));
  }

  async status(userId: number, orderid: string): Promise<LiveCallAnswer> {
    const b = await this.broker(userId);
    if ('status' in b) return b;
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
    const b = await this.broker(userId);
    if ('status' in b) throw new Error(b.body.message);
    const r = await b.adapter.ordersByTag(tag, b.session);
    if (!r.ok)
      throw new Error(`the broker's order book is unavailable (${r.httpStatus}): ${r.message ?? ''}`);
    const list: unknown[] = Array.isArray(r.raw) ? r.raw : [];
    return list.map((rec) =>
      orderStatusOf(String((rec as { order_id?: unknown } | null)?.order_id ?? ''), rec),
    );
  }

  /** The broker's margin calculator for a basket (live-margin.ts); nothing is placed. */
  margin(userId: number, legs: readonly LiveMarginLeg[]): Promise<LiveCallAnswer> {
    return liveMargin({ broker: (u) => this.broker(u), instrument: this.deps.instrument }, userId, legs);
  }

  async modify(userId: number, orderid: string, m: LiveModify): Promise<LiveCallAnswer> {
    const b = await this.broker(userId);
    if ('status' in b) return b;
    const inst = await this.deps.instrument(m.symbol, m.exchange);
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

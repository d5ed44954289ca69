/**
 * Order management in live mode, through the broker adapter where it supports it
 * (docs/rules/orders.md#live-order-management): `orderstatus`, `cancelorder` and `modifyorder` go
 * to the user's broker with their broker session; the broker's status is passed through like
 * placeorder's. The books (orderbook, tradebook, positionbook, holdings, funds) are not part of
 * the adapter contract yet and answer 501 in live mode.
 */
import type { BrokerAdapter, BrokerResult, BrokerSession } from '../brokers/broker-adapter.js';
import type { Instrument } from '../market/instrument.js';
import { UnreadableSessionError } from '../brokers/broker-sessions.service.js';
import type { LiveCallAnswer, RefusedBody } from './order-pipeline.types.js';
import type { Action, PriceType, Product } from '../../domain/orders.js';

export interface LiveOrdersDeps {
  brokerSession: (userId: number) => Promise<{ broker: string; session: BrokerSession } | undefined>;
  adapter: (broker: string) => BrokerAdapter | undefined;
  instrument(symbol: string, exchange: string): Promise<Instrument | undefined>;
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

const KNOWN_STATUSES: Record<string, string> = {
  COMPLETE: 'complete',
  OPEN: 'open',
  CANCELLED: 'cancelled',
  REJECTED: 'rejected',
  'TRIGGER PENDING': 'trigger pending',
};

/** Upstox segments → exchanges (Kite already reports the exchange). */
const SEGMENTS: Record<string, string> = {
  NSE_EQ: 'NSE',
  BSE_EQ: 'BSE',
  NSE_FO: 'NFO',
  BSE_FO: 'BFO',
  NCD_FO: 'CDS',
  BCD_FO: 'BCD',
  MCX_FO: 'MCX',
};

/** OpenAlgo's orderstatus fields from a Kite or Upstox order record (they share most names). */
export function orderStatusOf(orderid: string, raw: unknown): Record<string, unknown> {
  const r = (Array.isArray(raw) ? raw[raw.length - 1] : raw) as Record<string, unknown> | null;
  const rec = r ?? {};
  const str = (v: unknown) => (v === undefined || v === null ? '' : String(v));
  const num = (v: unknown) => (typeof v === 'number' ? v : Number(v) || 0);
  const status = str(rec.status).toUpperCase();
  const product = str(rec.product);
  return {
    orderid,
    symbol: str(rec.tradingsymbol ?? rec.trading_symbol),
    exchange: SEGMENTS[str(rec.exchange)] ?? str(rec.exchange),
    action: str(rec.transaction_type),
    quantity: num(rec.quantity),
    price: num(rec.price),
    trigger_price: num(rec.trigger_price),
    pricetype: str(rec.order_type),
    product: product === 'D' ? 'CNC' : product === 'I' ? 'MIS' : product,
    order_status: KNOWN_STATUSES[status] ?? status.toLowerCase(),
    average_price: num(rec.average_price),
    filled_quantity: num(rec.filled_quantity),
    pending_quantity: num(rec.pending_quantity),
    rejection_reason: str(rec.status_message),
    timestamp: str(rec.order_timestamp ?? rec.exchange_timestamp),
    strategy: str(rec.tag),
  };
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

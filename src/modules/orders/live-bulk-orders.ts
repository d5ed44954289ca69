/**
 * cancelallorder and closeposition in live mode (docs/rules/orders.md#live-order-management):
 * every working order of the broker's order book cancelled, every open position closed by a
 * MARKET order placed like placeorder. LiveOrdersService answers with them.
 */
import type { BrokerResult } from '../brokers/broker-adapter.js';
import type { LiveBooks } from './live-books.js';
import type { LiveCallAnswer, PipelineAnswer } from './order-pipeline.types.js';
import type { OrderInput } from './order-rules.js';
import { closingAction } from '../../domain/orders.js';

/** Places one order as placeorder does (the pipeline, or the Action Center queue when `semiAuto`). */
export type PlaceOrder = (userId: number, order: OrderInput, semiAuto: boolean) => Promise<PipelineAnswer>;

/**
 * cancelallorder: every order of the day's book still working (`open`, `trigger pending`) is
 * cancelled one by one; success even when some fail (OpenAlgo's shape).
 */
export async function cancelAllOrders(books: LiveBooks, userId: number): Promise<LiveCallAnswer> {
  const r = await books.read(userId, 'orderBook');
  if (!r.ok) return r.answer;
  const b = await books.broker(userId);
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
export async function closeAllPositions(
  books: LiveBooks,
  place: PlaceOrder,
  userId: number,
  strategy: string | undefined,
  semiAuto: boolean,
): Promise<LiveCallAnswer> {
  const r = await books.read(userId, 'positions');
  if (!r.ok) return r.answer;
  const open = (await books.mapped(r.data, r.broker)).filter((p) => p.quantity !== 0);
  if (open.length === 0)
    return { status: 200, body: { status: 'success', message: 'No open positions to close' } };
  let closed = 0;
  for (const p of open) {
    const a = await place(
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

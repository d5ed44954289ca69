/**
 * How the Action Center says an order and an approval (docs/rules/orders.md#action-center); the
 * queue's shapes, queries and decisions are the feature's (web/src/features/desk/api/action-center.ts).
 */
import type { Outcome } from '../../../components/BookActions';
import type { ApproveAnswer, PendingOrder } from '../../../features/desk/api/action-center';
import { formatCount, formatPrice } from '../../../format-number';

export type {
  ApproveAllAnswer,
  ApproveAnswer,
  PendingOrder,
  QueueStatus as Status,
} from '../../../features/desk/api/action-center';

export const orderText = (p: PendingOrder) =>
  `${p.order.action} ${formatCount(p.order.quantity)} ${p.order.symbol} (${p.order.exchange}, ${p.order.product}, ${p.order.pricetype}${
    p.order.pricetype === 'LIMIT' || p.order.pricetype === 'SL'
      ? ` at ₹${formatPrice(Number(p.order.price))}`
      : ''
  })`;

export function approvedMessage(id: number, r: ApproveAnswer['result']): Outcome {
  return r.status === 'success'
    ? {
        ok: true,
        message: r.orderid
          ? `Pending order ${id} approved: placed as order ${r.orderid}.`
          : `Pending order ${id} approved${r.message ? `: ${r.message}` : '.'}`,
      }
    : {
        ok: false,
        message: `Pending order ${id} approved, but the order was refused: ${r.message ?? 'no reason given'}`,
      };
}

/**
 * The Action Center's queue as the server lists it (docs/rules/orders.md#action-center): the shape
 * of a queued order and of the answers, the query key the live socket refreshes
 * (docs/rules/orders.md#live-socket), the list query, and how an order and an approval are said.
 */
import { useQuery } from '@tanstack/react-query';
import { api } from '../../../api/client';
import type { Outcome } from '../../../components/BookActions';
import { formatCount, formatPrice } from '../../../format-number';

export type Status = 'pending' | 'approved' | 'rejected';

/** A queued order as `GET /action-center/api/orders` lists it (action-center.service.ts `toView`). */
export interface PendingOrder {
  id: number;
  api_type: string;
  order: {
    strategy: string;
    symbol: string;
    exchange: string;
    action: string;
    quantity: number;
    pricetype: string;
    product: string;
    price: string;
    trigger_price: string;
    disclosed_quantity: string;
    splitsize?: number;
  };
  status: Status;
  reason: string | null;
  orderid: string | null;
  /** The placement's answer, with its HTTP status (approved orders). */
  response: { http_status?: number; status?: string; message?: string; orderid?: string } | null;
  created_at: string;
  decided_at: string | null;
}
interface ListAnswer {
  status: 'success';
  data: PendingOrder[];
}
export interface ApproveAnswer {
  message: string;
  http_status: number;
  result: { status: string; orderid?: string; message?: string };
}
export interface ApproveAllAnswer {
  message: string;
  results: Array<{
    id: number;
    status: number;
    body: { status: string; orderid?: string; message?: string };
  }>;
}

export const KEY = 'action-center';

export function useOrders(status: Status, refetchInterval: number | false, enabled = true) {
  return useQuery({
    queryKey: [KEY, status],
    queryFn: () => {
      if (status === 'pending') return api<ListAnswer>('GET', '/action-center/api/orders?status=pending');
      if (status === 'approved') return api<ListAnswer>('GET', '/action-center/api/orders?status=approved');
      return api<ListAnswer>('GET', '/action-center/api/orders?status=rejected');
    },
    refetchInterval,
    enabled,
  });
}

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

/**
 * The Action Center's queue (docs/rules/orders.md#action-center): the pending, approved and
 * rejected orders, and the decisions on them — approve one (placed now), approve all (oldest
 * first), reject with a reason, delete. Each decision refreshes the queue's lists; a change from
 * another tab or instance comes over the live socket (docs/rules/orders.md#live-socket).
 */
import { useMutation, useQuery } from '@tanstack/react-query';
import { api, type Answer } from '../../../api/client';
import { useRefreshAfter, type AfterChange } from '../../../api/refresh';
import { actionCenterKeys } from './keys';

export type QueueStatus = 'pending' | 'approved' | 'rejected';
export type PendingOrder = Answer<'/action-center/api/orders'>['data'][number];
export type ApproveAnswer = Answer<'/action-center/api/orders/{id}/approve', 'post'>;
export type ApproveAllAnswer = Answer<'/action-center/api/orders/approve-all', 'post'>;
type Decided = Answer<'/action-center/api/orders/{id}/reject', 'post'>;

type ListAnswer = Answer<'/action-center/api/orders'>;

/** One tab's list, newest first; no polling while the live socket is up. */
export function usePendingOrders(status: QueueStatus, refetchInterval: number | false) {
  return useQuery({
    queryKey: actionCenterKeys.list(status),
    queryFn: () => {
      if (status === 'pending') return api<ListAnswer>('GET', '/action-center/api/orders?status=pending');
      if (status === 'approved') return api<ListAnswer>('GET', '/action-center/api/orders?status=approved');
      return api<ListAnswer>('GET', '/action-center/api/orders?status=rejected');
    },
    refetchInterval,
  });
}

const useRefreshQueue = <T, V>(after?: AfterChange<T, V>) => useRefreshAfter([actionCenterKeys.all()], after);

export function useApproveMutation(after?: AfterChange<ApproveAnswer, PendingOrder>) {
  return useMutation({
    mutationFn: (p: PendingOrder) => api<ApproveAnswer>('POST', `/action-center/api/orders/${p.id}/approve`),
    onSuccess: useRefreshQueue(after),
  });
}

export function useApproveAllMutation(after?: AfterChange<ApproveAllAnswer, void>) {
  return useMutation({
    mutationFn: () => api<ApproveAllAnswer>('POST', '/action-center/api/orders/approve-all'),
    onSuccess: useRefreshQueue(after),
  });
}

/** Rejects one order; the reason (1-500 characters) is kept with it. */
export function useRejectMutation(id: number, after?: AfterChange<Decided, string>) {
  return useMutation({
    mutationFn: (reason: string) =>
      api<Decided>('POST', `/action-center/api/orders/${id}/reject`, { reason }),
    onSuccess: useRefreshQueue(after),
  });
}

/** Removes one order from the queue without a decision on record. */
export function useDeletePendingMutation(after?: AfterChange<Decided, PendingOrder>) {
  return useMutation({
    mutationFn: (p: PendingOrder) =>
      api<Answer<'/action-center/api/orders/{id}', 'delete'>>('DELETE', `/action-center/api/orders/${p.id}`),
    onSuccess: useRefreshQueue(after),
  });
}

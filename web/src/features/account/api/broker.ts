/**
 * The signed-in user's broker connection (docs/rules/web.md#account-pages): its status in words
 * and "Disconnect"; "Connect" is a navigation to `/broker/login`, not a request.
 */
import { useMutation, useQuery } from '@tanstack/react-query';
import { api, type Answer } from '../../../api/client';
import { useRefreshAfter, type AfterChange } from '../../../api/refresh';
import { accountKeys } from './keys';

export type BrokerStatus = Answer<'/broker/api/status'>;
type Disconnected = Answer<'/broker/session', 'delete'>;

export function useBrokerStatus() {
  return useQuery({
    queryKey: accountKeys.brokerStatus(),
    queryFn: () => api<BrokerStatus>('GET', '/broker/api/status'),
  });
}

/** Forgets the stored broker session. */
export function useDisconnectBrokerMutation(after?: AfterChange<Disconnected, void>) {
  return useMutation({
    mutationFn: () => api<Disconnected>('DELETE', '/broker/session'),
    onSuccess: useRefreshAfter([accountKeys.brokerStatus()], after),
  });
}

/**
 * The signed-in user's broker connection (docs/rules/web.md#account-pages): its status in words
 * and "Disconnect"; "Connect" is a navigation to `/broker/login`, not a request, for a broker with
 * a redirect login, and a form posted to `/broker/login/form` for one that logs in with a form
 * (Angel One's client code, PIN and TOTP; Dhan's pasted token). The user's broker app is chosen
 * among the install's (`PUT /broker/api/app`, docs/rules/brokers.md#broker-apps), which ends their
 * session of another app.
 */
import { useMutation, useQuery } from '@tanstack/react-query';
import { api, type Answer } from '../../../api/client';
import { useRefreshAfter, type AfterChange } from '../../../api/refresh';
import { accountKeys } from './keys';

export type BrokerStatus = Answer<'/broker/api/status'>;
type Disconnected = Answer<'/broker/session', 'delete'>;
type LoggedIn = Answer<'/broker/login/form', 'post'>;
type Chosen = Answer<'/broker/api/app', 'put'>;

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

/** Logs in with the broker's form (the values of `login_fields`, by name). */
export function useFormLoginMutation(after?: AfterChange<LoggedIn, Record<string, string>>) {
  return useMutation({
    mutationFn: (values: Record<string, string>) => api<LoggedIn>('POST', '/broker/login/form', values),
    onSuccess: useRefreshAfter([accountKeys.brokerStatus()], after),
  });
}

/** Chooses the broker app the user trades through (their session, if any, ends). */
export function useChooseAppMutation(after?: AfterChange<Chosen, number>) {
  return useMutation({
    mutationFn: (appId: number) => api<Chosen>('PUT', '/broker/api/app', { app_id: appId }),
    onSuccess: useRefreshAfter([accountKeys.brokerStatus()], after),
  });
}

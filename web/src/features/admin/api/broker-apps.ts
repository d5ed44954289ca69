/**
 * The install's broker apps, for the administrator's `/admin/brokers` page
 * (docs/rules/brokers.md#broker-apps): the list (whether each key and secret is set, never its
 * value), a new app, a replace of what is given (empty fields keep what is stored) and a delete.
 * Each change refreshes the list and the signed-in user's `/broker` status (its apps to choose from).
 */
import { useMutation, useQuery } from '@tanstack/react-query';
import { api, type Answer } from '../../../api/client';
import { useRefreshAfter, type AfterChange } from '../../../api/refresh';
import { accountKeys } from '../../account/api/keys';
import { adminKeys } from './keys';

export type BrokerApp = Answer<'/admin/api/brokers'>['data'][number];
type Created = Answer<'/admin/api/brokers', 'post'>;
type Replaced = Answer<'/admin/api/brokers/{id}', 'put'>;
type Deleted = Answer<'/admin/api/brokers/{id}', 'delete'>;

/** The credentials an app may carry (each broker needs some of them). */
export interface AppCredentials {
  api_key?: string;
  api_secret?: string;
  redirect_url?: string;
}
export interface NewAppBody extends AppCredentials {
  label: string;
  broker: string;
}

export function useBrokerApps() {
  return useQuery({
    queryKey: adminKeys.brokerApps(),
    queryFn: () => api<Answer<'/admin/api/brokers'>>('GET', '/admin/api/brokers'),
  });
}

const useRefreshApps = <T, V>(after?: AfterChange<T, V>) =>
  useRefreshAfter([adminKeys.brokerApps(), accountKeys.brokerStatus()], after);

export function useCreateBrokerAppMutation(after?: AfterChange<Created, NewAppBody>) {
  return useMutation({
    mutationFn: (body: NewAppBody) => api<Created>('POST', '/admin/api/brokers', body),
    onSuccess: useRefreshApps(after),
  });
}

/** Replaces what `body` gives (label or credentials); the broker never changes. */
export function useReplaceBrokerAppMutation(id: number, after?: AfterChange<Replaced, AppCredentials>) {
  return useMutation({
    mutationFn: (body: AppCredentials) => api<Replaced>('PUT', `/admin/api/brokers/${id}`, body),
    onSuccess: useRefreshApps(after),
  });
}

/** Deletes an app: its users' choices and sessions go with it. */
export function useDeleteBrokerAppMutation(id: number, after?: AfterChange<Deleted, void>) {
  return useMutation({
    mutationFn: () => api<Deleted>('DELETE', `/admin/api/brokers/${id}`),
    onSuccess: useRefreshApps(after),
  });
}

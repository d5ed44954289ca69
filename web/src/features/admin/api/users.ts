/**
 * The administrator's accounts (docs/rules/auth.md#account-management): the list, a new user,
 * and per user the role, a password, two-factor reset, disable or enable, delete. Each change
 * refreshes the list.
 */
import { useMutation, useQuery } from '@tanstack/react-query';
import { api, type Answer } from '../../../api/client';
import { useRefreshAfter, type AfterChange } from '../../../api/refresh';
import { adminKeys } from './keys';

export type Account = Answer<'/admin/api/users'>['data'][number];
export interface NewUserBody {
  username: string;
  password: string;
  email: string | null;
  admin: boolean;
}
/** What can be done to one account after a confirmation. */
export type AccountAction =
  | { kind: 'password'; password: string }
  | { kind: 'totp' }
  | { kind: 'disable'; disabled: boolean }
  | { kind: 'delete' };

export function useUsers() {
  return useQuery({
    queryKey: adminKeys.users(),
    queryFn: () => api<Answer<'/admin/api/users'>>('GET', '/admin/api/users'),
  });
}

const useRefreshUsers = <T, V>(after?: AfterChange<T, V>) => useRefreshAfter([adminKeys.users()], after);

export function useCreateUserMutation(after?: AfterChange<Answer<'/admin/api/users', 'post'>, NewUserBody>) {
  return useMutation({
    mutationFn: (body: NewUserBody) =>
      api<Answer<'/admin/api/users', 'post'>>('POST', '/admin/api/users', body),
    onSuccess: useRefreshUsers(after),
  });
}

/** Makes an account an administrator, or no longer one. */
export function useSetAdminMutation(id: number) {
  return useMutation({
    mutationFn: (admin: boolean) =>
      api<Answer<'/admin/api/users/{id}/admin', 'post'>>('POST', `/admin/api/users/${id}/admin`, { admin }),
    onSuccess: useRefreshUsers(),
  });
}

export function useAccountActionMutation(id: number, after?: AfterChange<unknown, AccountAction>) {
  return useMutation({
    mutationFn: (action: AccountAction) => {
      switch (action.kind) {
        case 'password':
          return api('POST', `/admin/api/users/${id}/password`, { password: action.password });
        case 'totp':
          return api('POST', `/admin/api/users/${id}/2fa/reset`);
        case 'disable':
          return api('POST', `/admin/api/users/${id}/disabled`, { disabled: action.disabled });
        case 'delete':
          return api('DELETE', `/admin/api/users/${id}`);
      }
    },
    onSuccess: useRefreshUsers(after),
  });
}

/**
 * The shield, as `/logs/security` manages it (docs/rules/web.md#security-summary-page is its
 * read-only summary): bans, the trackers, the automatic-ban settings, the login
 * activity and every user's active sessions, with the changes the security page makes. A ban,
 * an unban, a settings change or a cleared 404 count refreshes every security query.
 */
import { useMutation, useQuery } from '@tanstack/react-query';
import { api, type Answer } from '../../../api/client';
import { useRefreshAfter, type AfterChange } from '../../../api/refresh';
import { securityKeys } from './keys';

export type SecurityData = Answer<'/security/api/data'>;
export type Ban = SecurityData['bans'][number];
export type SecuritySettings = SecurityData['settings'];
export type NotFoundTracker = SecurityData['error_404_tracker'][number];
export type ApiKeyTracker = SecurityData['invalid_api_key_tracker'][number];
export type LoginAttempt = Answer<'/security/api/login-activity'>['data'][number];
export type ActiveSession = Answer<'/security/api/active-sessions'>['data'][number];
export interface BanBody {
  ip: string;
  reason?: string;
  duration_hours?: number;
  permanent?: boolean;
}

export function useSecurityData() {
  return useQuery({
    queryKey: securityKeys.data(),
    queryFn: () => api<SecurityData>('GET', '/security/api/data'),
  });
}

/** The shield's figures (the dashboard's, for the administrator). */
export function useSecurityStats() {
  return useQuery({
    queryKey: securityKeys.stats(),
    queryFn: () => api<Answer<'/security/stats'>>('GET', '/security/stats'),
  });
}

export function useLoginActivity() {
  return useQuery({
    queryKey: securityKeys.loginActivity(),
    queryFn: () =>
      api<Answer<'/security/api/login-activity'>>('GET', '/security/api/login-activity?limit=100'),
  });
}

export function useActiveSessions() {
  return useQuery({
    queryKey: securityKeys.sessions(),
    queryFn: () => api<Answer<'/security/api/active-sessions'>>('GET', '/security/api/active-sessions'),
  });
}

const useRefreshSecurity = <T, V>(after?: AfterChange<T, V>) => useRefreshAfter([securityKeys.all()], after);

export function useBanMutation(after?: AfterChange<Answer<'/security/ban', 'post'>, BanBody>) {
  return useMutation({
    mutationFn: (body: BanBody) => api<Answer<'/security/ban', 'post'>>('POST', '/security/ban', body),
    onSuccess: useRefreshSecurity(after),
  });
}

/** Bans every address seen with a host name in the last 24 hours. */
export function useBanHostMutation() {
  return useMutation({
    mutationFn: (host: string) =>
      api<Answer<'/security/ban-host', 'post'>>('POST', '/security/ban-host', { host }),
    onSuccess: useRefreshSecurity(),
  });
}

export function useUnbanMutation() {
  return useMutation({
    mutationFn: (ip: string) => api<Answer<'/security/unban', 'post'>>('POST', '/security/unban', { ip }),
    onSuccess: useRefreshSecurity(),
  });
}

export function useSaveSecuritySettingsMutation() {
  return useMutation({
    mutationFn: (body: Record<string, number | boolean>) =>
      api<Answer<'/security/settings', 'post'>>('POST', '/security/settings', body),
    onSuccess: useRefreshSecurity(),
  });
}

/** Forgets an address's 404 count. */
export function useClear404Mutation() {
  return useMutation({
    mutationFn: (ip: string) =>
      api<Answer<'/security/clear-404', 'post'>>('POST', '/security/clear-404', { ip }),
    onSuccess: useRefreshSecurity(),
  });
}

export function useClearLoginActivityMutation() {
  return useMutation({
    mutationFn: () =>
      api<Answer<'/security/api/login-activity/clear', 'post'>>('POST', '/security/api/login-activity/clear'),
    onSuccess: useRefreshAfter([securityKeys.loginActivity()]),
  });
}

export function useRevokeSessionMutation() {
  return useMutation({
    mutationFn: (id: string) =>
      api<Answer<'/security/api/active-sessions/revoke', 'post'>>(
        'POST',
        '/security/api/active-sessions/revoke',
        {
          id,
        },
      ),
    onSuccess: useRefreshAfter([securityKeys.sessions()]),
  });
}

/**
 * The signed-in user's own account on /profile and /apikey: the password
 * (docs/rules/auth.md#account-management), two-factor — enrolment (the secret shown once,
 * docs/rules/auth.md#enrollment-secret-shown-once) and its switches behind a current code
 * (docs/rules/auth.md#totp-change-needs-a-code) —, and the API key with its order mode.
 */
import { useMutation, useQuery } from '@tanstack/react-query';
import { api, type Answer } from '../../../api/client';
import { useRefreshAfter, type AfterChange } from '../../../api/refresh';
import { authKeys } from './keys';

export type TwoFactorStatus = Answer<'/auth/2fa/status'>;
export type Enrollment = Answer<'/auth/2fa/setup', 'post'>;
export type KeyStatus = Answer<'/apikey'>;
export type CreatedKey = Answer<'/apikey', 'post'>;
export type OrderMode = KeyStatus['order_mode'];
export interface TwoFactorFlags {
  enabled: boolean;
  required_for_login: boolean;
  required_for_mcp: boolean;
  required_for_password_reset: boolean;
}
export interface PasswordChange {
  current_password: string;
  new_password: string;
  totp_code?: string;
}

export function useTwoFactorStatus() {
  return useQuery({
    queryKey: authKeys.twoFactor(),
    queryFn: () => api<TwoFactorStatus>('GET', '/auth/2fa/status'),
  });
}

/** A new secret and its QR code, kept by the page until a code confirms it. */
export function useEnrollMutation(after?: AfterChange<Enrollment, void>) {
  return useMutation({
    mutationFn: () => api<Enrollment>('POST', '/auth/2fa/setup'),
    ...(after?.onSuccess ? { onSuccess: after.onSuccess } : {}),
  });
}

/** The switches and the code that allows the change; the session's user follows. */
export function useConfigureTwoFactorMutation(
  after?: AfterChange<Answer<'/auth/2fa/configure', 'post'>, TwoFactorFlags & { totp_code: string }>,
) {
  return useMutation({
    mutationFn: (body: TwoFactorFlags & { totp_code: string }) =>
      api<Answer<'/auth/2fa/configure', 'post'>>('POST', '/auth/2fa/configure', body),
    onSuccess: useRefreshAfter([authKeys.twoFactor(), authKeys.session()], after),
  });
}

/** Every other session ends; this one stays. */
export function useChangePasswordMutation(
  after?: AfterChange<Answer<'/auth/password', 'post'>, PasswordChange>,
) {
  return useMutation({
    mutationFn: (body: PasswordChange) =>
      api<Answer<'/auth/password', 'post'>>('POST', '/auth/password', body),
    ...(after?.onSuccess ? { onSuccess: after.onSuccess } : {}),
  });
}

export function useApiKeyStatus() {
  return useQuery({ queryKey: authKeys.apiKey(), queryFn: () => api<KeyStatus>('GET', '/apikey') });
}

/** A new key (the old one stops at once): shown once by the page, never stored. */
export function useRegenerateKeyMutation(after?: AfterChange<CreatedKey, void>) {
  return useMutation({
    mutationFn: () => api<CreatedKey>('POST', '/apikey'),
    onSuccess: useRefreshAfter([authKeys.apiKey()], after),
  });
}

/** The key's order mode; the session's user carries it too. */
export function useOrderModeMutation(after?: { onError?: () => void }) {
  return useMutation({
    mutationFn: (mode: OrderMode) => api<Answer<'/apikey/mode', 'post'>>('POST', '/apikey/mode', { mode }),
    onSuccess: useRefreshAfter([authKeys.apiKey(), authKeys.session()]),
    ...(after?.onError ? { onError: after.onError } : {}),
  });
}

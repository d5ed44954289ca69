/**
 * Signing in, the first run's setup and the password reset (docs/rules/auth.md#login-with-totp,
 * docs/rules/auth.md#first-run-setup, docs/rules/auth.md#password-reset-paths). A 401 is these
 * forms' answer, not an expired session; signing in and setting up start a new session, whose
 * CSRF token is fetched anew (docs/rules/web.md#csrf).
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, forgetCsrfToken, type Answer } from '../../../api/client';
import type { AfterChange } from '../../../api/refresh';
import { authKeys } from './keys';

export { useSession, useSetupStatus, type User } from '../../../api/auth';

type LoginAnswer = Answer<'/auth/login', 'post'>;
export type ResetStep = Answer<'/auth/reset-password', 'post'>;

/** The password step: `pending_totp` when the account asks for a code next. */
export function useLoginMutation(after?: AfterChange<LoginAnswer, { username: string; password: string }>) {
  return useMutation({
    mutationFn: (body: { username: string; password: string }) =>
      api<LoginAnswer>('POST', '/auth/login', body, { quiet401: true }),
    ...(after?.onSuccess ? { onSuccess: after.onSuccess } : {}),
  });
}

/** The authenticator code within five minutes of the password. */
export function useTotpLoginMutation(after?: AfterChange<unknown, string>) {
  return useMutation({
    mutationFn: (code: string) =>
      api<Answer<'/auth/login/totp', 'post'>>(
        'POST',
        '/auth/login/totp',
        { totp_code: code },
        { quiet401: true },
      ),
    ...(after?.onSuccess ? { onSuccess: after.onSuccess } : {}),
  });
}

/** Signed in: the old CSRF token is forgotten and the session read again before the page moves on. */
export function useSignedIn(): () => Promise<void> {
  const queryClient = useQueryClient();
  return async () => {
    forgetCsrfToken();
    await queryClient.refetchQueries({ queryKey: authKeys.session() });
  };
}

export interface SetupForm {
  username: string;
  password: string;
  confirm: string;
  email: string;
}

/**
 * Creates the administrator and signs in as them; the passwords must match before anything is
 * sent. Someone who finished setup first leaves signing in as what is left.
 */
export function useSetupMutation(after?: AfterChange<Answer<'/auth/setup', 'post'>, SetupForm>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ username, password, confirm, email }: SetupForm) => {
      if (password !== confirm)
        throw new ApiError(400, 'validation_failed', 'The passwords differ', {
          confirm: ['Does not match the password.'],
        });
      return api<Answer<'/auth/setup', 'post'>>('POST', '/auth/setup', {
        username,
        password,
        email: email || null,
      });
    },
    onSuccess: async (answer, form) => {
      forgetCsrfToken();
      queryClient.setQueryData(authKeys.setup(), { needs_setup: false });
      queryClient.setQueryData(authKeys.session(), answer.user);
      await after?.onSuccess?.(answer, form);
    },
    onError: (err) => {
      if (err instanceof ApiError && err.code === 'setup_done')
        queryClient.setQueryData(authKeys.setup(), { needs_setup: false });
    },
  });
}

/** One step of the reset and the stage it leads to. */
export interface ResetRequest<S> {
  next: S;
  body: Record<string, string>;
}

export function useResetPasswordMutation<S>(
  after?: AfterChange<{ next: S; answer: ResetStep }, ResetRequest<S>>,
) {
  return useMutation({
    mutationFn: async ({ next, body }: ResetRequest<S>) => ({
      next,
      answer: await api<ResetStep>('POST', '/auth/reset-password', body, { quiet401: true }),
    }),
    ...(after?.onSuccess ? { onSuccess: after.onSuccess } : {}),
  });
}

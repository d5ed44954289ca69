/**
 * The analyzer's view of the sandbox (docs/rules/web.md#account-pages): the user's own analyzer
 * requests and answers, the sandbox account (funds, the configuration's facts, the price source)
 * and its reset; the trading mode's switch (docs/rules/orders.md#analyzer-mode-switch).
 */
import { useMutation, useQuery } from '@tanstack/react-query';
import { api, type Answer } from '../../../api/client';
import { useRefreshAfter, type AfterChange } from '../../../api/refresh';
import { authKeys } from '../../auth/api/keys';
import { deskKeys } from '../../desk/api/keys';
import { accountKeys } from './keys';

export type SandboxAccount = Answer<'/sandbox/api/account'>;
export type AnalyzerLog = Answer<'/sandbox/api/analyzer-log'>;
type ModeSwitched = Answer<'/settings/analyze-mode/{mode}', 'post'>;

/** The latest 100 requests, newest first; refreshed by live order events (their key). */
export function useAnalyzerLog(refetchInterval: number | false) {
  return useQuery({
    queryKey: accountKeys.analyzerLog(),
    queryFn: () => api<AnalyzerLog>('GET', '/sandbox/api/analyzer-log?limit=100'),
    refetchInterval,
  });
}

/** Under the log's key: an order event changes the account too. */
export function useSandboxAccount(refetchInterval: number | false) {
  return useQuery({
    queryKey: accountKeys.sandboxAccount(),
    queryFn: () => api<SandboxAccount>('GET', '/sandbox/api/account'),
    refetchInterval,
  });
}

/** `SANDBOX_SESSIONS` in words (docs/rules/sandbox.md#sessions-and-holidays). */
export const sessionsWords = (s: SandboxAccount['settings']['sessions']): string =>
  s === 'enforce'
    ? 'Kept: orders are taken and fill only in the exchange’s session on trading days'
    : 'Ignored: orders are taken and fill at any hour (SANDBOX_SESSIONS=ignore)';

/** Starts the sandbox account again: the analyzer's queries and the desk's books follow. */
export function useResetSandboxMutation(after?: AfterChange<Answer<'/sandbox/reset', 'post'>, void>) {
  return useMutation({
    mutationFn: () => api<Answer<'/sandbox/reset', 'post'>>('POST', '/sandbox/reset'),
    onSuccess: useRefreshAfter([accountKeys.analyzer(), deskKeys.all()], after),
  });
}

/**
 * Switches analyzer mode on (`analyze`) or off; the mode is read again (the books follow by
 * themselves: their queries are keyed by it).
 */
export function useSwitchModeMutation(after?: AfterChange<ModeSwitched, boolean>) {
  return useMutation({
    mutationFn: (analyze: boolean) => api<ModeSwitched>('POST', `/settings/analyze-mode/${analyze ? 1 : 0}`),
    onSuccess: useRefreshAfter([authKeys.mode()], after),
  });
}

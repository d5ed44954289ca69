/**
 * The analyzer's view of the sandbox (docs/rules/web.md#account-pages): the user's own analyzer
 * requests and answers, the sandbox account (funds with their charges, the configuration's facts,
 * the price source), its daily equity, the contract note's and the fills' CSV downloads
 * (docs/rules/sandbox.md#contract-note, #daily-equity) and its reset; the trading mode's switch
 * (docs/rules/orders.md#analyzer-mode-switch).
 */
import { useMutation, useQuery } from '@tanstack/react-query';
import { api, type Answer } from '../../../api/client';
import { useRefreshAfter, type AfterChange } from '../../../api/refresh';
import { authKeys } from '../../auth/api/keys';
import { deskKeys } from '../../desk/api/keys';
import { accountKeys } from './keys';

export type SandboxAccount = Answer<'/sandbox/api/account'>;
export type AnalyzerLog = Answer<'/sandbox/api/analyzer-log'>;
export type SandboxEquity = Answer<'/sandbox/api/equity'>;
export type EquityDay = SandboxEquity['data'][number];
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

/** The account day by day, oldest first (today's as it is now); under the log's key too. */
export function useSandboxEquity(refetchInterval: number | false) {
  return useQuery({
    queryKey: [...accountKeys.analyzer(), 'equity'] as const,
    queryFn: () => api<SandboxEquity>('GET', '/sandbox/api/equity'),
    refetchInterval,
  });
}

const IST_DAY = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'Asia/Kolkata',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
});

/** Today's IST day as the sandbox names days: `YYYY-MM-DD`. */
export function istToday(now = Date.now()): string {
  const part = (type: string) => IST_DAY.formatToParts(now).find((p) => p.type === type)?.value ?? '';
  return `${part('year')}-${part('month')}-${part('day')}`;
}

/**
 * The IST day's contract note as a CSV download (docs/rules/sandbox.md#contract-note): a plain
 * link, the session cookie authenticates it.
 */
export const contractNoteCsvUrl = (day: string): string =>
  `/sandbox/api/contract-note?${new URLSearchParams({ day, format: 'csv' }).toString()}`;

/** Every fill since the last reset with its charges, as a CSV download. */
export const FILLS_CSV_URL = '/sandbox/api/fills?format=csv';

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

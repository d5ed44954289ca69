/**
 * The strategy routes (docs/rules/strategies.md) as queries and mutations: the list, one
 * strategy, its runs, event trail and delivery audit, creation, and the strategy page's controls
 * (rotate, lock, live start, start, stop, delete). Each change refreshes every strategy query
 * (docs/rules/web.md#strategy-pages). The answers' types are in types.ts, by hand until the
 * routes declare their schemas.
 */
import { queryOptions, useMutation, useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../api/client';
import { ACTIVITY_REFRESH_MS, LIST_REFRESH_MS, strategyKeys } from './keys';
import type {
  CreatedAnswer,
  DeliveriesAnswer,
  EventsAnswer,
  Issued,
  RotatedAnswer,
  Run,
  RunAnswer,
  RunsAnswer,
  StrategiesAnswer,
  Strategy,
  StrategyAnswer,
} from './types';

export const strategyQueries = {
  list: () =>
    queryOptions({
      queryKey: strategyKeys.list(),
      queryFn: () => api<StrategiesAnswer>('GET', '/strategy/api/strategies'),
    }),
  view: (id: number) =>
    queryOptions({
      queryKey: strategyKeys.view(id),
      queryFn: () => api<StrategyAnswer>('GET', `/strategy/api/strategies/${id}`),
    }),
  /** The newest `limit` runs, newest first. */
  runs: (id: number, limit: number) =>
    queryOptions({
      queryKey: strategyKeys.runs(id, limit),
      queryFn: () => api<RunsAnswer>('GET', `/strategy/api/strategies/${id}/runs?limit=${limit}`),
    }),
  /** The event trail, filtered by the server (an empty filter is none). */
  events: (id: number, kind: string, severity: string) =>
    queryOptions({
      queryKey: strategyKeys.events(id, kind, severity),
      queryFn: () => {
        const query = new URLSearchParams({ limit: '200' });
        if (kind) query.set('kind', kind);
        if (severity) query.set('severity', severity);
        return api<EventsAnswer>('GET', `/strategy/api/strategies/${id}/events?${query.toString()}`);
      },
    }),
  deliveries: (id: number) =>
    queryOptions({
      queryKey: strategyKeys.deliveries(id),
      queryFn: () => api<DeliveriesAnswer>('GET', `/strategy/api/strategies/${id}/deliveries?limit=100`),
    }),
};

const listRefresh = { refetchInterval: LIST_REFRESH_MS };
const activityRefresh = { refetchInterval: ACTIVITY_REFRESH_MS };

export const useStrategies = () => useQuery({ ...strategyQueries.list(), ...listRefresh });
export const useStrategy = (id: number) => useQuery({ ...strategyQueries.view(id), ...activityRefresh });
export const useStrategyRuns = (id: number) =>
  useQuery({ ...strategyQueries.runs(id, 50), ...activityRefresh });
export const useStrategyEvents = (id: number, kind: string, severity: string) =>
  useQuery({ ...strategyQueries.events(id, kind, severity), ...activityRefresh });
export const useStrategyDeliveries = (id: number) =>
  useQuery({ ...strategyQueries.deliveries(id), ...activityRefresh });

/**
 * The active run of each running strategy of the list (its mode, whether it is stopping), read
 * as its newest run: `undefined` while unknown or when the strategy has none.
 */
export function useActiveRuns(strategies: readonly Strategy[]): (s: Strategy) => Run | undefined {
  const running = strategies.filter((s) => s.active_run_id !== null);
  const runs = useQueries({
    queries: running.map((s) => ({ ...strategyQueries.runs(s.id, 1), ...listRefresh })),
  });
  return (s) => {
    const i = running.indexOf(s);
    return i < 0 ? undefined : runs[i]?.data?.data.find((r) => r.id === s.active_run_id);
  };
}

/**
 * Creates a strategy. Its webhook credentials go to `handOff` (the page's memory) and not into
 * the mutation's state, which keeps only the new id (docs/rules/web.md#strategy-pages).
 */
export function useCreateStrategy(handOff: (id: number, issued: Issued) => void) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: Record<string, unknown>) => {
      const { data } = await api<CreatedAnswer>('POST', '/strategy/api/strategies', body);
      handOff(data.id, data);
      return data.id;
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: strategyKeys.all() }),
  });
}

/** A control of the strategy page. */
export type StrategyAction =
  | { call: 'rotate' }
  | { call: 'lock'; locked: boolean }
  | { call: 'live'; enabled: boolean }
  | { call: 'start'; mode: 'sandbox' | 'live' }
  | { call: 'stop' }
  | { call: 'delete' };

/** What a control answered: the new credentials, the run action's answer, or nothing to say. */
export type ActionAnswer = { issued: Issued } | { run: RunAnswer } | { done: true };

async function perform(id: number, a: StrategyAction): Promise<ActionAnswer> {
  switch (a.call) {
    case 'rotate': {
      const r = await api<RotatedAnswer>('POST', `/strategy/api/strategies/${id}/rotate-token`);
      return { issued: { webhook_token: r.data.webhook_token, webhook_url: r.data.webhook_url } };
    }
    case 'lock':
      await api('POST', `/strategy/api/strategies/${id}/lock`, { locked: a.locked });
      return { done: true };
    case 'live':
      await api('POST', `/strategy/api/strategies/${id}/live`, { enabled: a.enabled });
      return { done: true };
    case 'start':
      return { run: await api<RunAnswer>('POST', `/strategy/api/strategies/${id}/start`, { mode: a.mode }) };
    case 'stop':
      return { run: await api<RunAnswer>('POST', `/strategy/api/strategies/${id}/stop`) };
    case 'delete':
      await api('DELETE', `/strategy/api/strategies/${id}`);
      return { done: true };
  }
}

/**
 * The strategy page's controls as one mutation (one dialog open at a time, one request under
 * way). `onAnswer` says what happened; then every strategy query is refreshed — after a delete
 * the refresh comes first, as the page then leaves for the list.
 */
export function useStrategyAction(id: number, onAnswer: (a: StrategyAction, answer: ActionAnswer) => void) {
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: strategyKeys.all() });
  return useMutation({
    mutationFn: (a: StrategyAction) => perform(id, a),
    onSuccess: async (answer, a) => {
      if (a.call === 'delete') await refresh();
      onAnswer(a, answer);
      if (a.call !== 'delete') await refresh();
    },
  });
}

/**
 * The flow routes (docs/rules/flow.md) as queries and mutations: the list, a flow's runs,
 * saving (create or edit), the enabled switch, rotation and deletion. Each change refreshes the
 * list, as the pages always did.
 */
import { queryOptions, useMutation, useQuery } from '@tanstack/react-query';
import { api, type Answer } from '../../../api/client';
import { AUDIT_REFRESH_MS, integrationKeys } from './keys';
import { useRefreshing, useSaveSource } from './mutation';
import type { FlowInput, FlowIssued, Named } from './types';

export const flowQueries = {
  list: () =>
    queryOptions({
      queryKey: integrationKeys.flows(),
      queryFn: () => api<Answer<'/flow/api/flows'>>('GET', '/flow/api/flows'),
    }),
  /** A flow's last 100 runs, each with every node's outcome (#flow-runs). */
  runs: (id: number) =>
    queryOptions({
      queryKey: integrationKeys.flowRuns(id),
      queryFn: () => api<Answer<'/flow/api/flows/{id}/runs'>>('GET', `/flow/api/flows/${id}/runs?limit=100`),
      refetchInterval: AUDIT_REFRESH_MS,
    }),
};

export const useFlows = () => useQuery(flowQueries.list());
export const useFlowRuns = (id: number) => useQuery(flowQueries.runs(id));

/** Saves a flow: `PUT` an edit, or `POST` a new flow, whose token and secret are answered once. */
export const useSaveFlow = (id?: number) =>
  useSaveSource(
    id,
    integrationKeys.flows(),
    (id, body: FlowInput) => api<Answer<'/flow/api/flows/{id}', 'put'>>('PUT', `/flow/api/flows/${id}`, body),
    async (body: FlowInput): Promise<Named<FlowIssued>> => {
      const made = await api<Answer<'/flow/api/flows', 'post'>>('POST', '/flow/api/flows', body);
      return {
        name: made.data.name,
        webhook_token: made.webhook_token,
        webhook_url: made.webhook_url,
        secret: made.secret,
      };
    },
  );

/** Turns a flow on or off (a disabled flow's webhook is refused); refreshed even when refused. */
export const useFlowEnabled = (id: number) =>
  useRefreshing(
    (enabled: boolean) =>
      api<Answer<'/flow/api/flows/{id}', 'put'>>('PUT', `/flow/api/flows/${id}`, { enabled }),
    integrationKeys.flows(),
    'settled',
  );

export const useDeleteFlow = () =>
  useRefreshing(
    (id: number) => api<Answer<'/flow/api/flows/{id}', 'delete'>>('DELETE', `/flow/api/flows/${id}`),
    integrationKeys.flows(),
  );

/** A new token and secret (the old ones die at once); the list shows nothing of them. */
export const useRotateFlow = () =>
  useMutation({
    mutationFn: (id: number) =>
      api<Answer<'/flow/api/flows/{id}/rotate', 'post'>>('POST', `/flow/api/flows/${id}/rotate`),
  });

/**
 * Remote AI agents (docs/rules/mcp.md#mcp-settings): the settings, the kill switch, the OAuth
 * clients with approve and revoke, and the audit of tool calls (docs/rules/mcp.md#mcp-audit).
 * Every answer's type is generated from the routes' schemas (docs/rules/web.md#typed-api).
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type Answer } from '../../../api/client';
import { useRefreshAfter, type AfterChange } from '../../../api/refresh';
import { adminKeys } from './keys';

/** `GET /admin/api/oauth/clients`. */
type ClientsAnswer = Answer<'/admin/api/oauth/clients'>;
/** One registered client. */
export type OAuthClient = ClientsAnswer['data'][number];
export type ClientStatus = OAuthClient['status'];
export type ClientCounts = ClientsAnswer['counts'];
/** `GET` and `PUT /admin/api/mcp/settings`. */
type SettingsAnswer = Answer<'/admin/api/mcp/settings'>;
export type AgentSettings = SettingsAnswer['data'];
/** The settings form's body: a rate typed as something other than a whole number goes as typed. */
export type AgentSettingsBody = Omit<
  AgentSettings,
  'kill_switch' | 'token_rate_per_minute' | 'allowed_scopes'
> & {
  token_rate_per_minute: number | string;
  allowed_scopes: string[];
};
/** `POST /admin/api/mcp/kill-switch`. */
export type KillSwitchAnswer = Answer<'/admin/api/mcp/kill-switch', 'post'>;
export type AuditRow = Answer<'/admin/api/mcp/audit'>['data'][number];

export function useAgentSettings() {
  return useQuery({
    queryKey: adminKeys.agentSettings(),
    queryFn: () => api<SettingsAnswer>('GET', '/admin/api/mcp/settings'),
  });
}

/** Saves the settings; the answer is the stored settings, shown at once. */
export function useSaveAgentSettingsMutation(after?: AfterChange<SettingsAnswer, AgentSettingsBody>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: AgentSettingsBody) => api<SettingsAnswer>('PUT', '/admin/api/mcp/settings', body),
    onSuccess: async (saved, body) => {
      queryClient.setQueryData(adminKeys.agentSettings(), saved);
      await after?.onSuccess?.(saved, body);
    },
  });
}

/** Engages or releases the kill switch (the typed word confirms it); every agent query is asked again. */
export function useKillSwitchMutation(
  after?: AfterChange<KillSwitchAnswer, { engage: boolean; confirm: string }>,
) {
  return useMutation({
    mutationFn: (body: { engage: boolean; confirm: string }) =>
      api<KillSwitchAnswer>('POST', '/admin/api/mcp/kill-switch', body),
    onSuccess: useRefreshAfter([adminKeys.agents()], after),
  });
}

export function useOAuthClients() {
  return useQuery({
    queryKey: adminKeys.agentClients(),
    queryFn: () => api<ClientsAnswer>('GET', '/admin/api/oauth/clients'),
  });
}

export type ClientAction = { id: string; action: 'approve' | 'revoke' };

export function useClientActionMutation(after?: AfterChange<unknown, ClientAction>) {
  return useMutation({
    mutationFn: ({ id, action }: ClientAction) =>
      api('POST', `/admin/api/oauth/clients/${encodeURIComponent(id)}/${action}`),
    onSuccess: useRefreshAfter([adminKeys.agentClients()], after),
  });
}

/** One page of the audit, newest first: before the call `beforeId` when paging, with the filters. */
export function useAgentAudit(filters: { limit: number; beforeId?: number; tool: string; outcome: string }) {
  const params = new URLSearchParams({ limit: String(filters.limit) });
  if (filters.beforeId !== undefined) params.set('before_id', String(filters.beforeId));
  if (filters.tool) params.set('tool', filters.tool);
  if (filters.outcome) params.set('outcome', filters.outcome);
  return useQuery({
    queryKey: adminKeys.agentAudit(params.toString()),
    queryFn: () => api<Answer<'/admin/api/mcp/audit'>>('GET', `/admin/api/mcp/audit?${params.toString()}`),
  });
}

/**
 * Remote AI agents (docs/rules/mcp.md#mcp-settings): the settings, the kill switch, the OAuth
 * clients with approve and revoke, and the audit of tool calls (docs/rules/mcp.md#mcp-audit).
 *
 * The clients, settings and kill-switch routes declare no answer schema (their OpenAPI type is an
 * open object), so their answers are typed here by hand, from the MCP module's views; the audit's
 * is generated.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type Answer } from '../../../api/client';
import { useRefreshAfter, type AfterChange } from '../../../api/refresh';
import { adminKeys } from './keys';

export type ClientStatus = 'pending' | 'approved' | 'revoked';

/** `GET /admin/api/oauth/clients`: one registered client. */
export interface OAuthClient {
  client_id: string;
  name: string;
  redirect_uris: string[];
  status: ClientStatus;
  created_at: number;
  last_used_at: number | null;
  users: string[];
}
export interface ClientCounts {
  total: number;
  pending: number;
  approved: number;
  revoked: number;
}
interface ClientsAnswer {
  data: OAuthClient[];
  counts: ClientCounts;
}
/** `GET` and `PUT /admin/api/mcp/settings`. */
export interface AgentSettings {
  enabled: boolean;
  require_approval: boolean;
  writes_enabled: boolean;
  allowed_scopes: string[];
  token_rate_per_minute: number;
  kill_switch: boolean;
}
interface SettingsAnswer {
  data: AgentSettings;
}
/** The settings form's body: a rate typed as something other than a whole number goes as typed. */
export type AgentSettingsBody = Omit<AgentSettings, 'kill_switch' | 'token_rate_per_minute'> & {
  token_rate_per_minute: number | string;
};
/** `POST /admin/api/mcp/kill-switch`. */
export interface KillSwitchAnswer {
  kill_switch: boolean;
  revoked_tokens: number;
}
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

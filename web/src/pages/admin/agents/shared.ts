/**
 * What the agents page's parts share: the server's shapes, query keys, labels and formatting
 * (AgentsPage.tsx; docs/rules/mcp.md#mcp-settings).
 */
import { fieldError } from '../../../api/client';
import { istDateTime } from '../../../ist-time';

export type ClientStatus = 'pending' | 'approved' | 'revoked';

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
export interface Settings {
  enabled: boolean;
  require_approval: boolean;
  writes_enabled: boolean;
  allowed_scopes: string[];
  token_rate_per_minute: number;
  kill_switch: boolean;
}
export interface AuditRow {
  id: number;
  ts: number;
  transport: string;
  client_id: string | null;
  user_id: number | null;
  tool: string;
  scope: string | null;
  http_status: number;
  outcome: string;
  duration_ms: number;
  ip: string;
}

export const SETTINGS_KEY = ['admin', 'mcp', 'settings'] as const;
export const CLIENTS_KEY = ['admin', 'mcp', 'clients'] as const;
/** The scopes an agent may be given (`MCP_SCOPES` of mcp-tools.ts), as a person reads them. */
export const SCOPES = [
  { value: 'read:market', label: 'read:market', text: 'Quotes, depth, history, option chains, calendars' },
  { value: 'read:account', label: 'read:account', text: 'Funds, order and trade books, positions, holdings' },
  { value: 'write:orders', label: 'write:orders', text: 'Place, modify and cancel orders; start strategies' },
];
export const SETTING_FIELDS = [
  'enabled',
  'require_approval',
  'writes_enabled',
  'allowed_scopes',
  'token_rate_per_minute',
];
export const STATUS_COLOR: Record<string, string> = { pending: 'yellow', approved: 'green', revoked: 'gray' };
export const OUTCOME_COLOR: Record<string, string> = { ok: 'green', refused: 'orange', error: 'red' };
export const PAGE = 50;

/** A time of the audit, in IST (docs/rules/web.md#times-in-ist: its heading says "(IST)"). */
export const when = (ms: number) => istDateTime(ms);
/** A date and time of the clients' table, in IST (its headings say "(IST)"). */
export const day = (ms: number) => istDateTime(ms);

/** Messages for a field and its items (`allowed_scopes.0`). */
export const under = (err: unknown, field: string) =>
  [fieldError(err, field), fieldError(err, `${field}.0`), fieldError(err, `${field}.1`)]
    .filter(Boolean)
    .join(' ') || undefined;

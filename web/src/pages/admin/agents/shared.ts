/**
 * What the agents page's parts share: the server's shapes (from the feature's API,
 * web/src/features/admin/api/agents.ts), labels and formatting (AgentsPage.tsx;
 * docs/rules/mcp.md#mcp-settings).
 */
import { fieldError } from '../../../api/client';
import { istDateTime } from '../../../ist-time';

export type {
  AgentSettings as Settings,
  AuditRow,
  ClientCounts,
  ClientStatus,
  OAuthClient,
} from '../../../features/admin/api/agents';

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

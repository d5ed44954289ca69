/** Row types of the other integrations' tables (scanner alerts: migration 0017; flows: 0018; agents: 0019). */
import type { DbBool, Id } from './column-types.js';

export interface ScannersTable {
  id: Id;
  user_id: number;
  name: string;
  action: string;
  exchange: string;
  product: string;
  quantity: number | null;
  capital: number | null;
  /** JSON object `{SYMBOL: quantity}`. */
  overrides: string;
  window_start: string;
  window_end: string;
  squareoff_time: string | null;
  max_symbols: number;
  mode: string;
  enabled: DbBool;
  live_enabled: DbBool;
  /** SHA-256 of the webhook id; null once deleted. */
  webhook_digest: string | null;
  squared_off_day: string | null;
  deleted_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface ScannerOrdersTable {
  id: Id;
  scanner_id: number;
  delivery_id: number | null;
  day: string;
  kind: string;
  symbol: string;
  exchange: string;
  product: string;
  side: string;
  quantity: number;
  mode: string;
  orderid: string;
  created_at: number;
}

export interface FlowsTable {
  id: Id;
  user_id: number;
  name: string;
  definition: string;
  enabled: DbBool;
  /** SHA-256 of the webhook token; null once deleted. */
  webhook_digest: string | null;
  secret_digest: string;
  deleted_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface McpAuditTable {
  id: Id;
  ts: number;
  /** `stdio` (a local agent) or `http` (a remote one). */
  transport: string;
  client_id: string | null;
  user_id: number | null;
  tool: string;
  scope: string | null;
  /** SHA-256 of the arguments' canonical JSON (the arguments themselves are never stored). */
  args_digest: string;
  http_status: number;
  /** `ok`, `error` or `refused`. */
  outcome: string;
  duration_ms: number;
  ip: string;
}

export interface OauthClientsTable {
  client_id: string;
  name: string;
  redirect_uris: string;
  status: string;
  created_at: number;
  last_used_at: number | null;
}

export interface OauthCodesTable {
  code_digest: string;
  client_id: string;
  user_id: number;
  redirect_uri: string;
  scope: string;
  code_challenge: string;
  expires_at: number;
  used_at: number | null;
}

export interface OauthTokensTable {
  id: Id;
  token_digest: string;
  kind: string;
  client_id: string;
  user_id: number;
  scope: string;
  family: string;
  expires_at: number;
  used_at: number | null;
  revoked_at: number | null;
  created_at: number;
}

export interface McpSettingsTable {
  id: number;
  enabled: DbBool;
  require_approval: DbBool;
  writes_enabled: DbBool;
  allowed_scopes: string;
  token_rate_per_minute: number;
  kill_switch: DbBool;
  updated_at: number;
}

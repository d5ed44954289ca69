import type {
  SandboxAccountsTable,
  SandboxOrdersTable,
  SandboxOrderEventsTable,
  SandboxTradesTable,
  SandboxPositionsTable,
  SandboxHoldingsTable,
  SandboxEquityDaysTable,
  SandboxGttsTable,
  OrderLogsTable,
  OrderLatencyTable,
  PendingOrdersTable,
  BrokerSessionsTable,
  BrokerAppsTable,
  BrokerAppChoicesTable,
  AlertSettingsTable,
  StrategiesTable,
  StrategyLegsTable,
  StrategyRunsTable,
  StrategyOrdersTable,
  StrategyPositionsTable,
  StrategyEventsTable,
  WebhookDeliveriesTable,
  WebhookDedupeTable,
} from './schema-trading.js';
export type { ErrorLogTable, ErrorLogCountsTable } from './schema-observability.js';

/**
 * Row types of every table, shared by both dialects. Times are epoch milliseconds; booleans are
 * `DbBool` (column-types.ts).
 */
export type { DbBool, Id };

export interface SettingsTable {
  id: number;
  analyze_mode: DbBool;
  smtp_server: string | null;
  smtp_port: number;
  smtp_username: string | null;
  smtp_password_encrypted: string | null;
  smtp_use_tls: DbBool;
  smtp_from_email: string | null;
  smtp_helo_hostname: string | null;
  security_auto_ban_enabled: DbBool;
  security_404_threshold: number;
  security_404_ban_duration: number;
  security_api_threshold: number;
  security_api_ban_duration: number;
  security_repeat_offender_limit: number;
  updated_at: number;
}

export interface UsersTable {
  id: Id;
  username: string;
  email: string | null;
  password_hash: string;
  is_admin: DbBool;
  /** `auto` sends orders on; `semi_auto` queues them in the Action Center. */
  order_mode: string;
  totp_secret: string | null;
  totp_enabled: DbBool;
  totp_required_for_login: DbBool;
  totp_required_for_mcp: DbBool;
  totp_required_for_password_reset: DbBool;
  created_at: number;
  /** RFC 6238 step of the last accepted code; only a later step is accepted (replay protection). */
  totp_last_step: number | null;
  /** SecretBox ciphertext of an enrollment not yet confirmed with a code. */
  totp_pending_secret: string | null;
  /** When an administrator disabled the account (epoch ms); null while it is enabled. */
  disabled_at: number | null;
}

/** A correct password waiting for its login code (five minutes). */
export interface PendingTotpLoginsTable {
  /** SHA-256 of the pending cookie's value. */
  id: string;
  user_id: number;
  created_at: number;
  expires_at: number;
  ip: string | null;
  user_agent: string | null;
}

/** A password-reset token handed out (e-mailed link or after a TOTP code): 15 minutes, single use. */
export interface PasswordResetsTable {
  /** SHA-256 of the token. */
  id: string;
  user_id: number;
  method: 'email' | 'totp';
  created_at: number;
  expires_at: number;
  used_at: number | null;
  ip: string | null;
}

export interface SessionsTable {
  /** SHA-256 of the cookie value: the database never holds a usable session id. */
  id: string;
  user_id: number;
  csrf_token: string;
  created_at: number;
  last_seen_at: number;
  /** Absolute expiry (creation + SESSION_MAX_HOURS). */
  expires_at: number;
  ip: string | null;
  user_agent: string | null;
  totp_verified_at: number | null;
}

export interface ApiKeysTable {
  /** One active key per user: regenerating replaces the row. */
  user_id: number;
  /** HMAC-SHA-256(API_KEY_PEPPER, key), hex. */
  key_digest: string;
  created_at: number;
}

export interface LoginActivityTable {
  id: Id;
  ts: number;
  ip: string;
  username: string;
  success: DbBool;
  user_agent: string | null;
}

export interface IpBansTable {
  id: Id;
  ip: string;
  reason: string;
  /** Automatic (and manual) bans of this address so far. */
  ban_count: number;
  /** `auto` or the administrator's username. */
  created_by: string;
  created_at: number;
  /** Null: permanent. In the past: no longer blocking (kept for the repeat-offender rule). */
  expires_at: number | null;
}

export interface Error404TrackerTable {
  ip: string;
  count: number;
  /** JSON array of up to 50 distinct paths (masked). */
  paths: string;
  first_seen: number;
  last_seen: number;
}

export interface InvalidApiKeyTrackerTable {
  ip: string;
  count: number;
  /** JSON array of up to 20 HMAC digests of presented keys; never raw keys. */
  key_digests: string;
  first_seen: number;
  last_seen: number;
}

export interface TrafficLogTable {
  id: Id;
  ts: number;
  ip: string;
  method: string;
  /** Path with webhook tokens masked and the query string dropped (`maskUrl`). */
  path: string;
  /** Dashboard grouping, e.g. `/api/v1/ping`, `/security`, `/auth`, `(unmatched)`. */
  endpoint_group: string;
  status: number;
  duration_ms: number;
  /** The request's Host header (validated, lower-cased), for `/security/ban-host`. */
  host: string | null;
  user_id: number | null;
}

export interface ContractImportsTable {
  id: Id;
  broker: string;
  source: string;
  /** `pending` | `downloading` | `success` | `error`. */
  status: string;
  started_at: number;
  finished_at: number | null;
  row_count: number;
  skipped_count: number;
  summary: string | null;
  message: string | null;
}

export interface InstrumentsTable {
  id: Id;
  /** The `contract_imports.id` that wrote the row; only the live generation is read. */
  generation: number;
  symbol: string;
  brsymbol: string;
  name: string;
  exchange: string;
  brexchange: string;
  token: string;
  expiry: string | null;
  expiry_date: string | null;
  strike: number | null;
  lotsize: number;
  instrumenttype: string;
  tick_size: number;
  underlying: string | null;
  search_key: string;
  /** The price the broker's file states (rupees), null when none: the simulated prices' reference. */
  reference_price: number | null;
}

export interface QtyFreezeTable {
  id: Id;
  exchange: string;
  symbol: string;
  freeze_qty: number;
}

export interface MarketHolidaysTable {
  id: Id;
  holiday_date: string;
  description: string;
  holiday_type: string;
  year: number;
}

export interface MarketHolidayExchangesTable {
  id: Id;
  holiday_id: number;
  exchange_code: string;
  is_open: DbBool;
  start_time: number | null;
  end_time: number | null;
}

export interface MarketTimingsTable {
  id: Id;
  exchange: string;
  start_time: string;
  end_time: string;
  updated_at: number;
}

/** A user's market watch list (migration 0026; docs/rules/watchlists.md). */
export interface WatchlistsTable {
  id: Id;
  user_id: number;
  /** Trimmed, NFC, 1-40 characters; unique per user. */
  name: string;
  /** Ascending among the user's lists (ties by id). */
  position: number;
  created_at: number;
}

/** An instrument of a watch list (migration 0026): the master contract's symbol and exchange. */
export interface WatchlistItemsTable {
  id: Id;
  watchlist_id: number;
  symbol: string;
  exchange: string;
  /** Ascending within the list (ties by id). */
  position: number;
  created_at: number;
}

export type {
  SandboxAccountsTable,
  SandboxOrdersTable,
  SandboxOrderEventsTable,
  SandboxTradesTable,
  SandboxPositionsTable,
  SandboxHoldingsTable,
  SandboxEquityDaysTable,
  SandboxGttsTable,
  OrderLogsTable,
  OrderLatencyTable,
  PendingOrdersTable,
  BrokerSessionsTable,
  BrokerAppsTable,
  BrokerAppChoicesTable,
  AlertSettingsTable,
  StrategiesTable,
  StrategyLegsTable,
  StrategyRunsTable,
  StrategyOrdersTable,
  StrategyPositionsTable,
  StrategyEventsTable,
  WebhookDeliveriesTable,
  WebhookDedupeTable,
} from './schema-trading.js';
import type { ErrorLogTable, ErrorLogCountsTable } from './schema-observability.js';
import type {
  ScannersTable,
  ScannerOrdersTable,
  FlowsTable,
  McpAuditTable,
  OauthClientsTable,
  OauthCodesTable,
  OauthTokensTable,
  McpSettingsTable,
} from './schema-integrations.js';
import type { DbBool, Id } from './column-types.js';

/**
 * The WhatsApp Cloud API columns of `alert_settings` (migration 0022), for the notify API
 * (docs/rules/alerts.md#notify-api); the table's other columns are `AlertSettingsTable`.
 */
export interface AlertSettingsWhatsAppColumns {
  /** SecretBox ciphertext (purpose `whatsapp-token`) of the access token. */
  whatsapp_access_token_encrypted: string | null;
  /** The business phone number's id in the Graph API (digits). */
  whatsapp_phone_number_id: string | null;
  /** The user's own number for `self` (E.164 digits, no `+`). */
  whatsapp_own_number: string | null;
}

export interface DB {
  error_log: ErrorLogTable;
  error_log_counts: ErrorLogCountsTable;
  contract_imports: ContractImportsTable;
  instruments: InstrumentsTable;
  qty_freeze: QtyFreezeTable;
  market_holidays: MarketHolidaysTable;
  market_holiday_exchanges: MarketHolidayExchangesTable;
  market_timings: MarketTimingsTable;
  traffic_log: TrafficLogTable;
  ip_bans: IpBansTable;
  error_404_tracker: Error404TrackerTable;
  invalid_api_key_tracker: InvalidApiKeyTrackerTable;
  settings: SettingsTable;
  users: UsersTable;
  sessions: SessionsTable;
  pending_totp_logins: PendingTotpLoginsTable;
  password_resets: PasswordResetsTable;
  strategies: StrategiesTable;
  strategy_legs: StrategyLegsTable;
  strategy_runs: StrategyRunsTable;
  strategy_orders: StrategyOrdersTable;
  strategy_positions: StrategyPositionsTable;
  strategy_events: StrategyEventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_dedupe: WebhookDedupeTable;
  scanners: ScannersTable;
  scanner_orders: ScannerOrdersTable;
  flows: FlowsTable;
  mcp_audit: McpAuditTable;
  oauth_clients: OauthClientsTable;
  oauth_codes: OauthCodesTable;
  oauth_tokens: OauthTokensTable;
  mcp_settings: McpSettingsTable;
  api_keys: ApiKeysTable;
  login_activity: LoginActivityTable;
  sandbox_accounts: SandboxAccountsTable;
  sandbox_orders: SandboxOrdersTable;
  sandbox_order_events: SandboxOrderEventsTable;
  sandbox_trades: SandboxTradesTable;
  sandbox_positions: SandboxPositionsTable;
  sandbox_holdings: SandboxHoldingsTable;
  sandbox_equity_days: SandboxEquityDaysTable;
  sandbox_gtts: SandboxGttsTable;
  order_logs: OrderLogsTable;
  analyzer_logs: OrderLogsTable;
  order_latency: OrderLatencyTable;
  pending_orders: PendingOrdersTable;
  broker_sessions: BrokerSessionsTable;
  broker_apps: BrokerAppsTable;
  broker_app_choices: BrokerAppChoicesTable;
  alert_settings: AlertSettingsTable & AlertSettingsWhatsAppColumns;
  watchlists: WatchlistsTable;
  watchlist_items: WatchlistItemsTable;
}

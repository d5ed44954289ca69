import type { ColumnType, Generated } from 'kysely';

/**
 * Row types of every table, shared by both dialects. Times are epoch milliseconds; booleans are
 * written as 0/1 and read as 0/1 (SQLite) or true/false (PostgreSQL): see `fromDbBool`.
 */
export type DbBool = ColumnType<number | boolean, number, number>;
export type Id = Generated<number>;

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

/** Sandbox tables (issue 5). Money columns are ten-thousandths of a rupee (sandbox/money.ts). */
export interface SandboxAccountsTable {
  user_id: number;
  starting_funds: number;
  available: number;
  used_margin: number;
  realised_pnl: number;
  reset_at: number;
  updated_at: number;
}

export interface SandboxOrdersTable {
  id: Id;
  user_id: number;
  symbol: string;
  exchange: string;
  side: string;
  price_type: string;
  product: string;
  kind: string;
  quantity: number;
  price: number;
  trigger_price: number;
  status: string;
  filled_quantity: number;
  average_price: number;
  blocked_margin: number;
  blocked_quantity: number;
  reason: string | null;
  strategy: string | null;
  day: string;
  created_at: number;
  updated_at: number;
}

export interface SandboxOrderEventsTable {
  id: Id;
  order_id: number;
  user_id: number;
  from_status: string | null;
  to_status: string;
  detail: string | null;
  at: number;
}

export interface SandboxTradesTable {
  id: Id;
  order_id: number;
  user_id: number;
  symbol: string;
  exchange: string;
  side: string;
  product: string;
  quantity: number;
  price: number;
  strategy: string | null;
  created_at: number;
}

export interface SandboxPositionsTable {
  id: Id;
  user_id: number;
  symbol: string;
  exchange: string;
  product: string;
  quantity: number;
  cost: number;
  margin: number;
  realised_pnl: number;
  day: string;
  updated_at: number;
}

export interface SandboxHoldingsTable {
  id: Id;
  user_id: number;
  symbol: string;
  exchange: string;
  quantity: number;
  cost: number;
  updated_at: number;
}

/** Order log (live) and analyzer log (analyzer mode); one row per order event. */
export interface OrderLogsTable {
  id: Id;
  user_id: number | null;
  event: string;
  api_type: string;
  broker: string | null;
  order_id: string | null;
  status_code: number;
  request: string;
  response: string;
  created_at: number;
}

export interface OrderLatencyTable {
  id: Id;
  label: string;
  user_id: number | null;
  broker: string;
  symbol: string;
  order_id: string | null;
  status: string;
  total_ms: number;
  broker_ms: number;
  validation_ms: number;
  overhead_ms: number;
  created_at: number;
}

export interface PendingOrdersTable {
  id: Id;
  user_id: number;
  api_type: string;
  request: string;
  status: string;
  reason: string | null;
  order_id: string | null;
  response: string | null;
  created_at: number;
  decided_at: number | null;
}

export interface BrokerSessionsTable {
  user_id: number;
  broker: string;
  access_token_encrypted: string;
  broker_user_id: string | null;
  expires_at: number | null;
  created_at: number;
}

/** Chat alerts per user (orders issue): secrets sealed (SecretBox). */
export interface AlertSettingsTable {
  user_id: number;
  telegram_enabled: DbBool;
  telegram_bot_token_encrypted: string | null;
  telegram_chat_id: string | null;
  slack_enabled: DbBool;
  slack_webhook_url_encrypted: string | null;
  /** `all` | `failures` | `placed`. */
  notify_on: string;
  updated_at: number;
}

/** A batch or signal strategy (issue 7). */
export interface StrategiesTable {
  id: Id;
  user_id: number;
  name: string;
  kind: string;
  product: string;
  direction: string;
  token_digest: string;
  ip_allowlist: string;
  locked: DbBool;
  live_enabled: DbBool;
  active_run_id: number | null;
  last_stop_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface StrategyLegsTable {
  id: Id;
  strategy_id: number;
  position: number;
  leg_type: string;
  symbol: string | null;
  exchange: string;
  underlying: string | null;
  expiry_rank: number | null;
  option_type: string | null;
  strike_offset: number | null;
  quantity: number;
  quantity_unit: string;
  side: string | null;
}

export interface StrategyRunsTable {
  id: Id;
  strategy_id: number;
  mode: string;
  status: string;
  started_at: number;
  stop_requested_at: number | null;
  stopped_at: number | null;
}

export interface StrategyOrdersTable {
  id: Id;
  run_id: number;
  strategy_id: number;
  leg_id: number;
  symbol: string;
  exchange: string;
  action: string;
  quantity: number;
  purpose: string;
  status: string;
  order_id: string | null;
  message: string | null;
  created_at: number;
  updated_at: number;
}

export interface StrategyPositionsTable {
  run_id: number;
  leg_id: number;
  symbol: string;
  exchange: string;
  net: number;
  updated_at: number;
}

export interface StrategyEventsTable {
  id: Id;
  strategy_id: number;
  run_id: number | null;
  ts: number;
  kind: string;
  severity: string;
  leg_id: number | null;
  message: string;
  payload: string | null;
}

export interface WebhookDeliveriesTable {
  id: Id;
  strategy_id: number | null;
  ts: number;
  ip: string;
  result: string;
  http_status: number;
  action: string | null;
  mode: string | null;
  run_id: number | null;
  message: string;
  payload: string | null;
  duration_ms: number;
}

export interface WebhookDedupeTable {
  strategy_id: number;
  fingerprint: string;
  at: number;
}

/** Warnings and errors of the server's log and of browsers (observability issue); bounded. */
export interface ErrorLogTable {
  id: Id;
  created_at: number;
  /** `warn`, `error` or `fatal`. */
  level: string;
  /** `server` (the process log) or `client` (a browser report). */
  origin: string;
  module: string | null;
  message: string;
  /** `Type: message` of the logged exception. */
  exception: string | null;
  stack: string | null;
  request_id: string | null;
  method: string | null;
  path: string | null;
  user_id: number | null;
  url: string | null;
  user_agent: string | null;
  component_stack: string | null;
  /** Other fields of the record as JSON (already redacted), capped. */
  context: string | null;
  /** Hash of level + module + normalised message (groups). */
  fingerprint: string;
}

export interface DB {
  error_log: ErrorLogTable;
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
  api_keys: ApiKeysTable;
  login_activity: LoginActivityTable;
  sandbox_accounts: SandboxAccountsTable;
  sandbox_orders: SandboxOrdersTable;
  sandbox_order_events: SandboxOrderEventsTable;
  sandbox_trades: SandboxTradesTable;
  sandbox_positions: SandboxPositionsTable;
  sandbox_holdings: SandboxHoldingsTable;
  order_logs: OrderLogsTable;
  analyzer_logs: OrderLogsTable;
  order_latency: OrderLatencyTable;
  pending_orders: PendingOrdersTable;
  broker_sessions: BrokerSessionsTable;
  alert_settings: AlertSettingsTable;
}

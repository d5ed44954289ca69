/**
 * Row types of the trading tables: the sandbox (analyzer mode), order placement and alerts,
 * strategies. Split from schema.ts, which re-exports them and lists every table
 * in `DB`.
 */
import type { ColumnType } from 'kysely';
import type { DbBool, Id } from './column-types.js';

/** Sandbox tables (analyzer mode). Money columns are ten-thousandths of a rupee (domain/money.ts). */
export interface SandboxAccountsTable {
  user_id: number;
  starting_funds: number;
  available: number;
  used_margin: number;
  realised_pnl: number;
  /** Charges every fill since the last reset paid (docs/rules/sandbox.md#charges-booked). */
  charges: number;
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
  /** The caller's reference (a strategy order's tag), to find the order after a restart. */
  tag: ColumnType<string | null, string | null | undefined, string | null>;
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
  /** The fill's charges by kind and their total (docs/rules/sandbox.md#charges-booked). */
  brokerage: number;
  stt: number;
  exchange_charges: number;
  sebi_fee: number;
  stamp_duty: number;
  gst: number;
  charges: number;
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
  /** What the position row's fills paid in charges (docs/rules/sandbox.md#charges-booked). */
  charges: number;
  day: string;
  updated_at: number;
}

/** A sandbox GTT order (docs/rules/sandbox.md#gtt-orders). */
export interface SandboxGttsTable {
  id: Id;
  user_id: number;
  strategy: string | null;
  symbol: string;
  exchange: string;
  /** `single` or `oco`. */
  type: string;
  side: string;
  product: string;
  quantity: number;
  price_type: string;
  trigger_sl: number | null;
  price_sl: number | null;
  trigger_tg: number | null;
  price_tg: number | null;
  last_price: number;
  blocked_margin: number;
  /** active | triggered | cancelled | expired | rejected. */
  status: string;
  fired_leg: string | null;
  order_id: number | null;
  reason: string | null;
  expires_at: number;
  created_at: number;
  updated_at: number;
}

/** One account's day as it ended (docs/rules/sandbox.md#daily-equity). */
export interface SandboxEquityDaysTable {
  id: Id;
  user_id: number;
  day: string;
  available: number;
  used_margin: number;
  realised_pnl: number;
  charges: number;
  unrealised_pnl: number;
  holdings_value: number;
  equity: number;
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
  /** When the socket and chat alerts were fed from this row; null until then (the outbox). */
  dispatched_at: ColumnType<number | null, number | null | undefined, number | null>;
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
  /** Sealed refresh token (Angel One), null when the broker gave none (migration 0029). */
  refresh_token_encrypted: string | null;
  /** Sealed market-feed token (Angel One's SmartStream), null when none (migration 0029). */
  feed_token_encrypted: string | null;
  /** The broker app the session was made with; null: the bootstrap app (`BROKER_*`, migration 0030). */
  broker_app_id: number | null;
}

/** A broker app added in the console (migration 0030): its secrets sealed (SecretBox `broker-app`). */
export interface BrokerAppsTable {
  id: Id;
  /** Unique, 1-64 characters: how users tell apps apart. */
  label: string;
  broker: string;
  api_key_encrypted: string | null;
  api_secret_encrypted: string | null;
  redirect_url: string | null;
  created_at: number;
  updated_at: number;
}

/** The broker app each user trades through (migration 0030); no row: the bootstrap app. */
export interface BrokerAppChoicesTable {
  user_id: number;
  broker_app_id: number;
  chosen_at: number;
}

/** Chat alerts per user: secrets sealed (SecretBox). */
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

/** A batch or signal strategy (docs/rules/strategies.md#strategy-management). */
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
  signal_lease_until: number | null;
  /** The instance holding the strategy's lease, and when it took it. */
  signal_lease_holder: ColumnType<string | null, string | null | undefined, string | null>;
  signal_lease_started: ColumnType<number | null, number | null | undefined, number | null>;
  created_at: number;
  updated_at: number;
  /** Set when the strategy was deleted: the row stays for its trail (token dead, name freed). */
  deleted_at: ColumnType<number | null, number | null | undefined, number | null>;
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
  /** `recorded` (answer not recorded yet), `placed` (working), `filled`, `dead`, `rejected`. */
  status: string;
  order_id: string | null;
  message: string | null;
  /** What the order filled (known once it is `filled` or `dead`). */
  filled_quantity: ColumnType<number, number | undefined, number>;
  /** The reference the order was sent with (sandbox tag, broker order tag). */
  tag: ColumnType<string | null, string | null | undefined, string | null>;
  /** An exit's generation on its leg ((run, leg, exit_gen) is unique); null for entries. */
  exit_gen: ColumnType<number | null, number | null | undefined, number | null>;
  created_at: number;
  updated_at: number;
}

export interface StrategyPositionsTable {
  run_id: number;
  leg_id: number;
  symbol: string;
  exchange: string;
  /** The leg's filled net quantity in the run (BUY +, SELL −). */
  net: number;
  /** Signed quantity of the leg's acknowledged orders not yet seen filled or dead. */
  working: ColumnType<number, number | undefined, number>;
  /** How many exits the leg has taken (the compare-and-set of the next exit). */
  exits: ColumnType<number, number | undefined, number>;
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

/**
 * Every inbound webhook delivery of every source (strategy, scanner, flow), and the scanners'
 * square-off passes (migration 0025 moved the three sources' audits here).
 */
export interface WebhookDeliveriesTable {
  id: Id;
  /** `strategy`, `scanner` or `flow`. */
  source: string;
  /** The strategy, scanner or flow; null when the credential named none. */
  owner_id: number | null;
  ts: number;
  ip: string;
  result: string;
  http_status: number;
  action: string | null;
  message: string;
  /** The body with credential-like fields redacted, capped. */
  payload: string | null;
  /** The source's own facts as JSON: a strategy's mode and run, a scanner's per-symbol results, a flow's symbol and nodes. */
  detail: string | null;
  duration_ms: number;
}

/** Claimed fingerprints of identical deliveries within the de-duplication window, per source and owner. */
export interface WebhookDedupeTable {
  source: string;
  owner_id: number;
  fingerprint: string;
  at: number;
}

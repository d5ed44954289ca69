import type { Migration, MigrationProvider } from 'kysely';
import * as m0001 from './0001_create_foundation.js';
import * as m0002 from './0002_create_shield.js';
import * as m0003 from './0003_create_traffic_log.js';
import * as m0004 from './0004_create_market_data.js';
import * as m0005 from './0005_create_instrument_search.js';
import * as m0006 from './0006_create_sandbox.js';
import * as m0007 from './0007_create_orders.js';
import * as m0008 from './0008_create_alert_settings.js';
import * as m0009 from './0009_add_totp_replay.js';
import * as m0010 from './0010_create_password_resets.js';
import * as m0011 from './0011_create_strategies.js';
import * as m0012 from './0012_add_sandbox_resting_index.js';
import * as m0013 from './0013_create_error_log.js';
import * as m0014 from './0014_add_strategy_fills.js';
import * as m0015 from './0015_add_crash_safety.js';
import * as m0016 from './0016_add_instrument_reference_price.js';
import * as m0017 from './0017_create_scanners.js';
import * as m0018 from './0018_create_flows.js';
import * as m0019 from './0019_create_mcp_audit.js';
import * as m0020 from './0020_create_oauth.js';
import * as m0021 from './0021_index_strategy_orders_by_run_status_leg.js';
import * as m0022 from './0022_add_whatsapp_alert_settings.js';
import * as m0023 from './0023_add_user_disabled.js';
import * as m0024 from './0024_start_fresh_installs_in_analyzer_mode.js';
import * as m0025 from './0025_unify_webhook_deliveries.js';
import * as m0026 from './0026_create_watchlists.js';
import * as m0027 from './0027_add_sandbox_charges.js';
import * as m0028 from './0028_create_sandbox_gtts.js';
import * as m0029 from './0029_add_broker_session_tokens.js';
import * as m0030 from './0030_create_broker_apps.js';
import * as m0031 from './0031_add_error_log_level_index.js';
import * as m0032 from './0032_index_sandbox_books_by_day.js';
import * as m0033 from './0033_count_error_log_rows.js';

/**
 * Every migration, in order. Listed statically (not read from the directory) so the same code
 * runs from `src/` under the test runner and from `dist/` in production. Forward-only.
 */
export const migrations: Record<string, Migration> = {
  '0001_create_foundation': m0001,
  '0002_create_shield': m0002,
  '0003_create_traffic_log': m0003,
  '0004_create_market_data': m0004,
  '0005_create_instrument_search': m0005,
  '0006_create_sandbox': m0006,
  '0007_create_orders': m0007,
  '0008_create_alert_settings': m0008,
  '0009_add_totp_replay': m0009,
  '0010_create_password_resets': m0010,
  '0011_create_strategies': m0011,
  '0012_add_sandbox_resting_index': m0012,
  '0013_create_error_log': m0013,
  '0014_add_strategy_fills': m0014,
  '0015_add_crash_safety': m0015,
  '0016_add_instrument_reference_price': m0016,
  '0017_create_scanners': m0017,
  '0018_create_flows': m0018,
  '0019_create_mcp_audit': m0019,
  '0020_create_oauth': m0020,
  '0021_index_strategy_orders_by_run_status_leg': m0021,
  '0022_add_whatsapp_alert_settings': m0022,
  '0023_add_user_disabled': m0023,
  '0024_start_fresh_installs_in_analyzer_mode': m0024,
  '0025_unify_webhook_deliveries': m0025,
  '0026_create_watchlists': m0026,
  '0027_add_sandbox_charges': m0027,
  '0028_create_sandbox_gtts': m0028,
  '0029_add_broker_session_tokens': m0029,
  '0030_create_broker_apps': m0030,
  '0031_add_error_log_level_index': m0031,
  '0032_index_sandbox_books_by_day': m0032,
  '0033_count_error_log_rows': m0033,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: () => Promise.resolve(migrations),
};

/**
 * The growth bench's data: what one install writes in a year of use, inserted in bulk by the
 * database itself (one `INSERT … SELECT` over a generated series per table), so a million rows
 * take seconds, not the hours the API would.
 *
 * A year is the issue's: 1,000,000 traffic rows, 200,000 orders with their trades across 20 users
 * (each order with its two events, its analyzer-log row and its latency row, as an analyzer-mode
 * MARKET order writes), 100,000 strategy events over 20 strategies, 50,000 error-log rows. Rows
 * are spread evenly over the `days` before `now`, oldest first (so ids follow time, as they do in
 * a running install). An install with 1 % of the data is the same rate over 1 % of the days: the
 * recent windows the dashboards read hold the same rows in both, and what differs is only how much
 * history lies behind them, the cost this bench is about.
 *
 * Every row has the columns the app writes (checked by the app reading them: the bench's reads
 * must answer 200); users 2..20 have no password anyone knows, and their strategies no token.
 */
import type { RunDialect } from './growth-db.js';

/** A year of use at full size. */
export const YEAR = {
  days: 365,
  traffic: 1_000_000,
  orders: 200_000,
  strategyEvents: 100_000,
  errors: 50_000,
  users: 20,
} as const;

export type SeedSizes = {
  days: number;
  traffic: number;
  orders: number;
  strategyEvents: number;
  errors: number;
};

/** `fraction` of a year: the same rates over `fraction` of the days. */
export function sizesFor(fraction: number): SeedSizes {
  const n = (x: number) => Math.max(1, Math.round(x * fraction));
  return {
    days: YEAR.days * fraction,
    traffic: n(YEAR.traffic),
    orders: n(YEAR.orders),
    strategyEvents: n(YEAR.strategyEvents),
    errors: n(YEAR.errors),
  };
}

const DAY_MS = 86_400_000;

/** Ten NSE equities of the Upstox master, in turn. */
const SYMBOLS = [
  'SBIN',
  'INFY',
  'RELIANCE',
  'TCS',
  'HDFCBANK',
  'ICICIBANK',
  'ITC',
  'LT',
  'AXISBANK',
  'WIPRO',
];

/** `case n % k when 0 then v0 … end`: the k values in turn. */
function cycle(n: string, values: readonly string[]): string {
  const whens = values.map((v, i) => `when ${i} then '${v}'`).join(' ');
  return `case ${n} % ${values.length} ${whens} end`;
}

/**
 * `with recursive s(n)` from 1 to `count` then `insert`: one statement, the same text on SQLite
 * and PostgreSQL (both take a common table expression before INSERT).
 */
function series(count: number, insert: string): string {
  return `with recursive s(n) as (select cast(1 as bigint) union all select n + 1 from s where n < ${count}) ${insert} from s`;
}

/** The statements that seed an install (users 2..20 first; user 1 is the bench's, made by the CLI). */
export function seedStatements(dialect: RunDialect, sizes: SeedSizes, now: number): string[] {
  const span = Math.round(sizes.days * DAY_MS);
  /** The time of row n of `count`, spread over the span, the last one at `now`. */
  const at = (count: number) => `(${now} - (${count} - n) * ${Math.max(1, Math.floor(span / count))})`;
  const istDay = (ms: string) =>
    dialect === 'sqlite'
      ? `strftime('%Y-%m-%d', ${ms} / 1000, 'unixepoch', '+330 minutes')`
      : `to_char(to_timestamp(${ms} / 1000.0) at time zone 'Asia/Kolkata', 'YYYY-MM-DD')`;
  const users = YEAR.users;
  const user = `(1 + n % ${users})`;
  const O = sizes.orders;
  const orderAt = at(O);
  const symbol = cycle('n', SYMBOLS);
  const side = `case n % 2 when 0 then 'BUY' else 'SELL' end`;
  const price = `(8000000 + (n % 1000) * 500)`;
  return [
    series(
      users - 1,
      `insert into users (username, email, password_hash, is_admin, order_mode, totp_enabled,
         totp_required_for_login, totp_required_for_mcp, totp_required_for_password_reset, created_at)
       select 'trader' || (n + 1), null, '!', false, 'auto', false, false, false, false, ${now - span}`,
    ),
    // The traffic log: GETs and POSTs over a few paths, 2 % 404s and ~0.5 % 500s.
    series(
      sizes.traffic,
      `insert into traffic_log (ts, ip, method, path, endpoint_group, status, duration_ms, host, user_id)
       select ${at(sizes.traffic)}, '10.0.' || (n % 250) || '.' || (n % 199), case n % 5 when 0 then 'POST' else 'GET' end,
         ${cycle('n', ['/api/v1/placeorder', '/api/v1/orderbook', '/api/v1/quotes', '/logs/traffic'])},
         ${cycle('n', ['/api/v1/placeorder', '/api/v1/orderbook', '/api/v1/quotes', '/logs/traffic'])},
         case when n % 50 = 0 then 404 when n % 199 = 0 then 500 else 200 end, (n % 97) * 0.5 + 1,
         'desk.example', ${user}`,
    ),
    // Orders filled at once, as an analyzer-mode MARKET order is written.
    series(
      O,
      `insert into sandbox_orders (user_id, symbol, exchange, side, price_type, product, kind, quantity,
         price, trigger_price, status, filled_quantity, average_price, blocked_margin, blocked_quantity,
         reason, strategy, tag, day, created_at, updated_at)
       select ${user}, ${symbol}, 'NSE', ${side}, 'MARKET', 'MIS', 'equity', 1 + n % 10, 0, 0, 'complete',
         1 + n % 10, ${price}, 0, 0, null, 'growth', null, ${istDay(orderAt)}, ${orderAt}, ${orderAt}`,
    ),
    series(
      O,
      `insert into sandbox_order_events (order_id, user_id, from_status, to_status, detail, at)
       select n, ${user}, null, 'open', null, ${orderAt}`,
    ),
    series(
      O,
      `insert into sandbox_order_events (order_id, user_id, from_status, to_status, detail, at)
       select n, ${user}, 'open', 'complete', null, ${orderAt}`,
    ),
    series(
      O,
      `insert into sandbox_trades (order_id, user_id, symbol, exchange, side, product, quantity, price,
         strategy, created_at)
       select n, ${user}, ${symbol}, 'NSE', ${side}, 'MIS', 1 + n % 10, ${price}, 'growth', ${orderAt}`,
    ),
    series(
      O,
      `insert into analyzer_logs (user_id, event, api_type, broker, order_id, status_code, request,
         response, created_at, dispatched_at)
       select ${user}, 'placeorder', 'placeorder', null, '' || n, 200,
         '{"symbol":"' || ${symbol} || '","exchange":"NSE","quantity":"1"}',
         '{"status":"success","orderid":"' || n || '"}', ${orderAt}, ${orderAt}`,
    ),
    series(
      O,
      `insert into order_latency (label, user_id, broker, symbol, order_id, status, total_ms, broker_ms,
         validation_ms, overhead_ms, created_at)
       select 'PLACE', ${user}, 'sandbox', ${symbol}, '' || n, 'success', 1 + (n % 50) * 0.1, 0,
         0.2, 0.8 + (n % 50) * 0.1, ${orderAt}`,
    ),
    // One signal strategy per user; user 1's is the one whose trail the bench reads.
    series(
      users,
      `insert into strategies (user_id, name, kind, product, direction, token_digest, ip_allowlist, locked,
         live_enabled, active_run_id, last_stop_at, signal_lease_until, created_at, updated_at)
       select n, 'growth ' || n, 'signal', 'MIS', 'both', 'growth-digest-' || n, '[]', 0, 0, null, null,
         null, ${now - span}, ${now - span}`,
    ),
    series(
      sizes.strategyEvents,
      `insert into strategy_events (strategy_id, run_id, ts, kind, severity, leg_id, message, payload)
       select ${user}, null, ${at(sizes.strategyEvents)}, 'entry_placed', 'info', null,
         'entry placed: ' || ${symbol}, null`,
    ),
    series(
      sizes.errors,
      `insert into error_log (created_at, level, origin, module, message, exception, stack, request_id,
         method, path, user_id, url, user_agent, component_stack, context, fingerprint)
       select ${at(sizes.errors)}, case n % 4 when 0 then 'error' else 'warn' end, 'server', 'orders',
         case n % 10 when 0 then 'order ' || n || ' failed: broker timeout' else 'quote held for NSE:' || ${symbol} end,
         null, null, null, null, null, null, null, null, null, null,
         case n % 10 when 0 then 'f0000000000000' || (n % 7) else 'f1000000000000' || (n % 10) end`,
    ),
  ];
}

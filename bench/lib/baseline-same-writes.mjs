/**
 * The `--baseline same-writes` baseline of `placeorder-analyze`: a bare `node:http`
 * server on a `better-sqlite3` database of the app's migrated schema, with the app's pragmas,
 * that does the durable work of one analyzer-mode MARKET order filled at once and nothing else:
 * no validation, no API key, no rules, no price. Per POST it parses the JSON body and writes, in
 * one transaction of prepared statements, the rows algodesk writes for such an order (same tables,
 * same columns, so the same indexes), then answers algodesk's bytes with the new order's id:
 *
 * - `sandbox_orders`: the order, inserted in its final state (`complete`, filled);
 * - `sandbox_order_events`: its two events (`null → open`, `open → complete`), one statement;
 * - `sandbox_positions`: the position, upserted on (user, symbol, exchange, product);
 * - `sandbox_trades`: the trade;
 * - `sandbox_accounts`: the account, updated (created once at start-up, as algodesk does on the
 *   user's first order);
 * - `analyzer_logs`: the order's log row, inserted undispatched and then marked dispatched (the
 *   outbox mark algodesk's log writer makes once the event's fan-out ran);
 * - `order_latency`: the placement's latency row;
 * - `traffic_log`: the request's traffic row.
 *
 * Algodesk writes the first six in the placement's transaction (grouped with other placements of
 * the same event-loop turn under one COMMIT) and the last three, and the mark, from its SQLite
 * writer thread in batches; here every request is one transaction on the event loop's connection,
 * with SQLite's own WAL checkpoints. test/bench/same-writes-baseline.test.ts checks that one
 * request here writes what one order through the real app writes, table by table.
 *
 * The values are the body's (symbol, exchange, action, quantity, product, strategy) and the spec's
 * (user, fill prices); the position and the account carry running sums kept in memory, which is
 * arithmetic, not algodesk's margin rules.
 *
 * Plain JavaScript, started with `node` (no tsx). Usage: node baseline-same-writes.mjs <spec.json>,
 * the spec being {"port", "method", "path", "status", "contentType", "dbFile", "userId",
 * "fill": {"BUY": <rupees>, "SELL": <rupees>}}; `dbFile` is a database already migrated by the app
 * (the bench copies the set-up's database before the server starts). Listens on 127.0.0.1 only and
 * prints "baseline is running at http://127.0.0.1:<port>" on stderr once it listens.
 */
import { Buffer } from 'node:buffer';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import SQLite from 'better-sqlite3';

const specFile = process.argv[2];
if (specFile === undefined) {
  process.stderr.write('usage: node baseline-same-writes.mjs <spec.json>\n');
  process.exit(1);
}
const spec = JSON.parse(readFileSync(specFile, 'utf8'));
const userId = spec.userId;
/** The sandbox's money unit: 1/10,000 of a rupee (₹800.05 is stored as 8000500). */
const money = (rupees) => Math.round(rupees * 10_000);
const fill = { BUY: money(spec.fill.BUY), SELL: money(spec.fill.SELL) };

// The app's connection (src/platform/db/database.ts, openDatabase): WAL, synchronous=NORMAL, a
// busy timeout and foreign keys.
const db = new SQLite(spec.dbFile, { fileMustExist: true });
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.pragma('busy_timeout = 5000');
db.pragma('foreign_keys = ON');

const insertOrder = db.prepare(
  `insert into sandbox_orders (user_id, symbol, exchange, side, price_type, product, kind, quantity,
     price, trigger_price, status, filled_quantity, average_price, blocked_margin, blocked_quantity,
     reason, strategy, tag, day, created_at, updated_at)
   values (?, ?, ?, ?, ?, ?, 'equity', ?, 0, 0, 'complete', ?, ?, 0, 0, null, ?, null, ?, ?, ?)`,
);
const insertEvents = db.prepare(
  `insert into sandbox_order_events (order_id, user_id, from_status, to_status, detail, at)
   values (?, ?, null, 'open', null, ?), (?, ?, 'open', 'complete', null, ?)`,
);
const upsertPosition = db.prepare(
  `insert into sandbox_positions (user_id, symbol, exchange, product, quantity, cost, margin,
     realised_pnl, charges, day, updated_at)
   values (?, ?, ?, ?, ?, ?, ?, 0, 0, ?, ?)
   on conflict (user_id, symbol, exchange, product) do update set quantity = excluded.quantity,
     cost = excluded.cost, margin = excluded.margin, realised_pnl = excluded.realised_pnl,
     charges = excluded.charges, day = excluded.day, updated_at = excluded.updated_at`,
);
const insertTrade = db.prepare(
  `insert into sandbox_trades (order_id, user_id, symbol, exchange, side, product, quantity, price,
     strategy, created_at, brokerage, stt, exchange_charges, sebi_fee, stamp_duty, gst, charges)
   values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, 0, 0, 0, 0, 0)`,
);
const updateAccount = db.prepare(
  `update sandbox_accounts set available = ?, used_margin = ?, realised_pnl = 0, charges = 0,
     starting_funds = ?, reset_at = ?, updated_at = ? where user_id = ?`,
);
const insertLog = db.prepare(
  `insert into analyzer_logs (user_id, event, api_type, broker, order_id, status_code, request,
     response, created_at, dispatched_at)
   values (?, 'order.placed', 'placeorder', 'sandbox', ?, 200, ?, ?, ?, null)`,
);
const markDispatched = db.prepare('update analyzer_logs set dispatched_at = ? where id = ?');
const insertLatency = db.prepare(
  `insert into order_latency (label, user_id, broker, symbol, order_id, status, total_ms, broker_ms,
     validation_ms, overhead_ms, created_at)
   values ('PLACE', ?, 'sandbox', ?, ?, 'success', ?, 0, 0, ?, ?)`,
);
const insertTraffic = db.prepare(
  `insert into traffic_log (ts, ip, method, path, endpoint_group, status, duration_ms, host, user_id)
   values (?, ?, ?, ?, ?, ?, ?, ?, null)`,
);

/** The account algodesk creates on the user's first order (its default starting funds, ₹1 crore). */
const STARTING_FUNDS = money(10_000_000);
const startedAt = Date.now();
db.prepare(
  `insert into sandbox_accounts (user_id, starting_funds, available, used_margin, realised_pnl,
     charges, reset_at, updated_at)
   values (?, ?, ?, 0, 0, 0, ?, ?) on conflict (user_id) do nothing`,
).run(userId, STARTING_FUNDS, STARTING_FUNDS, startedAt, startedAt);
let account = db
  .prepare('select starting_funds, available, used_margin, reset_at from sandbox_accounts where user_id = ?')
  .get(userId);
/** Net quantity and cost of each position written, by `symbol exchange product`. */
const positions = new Map();

/** `YYYY-MM-DD` of `now` in IST, the sandbox's trading day. */
const istDay = (now) => new Date(now + 19_800_000).toISOString().slice(0, 10);

/** One order's rows; returns its id. */
const writeOrder = db.transaction((o, requestJson, at, started, ip, method, path, host) => {
  const side = String(o.action).toUpperCase();
  const quantity = Number(o.quantity);
  const price = fill[side] ?? fill.BUY;
  const day = istDay(at);
  const orderId = Number(
    insertOrder.run(
      userId,
      o.symbol,
      o.exchange,
      side,
      o.pricetype ?? 'MARKET',
      o.product ?? 'MIS',
      quantity,
      quantity,
      price,
      o.strategy ?? null,
      day,
      at,
      at,
    ).lastInsertRowid,
  );
  insertEvents.run(orderId, userId, at, orderId, userId, at);
  const key = `${o.symbol} ${o.exchange} ${o.product ?? 'MIS'}`;
  const held = positions.get(key) ?? { quantity: 0, cost: 0 };
  const signed = side === 'SELL' ? -quantity : quantity;
  const position = { quantity: held.quantity + signed, cost: held.cost + signed * price };
  positions.set(key, position);
  const margin = Math.round(Math.abs(position.cost) / 5);
  upsertPosition.run(
    userId,
    o.symbol,
    o.exchange,
    o.product ?? 'MIS',
    position.quantity,
    position.cost,
    margin,
    day,
    at,
  );
  insertTrade.run(
    orderId,
    userId,
    o.symbol,
    o.exchange,
    side,
    o.product ?? 'MIS',
    quantity,
    price,
    o.strategy ?? null,
    at,
  );
  account = { ...account, used_margin: margin, available: account.starting_funds - margin };
  updateAccount.run(
    account.available,
    account.used_margin,
    account.starting_funds,
    account.reset_at,
    at,
    userId,
  );
  const answer = `{"status":"success","orderid":"${orderId}","mode":"analyze"}`;
  const logId = insertLog.run(userId, String(orderId), requestJson, answer, at).lastInsertRowid;
  markDispatched.run(at, logId);
  const ms = performance.now() - started;
  insertLatency.run(userId, o.symbol, String(orderId), ms, ms, at);
  insertTraffic.run(at, ip, method, path, path, spec.status, Math.round(ms * 100) / 100, host);
  return answer;
});

const server = createServer((req, res) => {
  if (req.method !== spec.method || req.url !== spec.path) {
    res.writeHead(404).end();
    return;
  }
  const started = performance.now();
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    let body;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      res.writeHead(400).end();
      return;
    }
    // The logged request, as algodesk's log writer stores it: the body without its API key.
    const { apikey: _apikey, ...request } = body;
    let answer;
    try {
      // BEGIN IMMEDIATE, as the app's transactions (database.ts, withStatementCache).
      answer = writeOrder.immediate(
        body,
        JSON.stringify(request),
        Date.now(),
        started,
        req.socket.remoteAddress ?? '',
        req.method,
        req.url,
        req.headers.host ?? null,
      );
    } catch (err) {
      // A body without the columns' values (no rules here: the schema's NOT NULLs refuse it).
      res.writeHead(500, { 'content-type': 'text/plain' }).end(String(err?.message ?? err));
      return;
    }
    answer = Buffer.from(answer, 'utf8');
    res
      .writeHead(spec.status, { 'content-type': spec.contentType, 'content-length': answer.length })
      .end(answer);
  });
});

// Port 0 (a test's spec): the port the system chose is the one printed.
server.listen(spec.port, '127.0.0.1', () => {
  process.stderr.write(`baseline is running at http://127.0.0.1:${server.address().port}\n`);
});
process.once('SIGTERM', () =>
  server.close(() => {
    db.close();
    process.exit(0);
  }),
);

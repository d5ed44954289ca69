/**
 * The SQLite store of the same-writes baseline (baseline-same-writes.mjs): `better-sqlite3` on a
 * copy of the server's database (the app's migrated schema and its rows), opened with the app's
 * pragmas (src/platform/db/database.ts, openDatabase: WAL, synchronous=NORMAL, a busy timeout,
 * foreign keys, temporary files in memory). Each request is one transaction of prepared
 * statements, `BEGIN IMMEDIATE` as the app's transactions, committed on the event loop's
 * connection with SQLite's own WAL checkpoints.
 */
import { performance } from 'node:perf_hooks';
import SQLite from 'better-sqlite3';

/**
 * Opens `spec.dbFile`; `answer` is algodesk's placement answer around the order id (`head`, `tail`),
 * stored in the analyzer-log row.
 */
export function openSqliteStore(spec, answer) {
  const db = new SQLite(spec.dbFile, { fileMustExist: true });
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  db.pragma('temp_store = MEMORY');

  const sql = {
    insertOrder: db.prepare(
      `insert into sandbox_orders (user_id, symbol, exchange, side, price_type, product, kind, quantity,
         price, trigger_price, status, filled_quantity, average_price, blocked_margin, blocked_quantity,
         reason, strategy, tag, day, created_at, updated_at)
       values (?, ?, ?, ?, ?, ?, 'equity', ?, 0, 0, 'complete', ?, ?, 0, 0, null, ?, ?, ?, ?, ?)`,
    ),
    insertEvents: db.prepare(
      `insert into sandbox_order_events (order_id, user_id, from_status, to_status, detail, at)
       values (?, ?, null, 'open', null, ?), (?, ?, 'open', 'complete', null, ?)`,
    ),
    upsertPosition: db.prepare(
      `insert into sandbox_positions (user_id, symbol, exchange, product, quantity, cost, margin,
         realised_pnl, charges, day, updated_at)
       values (?, ?, ?, ?, ?, ?, ?, 0, 0, ?, ?)
       on conflict (user_id, symbol, exchange, product) do update set quantity = excluded.quantity,
         cost = excluded.cost, margin = excluded.margin, realised_pnl = excluded.realised_pnl,
         charges = excluded.charges, day = excluded.day, updated_at = excluded.updated_at`,
    ),
    insertTrade: db.prepare(
      `insert into sandbox_trades (order_id, user_id, symbol, exchange, side, product, quantity, price,
         strategy, created_at, brokerage, stt, exchange_charges, sebi_fee, stamp_duty, gst, charges)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, 0, 0, 0, 0, 0)`,
    ),
    updateAccount: db.prepare(
      `update sandbox_accounts set available = ?, used_margin = ?, realised_pnl = 0, charges = 0,
         starting_funds = ?, reset_at = ?, updated_at = ? where user_id = ?`,
    ),
    insertLog: db.prepare(
      `insert into analyzer_logs (user_id, event, api_type, broker, order_id, status_code, request,
         response, created_at, dispatched_at)
       values (?, 'order.placed', ?, 'sandbox', ?, 200, ?, ?, ?, null)`,
    ),
    markDispatched: db.prepare('update analyzer_logs set dispatched_at = ? where id = ?'),
    insertLatency: db.prepare(
      `insert into order_latency (label, user_id, broker, symbol, order_id, status, total_ms, broker_ms,
         validation_ms, overhead_ms, created_at)
       values ('PLACE', ?, 'sandbox', ?, ?, 'success', ?, 0, 0, ?, ?)`,
    ),
    insertTraffic: db.prepare(
      `insert into traffic_log (ts, ip, method, path, endpoint_group, status, duration_ms, host, user_id)
       values (?, ?, ?, ?, ?, ?, ?, ?, null)`,
    ),
    takeLease: db.prepare(
      `update strategies set signal_lease_until = ?, signal_lease_holder = ?, signal_lease_started = ?
       where id = ?`,
    ),
    releaseLease: db.prepare(
      `update strategies set signal_lease_until = null, signal_lease_holder = null,
         signal_lease_started = null where id = ?`,
    ),
    fillIntent: db.prepare(
      `update strategy_orders set status = 'filled', filled_quantity = quantity, updated_at = ? where id = ?`,
    ),
    fillLeg: db.prepare(
      `update strategy_positions set net = net + ?, working = working - ?, updated_at = ?
       where run_id = ? and leg_id = ?`,
    ),
    markExit: db.prepare(
      'update strategy_positions set exits = exits + 1, updated_at = ? where run_id = ? and leg_id = ?',
    ),
    insertIntent: db.prepare(
      `insert into strategy_orders (run_id, strategy_id, leg_id, symbol, exchange, action, quantity,
         purpose, status, order_id, message, filled_quantity, tag, exit_gen, created_at, updated_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, 'recorded', null, null, 0, ?, ?, ?, ?)`,
    ),
    settleFilled: db.prepare(
      `update strategy_orders set status = 'filled', order_id = ?, filled_quantity = quantity,
         updated_at = ? where id = ?`,
    ),
    moveLeg: db.prepare(
      'update strategy_positions set net = net + ?, updated_at = ? where run_id = ? and leg_id = ?',
    ),
    insertEvent: db.prepare(
      `insert into strategy_events (strategy_id, run_id, ts, kind, severity, leg_id, message, payload)
       values (?, ?, ?, ?, 'info', ?, ?, ?)`,
    ),
    insertDelivery: db.prepare(
      `insert into webhook_deliveries (source, owner_id, ts, ip, result, http_status, action, message,
         payload, detail, duration_ms)
       values ('strategy', ?, ?, ?, 'ok', 200, ?, ?, ?, ?, ?)`,
    ),
  };

  /** One filled order's rows but the traffic row; returns the order's id. */
  const writeOrder = (o, http) => {
    const orderId = Number(
      sql.insertOrder.run(
        o.userId,
        o.symbol,
        o.exchange,
        o.side,
        o.priceType,
        o.product,
        o.quantity,
        o.quantity,
        o.price,
        o.strategy,
        o.tag,
        o.day,
        o.at,
        o.at,
      ).lastInsertRowid,
    );
    sql.insertEvents.run(orderId, o.userId, o.at, orderId, o.userId, o.at);
    const p = o.position;
    sql.upsertPosition.run(
      o.userId,
      o.symbol,
      o.exchange,
      o.product,
      p.quantity,
      p.cost,
      p.margin,
      o.day,
      o.at,
    );
    sql.insertTrade.run(
      orderId,
      o.userId,
      o.symbol,
      o.exchange,
      o.side,
      o.product,
      o.quantity,
      o.price,
      o.strategy,
      o.at,
    );
    const a = o.account;
    sql.updateAccount.run(a.available, a.used_margin, a.starting_funds, a.reset_at, o.at, o.userId);
    const response = `${answer.head}${orderId}${answer.tail}`;
    const logId = sql.insertLog.run(
      o.userId,
      o.apiType,
      String(orderId),
      o.request,
      response,
      o.at,
    ).lastInsertRowid;
    sql.markDispatched.run(o.at, logId);
    const ms = performance.now() - http.started;
    sql.insertLatency.run(o.userId, o.symbol, String(orderId), ms, ms, o.at);
    return orderId;
  };

  const writeTraffic = (http) => {
    const ms = Math.round((performance.now() - http.started) * 100) / 100;
    sql.insertTraffic.run(http.at, http.ip, http.method, http.path, http.group, http.status, ms, http.host);
  };

  // BEGIN IMMEDIATE, as the app's transactions (database.ts, withStatementCache).
  const placeOrder = db.transaction((o, http) => {
    const orderId = writeOrder(o, http);
    writeTraffic(http);
    return { orderId };
  });

  const deliver = db.transaction((d, http) => {
    const { s, at } = d;
    sql.takeLease.run(d.lease.until, d.lease.holder, d.lease.started, s.id);
    for (const p of d.settle) {
      sql.fillIntent.run(at, p.id);
      sql.fillLeg.run(p.signed, p.signed, at, s.runId, s.leg.id);
    }
    let intentId;
    let event = d.event;
    if (d.intent) {
      const i = d.intent;
      if (i.purpose === 'exit') sql.markExit.run(at, s.runId, s.leg.id);
      intentId = Number(
        sql.insertIntent.run(
          s.runId,
          s.id,
          s.leg.id,
          s.leg.symbol,
          s.leg.exchange,
          i.side,
          i.quantity,
          i.purpose,
          i.tag,
          i.exitGen,
          at,
          at,
        ).lastInsertRowid,
      );
      const orderId = writeOrder(d.order, http);
      sql.settleFilled.run(String(orderId), at, intentId);
      sql.moveLeg.run(i.signed, at, s.runId, s.leg.id);
      event = {
        kind: `${i.purpose}_placed`,
        message: `${i.side} ${i.quantity} ${s.leg.symbol} ${s.leg.exchange}: order ${orderId}`,
        payload: JSON.stringify({ orderid: String(orderId) }),
      };
    }
    sql.insertEvent.run(s.id, s.runId, at, event.kind, s.leg.id, event.message, event.payload);
    sql.releaseLease.run(s.id);
    const ms = performance.now() - http.started;
    sql.insertDelivery.run(
      s.id,
      at,
      http.ip,
      d.action,
      d.message,
      d.payload,
      JSON.stringify({ run_id: s.runId }),
      ms,
    );
    writeTraffic(http);
    return { intentId };
  });

  return {
    async ensureAccount(userId, funds, at) {
      db.prepare(
        `insert into sandbox_accounts (user_id, starting_funds, available, used_margin, realised_pnl,
           charges, reset_at, updated_at)
         values (?, ?, ?, 0, 0, 0, ?, ?) on conflict (user_id) do nothing`,
      ).run(userId, funds, funds, at, at);
    },
    async account(userId) {
      return db
        .prepare(
          'select starting_funds, available, used_margin, reset_at from sandbox_accounts where user_id = ?',
        )
        .get(userId);
    },
    async strategyState(digest) {
      const query = (text, ...params) => db.prepare(text).all(...params);
      return strategyState(query, digest);
    },
    placeOrder: async (o, http) => placeOrder.immediate(o, http),
    deliver: async (d, http) => deliver.immediate(d, http),
    async close() {
      db.close();
    },
  };
}

/**
 * The strategy whose token has `digest`, with its open run, its first leg, the leg's position and
 * the leg's orders still `placed` (filled in the sandbox, the fill not yet recorded by algodesk);
 * undefined when there is none. `query(text, ...params)` runs a read with `?` placeholders and
 * resolves its rows. Shared with the PostgreSQL store.
 */
export async function strategyState(query, digest) {
  const [s] = await query(
    `select id, name, product, user_id, active_run_id from strategies
     where token_digest = ? and active_run_id is not null`,
    digest,
  );
  if (!s) return undefined;
  const [leg] = await query(
    'select id, symbol, exchange, quantity from strategy_legs where strategy_id = ? order by position limit 1',
    s.id,
  );
  const [position] = await query(
    'select net, working from strategy_positions where run_id = ? and leg_id = ?',
    s.active_run_id,
    leg.id,
  );
  const pending = await query(
    `select id, action, quantity from strategy_orders where run_id = ? and leg_id = ? and status = 'placed'`,
    s.active_run_id,
    leg.id,
  );
  const [gen] = await query(
    'select coalesce(max(exit_gen), 0) as n from strategy_orders where run_id = ? and leg_id = ?',
    s.active_run_id,
    leg.id,
  );
  return {
    id: Number(s.id),
    name: s.name,
    product: s.product,
    runId: Number(s.active_run_id),
    leg: { id: Number(leg.id), symbol: leg.symbol, exchange: leg.exchange, quantity: Number(leg.quantity) },
    net: Number(position?.net ?? 0),
    working: Number(position?.working ?? 0),
    exitGen: Number(gen.n),
    pending: pending.map((p) => ({
      id: Number(p.id),
      signed: p.action === 'SELL' ? -Number(p.quantity) : Number(p.quantity),
    })),
  };
}

/**
 * The PostgreSQL store of the same-writes baseline (baseline-same-writes.mjs): a `pg` pool of the
 * app's size (src/platform/db/database.ts: 10) on a schema of the baseline's own (`spec.schema`,
 * migrated by the app, so the same tables, indexes, sequences and foreign keys), into which the
 * server's rows (`spec.copyFrom`, the server's schema) are copied at start-up in one
 * repeatable-read transaction: the baseline never writes a row the server reads.
 *
 * Each request is one transaction of named prepared statements made of data-modifying CTEs, so a
 * request costs as few round trips as writing each of its rows allows: a statement cannot write a
 * row twice, and a request writes some rows twice (an analyzer log inserted then marked
 * dispatched, a strategy's lease taken then released, a strategy order recorded then placed, a leg's
 * position moved two or three times). An order: BEGIN, every row, the log's mark, COMMIT (4 round
 * trips). A webhook delivery that places an order: BEGIN, the lease and the previous order's fill,
 * the exit's mark and the order's rows, the rest, COMMIT (5); one that places none: 4.
 */
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { strategyState } from './baseline-same-writes-sqlite.mjs';

/**
 * A prepared statement whose parameters are named: `build(p)` returns the SQL, `p(key, type)`
 * standing for parameter `key` cast to `type` (one `$n` per key however often it is used).
 */
function statement(name, build) {
  const keys = [];
  const text = build((key, type) => {
    let i = keys.indexOf(key);
    if (i === -1) i = keys.push(key) - 1;
    return `$${i + 1}::${type}`;
  });
  return { name, text, values: (params) => keys.map((k) => params[k] ?? null) };
}

/** The CTEs of one filled order's rows but the traffic row (`o` is the order, `l` its log row). */
const orderCtes = (p, answer) => `
  o as (
    insert into sandbox_orders (user_id, symbol, exchange, side, price_type, product, kind, quantity,
      price, trigger_price, status, filled_quantity, average_price, blocked_margin, blocked_quantity,
      reason, strategy, tag, day, created_at, updated_at)
    values (${p('userId', 'bigint')}, ${p('symbol', 'text')}, ${p('exchange', 'text')}, ${p('side', 'text')},
      ${p('priceType', 'text')}, ${p('product', 'text')}, 'equity', ${p('quantity', 'bigint')}, 0, 0,
      'complete', ${p('quantity', 'bigint')}, ${p('price', 'bigint')}, 0, 0, null, ${p('strategy', 'text')},
      ${p('tag', 'text')}, ${p('day', 'text')}, ${p('at', 'bigint')}, ${p('at', 'bigint')})
    returning id),
  e as (
    insert into sandbox_order_events (order_id, user_id, from_status, to_status, detail, at)
    select o.id, ${p('userId', 'bigint')}, null::text, 'open', null::text, ${p('at', 'bigint')} from o
    union all
    select o.id, ${p('userId', 'bigint')}, 'open', 'complete', null::text, ${p('at', 'bigint')} from o),
  t as (
    insert into sandbox_trades (order_id, user_id, symbol, exchange, side, product, quantity, price,
      strategy, created_at, brokerage, stt, exchange_charges, sebi_fee, stamp_duty, gst, charges)
    select o.id, ${p('userId', 'bigint')}, ${p('symbol', 'text')}, ${p('exchange', 'text')}, ${p('side', 'text')},
      ${p('product', 'text')}, ${p('quantity', 'bigint')}, ${p('price', 'bigint')}, ${p('strategy', 'text')},
      ${p('at', 'bigint')}, 0, 0, 0, 0, 0, 0, 0 from o),
  pos as (
    insert into sandbox_positions (user_id, symbol, exchange, product, quantity, cost, margin,
      realised_pnl, charges, day, updated_at)
    values (${p('userId', 'bigint')}, ${p('symbol', 'text')}, ${p('exchange', 'text')}, ${p('product', 'text')},
      ${p('positionQuantity', 'bigint')}, ${p('positionCost', 'bigint')}, ${p('margin', 'bigint')}, 0, 0,
      ${p('day', 'text')}, ${p('at', 'bigint')})
    on conflict (user_id, symbol, exchange, product) do update set quantity = excluded.quantity,
      cost = excluded.cost, margin = excluded.margin, realised_pnl = excluded.realised_pnl,
      charges = excluded.charges, day = excluded.day, updated_at = excluded.updated_at),
  a as (
    update sandbox_accounts set available = ${p('available', 'bigint')}, used_margin = ${p('margin', 'bigint')},
      realised_pnl = 0, charges = 0, starting_funds = ${p('startingFunds', 'bigint')},
      reset_at = ${p('resetAt', 'bigint')}, updated_at = ${p('at', 'bigint')}
    where user_id = ${p('userId', 'bigint')}),
  l as (
    insert into analyzer_logs (user_id, event, api_type, broker, order_id, status_code, request,
      response, created_at, dispatched_at)
    select ${p('userId', 'bigint')}, 'order.placed', ${p('apiType', 'text')}, 'sandbox', o.id::text, 200,
      ${p('request', 'text')}, ${literal(answer.head)} || o.id || ${literal(answer.tail)}, ${p('at', 'bigint')},
      null::bigint from o
    returning id),
  lat as (
    insert into order_latency (label, user_id, broker, symbol, order_id, status, total_ms, broker_ms,
      validation_ms, overhead_ms, created_at)
    select 'PLACE', ${p('userId', 'bigint')}, 'sandbox', ${p('symbol', 'text')}, o.id::text, 'success',
      ${p('ms', 'float8')}, 0, 0, ${p('ms', 'float8')}, ${p('at', 'bigint')} from o)`;

const literal = (text) => `'${text.replaceAll("'", "''")}'`;

const trafficCte = (p) => `
  tr as (
    insert into traffic_log (ts, ip, method, path, endpoint_group, status, duration_ms, host, user_id)
    values (${p('at', 'bigint')}, ${p('ip', 'text')}, ${p('method', 'text')}, ${p('path', 'text')},
      ${p('group', 'text')}, ${p('status', 'integer')}, ${p('trafficMs', 'float8')}, ${p('host', 'text')}, null))`;

/** Opens the pool, copies the server's rows; `answer` as in baseline-same-writes-sqlite.mjs. */
export async function openPgStore(spec, answer) {
  const pool = new pg.Pool({
    connectionString: spec.pgUrl,
    max: spec.poolSize ?? 10,
    options: `-c search_path=${spec.schema}`,
  });
  pool.on('error', () => undefined);
  if (spec.copyFrom) await copyRows(pool, spec.copyFrom, spec.schema);

  const placeOrder = statement(
    'sw_place',
    (p) =>
      `with ${orderCtes(p, answer)}, ${trafficCte(p)} select o.id::text as order_id, l.id::text as log_id from o, l`,
  );
  const markDispatched = statement(
    'sw_dispatched',
    (p) => `update analyzer_logs set dispatched_at = ${p('at', 'bigint')} where id = ${p('logId', 'bigint')}`,
  );
  // The lease is the main statement: the strategy's row is locked first, before the CTEs run.
  const leaseAndFill = statement(
    'sw_lease',
    (p) => `with
      fill as (
        update strategy_orders set status = 'filled', filled_quantity = quantity, updated_at = ${p('at', 'bigint')}
        where id = ${p('pendingId', 'bigint')}),
      leg as (
        update strategy_positions set net = net + ${p('pendingSigned', 'bigint')},
          working = working - ${p('pendingSigned', 'bigint')}, updated_at = ${p('at', 'bigint')}
        where run_id = ${p('runId', 'bigint')} and leg_id = ${p('legId', 'bigint')}
          and ${p('pendingId', 'bigint')} is not null)
      update strategies set signal_lease_until = ${p('leaseUntil', 'bigint')},
        signal_lease_holder = ${p('leaseHolder', 'text')}, signal_lease_started = ${p('at', 'bigint')}
      where id = ${p('strategyId', 'bigint')}`,
  );
  const intentAndOrder = statement(
    'sw_intent',
    (p) => `with
      x as (
        update strategy_positions set exits = exits + 1, updated_at = ${p('at', 'bigint')}
        where run_id = ${p('runId', 'bigint')} and leg_id = ${p('legId', 'bigint')} and ${p('exit', 'boolean')}),
      i as (
        insert into strategy_orders (run_id, strategy_id, leg_id, symbol, exchange, action, quantity,
          purpose, status, order_id, message, filled_quantity, tag, exit_gen, created_at, updated_at)
        values (${p('runId', 'bigint')}, ${p('strategyId', 'bigint')}, ${p('legId', 'bigint')}, ${p('symbol', 'text')},
          ${p('exchange', 'text')}, ${p('side', 'text')}, ${p('quantity', 'bigint')}, ${p('purpose', 'text')},
          'recorded', null, null, 0, ${p('tag', 'text')}, ${p('exitGen', 'bigint')}, ${p('at', 'bigint')},
          ${p('at', 'bigint')})
        returning id),
      ${orderCtes(p, answer)}
      select i.id::text as intent_id, o.id::text as order_id, l.id::text as log_id from i, o, l`,
  );
  // Without an order (`intentId` null), only the event, the release, the audit and the traffic rows.
  const finish = statement(
    'sw_finish',
    (p) => `with
      filled as (
        update strategy_orders set status = 'filled', order_id = ${p('orderId', 'text')},
          filled_quantity = quantity, updated_at = ${p('at', 'bigint')}
        where id = ${p('intentId', 'bigint')}),
      moved as (
        update strategy_positions set net = net + ${p('signed', 'bigint')}, updated_at = ${p('at', 'bigint')}
        where run_id = ${p('runId', 'bigint')} and leg_id = ${p('legId', 'bigint')}
          and ${p('intentId', 'bigint')} is not null),
      mark as (
        update analyzer_logs set dispatched_at = ${p('at', 'bigint')} where id = ${p('logId', 'bigint')}),
      ev as (
        insert into strategy_events (strategy_id, run_id, ts, kind, severity, leg_id, message, payload)
        values (${p('strategyId', 'bigint')}, ${p('runId', 'bigint')}, ${p('at', 'bigint')}, ${p('kind', 'text')}, 'info',
          ${p('legId', 'bigint')}, ${p('eventMessage', 'text')}, ${p('eventPayload', 'text')})),
      dlv as (
        insert into webhook_deliveries (source, owner_id, ts, ip, result, http_status, action, message,
          payload, detail, duration_ms)
        values ('strategy', ${p('strategyId', 'bigint')}, ${p('at', 'bigint')}, ${p('ip', 'text')}, 'ok', 200,
          ${p('action', 'text')}, ${p('message', 'text')}, ${p('payload', 'text')}, ${p('detail', 'text')},
          ${p('ms', 'float8')})),
      ${trafficCte(p)}
      update strategies set signal_lease_until = null, signal_lease_holder = null, signal_lease_started = null
      where id = ${p('strategyId', 'bigint')}`,
  );

  const run = (client, st, params) =>
    client.query({ name: st.name, text: st.text, values: st.values(params) });
  /** `fn(client)` in one transaction on a pooled connection. */
  const transaction = async (fn) => {
    const client = await pool.connect();
    try {
      await client.query('begin');
      const result = await fn(client);
      await client.query('commit');
      return result;
    } catch (err) {
      await client.query('rollback').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  };
  const orderParams = (o, http) => ({
    ...o,
    positionQuantity: o.position.quantity,
    positionCost: o.position.cost,
    margin: o.position.margin,
    available: o.account.available,
    startingFunds: o.account.starting_funds,
    resetAt: o.account.reset_at,
    ms: performance.now() - http.started,
  });
  const trafficParams = (http) => ({
    ...http,
    trafficMs: Math.round((performance.now() - http.started) * 100) / 100,
  });

  return {
    async ensureAccount(userId, funds, at) {
      await pool.query(
        `insert into sandbox_accounts (user_id, starting_funds, available, used_margin, realised_pnl,
           charges, reset_at, updated_at)
         values ($1, $2, $2, 0, 0, 0, $3, $3) on conflict (user_id) do nothing`,
        [userId, funds, at],
      );
    },
    async account(userId) {
      const { rows } = await pool.query(
        'select starting_funds, available, used_margin, reset_at from sandbox_accounts where user_id = $1',
        [userId],
      );
      return Object.fromEntries(Object.entries(rows[0]).map(([k, v]) => [k, Number(v)]));
    },
    async strategyState(digest) {
      return strategyState(async (text, ...params) => {
        let n = 0;
        return (
          await pool.query(
            text.replace(/\?/g, () => `$${++n}`),
            params,
          )
        ).rows;
      }, digest);
    },
    placeOrder: (o, http) =>
      transaction(async (client) => {
        const { rows } = await run(client, placeOrder, { ...orderParams(o, http), ...trafficParams(http) });
        await run(client, markDispatched, { at: o.at, logId: rows[0].log_id });
        return { orderId: rows[0].order_id };
      }),
    deliver: (d, http) =>
      transaction(async (client) => {
        const { s, at } = d;
        const ids = { strategyId: s.id, runId: s.runId, legId: s.leg.id, at };
        const [pending] = d.settle;
        await run(client, leaseAndFill, {
          ...ids,
          pendingId: pending?.id,
          pendingSigned: pending?.signed,
          leaseUntil: d.lease.until,
          leaseHolder: d.lease.holder,
        });
        let event = d.event;
        let placed = {};
        if (d.intent) {
          const i = d.intent;
          const { rows } = await run(client, intentAndOrder, {
            ...orderParams(d.order, http),
            ...ids,
            exit: i.purpose === 'exit',
            side: i.side,
            quantity: i.quantity,
            purpose: i.purpose,
            tag: i.tag,
            exitGen: i.exitGen,
          });
          const { intent_id: intentId, order_id: orderId, log_id: logId } = rows[0];
          placed = { intentId, orderId, logId, signed: i.signed };
          event = {
            kind: `${i.purpose}_placed`,
            message: `${i.side} ${i.quantity} ${s.leg.symbol} ${s.leg.exchange}: order ${orderId}`,
            payload: JSON.stringify({ orderid: orderId }),
          };
        }
        await run(client, finish, {
          ...trafficParams(http),
          ...ids,
          ...placed,
          kind: event.kind,
          eventMessage: event.message,
          eventPayload: event.payload,
          action: d.action,
          message: d.message,
          payload: d.payload,
          detail: JSON.stringify({ run_id: s.runId }),
          ms: performance.now() - http.started,
        });
        return { intentId: placed.intentId === undefined ? undefined : Number(placed.intentId) };
      }),
    close: () => pool.end(),
  };
}

/**
 * Copies every row of schema `from` into schema `to` (same tables, both migrated by the app), in
 * one repeatable-read transaction (one snapshot of a server that may be writing): `to`'s tables
 * emptied, then filled parents first (its foreign keys are checked), and its sequences set where
 * `from`'s are, so the baseline's new rows get ids of their own.
 */
export async function copyRows(pool, from, to) {
  const client = await pool.connect();
  try {
    await client.query('begin isolation level repeatable read');
    const tables = (
      await client.query(
        `select t.table_name as name from information_schema.tables t
         where t.table_schema = $1 and t.table_type = 'BASE TABLE'
           and exists (select 1 from information_schema.tables f where f.table_schema = $2 and f.table_name = t.table_name)
         order by 1`,
        [to, from],
      )
    ).rows.map((r) => r.name);
    const parents = new Map(tables.map((t) => [t, []]));
    const fks = await client.query(
      `select c.relname as child, p.relname as parent from pg_constraint k
       join pg_class c on c.oid = k.conrelid join pg_class p on p.oid = k.confrelid
       where k.contype = 'f' and k.connamespace = $1::regnamespace`,
      [to],
    );
    for (const { child, parent } of fks.rows) if (child !== parent) parents.get(child)?.push(parent);
    const ordered = [];
    const seen = new Set();
    const visit = (t) => {
      if (seen.has(t)) return;
      seen.add(t);
      for (const p of parents.get(t) ?? []) visit(p);
      ordered.push(t);
    };
    for (const t of tables) visit(t);
    const q = (name) => `"${name.replaceAll('"', '""')}"`;
    await client.query(`truncate ${tables.map((t) => `${q(to)}.${q(t)}`).join(', ')}`);
    for (const t of ordered) {
      const cols = (
        await client.query(
          `select column_name as name from information_schema.columns
           where table_schema = $1 and table_name = $2 and is_generated = 'NEVER' order by ordinal_position`,
          [to, t],
        )
      ).rows
        .map((r) => q(r.name))
        .join(', ');
      await client.query(`insert into ${q(to)}.${q(t)} (${cols}) select ${cols} from ${q(from)}.${q(t)}`);
    }
    const sequences = await client.query(
      'select sequencename as name from pg_sequences where schemaname = $1',
      [to],
    );
    for (const { name } of sequences.rows) {
      const [source] = (
        await client.query(
          'select last_value from pg_sequences where schemaname = $1 and sequencename = $2',
          [from, name],
        )
      ).rows;
      if (source?.last_value != null)
        await client.query('select setval($1::regclass, $2, true)', [
          `${q(to)}.${q(name)}`,
          source.last_value,
        ]);
    }
    await client.query('commit');
  } catch (err) {
    await client.query('rollback').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

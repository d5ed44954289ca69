/**
 * What a signal decides on, in one statement per database (the strategies repository's
 * `signalView`): the strategy, its active run, the run's open orders and the leg's position, the
 * related rows as JSON. Compiled once per database (platform/db/prepared.ts); the other statements
 * of a delivery are strategy-statements.ts.
 */
import { sql, type Selectable } from 'kysely';
import type { DB, StrategiesTable, StrategyOrdersTable, StrategyRunsTable } from '../../db/schema.js';
import { prepareQuery } from '../../platform/db/prepared.js';
import type { LegPositionRow } from './strategy-statements.js';

type Row<T> = Selectable<T>;

/** The strategy's row with, as JSON columns, what a signal decides on ({@link selectSignalView}). */
export type SignalViewRow = Row<StrategiesTable> & {
  view_run: Row<StrategyRunsTable> | null;
  view_open: Row<StrategyOrdersTable>[];
  view_seen: LegPositionRow | null;
};

/**
 * PostgreSQL only: the strategy, its active run, the run's open orders (as
 * {@link selectOpenRunOrders}) and the leg's position (as {@link selectLegPosition}) in one
 * statement, each related row as JSON (int8 comes back a number either way). On PostgreSQL each
 * statement is a round trip, and a strategy's signals run one after another behind its lock:
 * four reads as one are three round trips less per delivery. SQLite's is {@link selectSignalViewSqlite}.
 */
export const selectSignalView = prepareQuery<
  DB,
  { id: number; legId: number; recorded: string; placed: string },
  SignalViewRow
>((db, $) =>
  db
    .selectFrom('strategies as s')
    .selectAll('s')
    .select((eb) => [
      eb
        .selectFrom('strategy_runs as r')
        .select(sql<Row<StrategyRunsTable>>`row_to_json(r)`.as('j'))
        .whereRef('r.id', '=', 's.active_run_id')
        .as('view_run'),
      eb
        .selectFrom('strategy_orders as o')
        .select(sql<Row<StrategyOrdersTable>[]>`coalesce(json_agg(o order by o.id), '[]'::json)`.as('j'))
        .whereRef('o.run_id', '=', 's.active_run_id')
        .where('o.status', 'in', [$('recorded'), $('placed')])
        .as('view_open'),
      eb
        .selectFrom('strategy_positions as p')
        .select(
          sql<LegPositionRow>`json_build_object('net', p.net, 'working', p.working, 'exits', p.exits)`.as(
            'j',
          ),
        )
        .whereRef('p.run_id', '=', 's.active_run_id')
        .where('p.leg_id', '=', $('legId'))
        .as('view_seen'),
    ])
    .where('s.id', '=', $('id')),
);

/** Every column of a row type, named once each (the compiler checks the list is whole). */
const columnsOf = <T>(all: Record<keyof T & string, true>) => Object.keys(all) as (keyof T & string)[];

const RUN_COLUMNS = columnsOf<Row<StrategyRunsTable>>({
  id: true,
  strategy_id: true,
  mode: true,
  status: true,
  started_at: true,
  stop_requested_at: true,
  stopped_at: true,
});

const ORDER_COLUMNS = columnsOf<Row<StrategyOrdersTable>>({
  id: true,
  run_id: true,
  strategy_id: true,
  leg_id: true,
  symbol: true,
  exchange: true,
  action: true,
  quantity: true,
  purpose: true,
  status: true,
  order_id: true,
  message: true,
  filled_quantity: true,
  tag: true,
  exit_gen: true,
  created_at: true,
  updated_at: true,
});

/** SQLite's `json_object(...)` of a table alias's columns, as the row reads them. */
const jsonObject = (alias: string, columns: readonly string[]) =>
  sql.raw(`json_object(${columns.map((c) => `'${c}', ${alias}.${c}`).join(', ')})`);

/** {@link selectSignalView}'s row on SQLite: the related rows as JSON text. */
export type SqliteSignalViewRow = Row<StrategiesTable> & {
  view_run: string | null;
  view_open: string;
  view_seen: string | null;
};

/**
 * SQLite: what {@link selectSignalView} reads, in one statement too. A statement outside a
 * transaction is a read transaction of its own, which takes and drops SQLite's shared locks
 * (system calls each): one instead of four per delivery.
 */
export const selectSignalViewSqlite = prepareQuery<
  DB,
  { id: number; legId: number; recorded: string; placed: string },
  SqliteSignalViewRow
>((db, $) =>
  db
    .selectFrom('strategies as s')
    .selectAll('s')
    .select((eb) => [
      eb
        .selectFrom('strategy_runs as r')
        .select(sql<string>`${jsonObject('r', RUN_COLUMNS)}`.as('j'))
        .whereRef('r.id', '=', 's.active_run_id')
        .as('view_run'),
      eb
        .selectFrom('strategy_orders as o')
        .select(sql<string>`json_group_array(${jsonObject('o', ORDER_COLUMNS)} order by o.id)`.as('j'))
        .whereRef('o.run_id', '=', 's.active_run_id')
        .where('o.status', 'in', [$('recorded'), $('placed')])
        .as('view_open'),
      eb
        .selectFrom('strategy_positions as p')
        .select(sql<string>`json_object('net', p.net, 'working', p.working, 'exits', p.exits)`.as('j'))
        .whereRef('p.run_id', '=', 's.active_run_id')
        .where('p.leg_id', '=', $('legId'))
        .as('view_seen'),
    ])
    .where('s.id', '=', $('id')),
);

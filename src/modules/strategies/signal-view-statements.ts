/**
 * What a signal decides on, in one statement per database (the strategies repository's
 * `signalView`): the strategy, its active run, the run's open orders and the leg's position, the
 * related rows as JSON. Compiled once per database (platform/db/prepared.ts); the other statements
 * of a delivery are strategy-statements.ts.
 */
import { sql, type RawBuilder, type Selectable } from 'kysely';
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

type SignalViewParams = { id: number; legId: number; recorded: string; placed: string };

/** How each database writes a related row, a group of rows and the leg's position as JSON. */
interface JsonOf {
  run: RawBuilder<unknown>;
  orders: RawBuilder<unknown>;
  leg: RawBuilder<unknown>;
}

/**
 * The strategy, its active run, the run's open orders (as {@link selectOpenRunOrders}) and the
 * leg's position (as {@link selectLegPosition}) in one statement, each related row as JSON: the
 * same subqueries on both databases, `json` saying how each writes them.
 */
const signalViewQuery = <Row>(json: JsonOf) =>
  prepareQuery<DB, SignalViewParams, Row>((db, $) =>
    db
      .selectFrom('strategies as s')
      .selectAll('s')
      .select((eb) => [
        eb
          .selectFrom('strategy_runs as r')
          .select(json.run.as('j'))
          .whereRef('r.id', '=', 's.active_run_id')
          .as('view_run'),
        eb
          .selectFrom('strategy_orders as o')
          .select(json.orders.as('j'))
          .whereRef('o.run_id', '=', 's.active_run_id')
          .where('o.status', 'in', [$('recorded'), $('placed')])
          .as('view_open'),
        eb
          .selectFrom('strategy_positions as p')
          .select(json.leg.as('j'))
          .whereRef('p.run_id', '=', 's.active_run_id')
          .where('p.leg_id', '=', $('legId'))
          .as('view_seen'),
      ])
      .where('s.id', '=', $('id')),
  );

/**
 * PostgreSQL: the signal's view ({@link signalViewQuery}), the related rows as JSON (int8 comes
 * back a number either way). On PostgreSQL each statement is a round trip, and a strategy's
 * signals run one after another behind its lock: four reads as one are three round trips less
 * per delivery. SQLite's is {@link selectSignalViewSqlite}.
 */
export const selectSignalView = signalViewQuery<SignalViewRow>({
  run: sql`row_to_json(r)`,
  orders: sql`coalesce(json_agg(o order by o.id), '[]'::json)`,
  leg: sql`json_build_object('net', p.net, 'working', p.working, 'exits', p.exits)`,
});

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
 * SQLite: what {@link selectSignalView} reads, in one statement too, the related rows as JSON
 * text. A statement outside a transaction is a read transaction of its own, which takes and drops
 * SQLite's shared locks (system calls each): one instead of four per delivery.
 */
export const selectSignalViewSqlite = signalViewQuery<SqliteSignalViewRow>({
  run: sql`${jsonObject('r', RUN_COLUMNS)}`,
  orders: sql`json_group_array(${jsonObject('o', ORDER_COLUMNS)} order by o.id)`,
  leg: sql`json_object('net', p.net, 'working', p.working, 'exits', p.exits)`,
});

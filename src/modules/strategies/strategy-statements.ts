/**
 * The statements every signal delivery runs (the strategy and its run, the lease, the leg's
 * position and orders, the trail event), compiled once per database
 * (platform/db/prepared.ts): building them with Kysely on every delivery cost more CPU than
 * SQLite spent running them. Used by the strategies repositories only.
 */
import { sql, type Insertable, type QueryCreator, type Selectable } from 'kysely';
import type {
  DB,
  StrategiesTable,
  StrategyEventsTable,
  StrategyOrdersTable,
  StrategyRunsTable,
} from '../../db/schema.js';
import { prepareQuery } from '../../platform/db/prepared.js';

type Row<T> = Selectable<T>;

export const selectStrategy = prepareQuery<DB, { id: number }, Row<StrategiesTable>>((db, $) =>
  db.selectFrom('strategies').selectAll().where('id', '=', $('id')),
);

export const selectRun = prepareQuery<DB, { id: number }, Row<StrategyRunsTable>>((db, $) =>
  db.selectFrom('strategy_runs').selectAll().where('id', '=', $('id')),
);

/** Takes the strategy's lease when nobody holds it or its holder's time is up. */
export const takeLease = prepareQuery<
  DB,
  { id: number; holder: string; started: number; until: number },
  never
>((db, $) =>
  db
    .updateTable('strategies')
    .set({
      signal_lease_until: $('until'),
      signal_lease_holder: $('holder'),
      signal_lease_started: $('started'),
    })
    .where('id', '=', $('id'))
    .where((eb) =>
      eb.or([eb('signal_lease_until', 'is', null), eb('signal_lease_until', '<=', $('started'))]),
    ),
);

/** Gives the lease back, if `holder` still holds the one it took at `started`. */
export const releaseLease = prepareQuery<DB, { id: number; holder: string; started: number }, never>(
  (db, $) =>
    db
      .updateTable('strategies')
      .set({ signal_lease_until: null, signal_lease_holder: null, signal_lease_started: null })
      .where('id', '=', $('id'))
      .where('signal_lease_holder', '=', $('holder'))
      .where('signal_lease_started', '=', $('started')),
);

/** A leg's orders in one state, oldest first. */
export const selectLegOrders = prepareQuery<
  DB,
  { runId: number; legId: number; status: string },
  Row<StrategyOrdersTable>
>((db, $) =>
  db
    .selectFrom('strategy_orders')
    .selectAll()
    .where('run_id', '=', $('runId'))
    .where('status', '=', $('status'))
    .where('leg_id', '=', $('legId'))
    .orderBy('id'),
);

/** A run's orders in one state, oldest first. */
export const selectRunOrders = prepareQuery<DB, { runId: number; status: string }, Row<StrategyOrdersTable>>(
  (db, $) =>
    db
      .selectFrom('strategy_orders')
      .selectAll()
      .where('run_id', '=', $('runId'))
      .where('status', '=', $('status'))
      .orderBy('id'),
);

/**
 * A run's orders still open to a decision, oldest first: the intents whose outcome was never
 * recorded (`recorded`) and the acknowledged ones whose fate is not known (`placed`), in one read.
 */
export const selectOpenRunOrders = prepareQuery<
  DB,
  { runId: number; recorded: string; placed: string },
  Row<StrategyOrdersTable>
>((db, $) =>
  db
    .selectFrom('strategy_orders')
    .selectAll()
    .where('run_id', '=', $('runId'))
    .where('status', 'in', [$('recorded'), $('placed')])
    .orderBy('id'),
);

/** A leg's filled net, working quantity and exits, as {@link selectLegPosition} reads them. */
export type LegPositionRow = { net: number; working: number; exits: number };

export const selectLegPosition = prepareQuery<DB, { runId: number; legId: number }, LegPositionRow>((db, $) =>
  db
    .selectFrom('strategy_positions')
    .select(['net', 'working', 'exits'])
    .where('run_id', '=', $('runId'))
    .where('leg_id', '=', $('legId')),
);

/**
 * Adds to a leg's filled net and working quantities, the row created on the leg's first order;
 * returns the leg as it now is (a decision after a fill needs no second read).
 */
export const upsertLegPosition = prepareQuery<
  DB,
  {
    run_id: number;
    leg_id: number;
    symbol: string;
    exchange: string;
    net: number;
    working: number;
    updated_at: number;
  },
  LegPositionRow
>((db, $) =>
  db
    .insertInto('strategy_positions')
    .values({
      run_id: $('run_id'),
      leg_id: $('leg_id'),
      symbol: $('symbol'),
      exchange: $('exchange'),
      net: $('net'),
      working: $('working'),
      updated_at: $('updated_at'),
    })
    .onConflict((oc) =>
      oc.columns(['run_id', 'leg_id']).doUpdateSet((eb) => ({
        net: sql<number>`strategy_positions.net + excluded.net`,
        working: sql<number>`strategy_positions.working + excluded.working`,
        symbol: eb.ref('excluded.symbol'),
        exchange: eb.ref('excluded.exchange'),
        updated_at: eb.ref('excluded.updated_at'),
      })),
    )
    .returning(['net', 'working', 'exits']),
);

/** What an exit's compare-and-set checks the leg against (the leg as it was read). */
export type ExitCas = {
  runId: number;
  legId: number;
  exits: number;
  net: number;
  working: number;
  /** The unsettled intent's status, `recorded`. */
  recorded: string;
};

/**
 * An exit's compare-and-set on its leg: the next exit generation is taken only while the leg is
 * as it was read and no intent of it is unsettled (the repository's `recordOrder`). Built on `qc`
 * (the database, or a CTE's query creator: strategy-pg-statements.ts).
 */
export function exitGenerationUpdate(qc: QueryCreator<DB>, p: ExitCas) {
  return qc
    .updateTable('strategy_positions')
    .set((eb) => ({ exits: eb('exits', '+', 1) }))
    .where('run_id', '=', p.runId)
    .where('leg_id', '=', p.legId)
    .where('exits', '=', p.exits)
    .where('net', '=', p.net)
    .where('working', '=', p.working)
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('strategy_orders')
            .select('id')
            .where('run_id', '=', p.runId)
            .where('leg_id', '=', p.legId)
            .where('status', '=', p.recorded),
        ),
      ),
    );
}

/** The compare-and-set of {@link exitGenerationUpdate} as a statement of its own (SQLite). */
export const takeExitGeneration = prepareQuery<DB, ExitCas, never>((db, $) =>
  exitGenerationUpdate(db, {
    runId: $('runId'),
    legId: $('legId'),
    exits: $('exits'),
    net: $('net'),
    working: $('working'),
    recorded: $('recorded'),
  }),
);

/** Every column of an order's intent as the runner records it (filled_quantity takes its default). */
export type IntentInsert = Omit<Row<StrategyOrdersTable>, 'id' | 'filled_quantity'>;

export const insertIntent = prepareQuery<DB, IntentInsert, { id: number }>((db, $) =>
  db
    .insertInto('strategy_orders')
    .values({
      run_id: $('run_id'),
      strategy_id: $('strategy_id'),
      leg_id: $('leg_id'),
      symbol: $('symbol'),
      exchange: $('exchange'),
      action: $('action'),
      quantity: $('quantity'),
      purpose: $('purpose'),
      status: $('status'),
      order_id: $('order_id'),
      message: $('message'),
      tag: $('tag'),
      exit_gen: $('exit_gen'),
      created_at: $('created_at'),
      updated_at: $('updated_at'),
    })
    .returning('id'),
);

/**
 * An intent acknowledged: it becomes its first child order, `placed` (working) or `filled` when
 * it filled as it was placed (a compare-and-set on its state).
 */
export const settleAcknowledged = prepareQuery<
  DB,
  {
    id: number;
    status: string;
    orderId: string;
    quantity: number;
    filled: number;
    message: string | null;
    now: number;
    recorded: string;
    failed: string;
  },
  never
>((db, $) =>
  db
    .updateTable('strategy_orders')
    .set({
      status: $('status'),
      order_id: $('orderId'),
      quantity: $('quantity'),
      filled_quantity: $('filled'),
      message: $('message'),
      updated_at: $('now'),
    })
    .where('id', '=', $('id'))
    .where('status', 'in', [$('recorded'), $('failed')]),
);

/** An intent no child of which was acknowledged (a compare-and-set on its state). */
export const settleRejected = prepareQuery<
  DB,
  { id: number; message: string | null; now: number; recorded: string; failed: string },
  never
>((db, $) =>
  db
    .updateTable('strategy_orders')
    .set({ status: 'rejected', order_id: null, message: $('message'), updated_at: $('now') })
    .where('id', '=', $('id'))
    .where('status', 'in', [$('recorded'), $('failed')]),
);

/** A working order's fate recorded (a compare-and-set on `placed`). */
export const resolveWorking = prepareQuery<
  DB,
  { id: number; fate: string; filled: number; now: number; placed: string },
  never
>((db, $) =>
  db
    .updateTable('strategy_orders')
    .set({ status: $('fate'), filled_quantity: $('filled'), updated_at: $('now') })
    .where('id', '=', $('id'))
    .where('status', '=', $('placed')),
);

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

export type EventInsert = Omit<Row<StrategyEventsTable>, 'id'>;

export const insertEventRow = prepareQuery<DB, EventInsert, never>((db, $) =>
  db.insertInto('strategy_events').values({
    strategy_id: $('strategy_id'),
    run_id: $('run_id'),
    ts: $('ts'),
    kind: $('kind'),
    severity: $('severity'),
    leg_id: $('leg_id'),
    message: $('message'),
    payload: $('payload'),
  }),
);

/** Every column of an event, the optional ones null when absent. */
export function eventInsert(e: Omit<Insertable<StrategyEventsTable>, 'id'>): EventInsert {
  return {
    strategy_id: e.strategy_id,
    run_id: e.run_id ?? null,
    ts: e.ts,
    kind: e.kind,
    severity: e.severity,
    leg_id: e.leg_id ?? null,
    message: e.message,
    payload: e.payload ?? null,
  };
}

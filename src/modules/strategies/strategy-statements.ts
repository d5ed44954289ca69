/**
 * The statements every signal delivery runs (the strategy and its run, the lease, the leg's
 * position and orders, the trail event), compiled once per database
 * (platform/db/prepared.ts): building them with Kysely on every delivery cost more CPU than
 * SQLite spent running them. Used by the strategies repositories only; what a signal decides on,
 * read in one statement, is signal-view-statements.ts.
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

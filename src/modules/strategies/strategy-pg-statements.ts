/**
 * PostgreSQL only: an order's bookkeeping as single statements of data-modifying CTEs (used by
 * strategy-orders.repository.ts only). On PostgreSQL each statement is a round trip, and a
 * strategy's signals run one after another behind its lock: an exit's intent (the leg's
 * compare-and-set and the intent row) and an answer's settle (the order row, the leg's position,
 * the trail event) were a transaction of two and of three statements, BEGIN and COMMIT around
 * them: four and five round trips, now one each. A single statement is atomic on its own. SQLite
 * runs the same writes as statements of one transaction (a statement costs no round trip there,
 * and it has no data-modifying CTEs). Both paths write the same rows; the behaviour tests run on
 * both databases.
 */
import { sql } from 'kysely';
import type { DB } from '../../db/schema.js';
import { prepareQuery } from '../../platform/db/prepared.js';
import { exitGenerationUpdate, type IntentInsert } from './strategy-statements.js';

/**
 * An exit's intent: the leg's next exit generation taken by its compare-and-set (the leg as it
 * was read, no unsettled intent of it), and the intent row with that generation, in one
 * statement; no row (no id) when the leg had moved.
 */
export const insertExitIntentPg = prepareQuery<
  DB,
  Omit<IntentInsert, 'exit_gen'> & { exits: number; net: number; working: number; recorded: string },
  { id: number }
>((db, $) =>
  db
    .with('cas', (qc) =>
      exitGenerationUpdate(qc, {
        runId: $('run_id'),
        legId: $('leg_id'),
        exits: $('exits'),
        net: $('net'),
        working: $('working'),
        recorded: $('recorded'),
      }).returning('exits'),
    )
    .insertInto('strategy_orders')
    .columns([
      'run_id',
      'strategy_id',
      'leg_id',
      'symbol',
      'exchange',
      'action',
      'quantity',
      'purpose',
      'status',
      'order_id',
      'message',
      'tag',
      'exit_gen',
      'created_at',
      'updated_at',
    ])
    .expression((eb) =>
      eb.selectFrom('cas').select((s) => [
        // Values in a SELECT list are typed by their casts (an untyped parameter there is text).
        s.cast<number>(s.val($('run_id')), 'bigint').as('run_id'),
        s.cast<number>(s.val($('strategy_id')), 'bigint').as('strategy_id'),
        s.cast<number>(s.val($('leg_id')), 'bigint').as('leg_id'),
        s.cast<string>(s.val($('symbol')), 'text').as('symbol'),
        s.cast<string>(s.val($('exchange')), 'text').as('exchange'),
        s.cast<string>(s.val($('action')), 'text').as('action'),
        s.cast<number>(s.val($('quantity')), 'bigint').as('quantity'),
        s.cast<string>(s.val($('purpose')), 'text').as('purpose'),
        s.cast<string>(s.val($('status')), 'text').as('status'),
        s.cast<string | null>(s.val($('order_id')), 'text').as('order_id'),
        s.cast<string | null>(s.val($('message')), 'text').as('message'),
        s.cast<string | null>(s.val($('tag')), 'text').as('tag'),
        'cas.exits as exit_gen',
        s.cast<number>(s.val($('created_at')), 'bigint').as('created_at'),
        s.cast<number>(s.val($('updated_at')), 'bigint').as('updated_at'),
      ]),
    )
    .returning('id'),
);

/** What {@link settleOnePg} takes: the intent's answer, the leg's move and the trail event. */
export type SettleOneParams = {
  id: number;
  /** `placed`, `filled` or `rejected`. */
  status: string;
  orderId: string | null;
  /** The quantity the row keeps (the acknowledged child's, else the intent's). */
  quantity: number;
  filled: number;
  message: string | null;
  now: number;
  /** 1 when the leg moves (an acknowledged child), else 0. */
  moves: number;
  net: number;
  working: number;
  e_strategy_id: number;
  e_run_id: number | null;
  e_ts: number;
  e_kind: string;
  e_severity: string;
  e_leg_id: number | null;
  e_message: string;
  e_payload: string | null;
};

/**
 * An intent settled with an answer of at most one child, in one statement: the compare-and-set on
 * the intent (`recorded` or `failed`) and its new state, the leg's position moved by the child
 * (when `moves`), and the answer's event; `n` is 1 when the intent was settled, 0 when it had
 * been already (then nothing is written).
 */
export const settleOnePg = prepareQuery<DB, SettleOneParams, { n: number }>((db, $) =>
  db
    .with('s', (qc) =>
      qc
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
        .where('status', 'in', ['recorded', 'failed'])
        .returning(['run_id', 'leg_id', 'symbol', 'exchange']),
    )
    .with('p', (qc) =>
      qc
        .insertInto('strategy_positions')
        .columns(['run_id', 'leg_id', 'symbol', 'exchange', 'net', 'working', 'updated_at'])
        .expression((eb) =>
          eb
            .selectFrom('s')
            .select((s) => [
              's.run_id',
              's.leg_id',
              's.symbol',
              's.exchange',
              s.cast<number>(s.val($('net')), 'bigint').as('net'),
              s.cast<number>(s.val($('working')), 'bigint').as('working'),
              s.cast<number>(s.val($('now')), 'bigint').as('updated_at'),
            ])
            .where((s) => s(s.cast(s.val($('moves')), 'integer'), '=', 1)),
        )
        .onConflict((oc) =>
          oc.columns(['run_id', 'leg_id']).doUpdateSet((eb) => ({
            net: sql<number>`strategy_positions.net + excluded.net`,
            working: sql<number>`strategy_positions.working + excluded.working`,
            symbol: eb.ref('excluded.symbol'),
            exchange: eb.ref('excluded.exchange'),
            updated_at: eb.ref('excluded.updated_at'),
          })),
        ),
    )
    .with('e', (qc) =>
      qc
        .insertInto('strategy_events')
        .columns(['strategy_id', 'run_id', 'ts', 'kind', 'severity', 'leg_id', 'message', 'payload'])
        .expression((eb) =>
          eb
            .selectFrom('s')
            .select((s) => [
              s.cast<number>(s.val($('e_strategy_id')), 'bigint').as('strategy_id'),
              s.cast<number | null>(s.val($('e_run_id')), 'bigint').as('run_id'),
              s.cast<number>(s.val($('e_ts')), 'bigint').as('ts'),
              s.cast<string>(s.val($('e_kind')), 'text').as('kind'),
              s.cast<string>(s.val($('e_severity')), 'text').as('severity'),
              s.cast<number | null>(s.val($('e_leg_id')), 'bigint').as('leg_id'),
              s.cast<string>(s.val($('e_message')), 'text').as('message'),
              s.cast<string | null>(s.val($('e_payload')), 'text').as('payload'),
            ]),
        ),
    )
    .selectFrom('s')
    .select((eb) => eb.fn.countAll<number>().as('n')),
);

/**
 * The orders a run owns and the leg positions they move: each order's intent recorded before it
 * is sent (an exit by a compare-and-set on its leg), settled with the answer or reconciled after a
 * restart, resolved once its fill is known — each with its trail event in the same transaction.
 * Extended by {@link StrategyRunsRepository} (strategy-runs.repository.ts).
 */
import type { Insertable, Kysely, Selectable } from 'kysely';
import { isPostgres } from '../../platform/db/database.js';
import { transactionRunner, type TransactionRunner } from '../../platform/db/group-commit.js';
import { insertExitIntentPg, settleOnePg } from './strategy-pg-statements.js';
import {
  eventInsert,
  insertEventRow,
  insertIntent,
  resolveWorking,
  selectLegOrders,
  selectLegPosition,
  selectOpenRunOrders,
  selectRunOrders,
  settleAcknowledged,
  settleRejected,
  takeExitGeneration,
  upsertLegPosition,
  type IntentInsert,
  type LegPositionRow,
} from './strategy-statements.js';
import type {
  DB,
  StrategyEventsTable,
  StrategyOrdersTable,
  StrategyPositionsTable,
} from '../../db/schema.js';

export type StrategyOrderRow = Selectable<StrategyOrdersTable>;
export type NewEvent = Omit<Insertable<StrategyEventsTable>, 'id'>;

/** What an exit was sized from: the leg as it was read (its compare-and-set, see {@link recordOrder}). */
export interface LegSeen {
  exits: number;
  net: number;
  working: number;
}

/** Writes a transition's trail event in its transaction (none when `e` is absent). */
export async function insertEvent(trx: Kysely<DB>, e: NewEvent | null | undefined): Promise<void> {
  if (e) await insertEventRow.execute(trx, eventInsert(e));
}

/** A child order an answer acknowledged: its id, its quantity, and whether it is known filled already. */
export interface Child {
  orderId: string;
  quantity: number;
  /** Filled whole as it was placed (the sandbox's MARKET order): settled as filled, not working. */
  filled?: boolean;
}

/** The fields of an owned order that its bookkeeping needs. */
export type OwnedOrder = Pick<
  StrategyOrderRow,
  'id' | 'run_id' | 'leg_id' | 'symbol' | 'exchange' | 'action' | 'quantity'
>;

const signed = (o: Pick<StrategyOrderRow, 'action'>, quantity: number) =>
  o.action === 'BUY' ? quantity : -quantity;

/**
 * Adds to a leg's filled net and working quantities (the row is created on the leg's first
 * order); returns the leg as it now is.
 */
async function movePosition(
  trx: Kysely<DB>,
  o: OwnedOrder,
  net: number,
  working: number,
  now: number,
): Promise<LegSeen> {
  const r = await upsertLegPosition.execute(trx, {
    run_id: o.run_id,
    leg_id: o.leg_id,
    symbol: o.symbol,
    exchange: o.exchange,
    net,
    working,
    updated_at: now,
  });
  return legSeen(r.rows[0]);
}

/** A leg's position row as numbers; all 0 for a leg never traded (no row). */
export const legSeen = (r: LegPositionRow | null | undefined): LegSeen => ({
  net: Number(r?.net ?? 0),
  working: Number(r?.working ?? 0),
  exits: Number(r?.exits ?? 0),
});

export class StrategyOrdersRepository {
  /**
   * The transactions of an order's bookkeeping (its intent, its answer, its fill): on SQLite they
   * join the group commit of the database's other transactions (the sandbox's placements), each
   * in its savepoint, answered after the shared COMMIT; on PostgreSQL they are plain ones, or
   * one statement each where that can be written (an entry's intent, an exit's, an answer of one
   * child: strategy-pg-statements.ts).
   */
  protected readonly tx: TransactionRunner<DB>;

  /** PostgreSQL: an order's writes as single statements (strategy-pg-statements.ts). */
  private readonly pg: boolean;

  constructor(protected readonly db: Kysely<DB>) {
    this.tx = transactionRunner(db);
    this.pg = isPostgres(db);
  }

  /**
   * Records the intent of an order the run owns, before it is sent; returns its id.
   *
   * An exit (`seen` given) first takes the leg's next exit generation by a compare-and-set: the
   * leg must still be as it was read (same exits taken, same filled net, same working quantity)
   * with no other intent of it unsettled, and (run, leg, generation) is unique. So of any
   * interleaving of stop passes, deliveries and instances, one exit is recorded for a holding;
   * the others get `'conflict'` and send nothing.
   */
  async recordOrder(
    o: Omit<IntentInsert, 'exit_gen' | 'tag'> & { tag?: string | null },
    seen?: LegSeen,
  ): Promise<number | 'conflict'> {
    const row = {
      run_id: o.run_id,
      strategy_id: o.strategy_id,
      leg_id: o.leg_id,
      symbol: o.symbol,
      exchange: o.exchange,
      action: o.action,
      quantity: o.quantity,
      purpose: o.purpose,
      status: o.status,
      order_id: o.order_id,
      message: o.message,
      tag: o.tag ?? null,
      created_at: o.created_at,
      updated_at: o.updated_at,
    };
    // An entry is one INSERT: a lone write (on PostgreSQL one autocommitted round trip).
    if (!seen)
      return this.tx.statement(
        async (db) => (await insertIntent.execute(db, { ...row, exit_gen: null })).rows[0]!.id,
      );
    if (this.pg) {
      const { rows } = await this.tx.statement((db) =>
        insertExitIntentPg.execute(db, {
          ...row,
          exits: seen.exits,
          net: seen.net,
          working: seen.working,
          recorded: 'recorded',
        }),
      );
      return rows[0]?.id ?? 'conflict';
    }
    return this.tx.run(async (trx) => {
      const r = await takeExitGeneration.execute(trx, {
        runId: o.run_id,
        legId: o.leg_id,
        exits: seen.exits,
        net: seen.net,
        working: seen.working,
        recorded: 'recorded',
      });
      if (Number(r.numAffectedRows) !== 1) return 'conflict';
      const { rows } = await insertIntent.execute(trx, { ...row, exit_gen: seen.exits + 1 });
      return rows[0]!.id;
    });
  }

  /**
   * Settles a recorded order with its answer, and writes the answer's event, in one transaction:
   * no acknowledged child → `rejected`; else the row becomes the first acknowledged child order
   * and each further child (an order split at the freeze quantity) gets a row of its own, each
   * `placed` (working: its quantity is added to the leg's working quantity, and counts as held once
   * seen filled) or, when the answer says it filled as it was placed (the sandbox's MARKET order),
   * `filled` with its quantity added to the leg's net at once. A compare-and-set on the intent
   * (`recorded`, or `failed` when a reconcile found no trace of it but the answer came after all):
   * false when it was settled already.
   */
  async settleOrder(
    o: OwnedOrder & Pick<StrategyOrderRow, 'strategy_id' | 'purpose'>,
    children: readonly Child[],
    message: string | null,
    now: number,
    event: NewEvent,
  ): Promise<boolean> {
    const [first, ...more] = children;
    const note = message?.slice(0, 512) ?? null;
    if (this.pg && more.length === 0) {
      const e = eventInsert(event);
      const r = await this.tx.statement((db) =>
        settleOnePg.execute(db, {
          id: o.id,
          status: first ? (first.filled ? 'filled' : 'placed') : 'rejected',
          orderId: first?.orderId ?? null,
          quantity: first?.quantity ?? o.quantity,
          filled: first?.filled ? first.quantity : 0,
          message: note,
          now,
          moves: first ? 1 : 0,
          net: first?.filled ? signed(o, first.quantity) : 0,
          working: first && !first.filled ? signed(o, first.quantity) : 0,
          e_strategy_id: e.strategy_id,
          e_run_id: e.run_id,
          e_ts: e.ts,
          e_kind: e.kind,
          e_severity: e.severity,
          e_leg_id: e.leg_id,
          e_message: e.message,
          e_payload: e.payload,
        }),
      );
      return Number(r.rows[0]?.n) === 1;
    }
    return this.tx.run(async (trx) => {
      const states = { recorded: 'recorded', failed: 'failed' };
      const r = first
        ? await settleAcknowledged.execute(trx, {
            id: o.id,
            status: first.filled ? 'filled' : 'placed',
            orderId: first.orderId,
            quantity: first.quantity,
            filled: first.filled ? first.quantity : 0,
            message: note,
            now,
            ...states,
          })
        : await settleRejected.execute(trx, { id: o.id, message: note, now, ...states });
      if (Number(r.numAffectedRows) !== 1) return false;
      if (more.length)
        await trx
          .insertInto('strategy_orders')
          .values(
            more.map((c) => ({
              run_id: o.run_id,
              strategy_id: o.strategy_id,
              leg_id: o.leg_id,
              symbol: o.symbol,
              exchange: o.exchange,
              action: o.action,
              quantity: c.quantity,
              purpose: o.purpose,
              status: c.filled ? 'filled' : 'placed',
              order_id: c.orderId,
              message: null,
              filled_quantity: c.filled ? c.quantity : 0,
              created_at: now,
              updated_at: now,
            })),
          )
          .execute();
      const filled = children.reduce((n, c) => n + (c.filled ? c.quantity : 0), 0);
      const working = children.reduce((n, c) => n + (c.filled ? 0 : c.quantity), 0);
      if (filled + working > 0) await movePosition(trx, o, signed(o, filled), signed(o, working), now);
      await insertEvent(trx, event);
      return true;
    });
  }

  /**
   * Marks an intent that left no order (a reconcile found none with its reference) `failed`, with
   * its event; false when it was settled meanwhile.
   */
  async failIntent(
    o: Pick<StrategyOrderRow, 'id'>,
    message: string,
    now: number,
    event: NewEvent,
  ): Promise<boolean> {
    return this.tx.run(async (trx) => {
      const r = await trx
        .updateTable('strategy_orders')
        .set({ status: 'failed', message: message.slice(0, 512), updated_at: now })
        .where('id', '=', o.id)
        .where('status', '=', 'recorded')
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) !== 1) return false;
      await insertEvent(trx, event);
      return true;
    });
  }

  /**
   * Notes, once, that an intent's outcome could not be looked up (with its event); false when it
   * was noted already or settled meanwhile.
   */
  async markUnconfirmed(o: Pick<StrategyOrderRow, 'id'>, now: number, event: NewEvent): Promise<boolean> {
    return this.tx.run(async (trx) => {
      const r = await trx
        .updateTable('strategy_orders')
        .set({ message: 'outcome unconfirmed', updated_at: now })
        .where('id', '=', o.id)
        .where('status', '=', 'recorded')
        .where('message', 'is', null)
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) !== 1) return false;
      await insertEvent(trx, event);
      return true;
    });
  }

  /**
   * Records the fate of an acknowledged order: `filled` (whole) or `dead` (rejected, cancelled
   * or expired after the acknowledgement, with what it filled), with its event when it has one;
   * returns its leg as it then is. A compare-and-set on `placed`, so two instances reconciling
   * the same order count its fill once; false when it was resolved already.
   */
  async resolveOrder(
    o: OwnedOrder,
    fate: 'filled' | 'dead',
    filled: number,
    now: number,
    event?: NewEvent,
  ): Promise<LegSeen | false> {
    return this.tx.run(async (trx) => {
      const r = await resolveWorking.execute(trx, { id: o.id, fate, filled, now, placed: 'placed' });
      if (Number(r.numAffectedRows) !== 1) return false;
      const leg = await movePosition(trx, o, signed(o, filled), -signed(o, o.quantity), now);
      await insertEvent(trx, event);
      return leg;
    });
  }

  /** The run's order intents whose outcome was never recorded, oldest first. */
  async recordedOrders(runId: number): Promise<StrategyOrderRow[]> {
    return (await selectRunOrders.execute(this.db, { runId, status: 'recorded' })).rows;
  }

  /** The run's unsettled intents and working orders together, oldest first (one read). */
  async openOrders(runId: number): Promise<StrategyOrderRow[]> {
    return (await selectOpenRunOrders.execute(this.db, { runId, recorded: 'recorded', placed: 'placed' }))
      .rows;
  }

  /** The run's acknowledged orders whose fate is not known yet (of one leg, or all). */
  async workingOrders(runId: number, legId?: number): Promise<StrategyOrderRow[]> {
    const r =
      legId === undefined
        ? await selectRunOrders.execute(this.db, { runId, status: 'placed' })
        : await selectLegOrders.execute(this.db, { runId, legId, status: 'placed' });
    return r.rows;
  }

  /** Each leg's filled net and working quantity in the run (legs never traded have no row). */
  positions(runId: number): Promise<Selectable<StrategyPositionsTable>[]> {
    return this.db
      .selectFrom('strategy_positions')
      .selectAll()
      .where('run_id', '=', runId)
      .orderBy('leg_id')
      .execute();
  }

  /**
   * A leg's filled net quantity, the signed quantity of its orders still working and the exits it
   * has taken (all 0 for a leg never traded).
   */
  async position(runId: number, legId: number): Promise<LegSeen> {
    return legSeen((await selectLegPosition.execute(this.db, { runId, legId })).rows[0]);
  }

  ordersOfRun(runId: number): Promise<StrategyOrderRow[]> {
    return this.db
      .selectFrom('strategy_orders')
      .selectAll()
      .where('run_id', '=', runId)
      .orderBy('id')
      .execute();
  }
}

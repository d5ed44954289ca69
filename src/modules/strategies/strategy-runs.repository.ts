/**
 * Runs: the run claim and the strategy's lease (conditional UPDATEs, so they hold across
 * instances), and the stop transitions, each with the trail event that says so in the same
 * transaction: a crash between two writes never leaves a transition without its event. The
 * orders a run owns are {@link StrategyOrdersRepository}'s; extended by
 * {@link StrategiesRepository}.
 */
import type { Selectable } from 'kysely';
import type { StrategyRunsTable } from '../../db/schema.js';
import { insertEvent, StrategyOrdersRepository, type NewEvent } from './strategy-orders.repository.js';
import { releaseLease, selectRun, takeLease } from './strategy-statements.js';

export type RunRow = Selectable<StrategyRunsTable>;
export type { LegSeen, NewEvent, OwnedOrder, StrategyOrderRow } from './strategy-orders.repository.js';

/** Why a run could not be claimed. */
export type ClaimRefusal = 'active' | 'cooling_off' | 'gone';

export class StrategyRunsRepository extends StrategyOrdersRepository {
  /**
   * Opens a run when the strategy has none and its last stop is older than the cooling-off: the
   * run row and the claim are one transaction, the claim a conditional UPDATE, so concurrent
   * starts (UI, scheduler, webhooks, several instances) open exactly one run.
   */
  claimRun(
    strategyId: number,
    mode: string,
    now: number,
    coolingOffMs: number,
    event: (runId: number) => NewEvent,
  ): Promise<number | ClaimRefusal> {
    return this.db.transaction().execute(async (trx) => {
      const { id } = await trx
        .insertInto('strategy_runs')
        .values({ strategy_id: strategyId, mode, status: 'running', started_at: now })
        .returning('id')
        .executeTakeFirstOrThrow();
      const r = await trx
        .updateTable('strategies')
        .set({ active_run_id: id })
        .where('id', '=', strategyId)
        .where('active_run_id', 'is', null)
        .where((eb) => eb.or([eb('last_stop_at', 'is', null), eb('last_stop_at', '<=', now - coolingOffMs)]))
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) === 1) {
        await insertEvent(trx, event(id));
        return id;
      }
      await trx.deleteFrom('strategy_runs').where('id', '=', id).execute();
      const s = await trx
        .selectFrom('strategies')
        .select(['active_run_id'])
        .where('id', '=', strategyId)
        .executeTakeFirst();
      if (s === undefined) return 'gone';
      return s.active_run_id !== null ? 'active' : 'cooling_off';
    });
  }

  /**
   * Takes the strategy's lease for `holder` until `until` when it is free or expired: true for
   * the one caller (on any instance) whose conditional UPDATE took it.
   */
  async takeLease(strategyId: number, holder: string, started: number, until: number): Promise<boolean> {
    const r = await this.tx.statement((db) =>
      takeLease.execute(db, { id: strategyId, holder, started, until }),
    );
    return Number(r.numAffectedRows) === 1;
  }

  /** Extends a lease `holder` still holds (taken at `started`); false when it was lost. */
  async renewLease(strategyId: number, holder: string, started: number, until: number): Promise<boolean> {
    const r = await this.db
      .updateTable('strategies')
      .set({ signal_lease_until: until })
      .where('id', '=', strategyId)
      .where('signal_lease_holder', '=', holder)
      .where('signal_lease_started', '=', started)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  async releaseLease(strategyId: number, holder: string, started: number): Promise<void> {
    await this.tx.statement((db) => releaseLease.execute(db, { id: strategyId, holder, started }));
  }

  /** Releases every lease `holder` holds (a restarted instance, for its previous life's). */
  async releaseLeasesOf(holder: string): Promise<number> {
    const r = await this.db
      .updateTable('strategies')
      .set({ signal_lease_until: null, signal_lease_holder: null, signal_lease_started: null })
      .where('signal_lease_holder', '=', holder)
      .executeTakeFirst();
    return Number(r.numUpdatedRows);
  }

  async run(id: number): Promise<RunRow | undefined> {
    return (await selectRun.execute(this.db, { id })).rows[0];
  }

  runs(strategyId: number, limit: number): Promise<RunRow[]> {
    return this.db
      .selectFrom('strategy_runs')
      .selectAll()
      .where('strategy_id', '=', strategyId)
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
  }

  runsWithStatus(status: string): Promise<RunRow[]> {
    return this.db.selectFrom('strategy_runs').selectAll().where('status', '=', status).execute();
  }

  /**
   * Runs a background pass must look at: stop-pending runs (until their fills prove them flat)
   * and runs holding an order intent whose outcome was never recorded (a crash between sending
   * and recording it).
   */
  runsNeedingAttention(): Promise<RunRow[]> {
    return this.db
      .selectFrom('strategy_runs')
      .selectAll()
      .where((eb) =>
        eb.or([
          eb('status', '=', 'stop_pending'),
          eb('id', 'in', eb.selectFrom('strategy_orders').select('run_id').where('status', '=', 'recorded')),
        ]),
      )
      .orderBy('id')
      .execute();
  }

  /**
   * Marks the stop intent, with its event, in one transaction; false when the run was not
   * running (already stopping or stopped).
   */
  async requestStop(runId: number, now: number, event: NewEvent): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const r = await trx
        .updateTable('strategy_runs')
        .set({ status: 'stop_pending', stop_requested_at: now })
        .where('id', '=', runId)
        .where('status', '=', 'running')
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) !== 1) return false;
      await insertEvent(trx, event);
      return true;
    });
  }

  /**
   * The run is flat: stopped, the strategy's claim released and its cooling-off started, with its
   * event.
   */
  async finishRun(strategyId: number, runId: number, now: number, event: NewEvent): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const r = await trx
        .updateTable('strategy_runs')
        .set({ status: 'stopped', stopped_at: now })
        .where('id', '=', runId)
        .where('status', '!=', 'stopped')
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) !== 1) return false;
      await trx
        .updateTable('strategies')
        .set({ active_run_id: null, last_stop_at: now })
        .where('id', '=', strategyId)
        .where('active_run_id', '=', runId)
        .execute();
      await insertEvent(trx, event);
      return true;
    });
  }
}

import { randomBytes } from 'node:crypto';
import { selectSignalView, selectSignalViewSqlite } from './signal-view-statements.js';
import { eventInsert, insertEventRow, selectStrategy, type LegPositionRow } from './strategy-statements.js';
import { isPostgres } from '../../platform/db/database.js';
import { forgetClaims } from '../webhooks/webhooks.repository.js';
import type { Insertable, Selectable, Updateable } from 'kysely';
import type { StrategiesTable, StrategyEventsTable, StrategyLegsTable } from '../../db/schema.js';
import { legSeen } from './strategy-orders.repository.js';
import {
  StrategyRunsRepository,
  type LegSeen,
  type NewEvent,
  type RunRow,
  type StrategyOrderRow,
} from './strategy-runs.repository.js';

export type {
  ClaimRefusal,
  LegSeen,
  NewEvent,
  OwnedOrder,
  RunRow,
  StrategyOrderRow,
} from './strategy-runs.repository.js';

export type StrategyRow = Selectable<StrategiesTable>;
export type LegRow = Selectable<StrategyLegsTable>;
export type EventRow = Selectable<StrategyEventsTable>;
export type NewLeg = Omit<Insertable<StrategyLegsTable>, 'id' | 'strategy_id'>;

/**
 * What a signal decides on, read under the strategy's lock in one statement: the strategy and,
 * when it has an active run, that run, its open orders and the leg's position (absent, the runner
 * reads what it needs itself).
 */
export interface SignalView {
  /** The leg whose position `seen` is. */
  legId: number;
  strategy: StrategyRow;
  run?: RunRow | undefined;
  open?: StrategyOrderRow[] | undefined;
  seen?: LegSeen | undefined;
}

export interface EventFilter {
  strategyId: number;
  runId?: number | undefined;
  kind?: string | undefined;
  severity?: string | undefined;
  limit: number;
}

/**
 * The only place that touches the strategy tables: strategies, legs, the event trail, the webhook
 * audit and de-duplication here; runs and their orders in {@link StrategyRunsRepository}.
 */
export class StrategiesRepository extends StrategyRunsRepository {
  createStrategy(row: Omit<Insertable<StrategiesTable>, 'id'>, legs: NewLeg[]): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      const { id } = await trx.insertInto('strategies').values(row).returning('id').executeTakeFirstOrThrow();
      if (legs.length)
        await trx
          .insertInto('strategy_legs')
          .values(legs.map((l) => ({ ...l, strategy_id: id })))
          .execute();
      return id;
    });
  }

  /** Updates fields and, when `legs` is given, replaces the legs — in one transaction. */
  async updateStrategy(id: number, patch: Updateable<StrategiesTable>, legs?: NewLeg[]): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.updateTable('strategies').set(patch).where('id', '=', id).execute();
      if (legs) {
        await trx.deleteFrom('strategy_legs').where('strategy_id', '=', id).execute();
        if (legs.length)
          await trx
            .insertInto('strategy_legs')
            .values(legs.map((l) => ({ ...l, strategy_id: id })))
            .execute();
      }
    });
  }

  /**
   * Deletes a strategy that has no active run, keeping its trail: the row stays with
   * `deleted_at`, its token digest replaced by a value no token hashes to (colons are not hex), its
   * name freed for a new strategy (`<name> (deleted #<id>)`). False when it was gone or running.
   */
  async deleteStrategy(id: number, name: string, now: number): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const r = await trx
        .updateTable('strategies')
        .set({
          deleted_at: now,
          token_digest: `deleted:${id}:${randomBytes(16).toString('hex')}`,
          name: `${name.slice(0, 70)} (deleted #${id})`,
          locked: 1,
          updated_at: now,
        })
        .where('id', '=', id)
        .where('deleted_at', 'is', null)
        .where('active_run_id', 'is', null)
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) !== 1) return false;
      await forgetClaims(trx, 'strategy', id);
      return true;
    });
  }

  /** A strategy by id (deleted ones too: runs and the trail still name them). */
  async find(id: number): Promise<StrategyRow | undefined> {
    return (await selectStrategy.execute(this.db, { id })).rows[0];
  }

  /** See {@link SignalView}: one statement on either database. */
  async signalView(id: number, legId: number): Promise<SignalView | undefined> {
    const params = { id, legId, recorded: 'recorded', placed: 'placed' };
    if (isPostgres(this.db)) {
      const row = (await selectSignalView.execute(this.db, params)).rows[0];
      if (!row) return undefined;
      const { view_run: run, view_open: open, view_seen: seen, ...strategy } = row;
      return run ? { legId, strategy, run, open, seen: legSeen(seen) } : { legId, strategy };
    }
    const row = (await selectSignalViewSqlite.execute(this.db, params)).rows[0];
    if (!row) return undefined;
    const { view_run, view_open, view_seen, ...strategy } = row;
    if (view_run === null) return { legId, strategy };
    return {
      legId,
      strategy,
      run: JSON.parse(view_run) as RunRow,
      open: JSON.parse(view_open) as StrategyOrderRow[],
      seen: legSeen(view_seen === null ? null : (JSON.parse(view_seen) as LegPositionRow)),
    };
  }

  findByDigest(digest: string): Promise<StrategyRow | undefined> {
    return this.db
      .selectFrom('strategies')
      .selectAll()
      .where('token_digest', '=', digest)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
  }

  listForUser(userId: number): Promise<StrategyRow[]> {
    return this.db
      .selectFrom('strategies')
      .selectAll()
      .where('user_id', '=', userId)
      .where('deleted_at', 'is', null)
      .orderBy('id')
      .execute();
  }

  findByName(userId: number, name: string): Promise<StrategyRow | undefined> {
    return this.db
      .selectFrom('strategies')
      .selectAll()
      .where('user_id', '=', userId)
      .where('name', '=', name)
      .executeTakeFirst();
  }

  legs(strategyId: number): Promise<LegRow[]> {
    return this.db
      .selectFrom('strategy_legs')
      .selectAll()
      .where('strategy_id', '=', strategyId)
      .orderBy('position')
      .orderBy('id')
      .execute();
  }

  /** The strategy's latest run that stopped (its fills proved it flat), if any. */
  lastStoppedRun(strategyId: number): Promise<RunRow | undefined> {
    return this.db
      .selectFrom('strategy_runs')
      .selectAll()
      .where('strategy_id', '=', strategyId)
      .where('status', '=', 'stopped')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  /** The strategy's orders (of one run, or all), newest first. */
  ordersOfStrategy(
    strategyId: number,
    runId: number | undefined,
    limit: number,
  ): Promise<StrategyOrderRow[]> {
    let q = this.db.selectFrom('strategy_orders').selectAll().where('strategy_id', '=', strategyId);
    if (runId !== undefined) q = q.where('run_id', '=', runId);
    return q.orderBy('id', 'desc').limit(limit).execute();
  }

  async insertEvent(e: NewEvent): Promise<void> {
    await insertEventRow.execute(this.db, eventInsert(e));
  }

  events(f: EventFilter): Promise<EventRow[]> {
    let q = this.db.selectFrom('strategy_events').selectAll().where('strategy_id', '=', f.strategyId);
    if (f.runId !== undefined) q = q.where('run_id', '=', f.runId);
    if (f.kind !== undefined) q = q.where('kind', '=', f.kind);
    if (f.severity !== undefined) q = q.where('severity', '=', f.severity);
    return q.orderBy('ts', 'desc').orderBy('id', 'desc').limit(f.limit).execute();
  }
}

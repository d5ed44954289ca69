import { sql, type Insertable, type Kysely, type Selectable, type Updateable } from 'kysely';
import type {
  DB,
  StrategiesTable,
  StrategyEventsTable,
  StrategyLegsTable,
  StrategyOrdersTable,
  StrategyPositionsTable,
  StrategyRunsTable,
  WebhookDeliveriesTable,
} from '../../db/schema.js';

export type StrategyRow = Selectable<StrategiesTable>;
export type LegRow = Selectable<StrategyLegsTable>;
export type RunRow = Selectable<StrategyRunsTable>;
export type StrategyOrderRow = Selectable<StrategyOrdersTable>;
export type EventRow = Selectable<StrategyEventsTable>;
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;
export type NewLeg = Omit<Insertable<StrategyLegsTable>, 'id' | 'strategy_id'>;
export type NewEvent = Omit<Insertable<StrategyEventsTable>, 'id'>;

export interface EventFilter {
  strategyId: number;
  runId?: number | undefined;
  kind?: string | undefined;
  severity?: string | undefined;
  limit: number;
}

/** Why a run could not be claimed. */
export type ClaimRefusal = 'active' | 'cooling_off' | 'gone';

/** The only place that touches the strategy tables. */
export class StrategiesRepository {
  constructor(private readonly db: Kysely<DB>) {}

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

  async deleteStrategy(id: number): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('webhook_dedupe').where('strategy_id', '=', id).execute();
      await trx.deleteFrom('strategies').where('id', '=', id).execute();
    });
  }

  find(id: number): Promise<StrategyRow | undefined> {
    return this.db.selectFrom('strategies').selectAll().where('id', '=', id).executeTakeFirst();
  }

  findByDigest(digest: string): Promise<StrategyRow | undefined> {
    return this.db.selectFrom('strategies').selectAll().where('token_digest', '=', digest).executeTakeFirst();
  }

  listForUser(userId: number): Promise<StrategyRow[]> {
    return this.db.selectFrom('strategies').selectAll().where('user_id', '=', userId).orderBy('id').execute();
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

  async insertEvent(e: NewEvent): Promise<void> {
    await this.db.insertInto('strategy_events').values(e).execute();
  }

  events(f: EventFilter): Promise<EventRow[]> {
    let q = this.db.selectFrom('strategy_events').selectAll().where('strategy_id', '=', f.strategyId);
    if (f.runId !== undefined) q = q.where('run_id', '=', f.runId);
    if (f.kind !== undefined) q = q.where('kind', '=', f.kind);
    if (f.severity !== undefined) q = q.where('severity', '=', f.severity);
    return q.orderBy('ts', 'desc').orderBy('id', 'desc').limit(f.limit).execute();
  }

  async insertDelivery(d: Omit<Insertable<WebhookDeliveriesTable>, 'id'>): Promise<void> {
    await this.db.insertInto('webhook_deliveries').values(d).execute();
  }

  deliveries(strategyId: number, limit: number): Promise<DeliveryRow[]> {
    return this.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('strategy_id', '=', strategyId)
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
  }

  /**
   * Records a batch delivery's fingerprint: true when none was recorded within the window (the
   * delivery proceeds), false for a duplicate. One conditional upsert, so two instances receiving
   * the same delivery at once cannot both proceed.
   */
  async claimDelivery(
    strategyId: number,
    fingerprint: string,
    now: number,
    windowMs: number,
  ): Promise<boolean> {
    const r = await this.db
      .insertInto('webhook_dedupe')
      .values({ strategy_id: strategyId, fingerprint, at: now })
      .onConflict((oc) =>
        oc
          .columns(['strategy_id', 'fingerprint'])
          .doUpdateSet({ at: now })
          .where('webhook_dedupe.at', '<=', now - windowMs),
      )
      .executeTakeFirst();
    return Number(r.numInsertedOrUpdatedRows ?? 0n) > 0;
  }

  async purgeDedupe(before: number): Promise<void> {
    await this.db.deleteFrom('webhook_dedupe').where('at', '<=', before).execute();
  }

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
      if (Number(r.numUpdatedRows) === 1) return id;
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
   * Takes the strategy's signal lease until `until` when it is free or expired: true for the one
   * caller (on any instance) whose conditional UPDATE took it.
   */
  async takeSignalLease(strategyId: number, now: number, until: number): Promise<boolean> {
    const r = await this.db
      .updateTable('strategies')
      .set({ signal_lease_until: until })
      .where('id', '=', strategyId)
      .where((eb) => eb.or([eb('signal_lease_until', 'is', null), eb('signal_lease_until', '<=', now)]))
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  async releaseSignalLease(strategyId: number, until: number): Promise<void> {
    await this.db
      .updateTable('strategies')
      .set({ signal_lease_until: null })
      .where('id', '=', strategyId)
      .where('signal_lease_until', '=', until)
      .execute();
  }

  run(id: number): Promise<RunRow | undefined> {
    return this.db.selectFrom('strategy_runs').selectAll().where('id', '=', id).executeTakeFirst();
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

  /** Marks the stop intent; false when the run was not running (already stopping or stopped). */
  async requestStop(runId: number, now: number): Promise<boolean> {
    const r = await this.db
      .updateTable('strategy_runs')
      .set({ status: 'stop_pending', stop_requested_at: now })
      .where('id', '=', runId)
      .where('status', '=', 'running')
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /** The run is flat: stopped, the strategy's claim released and its cooling-off started. */
  async finishRun(strategyId: number, runId: number, now: number): Promise<boolean> {
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
      return true;
    });
  }

  /** Records an order the run owns, before it is sent; returns its id. */
  async recordOrder(o: Omit<Insertable<StrategyOrdersTable>, 'id'>): Promise<number> {
    const { id } = await this.db
      .insertInto('strategy_orders')
      .values(o)
      .returning('id')
      .executeTakeFirstOrThrow();
    return id;
  }

  /**
   * Settles a recorded order with its answer; a placed one moves its leg's net quantity in the
   * same transaction.
   */
  async settleOrder(
    o: Pick<StrategyOrderRow, 'id' | 'run_id' | 'leg_id' | 'symbol' | 'exchange' | 'action' | 'quantity'>,
    status: 'placed' | 'rejected',
    orderId: string | null,
    message: string | null,
    now: number,
  ): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx
        .updateTable('strategy_orders')
        .set({ status, order_id: orderId, message: message?.slice(0, 512) ?? null, updated_at: now })
        .where('id', '=', o.id)
        .execute();
      if (status !== 'placed') return;
      const delta = o.action === 'BUY' ? o.quantity : -o.quantity;
      await trx
        .insertInto('strategy_positions')
        .values({
          run_id: o.run_id,
          leg_id: o.leg_id,
          symbol: o.symbol,
          exchange: o.exchange,
          net: delta,
          updated_at: now,
        })
        .onConflict((oc) =>
          oc.columns(['run_id', 'leg_id']).doUpdateSet({
            net: sql<number>`strategy_positions.net + excluded.net`,
            symbol: o.symbol,
            exchange: o.exchange,
            updated_at: now,
          }),
        )
        .execute();
    });
  }

  /** Each leg's net quantity in the run (legs never traded have no row). */
  positions(runId: number): Promise<Selectable<StrategyPositionsTable>[]> {
    return this.db
      .selectFrom('strategy_positions')
      .selectAll()
      .where('run_id', '=', runId)
      .orderBy('leg_id')
      .execute();
  }

  async position(runId: number, legId: number): Promise<number> {
    const r = await this.db
      .selectFrom('strategy_positions')
      .select('net')
      .where('run_id', '=', runId)
      .where('leg_id', '=', legId)
      .executeTakeFirst();
    return r?.net ?? 0;
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

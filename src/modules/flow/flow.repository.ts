/**
 * The flow module's tables (migration 0018): flows, their runs and the de-duplication claims
 * (docs/rules/flow.md#flow-webhook: a conditional upsert, so two instances run one delivery once).
 */
import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { DB } from '../../db/schema.js';

export type FlowRow = Selectable<DB['flows']>;
export type FlowRunRow = Selectable<DB['flow_runs']>;

export class FlowRepository {
  constructor(private readonly db: Kysely<DB>) {}

  insert(row: Insertable<DB['flows']>): Promise<FlowRow> {
    return this.db.insertInto('flows').values(row).returningAll().executeTakeFirstOrThrow();
  }

  own(userId: number, id: number): Promise<FlowRow | undefined> {
    return this.db
      .selectFrom('flows')
      .selectAll()
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
  }

  listForUser(userId: number): Promise<FlowRow[]> {
    return this.db
      .selectFrom('flows')
      .selectAll()
      .where('user_id', '=', userId)
      .where('deleted_at', 'is', null)
      .orderBy('id')
      .execute();
  }

  async nameTaken(userId: number, name: string, exceptId?: number): Promise<boolean> {
    let q = this.db
      .selectFrom('flows')
      .select('id')
      .where('user_id', '=', userId)
      .where('name', '=', name)
      .where('deleted_at', 'is', null);
    if (exceptId !== undefined) q = q.where('id', '<>', exceptId);
    return (await q.executeTakeFirst()) !== undefined;
  }

  byDigest(digest: string): Promise<FlowRow | undefined> {
    return this.db
      .selectFrom('flows')
      .selectAll()
      .where('webhook_digest', '=', digest)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
  }

  update(id: number, patch: Updateable<DB['flows']>): Promise<FlowRow | undefined> {
    return this.db
      .updateTable('flows')
      .set(patch)
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .returningAll()
      .executeTakeFirst();
  }

  async softDelete(id: number, now: number): Promise<void> {
    await this.db
      .updateTable('flows')
      .set({ deleted_at: now, webhook_digest: null, updated_at: now })
      .where('id', '=', id)
      .execute();
    await this.db.deleteFrom('flow_dedupe').where('flow_id', '=', id).execute();
  }

  async insertRun(row: Insertable<DB['flow_runs']>): Promise<number> {
    const r = await this.db.insertInto('flow_runs').values(row).returning('id').executeTakeFirstOrThrow();
    return Number(r.id);
  }

  async completeRun(id: number, patch: Updateable<DB['flow_runs']>): Promise<void> {
    await this.db.updateTable('flow_runs').set(patch).where('id', '=', id).execute();
  }

  runs(flowId: number, limit: number): Promise<FlowRunRow[]> {
    return this.db
      .selectFrom('flow_runs')
      .selectAll()
      .where('flow_id', '=', flowId)
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
  }

  /** True when no claim of this fingerprint is younger than `windowMs` (the delivery goes ahead). */
  async claim(flowId: number, fingerprint: string, now: number, windowMs: number): Promise<boolean> {
    const r = await this.db
      .insertInto('flow_dedupe')
      .values({ flow_id: flowId, fingerprint, at: now })
      .onConflict((oc) =>
        oc
          .columns(['flow_id', 'fingerprint'])
          .doUpdateSet({ at: now })
          .where('flow_dedupe.at', '<=', now - windowMs),
      )
      .executeTakeFirst();
    return Number(r.numInsertedOrUpdatedRows ?? 0n) > 0;
  }

  async purgeDedupe(before: number): Promise<void> {
    await this.db.deleteFrom('flow_dedupe').where('at', '<=', before).execute();
  }
}

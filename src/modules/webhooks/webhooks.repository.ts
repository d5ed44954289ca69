/**
 * The inbound webhooks' tables (migration 0025): every delivery's audit row
 * (`webhook_deliveries`, with its source and owner) and the de-duplication claims (`webhook_dedupe`,
 * keyed by source, owner and fingerprint). A claim is one conditional upsert, so two instances
 * receiving the same delivery at once cannot both go ahead.
 */
import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { DB, WebhookDeliveriesTable } from '../../db/schema.js';
import { transactionRunner, type TransactionRunner } from '../../platform/db/group-commit.js';
import { prepareQuery } from '../../platform/db/prepared.js';

/** The sources of inbound webhooks: each has its own credential, parser and dispatch. */
export type SourceName = 'strategy' | 'scanner' | 'flow';

export type DeliveryRow = Selectable<WebhookDeliveriesTable>;
export type NewDelivery = Omit<Insertable<WebhookDeliveriesTable>, 'id'>;
type DeliveryInsert = Required<NewDelivery>;

/** A delivery's row in one prepared statement: the strategy webhook writes one per signal. */
const insertDeliveryRow = prepareQuery<DB, DeliveryInsert, never>((db, $) =>
  db.insertInto('webhook_deliveries').values({
    source: $('source'),
    owner_id: $('owner_id'),
    ts: $('ts'),
    ip: $('ip'),
    result: $('result'),
    http_status: $('http_status'),
    action: $('action'),
    message: $('message'),
    payload: $('payload'),
    detail: $('detail'),
    duration_ms: $('duration_ms'),
  }),
);

export class WebhooksRepository {
  private readonly tx: TransactionRunner<DB>;

  constructor(private readonly db: Kysely<DB>) {
    this.tx = transactionRunner(db);
  }

  /** Records a finished delivery (on SQLite in the open group commit: one per signal). */
  async insertDelivery(row: DeliveryInsert): Promise<void> {
    await this.tx.statement((db) => insertDeliveryRow.execute(db, row));
  }

  /** Records a delivery as it arrives; {@link completeDelivery} gives it its outcome. */
  async openDelivery(row: DeliveryInsert): Promise<number> {
    const r = await this.db
      .insertInto('webhook_deliveries')
      .values(row)
      .returning('id')
      .executeTakeFirstOrThrow();
    return Number(r.id);
  }

  async completeDelivery(id: number, patch: Updateable<WebhookDeliveriesTable>): Promise<void> {
    await this.db.updateTable('webhook_deliveries').set(patch).where('id', '=', id).execute();
  }

  /** An owner's deliveries, newest first. */
  deliveries(source: SourceName, ownerId: number, limit: number): Promise<DeliveryRow[]> {
    return this.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('source', '=', source)
      .where('owner_id', '=', ownerId)
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
  }

  /**
   * Claims a delivery's fingerprint for `windowMs`: true when no claim of it is younger than the
   * window (the delivery goes ahead), false for a duplicate.
   */
  async claim(
    key: { source: SourceName; ownerId: number; fingerprint: string },
    now: number,
    windowMs: number,
  ): Promise<boolean> {
    const r = await this.db
      .insertInto('webhook_dedupe')
      .values({ source: key.source, owner_id: key.ownerId, fingerprint: key.fingerprint, at: now })
      .onConflict((oc) =>
        oc
          .columns(['source', 'owner_id', 'fingerprint'])
          .doUpdateSet({ at: now })
          .where('webhook_dedupe.at', '<=', now - windowMs),
      )
      .executeTakeFirst();
    return Number(r.numInsertedOrUpdatedRows ?? 0n) > 0;
  }

  /** Gives back the claim made at `at` (the delivery was not handled after all), never a later one. */
  async release(
    key: { source: SourceName; ownerId: number; fingerprint: string },
    at: number,
  ): Promise<void> {
    await this.db
      .deleteFrom('webhook_dedupe')
      .where('source', '=', key.source)
      .where('owner_id', '=', key.ownerId)
      .where('fingerprint', '=', key.fingerprint)
      .where('at', '=', at)
      .execute();
  }

  /** Forgets an owner's claims (it is deleted). */
  forget(source: SourceName, ownerId: number): Promise<void> {
    return forgetClaims(this.db, source, ownerId);
  }

  async purgeDedupe(before: number): Promise<void> {
    await this.db.deleteFrom('webhook_dedupe').where('at', '<=', before).execute();
  }
}

/** Forgets an owner's de-duplication claims, inside the caller's transaction when given one. */
export async function forgetClaims(db: Kysely<DB>, source: SourceName, ownerId: number): Promise<void> {
  await db
    .deleteFrom('webhook_dedupe')
    .where('source', '=', source)
    .where('owner_id', '=', ownerId)
    .execute();
}

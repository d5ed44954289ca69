/**
 * The scanner module's tables (migration 0017): scanners, their delivery audit, the orders they
 * placed and the de-duplication claims. Cross-instance guarantees are single conditional writes:
 * the de-duplication claim (docs/rules/scanner.md#scanner-dedupe) and the day's square-off claim
 * (docs/rules/scanner.md#scanner-squareoff).
 */
import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { DB } from '../../db/schema.js';

export type ScannerRow = Selectable<DB['scanners']>;
export type NewScanner = Insertable<DB['scanners']>;
export type ScannerPatch = Updateable<DB['scanners']>;
export type DeliveryRow = Selectable<DB['scanner_deliveries']>;
export type NewDelivery = Insertable<DB['scanner_deliveries']>;
export type ScannerOrderRow = Selectable<DB['scanner_orders']>;
export type NewScannerOrder = Insertable<DB['scanner_orders']>;

export class ScannerRepository {
  constructor(private readonly db: Kysely<DB>) {}

  async insert(row: NewScanner): Promise<ScannerRow> {
    return this.db.insertInto('scanners').values(row).returningAll().executeTakeFirstOrThrow();
  }

  /** A user's scanner that is not deleted. */
  own(userId: number, id: number): Promise<ScannerRow | undefined> {
    return this.db
      .selectFrom('scanners')
      .selectAll()
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
  }

  listForUser(userId: number): Promise<ScannerRow[]> {
    return this.db
      .selectFrom('scanners')
      .selectAll()
      .where('user_id', '=', userId)
      .where('deleted_at', 'is', null)
      .orderBy('id')
      .execute();
  }

  /** The user's live scanner named `name`, other than `exceptId`. */
  async nameTaken(userId: number, name: string, exceptId?: number): Promise<boolean> {
    let q = this.db
      .selectFrom('scanners')
      .select('id')
      .where('user_id', '=', userId)
      .where('name', '=', name)
      .where('deleted_at', 'is', null);
    if (exceptId !== undefined) q = q.where('id', '<>', exceptId);
    return (await q.executeTakeFirst()) !== undefined;
  }

  byDigest(digest: string): Promise<ScannerRow | undefined> {
    return this.db
      .selectFrom('scanners')
      .selectAll()
      .where('webhook_digest', '=', digest)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
  }

  async update(id: number, patch: ScannerPatch): Promise<ScannerRow | undefined> {
    return this.db
      .updateTable('scanners')
      .set(patch)
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .returningAll()
      .executeTakeFirst();
  }

  /** Deletes a scanner: its webhook id dies, its name is free; its audit and orders stay. */
  async softDelete(id: number, now: number): Promise<boolean> {
    const r = await this.db
      .updateTable('scanners')
      .set({ deleted_at: now, webhook_digest: null, updated_at: now })
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    await this.db.deleteFrom('scanner_dedupe').where('scanner_id', '=', id).execute();
    return Number(r.numUpdatedRows) > 0;
  }

  async insertDelivery(row: NewDelivery): Promise<number> {
    const r = await this.db
      .insertInto('scanner_deliveries')
      .values(row)
      .returning('id')
      .executeTakeFirstOrThrow();
    return Number(r.id);
  }

  /** Completes the row written when the delivery arrived with its outcome. */
  async completeDelivery(id: number, patch: Updateable<DB['scanner_deliveries']>): Promise<void> {
    await this.db.updateTable('scanner_deliveries').set(patch).where('id', '=', id).execute();
  }

  deliveries(scannerId: number, limit: number): Promise<DeliveryRow[]> {
    return this.db
      .selectFrom('scanner_deliveries')
      .selectAll()
      .where('scanner_id', '=', scannerId)
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
  }

  async insertOrder(row: NewScannerOrder): Promise<void> {
    await this.db.insertInto('scanner_orders').values(row).execute();
  }

  ordersOfDay(scannerId: number, day: string): Promise<ScannerOrderRow[]> {
    return this.db
      .selectFrom('scanner_orders')
      .selectAll()
      .where('scanner_id', '=', scannerId)
      .where('day', '=', day)
      .orderBy('id')
      .execute();
  }

  /**
   * Claims an alert's fingerprint for `windowMs` (docs/rules/scanner.md#scanner-dedupe): true when
   * no claim of it is younger than the window (this delivery goes ahead), false for a duplicate.
   */
  async claimAlert(scannerId: number, fingerprint: string, now: number, windowMs: number): Promise<boolean> {
    const r = await this.db
      .insertInto('scanner_dedupe')
      .values({ scanner_id: scannerId, fingerprint, at: now })
      .onConflict((oc) =>
        oc
          .columns(['scanner_id', 'fingerprint'])
          .doUpdateSet({ at: now })
          .where('scanner_dedupe.at', '<=', now - windowMs),
      )
      .executeTakeFirst();
    return Number(r.numInsertedOrUpdatedRows ?? 0n) > 0;
  }

  /** Gives the claim made at `at` back (the delivery failed before placing anything). */
  async releaseAlert(scannerId: number, fingerprint: string, at: number): Promise<void> {
    await this.db
      .deleteFrom('scanner_dedupe')
      .where('scanner_id', '=', scannerId)
      .where('fingerprint', '=', fingerprint)
      .where('at', '=', at)
      .execute();
  }

  async purgeDedupe(before: number): Promise<void> {
    await this.db.deleteFrom('scanner_dedupe').where('at', '<=', before).execute();
  }

  /** MIS scanners whose square-off of `day` is not claimed yet. */
  squareOffCandidates(day: string): Promise<ScannerRow[]> {
    return this.db
      .selectFrom('scanners')
      .selectAll()
      .where('product', '=', 'MIS')
      .where('squareoff_time', 'is not', null)
      .where('deleted_at', 'is', null)
      .where((eb) => eb.or([eb('squared_off_day', 'is', null), eb('squared_off_day', '<>', day)]))
      .execute();
  }

  /** Claims the square-off of `day` for one scanner: true for the one instance that wins. */
  async claimSquareOff(id: number, day: string): Promise<boolean> {
    const r = await this.db
      .updateTable('scanners')
      .set({ squared_off_day: day })
      .where('id', '=', id)
      .where((eb) => eb.or([eb('squared_off_day', 'is', null), eb('squared_off_day', '<>', day)]))
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }
}

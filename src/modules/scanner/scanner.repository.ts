/**
 * The scanner module's tables (migration 0017): scanners (an owner table of the webhooks module:
 * owner-table.ts) and the orders they placed; their deliveries and de-duplication claims are the
 * webhooks module's. The day's square-off claim is a
 * single conditional write (docs/rules/scanner.md#scanner-squareoff).
 */
import type { Insertable, Kysely, Selectable } from 'kysely';
import type { DB } from '../../db/schema.js';
import { OwnerTableRepository } from '../webhooks/owner-table.js';

export type ScannerRow = Selectable<DB['scanners']>;
export type ScannerOrderRow = Selectable<DB['scanner_orders']>;
export type NewScannerOrder = Insertable<DB['scanner_orders']>;

export class ScannerRepository extends OwnerTableRepository<'scanners'> {
  constructor(db: Kysely<DB>) {
    super(db, 'scanners', 'scanner');
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

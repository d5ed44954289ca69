import type { Kysely, Selectable } from 'kysely';
import type { DB, MarketTimingsTable } from '../../db/schema.js';

export type TimingRow = Selectable<MarketTimingsTable>;

/** The only place that touches `market_timings`: one row per exchange (unique), `HH:MM` IST. */
export class TimingsRepository {
  constructor(private readonly db: Kysely<DB>) {}

  list(): Promise<TimingRow[]> {
    return this.db.selectFrom('market_timings').selectAll().orderBy('id').execute();
  }

  find(exchange: string): Promise<TimingRow | undefined> {
    return this.db
      .selectFrom('market_timings')
      .selectAll()
      .where('exchange', '=', exchange)
      .executeTakeFirst();
  }

  /**
   * Seeds the defaults when the table is empty. `on conflict do nothing` (both dialects) makes a
   * second instance starting at the same moment harmless: the unique exchange column decides.
   */
  async seedIfEmpty(
    rows: ReadonlyArray<{ exchange: string; start_time: string; end_time: string }>,
    at: number,
  ): Promise<boolean> {
    const { n } = await this.db
      .selectFrom('market_timings')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    if (Number(n) > 0) return false;
    await this.db
      .insertInto('market_timings')
      .values(rows.map((r) => ({ ...r, updated_at: at })))
      .onConflict((oc) => oc.column('exchange').doNothing())
      .execute();
    return true;
  }

  /** Updates one exchange's times; false when the exchange has no row. */
  async update(exchange: string, startTime: string, endTime: string, at: number): Promise<boolean> {
    const r = await this.db
      .updateTable('market_timings')
      .set({ start_time: startTime, end_time: endTime, updated_at: at })
      .where('exchange', '=', exchange)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  async count(): Promise<number> {
    const { n } = await this.db
      .selectFrom('market_timings')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(n);
  }
}

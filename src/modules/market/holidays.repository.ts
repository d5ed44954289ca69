import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { DB, MarketHolidayExchangesTable, MarketHolidaysTable } from '../../db/schema.js';
import { isPostgres, toDbBool } from '../../platform/db/database.js';

export type HolidayRow = Selectable<MarketHolidaysTable>;
export type HolidayExchangeRow = Selectable<MarketHolidayExchangesTable>;

/** A holiday with its exchange rows, as stored. */
export interface StoredHoliday {
  holiday: HolidayRow;
  exchanges: HolidayExchangeRow[];
}

/** A holiday to insert: the row and its per-exchange rows (closed, or open with epoch-ms times). */
export interface NewHoliday {
  holiday_date: string;
  description: string;
  holiday_type: string;
  year: number;
  exchanges: Array<{
    exchange_code: string;
    is_open: boolean;
    start_time: number | null;
    end_time: number | null;
  }>;
}

/** The only place that touches `market_holidays` and `market_holiday_exchanges`. */
export class HolidaysRepository {
  constructor(private readonly db: Kysely<DB>) {}

  /** Holidays of one year by date (then id), each with its exchange rows. */
  listYear(year: number): Promise<StoredHoliday[]> {
    return this.withExchanges(
      this.db
        .selectFrom('market_holidays')
        .selectAll()
        .where('year', '=', year)
        .orderBy('holiday_date')
        .orderBy('id')
        .execute(),
    );
  }

  /** Every holiday with its exchange rows (the calendar's cache: a few dozen rows a year). */
  listAll(): Promise<StoredHoliday[]> {
    return this.withExchanges(
      this.db.selectFrom('market_holidays').selectAll().orderBy('holiday_date').orderBy('id').execute(),
    );
  }

  async find(id: number): Promise<StoredHoliday | undefined> {
    const [h] = await this.withExchanges(
      this.db.selectFrom('market_holidays').selectAll().where('id', '=', id).execute(),
    );
    return h;
  }

  private async withExchanges(rowsP: Promise<HolidayRow[]>): Promise<StoredHoliday[]> {
    const rows = await rowsP;
    if (rows.length === 0) return [];
    const ex = await this.db
      .selectFrom('market_holiday_exchanges')
      .selectAll()
      .where(
        'holiday_id',
        'in',
        rows.map((r) => r.id),
      )
      .orderBy('id')
      .execute();
    const byHoliday = new Map<number, HolidayExchangeRow[]>();
    for (const e of ex) {
      const id = Number(e.holiday_id);
      byHoliday.set(id, [...(byHoliday.get(id) ?? []), e]);
    }
    return rows.map((holiday) => ({ holiday, exchanges: byHoliday.get(holiday.id) ?? [] }));
  }

  /** Inserts a holiday and its exchange rows in one transaction; returns the new id. */
  create(h: NewHoliday): Promise<number> {
    return this.db.transaction().execute((trx) => insertHoliday(trx, h));
  }

  /** Deletes a holiday and its exchange rows in one transaction; false when there is no such id. */
  delete(id: number): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('market_holiday_exchanges').where('holiday_id', '=', id).execute();
      const r = await trx.deleteFrom('market_holidays').where('id', '=', id).executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    });
  }

  async count(): Promise<number> {
    const { n } = await this.db
      .selectFrom('market_holidays')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(n);
  }

  /**
   * Inserts `holidays` when the table is empty, all in one transaction. On PostgreSQL the table is
   * locked first so two instances starting together seed once (SQLite serialises writers anyway).
   */
  seedIfEmpty(holidays: readonly NewHoliday[]): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      if (isPostgres(trx)) await sql`lock table market_holidays in share row exclusive mode`.execute(trx);
      const { n } = await trx
        .selectFrom('market_holidays')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      if (Number(n) > 0) return false;
      for (const h of holidays) await insertHoliday(trx, h);
      return true;
    });
  }
}

async function insertHoliday(trx: Transaction<DB>, h: NewHoliday): Promise<number> {
  const { id } = await trx
    .insertInto('market_holidays')
    .values({
      holiday_date: h.holiday_date,
      description: h.description,
      holiday_type: h.holiday_type,
      year: h.year,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  if (h.exchanges.length > 0) {
    await trx
      .insertInto('market_holiday_exchanges')
      .values(
        h.exchanges.map((e) => ({
          holiday_id: id,
          exchange_code: e.exchange_code,
          is_open: toDbBool(e.is_open),
          start_time: e.start_time,
          end_time: e.end_time,
        })),
      )
      .execute();
  }
  return id;
}

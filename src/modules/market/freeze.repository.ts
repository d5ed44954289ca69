import type { Kysely, Selectable } from 'kysely';
import type { DB, QtyFreezeTable } from '../../db/schema.js';

export type FreezeRow = Selectable<QtyFreezeTable>;
export interface FreezeValues {
  exchange: string;
  symbol: string;
  freeze_qty: number;
}

/** Rows per INSERT when replacing an exchange's list (3 parameters each; far below both limits). */
const CHUNK = 500;

export { isUniqueViolation } from '../../platform/db/database.js';

/** The only place that touches `qty_freeze` (unique on exchange + symbol). */
export class FreezeRepository {
  constructor(private readonly db: Kysely<DB>) {}

  list(): Promise<FreezeRow[]> {
    return this.db.selectFrom('qty_freeze').selectAll().orderBy('exchange').orderBy('symbol').execute();
  }

  find(id: number): Promise<FreezeRow | undefined> {
    return this.db.selectFrom('qty_freeze').selectAll().where('id', '=', id).executeTakeFirst();
  }

  findByKey(exchange: string, symbol: string): Promise<FreezeRow | undefined> {
    return this.db
      .selectFrom('qty_freeze')
      .selectAll()
      .where('exchange', '=', exchange)
      .where('symbol', '=', symbol)
      .executeTakeFirst();
  }

  /** Inserts an entry; a duplicate (exchange, symbol) throws a unique violation. */
  async insert(v: FreezeValues): Promise<FreezeRow> {
    const { id } = await this.db.insertInto('qty_freeze').values(v).returning('id').executeTakeFirstOrThrow();
    return { id, ...v };
  }

  /** Updates an entry; false when there is no such id; a duplicate throws a unique violation. */
  async update(id: number, v: FreezeValues): Promise<boolean> {
    const r = await this.db.updateTable('qty_freeze').set(v).where('id', '=', id).executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  async delete(id: number): Promise<boolean> {
    const r = await this.db.deleteFrom('qty_freeze').where('id', '=', id).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  /** Replaces every row of `exchange` with `rows` in one transaction (all or nothing). */
  replaceExchange(
    exchange: string,
    rows: ReadonlyArray<{ symbol: string; freeze_qty: number }>,
  ): Promise<void> {
    return this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('qty_freeze').where('exchange', '=', exchange).execute();
      for (let i = 0; i < rows.length; i += CHUNK) {
        await trx
          .insertInto('qty_freeze')
          .values(
            rows.slice(i, i + CHUNK).map((r) => ({ exchange, symbol: r.symbol, freeze_qty: r.freeze_qty })),
          )
          .execute();
      }
    });
  }

  async count(): Promise<number> {
    const { n } = await this.db
      .selectFrom('qty_freeze')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(n);
  }
}

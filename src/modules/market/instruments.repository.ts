import { sql, type Kysely, type SqlBool } from 'kysely';
import type { DB } from '../../db/schema.js';
import { isPostgres } from '../../platform/db/database.js';
import type { Instrument } from './instrument.js';
import type { InstrumentEntry } from './instrument-index.js';
import { INSTRUMENT_COLUMNS, interner, toEntry } from './instrument-rows.js';
import { searchKey } from './search-rules.js';

/** Rows per multi-row INSERT: 16 parameters each, under both dialects' parameter limits. */
const INSERT_BATCH = 1000;
/** Rows per DELETE when a generation is dropped, so no statement holds the write lock long. */
const DELETE_BATCH = 5000;

/**
 * The instruments of each contract generation (import runs are `ContractImportsRepository`'s).
 * The live contract is the newest successful import; an import writes its rows under its own id
 * and becomes live only when it succeeds, so a failed import leaves the previous contract in
 * place, and no statement holds a long write lock. This class writes, drops and loads
 * generations; the live contract's lookups and searches are `LiveContractRepository`'s
 * (live-contract.repository.ts).
 */
export class InstrumentsRepository {
  private readonly pg: boolean;
  constructor(private readonly db: Kysely<DB>) {
    this.pg = isPostgres(db);
  }

  async insertBatch(generation: number, rows: Instrument[]): Promise<void> {
    if (this.pg) return this.insertUnnest(generation, rows);
    for (let i = 0; i < rows.length; i += INSERT_BATCH) {
      await this.db
        .insertInto('instruments')
        .values(
          rows.slice(i, i + INSERT_BATCH).map((r) => ({
            generation,
            symbol: r.symbol,
            brsymbol: r.brsymbol,
            name: r.name,
            exchange: r.exchange,
            brexchange: r.brexchange,
            token: r.token,
            expiry: r.expiry,
            expiry_date: r.expiryDate,
            strike: r.strike,
            lotsize: r.lotsize,
            instrumenttype: r.instrumenttype,
            tick_size: r.tickSize,
            underlying: r.underlying,
            search_key: searchKey(r),
            reference_price: r.referencePrice ?? null,
          })),
        )
        .execute();
    }
  }

  /**
   * PostgreSQL: one INSERT … SELECT FROM unnest(arrays) per batch: 15 parameters whatever the
   * row count, one plan, a fraction of the protocol work of a multi-row VALUES list.
   */
  private async insertUnnest(generation: number, rows: Instrument[]): Promise<void> {
    const col = <T>(f: (r: Instrument) => T): T[] => rows.map(f);
    await sql`insert into instruments (generation, symbol, brsymbol, name, exchange, brexchange, token, expiry,
        expiry_date, strike, lotsize, instrumenttype, tick_size, underlying, search_key, reference_price)
      select ${generation}::bigint, * from unnest(
        ${col((r) => r.symbol)}::text[], ${col((r) => r.brsymbol)}::text[], ${col((r) => r.name)}::text[],
        ${col((r) => r.exchange)}::text[], ${col((r) => r.brexchange)}::text[], ${col((r) => r.token)}::text[],
        ${col((r) => r.expiry)}::text[], ${col((r) => r.expiryDate)}::text[], ${col((r) => r.strike)}::float8[],
        ${col((r) => r.lotsize)}::int[], ${col((r) => r.instrumenttype)}::text[], ${col((r) => r.tickSize)}::float8[],
        ${col((r) => r.underlying)}::text[], ${col((r) => searchKey(r))}::text[],
        ${col((r) => r.referencePrice ?? null)}::float8[])`.execute(this.db);
  }

  /**
   * Refreshes the planner's statistics after a bulk load (PostgreSQL: without them a fresh
   * contract's searches ignore the trigram index and read every row).
   */
  async analyze(): Promise<void> {
    if (this.pg) await sql`analyze instruments`.execute(this.db);
  }

  /** Deletes a generation's rows in bounded batches. */
  async deleteGeneration(generation: number): Promise<void> {
    for (;;) {
      const res = await this.db
        .deleteFrom('instruments')
        .where('id', 'in', (qb) =>
          qb.selectFrom('instruments').select('id').where('generation', '=', generation).limit(DELETE_BATCH),
        )
        .executeTakeFirst();
      if (Number(res.numDeletedRows) < DELETE_BATCH) return;
    }
  }

  /** Generations that have rows (the live one, running imports, leftovers). */
  async generations(): Promise<number[]> {
    const rows = await this.db.selectFrom('instruments').select('generation').distinct().execute();
    return rows.map((r) => Number(r.generation));
  }

  /** The newest successful import: the generation every reader uses. */
  async liveGeneration(): Promise<number | null> {
    const row = await this.db
      .selectFrom('contract_imports')
      .select((eb) => eb.fn.max('id').as('id'))
      .where('status', '=', 'success')
      .executeTakeFirst();
    return row?.id === null || row?.id === undefined ? null : Number(row.id);
  }

  /** The broker whose instrument file the live generation came from, or null when none is live. */
  async liveBroker(): Promise<string | null> {
    const row = await this.db
      .selectFrom('contract_imports')
      .select('broker')
      .where('status', '=', 'success')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row?.broker ?? null;
  }

  /** Streams a generation's rows in id pages (keyset), for building the index. */
  // Small pages: each page's driver rows die young instead of being promoted to the old space
  // (20,000-row pages left ~30 MB more resident after the 204k-row load).
  async *loadGeneration(generation: number, pageSize = 5_000): AsyncGenerator<InstrumentEntry[]> {
    let after = 0;
    const intern = interner();
    for (;;) {
      const page = await this.db
        .selectFrom('instruments')
        .select(INSTRUMENT_COLUMNS)
        // Unary plus: walk the primary key in order (a range scan) instead of the
        // (generation, …) indexes, which would visit the table rows in random order.
        .where(sql<SqlBool>`+generation = ${generation}`)
        .where('id', '>', after)
        .orderBy('id')
        .limit(pageSize)
        .execute();
      if (page.length === 0) return;
      after = Number(page[page.length - 1]!.id);
      yield page.map((r) => toEntry(r, intern));
      if (page.length < pageSize) return;
    }
  }
}

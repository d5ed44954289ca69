import { sql, type Expression, type Kysely, type Selectable, type SqlBool } from 'kysely';
import { DERIVATIVE_TYPES, OPTION_TYPES } from '../../domain/instruments.js';
import type { DB, InstrumentsTable } from '../../db/schema.js';
import { isPostgres } from '../../platform/db/database.js';
import type { Instrument } from './instrument.js';
import type { InstrumentEntry, SearchResult } from './instrument-index.js';
import { searchKey, type FnoFilters, type SearchTerm } from './search-rules.js';

/** Rows per multi-row INSERT: 16 parameters each, under both dialects' parameter limits. */
const INSERT_BATCH = 1000;
/** Rows per DELETE when a generation is dropped, so no statement holds the write lock long. */
const DELETE_BATCH = 5000;

const COLUMNS = [
  'id',
  'symbol',
  'brsymbol',
  'name',
  'exchange',
  'brexchange',
  'token',
  'expiry',
  'expiry_date',
  'strike',
  'lotsize',
  'instrumenttype',
  'tick_size',
  'underlying',
  'search_key',
] as const;

/**
 * The columns lookups and the index read. `reference_price` is not among them: only the
 * simulated prices read it, once per instrument ({@link InstrumentsRepository.referencePrice}).
 */
type Row = Pick<Selectable<InstrumentsTable>, (typeof COLUMNS)[number]>;

/** Identity for the few rows a query returns. */
const asIs = <T>(s: T): T => s;

/**
 * One shared copy per distinct value: the database driver hands every row fresh strings, and
 * 200k rows repeat a few hundred exchanges, types, expiries and names (tens of MB for the index).
 */
export function interner(): <T extends string | null>(s: T) => T {
  const pool = new Map<string, string>();
  return <T extends string | null>(s: T): T => {
    if (s === null) return s;
    const seen = pool.get(s);
    if (seen !== undefined) return seen as T;
    pool.set(s, s);
    return s;
  };
}

export function toEntry(r: Row, intern: <T extends string | null>(s: T) => T = asIs): InstrumentEntry {
  return {
    id: Number(r.id),
    symbol: r.symbol,
    brsymbol: r.brsymbol,
    name: intern(r.name),
    exchange: intern(r.exchange),
    brexchange: intern(r.brexchange),
    token: r.token,
    expiry: intern(r.expiry),
    expiryDate: intern(r.expiry_date),
    strike: r.strike === null ? null : Number(r.strike),
    lotsize: Number(r.lotsize),
    instrumenttype: intern(r.instrumenttype),
    tickSize: Number(r.tick_size),
    underlying: intern(r.underlying),
    key: r.search_key,
  };
}

/** `%`, `_` and `\` are literal in a search term. */
const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * The instruments of each contract generation (import runs are `ContractImportsRepository`'s).
 * The live contract is the newest successful import; an import writes its rows under its own id
 * and becomes live only when it succeeds, so a failed import leaves the previous contract in
 * place, and no statement holds a long write lock.
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
        .select(COLUMNS)
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

  /** The live generation as a subquery: a search always reads the current contract. */
  private live() {
    return this.db
      .selectFrom('contract_imports')
      .select((eb) => eb.fn.max('id').as('id'))
      .where('status', '=', 'success');
  }

  /** Rows of the live generation, for indexed lookups (symbol, token, underlying). */
  private base() {
    return this.db
      .selectFrom('instruments')
      .where('generation', '=', (eb) => eb.selectFrom(this.live().as('l')).select('l.id'));
  }

  /**
   * Rows of the live generation for a substring search, which reads every row anyway: a
   * sequential scan (unary plus keeps the planner off the generation indexes, whose random
   * row visits cost SQLite 3x more).
   */
  private scan() {
    return this.db.selectFrom('instruments').where(sql<SqlBool>`+generation = (${this.live()})`);
  }

  /**
   * Rows that may match `terms`, for the substring search. On SQLite, when a term can use the
   * trigram index (3+ characters, no LIKE wildcard), the candidates are the FTS5 matches of
   * every such term, plus the rows whose strike equals a numeric term (the same superset the
   * in-memory index takes), looked up by id; otherwise every live row is scanned.
   */
  private candidates(terms: SearchTerm[]) {
    // PostgreSQL: its planner combines the trigram and strike indexes itself (bitmap scans).
    if (this.pg) return this.base();
    const indexable = terms.filter((t) => t.text.length >= 3 && !/[%_\\]/.test(t.text));
    if (indexable.length === 0) return this.scan();
    const fts = sql`select rowid from instruments_fts where ${sql.join(
      indexable.map((t) => sql`search_key like ${`%${t.text}%`}`),
      sql` and `,
    )}`;
    const strikes = terms
      .filter((t) => t.number !== null)
      .map(
        (t) => sql`select id from instruments where generation = (${this.live()}) and strike = ${t.number}`,
      );
    const ids = strikes.length ? sql.join([fts, ...strikes], sql` union `) : fts;
    return this.db
      .selectFrom('instruments')
      .where(sql<SqlBool>`id in (${ids})`)
      .where(sql<SqlBool>`+generation = (${this.live()})`);
  }

  /**
   * Substring test (keys and terms are both upper-cased, so it is exact). PostgreSQL: LIKE, which
   * its trigram index serves (wildcards in the term escaped with `\\`, LIKE's default escape).
   */
  private termCondition(t: SearchTerm): Expression<SqlBool> {
    const has = this.pg
      ? sql<SqlBool>`search_key like ${`%${likeEscape(t.text)}%`}`
      : sql<SqlBool>`instr(search_key, ${t.text}) > 0`;
    return t.number === null ? has : sql<SqlBool>`(${has} or strike = ${t.number})`;
  }

  private rankExpr(first: SearchTerm) {
    const t = likeEscape(first.text);
    return sql<number>`case when search_key like ${`${t}\u001f%`} escape '\\' then 0 when search_key like ${`${t}%`} escape '\\' then 1 else 2 end`;
  }

  private text(col: string) {
    return this.pg ? sql`${sql.ref(col)} collate "C"` : sql`${sql.ref(col)}`;
  }

  /** The database fallback of the general search: the same matches and order as the index. */
  async search(
    terms: SearchTerm[],
    exchanges: readonly string[],
    limit: number,
    withTotal: boolean,
  ): Promise<SearchResult> {
    let q = terms.length > 0 ? this.candidates(terms) : this.base();
    if (exchanges.length > 0) q = q.where('exchange', 'in', [...exchanges]);
    for (const t of terms) q = q.where(this.termCondition(t));
    let ordered = q.select(COLUMNS);
    // (A bare integer in ORDER BY would name a column: rank only when there is a term.)
    if (terms.length > 0) ordered = ordered.orderBy(this.rankExpr(terms[0]!));
    const rows = await ordered
      .orderBy(sql`length(symbol)`)
      .orderBy(this.text('symbol'))
      .orderBy(this.text('exchange'))
      .orderBy('id')
      .limit(limit)
      .execute();
    const total = withTotal
      ? Number((await q.select((eb) => eb.fn.countAll().as('n')).executeTakeFirst())?.n ?? 0)
      : rows.length;
    return { rows: rows.map((r) => toEntry(r)), total };
  }

  /** The database fallback of the session F&O search. */
  async searchFno(terms: SearchTerm[], f: FnoFilters, limit: number): Promise<SearchResult> {
    let q = (terms.length > 0 ? this.candidates(terms) : this.base()).where('expiry_date', 'is not', null);
    if (f.exchanges.length) q = q.where('exchange', 'in', f.exchanges);
    if (f.instrumentTypes.length) q = q.where('instrumenttype', 'in', f.instrumentTypes);
    if (f.expiryDate !== null) q = q.where('expiry_date', '=', f.expiryDate);
    if (f.underlying !== null) q = q.where('underlying', '=', f.underlying);
    if (f.strikeMin !== null) q = q.where('strike', '>=', f.strikeMin);
    if (f.strikeMax !== null) q = q.where('strike', '<=', f.strikeMax);
    for (const t of terms) q = q.where(this.termCondition(t));
    let ordered = q.select(COLUMNS);
    if (terms.length > 0) ordered = ordered.orderBy(this.rankExpr(terms[0]!));
    const rows = await ordered
      .orderBy(this.pg ? sql`coalesce(underlying, '') collate "C"` : sql`coalesce(underlying, '')`)
      .orderBy(this.text('expiry_date'))
      .orderBy(sql`coalesce(strike, -1)`)
      .orderBy(this.text('instrumenttype'))
      .orderBy(this.text('symbol'))
      .orderBy(this.text('exchange'))
      .orderBy('id')
      .limit(limit)
      .execute();
    const total = Number((await q.select((eb) => eb.fn.countAll().as('n')).executeTakeFirst())?.n ?? 0);
    return { rows: rows.map((r) => toEntry(r)), total };
  }

  async expiries(f: {
    exchanges: string[];
    underlying: string | null;
    instrumentTypes: string[];
    from: string;
  }): Promise<string[]> {
    let q = this.base().where('expiry_date', '>=', f.from);
    if (f.exchanges.length) q = q.where('exchange', 'in', f.exchanges);
    if (f.underlying !== null) q = q.where('underlying', '=', f.underlying);
    if (f.instrumentTypes.length) q = q.where('instrumenttype', 'in', f.instrumentTypes);
    const rows = await q.select('expiry_date').distinct().execute();
    return rows.map((r) => r.expiry_date!).sort();
  }

  async underlyings(f: { exchanges: string[]; includeFutures: boolean }): Promise<string[]> {
    let q = this.base()
      .where('underlying', 'is not', null)
      .where('instrumenttype', 'in', f.includeFutures ? DERIVATIVE_TYPES : OPTION_TYPES)
      .where('underlying', 'not like', '%NSETEST%')
      .where('underlying', 'not like', '%BSETEST%');
    if (f.exchanges.length) q = q.where('exchange', 'in', f.exchanges);
    const rows = await q.select('underlying').distinct().execute();
    return rows.map((r) => r.underlying!).sort();
  }

  async get(symbol: string, exchange: string): Promise<InstrumentEntry | undefined> {
    const row = await this.base()
      .select(COLUMNS)
      .where('symbol', '=', symbol)
      .where('exchange', '=', exchange)
      .executeTakeFirst();
    return row ? toEntry(row) : undefined;
  }

  /**
   * The price the live contract's file states for the instrument (rupees), undefined when it
   * states none or the contract has no such instrument.
   */
  async referencePrice(symbol: string, exchange: string): Promise<number | undefined> {
    const row = await this.base()
      .select('reference_price')
      .where('symbol', '=', symbol)
      .where('exchange', '=', exchange)
      .executeTakeFirst();
    const price = row?.reference_price;
    return price === null || price === undefined ? undefined : Number(price);
  }

  async getByToken(token: string, exchange?: string): Promise<InstrumentEntry[]> {
    let q = this.base().select(COLUMNS).where('token', '=', token);
    if (exchange) q = q.where('exchange', '=', exchange);
    return (await q.orderBy('id').execute()).map((r) => toEntry(r));
  }

  async hasExchange(exchange: string): Promise<boolean> {
    const row = await this.base().select('id').where('exchange', '=', exchange).limit(1).executeTakeFirst();
    return row !== undefined;
  }
}

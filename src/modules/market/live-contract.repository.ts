/**
 * The live contract read from the database: every question the in-memory index answers (lookups
 * by symbol and token, the general and F&O searches with their ranking, the expiry and
 * underlying lists) asked of SQL instead, for while the index is loading or switched off
 * (docs/rules/market.md#index-or-database). Apart from instruments.repository.ts, which stores
 * and loads generations: this file only reads the live one, and holds the search's SQL (the FTS5
 * candidates on SQLite, the trigram LIKE on PostgreSQL, the rank expression) that must give the
 * index's answers in the index's order.
 */
import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import { DERIVATIVE_TYPES, OPTION_TYPES } from '../../domain/instruments.js';
import type { DB } from '../../db/schema.js';
import { isPostgres } from '../../platform/db/database.js';
import type { InstrumentEntry, SearchResult } from './instrument-index.js';
import { brokerRows, INSTRUMENT_COLUMNS, liveGenerationQuery, liveRows, toEntry } from './instrument-rows.js';
import type { FnoFilters, SearchTerm } from './search-rules.js';

/** `%`, `_` and `\` are literal in a search term. */
const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

export class LiveContractRepository {
  private readonly pg: boolean;
  constructor(private readonly db: Kysely<DB>) {
    this.pg = isPostgres(db);
  }

  /** The live generation as a subquery: a search always reads the current contract. */
  private live() {
    return liveGenerationQuery(this.db);
  }

  /** Rows of the live generation, for indexed lookups (symbol, token, underlying). */
  private base() {
    return liveRows(this.db);
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
    let ordered = q.select(INSTRUMENT_COLUMNS);
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
    let ordered = q.select(INSTRUMENT_COLUMNS);
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
      .select(INSTRUMENT_COLUMNS)
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
    let q = this.base().select(INSTRUMENT_COLUMNS).where('token', '=', token);
    if (exchange) q = q.where('exchange', '=', exchange);
    return (await q.orderBy('id').execute()).map((r) => toEntry(r));
  }

  /** The instrument by the broker's own symbol and exchange code: in the live contract, or `broker`'s newest file. */
  async getByBrSymbol(
    brsymbol: string,
    brexchange: string,
    broker?: string,
  ): Promise<InstrumentEntry | undefined> {
    const rows = broker === undefined ? this.base() : brokerRows(this.db, broker);
    const row = await rows
      .select(INSTRUMENT_COLUMNS)
      .where('brsymbol', '=', brsymbol)
      .where('brexchange', '=', brexchange)
      .orderBy('id')
      .executeTakeFirst();
    return row ? toEntry(row) : undefined;
  }

  /** The instrument in `broker`'s newest instrument file (not necessarily the live one). */
  async getOfBroker(broker: string, symbol: string, exchange: string): Promise<InstrumentEntry | undefined> {
    const row = await brokerRows(this.db, broker)
      .select(INSTRUMENT_COLUMNS)
      .where('symbol', '=', symbol)
      .where('exchange', '=', exchange)
      .executeTakeFirst();
    return row ? toEntry(row) : undefined;
  }

  /** Instruments by token in `broker`'s newest instrument file. */
  async getByTokenOfBroker(broker: string, token: string, exchange?: string): Promise<InstrumentEntry[]> {
    let q = brokerRows(this.db, broker).select(INSTRUMENT_COLUMNS).where('token', '=', token);
    if (exchange) q = q.where('exchange', '=', exchange);
    return (await q.orderBy('id').execute()).map((r) => toEntry(r));
  }

  async hasExchange(exchange: string): Promise<boolean> {
    const row = await this.base().select('id').where('exchange', '=', exchange).limit(1).executeTakeFirst();
    return row !== undefined;
  }
}

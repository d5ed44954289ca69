import type { Instrument } from './instrument.js';
import {
  KEY_SEPARATOR,
  compareFno,
  compareRows,
  isTestUnderlying,
  rankOf,
  termMatches,
  type FnoFilters,
  type SearchTerm,
} from './search-rules.js';
import { buildPostings, trigramCandidates, type TrigramPostings } from './trigram-postings.js';

/** An instrument as the index and the repository hand it out: the row id and its search key. */
export interface InstrumentEntry extends Instrument {
  id: number;
  /** `searchKey()` of the row. */
  key: string;
}

export interface SearchResult {
  rows: InstrumentEntry[];
  /** Every match, before the cap. */
  total: number;
}

/**
 * The in-memory instrument index of one contract generation: lookups by (symbol, exchange),
 * (brsymbol, brexchange) and token, and a trigram index for substring search.
 *
 * Rows are stored in the search order (`compareRows`), so the matches of a query come out of
 * the posting lists already ordered within each rank and never need sorting. The trigram index
 * over the rows' search keys is trigram-postings.ts.
 */
export class InstrumentIndex {
  readonly size: number;
  private readonly rows: InstrumentEntry[];
  /** exchange → symbol → row (nested maps: no key string per row). */
  private readonly bySymbol = new Map<string, Map<string, InstrumentEntry>>();
  /** Built on first use (broker-side lookups are rarer than searches; saves build time and memory until then). */
  private brSymbolMap?: Map<string, Map<string, InstrumentEntry>>;
  /** token → row, or rows when a token repeats across exchanges; built on first use. */
  private tokenMap?: Map<string, InstrumentEntry | InstrumentEntry[]>;
  private readonly byStrike = new Map<number, number[]>();
  private readonly trigrams: TrigramPostings;
  /** Per-query stamp of visited rows (avoids a Set per query). */
  private readonly seen: Uint32Array;
  private stamp = 0;

  /** Builds the index; `rows` is consumed (sorted in place). */
  constructor(
    rows: InstrumentEntry[],
    readonly generation: number,
  ) {
    rows.sort(compareRows);
    this.rows = rows;
    this.size = rows.length;
    this.seen = new Uint32Array(rows.length);
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i]!;
      putFirst(this.bySymbol, r.exchange, r.symbol, r);
      if (r.strike !== null) {
        const s = this.byStrike.get(r.strike);
        if (s) s.push(i);
        else this.byStrike.set(r.strike, [i]);
      }
    }
    this.trigrams = buildPostings(rows);
  }

  get(symbol: string, exchange: string): InstrumentEntry | undefined {
    return this.bySymbol.get(exchange)?.get(symbol);
  }

  getByBrSymbol(brsymbol: string, brexchange: string): InstrumentEntry | undefined {
    if (!this.brSymbolMap) {
      this.brSymbolMap = new Map();
      for (const r of this.rows) putFirst(this.brSymbolMap, r.brexchange, r.brsymbol, r);
    }
    return this.brSymbolMap.get(brexchange)?.get(brsymbol);
  }

  getByToken(token: string, exchange?: string): InstrumentEntry[] {
    if (!this.tokenMap) {
      const map = new Map<string, InstrumentEntry | InstrumentEntry[]>();
      for (const r of this.rows) {
        const t = map.get(r.token);
        if (t === undefined) map.set(r.token, r);
        else if (Array.isArray(t)) t.push(r);
        else map.set(r.token, [t, r]);
      }
      this.tokenMap = map;
    }
    const t = this.tokenMap.get(token);
    const all = t === undefined ? [] : Array.isArray(t) ? t : [t];
    return (exchange ? all.filter((r) => r.exchange === exchange) : [...all]).sort((a, b) => a.id - b.id);
  }

  /** Whether the contract holds any row on an exchange. */
  hasExchange(exchange: string): boolean {
    return this.bySymbol.has(exchange);
  }

  /**
   * General search (`/api/v1/search`, session search without F&O filters): every term matches,
   * optional exchange filter, ranked, at most `limit` rows.
   */
  search(terms: SearchTerm[], exchanges: readonly string[], limit: number): SearchResult {
    // The index never changes (a new contract is a new index), so an answer stays true for its
    // life: the queries a client repeats (a script resolving its symbols, the console's search box)
    // are answered from the memo instead of intersecting posting lists again.
    let key = `${limit}${KEY_SEPARATOR}${exchanges.join(',')}`;
    for (const t of terms) key += KEY_SEPARATOR + t.text;
    const memo = this.answers.get(key);
    if (memo !== undefined) {
      this.answers.delete(key);
      this.answers.set(key, memo);
      return memo;
    }
    const answer = this.searchUncached(terms, exchanges, limit);
    if (this.answers.size >= ANSWERS_MAX) this.answers.delete(this.answers.keys().next().value!);
    this.answers.set(key, answer);
    return answer;
  }

  /** Answers of {@link search} by query, least recently used first (at most {@link ANSWERS_MAX}). */
  private readonly answers = new Map<string, SearchResult>();

  private searchUncached(terms: SearchTerm[], exchanges: readonly string[], limit: number): SearchResult {
    const ranks: [number[], number[], number[]] = [[], [], []];
    const first = terms[0];
    const exSet = exchanges.length > 0 ? new Set(exchanges) : null;
    this.forEachMatch(terms, (i, r) => {
      if (exSet && !exSet.has(r.exchange)) return;
      ranks[rankOf(r.key, first)].push(i);
    });
    const total = ranks[0].length + ranks[1].length + ranks[2].length;
    const rows: InstrumentEntry[] = [];
    for (const bucket of ranks) {
      // Candidates arrive in row order except when a strike list was merged in.
      bucket.sort((a, b) => a - b);
      for (const i of bucket) {
        if (rows.length >= limit) break;
        rows.push(this.rows[i]!);
      }
    }
    // Shared by every caller that asks the same query: nobody may change it.
    return Object.freeze({ rows: Object.freeze(rows) as InstrumentEntry[], total });
  }

  /**
   * The F&O search of the session routes (docs/rules/market.md#fno-or-general-search,
   * docs/rules/market.md#multi-value-filters): filters, optional terms.
   */
  searchFno(terms: SearchTerm[], f: FnoFilters, limit: number): SearchResult {
    const first = terms[0];
    const matches: { rank: number; r: InstrumentEntry }[] = [];
    const accept = fnoPredicate(f);
    if (terms.length === 0 && f.underlying !== null) {
      // A chain: only that underlying's contracts are read.
      for (const r of this.underlyingRows(f.underlying)) if (accept(r)) matches.push({ rank: 0, r });
    } else {
      this.forEachMatch(terms, (_i, r) => {
        if (accept(r)) matches.push({ rank: terms.length > 0 ? rankOf(r.key, first) : 0, r });
      });
    }
    matches.sort((a, b) => a.rank - b.rank || compareFno(a.r, b.r));
    return { rows: matches.slice(0, limit).map((m) => m.r), total: matches.length };
  }

  /** Distinct expiries (ISO dates) of derivatives matching the filters, ascending. */
  expiries(f: { exchanges: string[]; underlying: string | null; instrumentTypes: string[]; from: string }) {
    const out = new Set<string>();
    const ex = f.exchanges.length ? new Set(f.exchanges) : null;
    const types = f.instrumentTypes.length ? new Set(f.instrumentTypes) : null;
    for (const r of f.underlying !== null ? this.underlyingRows(f.underlying) : this.rows) {
      if (r.expiryDate === null || r.expiryDate < f.from) continue;
      if (ex && !ex.has(r.exchange)) continue;
      if (f.underlying !== null && r.underlying !== f.underlying) continue;
      if (types && !types.has(r.instrumenttype)) continue;
      out.add(r.expiryDate);
    }
    return [...out].sort();
  }

  private byUnderlying?: Map<string, InstrumentEntry[]>;
  /** Derivatives of one underlying, in row order (map built on first use). */
  private underlyingRows(underlying: string): InstrumentEntry[] {
    if (!this.byUnderlying) {
      const map = new Map<string, InstrumentEntry[]>();
      for (const r of this.rows) {
        if (r.underlying === null) continue;
        const list = map.get(r.underlying);
        if (list) list.push(r);
        else map.set(r.underlying, [r]);
      }
      this.byUnderlying = map;
    }
    return this.byUnderlying.get(underlying) ?? [];
  }

  /**
   * Distinct underlyings of options (and futures when asked), test symbols dropped
   * (docs/rules/market.md#underlyings-without-test-symbols).
   */
  underlyings(f: { exchanges: string[]; includeFutures: boolean }): string[] {
    const out = new Set<string>();
    const ex = f.exchanges.length ? new Set(f.exchanges) : null;
    for (const r of this.rows) {
      if (r.underlying === null) continue;
      const t = r.instrumenttype;
      if (!(t === 'CE' || t === 'PE' || (f.includeFutures && t === 'FUT'))) continue;
      if (ex && !ex.has(r.exchange)) continue;
      if (isTestUnderlying(r.underlying)) continue;
      out.add(r.underlying);
    }
    return [...out].sort();
  }

  /**
   * Calls `fn` for each row matching every term (no terms = every row). Candidates are the
   * intersection of the posting lists of the terms' trigrams, rarest first (a superset of the
   * rows holding every term's text), plus, for a numeric term, the rows with that strike.
   */
  private forEachMatch(terms: SearchTerm[], fn: (i: number, r: InstrumentEntry) => void): void {
    const rows = this.rows;
    const check = (i: number) => {
      const r = rows[i]!;
      for (const t of terms) if (!termMatches(r.key, r.strike, t)) return;
      fn(i, r);
    };
    const candidates = trigramCandidates(this.trigrams, terms);
    if (candidates === null) {
      for (let i = 0; i < rows.length; i++) check(i);
      return;
    }
    const stamp = this.nextStamp();
    const seen = this.seen;
    for (const i of candidates) {
      seen[i] = stamp;
      check(i);
    }
    for (const term of terms) {
      if (term.number === null) continue;
      for (const i of this.byStrike.get(term.number) ?? []) {
        if (seen[i] === stamp) continue;
        seen[i] = stamp;
        check(i);
      }
    }
  }

  private nextStamp(): number {
    if (++this.stamp === 0xffffffff) {
      this.seen.fill(0);
      this.stamp = 1;
    }
    return this.stamp;
  }
}

/** The F&O path's row filter (exchange × type union, expiry, underlying, strike range). */
export function fnoPredicate(f: FnoFilters): (r: Instrument) => boolean {
  const ex = f.exchanges.length ? new Set(f.exchanges) : null;
  const types = f.instrumentTypes.length ? new Set(f.instrumentTypes) : null;
  return (r) =>
    r.expiryDate !== null &&
    (!ex || ex.has(r.exchange)) &&
    (!types || types.has(r.instrumenttype)) &&
    (f.expiryDate === null || r.expiryDate === f.expiryDate) &&
    (f.underlying === null || r.underlying === f.underlying) &&
    (f.strikeMin === null || (r.strike !== null && r.strike >= f.strikeMin)) &&
    (f.strikeMax === null || (r.strike !== null && r.strike <= f.strikeMax));
}

/** Distinct general-search answers an index keeps ({@link InstrumentIndex.search}). */
export const ANSWERS_MAX = 128;

/** Sets `outer[a][b] = v` unless already set (the first row in search order wins). */
function putFirst<V>(outer: Map<string, Map<string, V>>, a: string, b: string, v: V): void {
  let inner = outer.get(a);
  if (!inner) outer.set(a, (inner = new Map()));
  if (!inner.has(b)) inner.set(b, v);
}

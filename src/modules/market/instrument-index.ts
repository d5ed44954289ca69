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
 * is two typed arrays (offsets and postings) over 18-bit trigram codes: about 4 bytes per
 * distinct trigram of a row, no Map of strings.
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
  private readonly offsets: Uint32Array;
  private readonly postings: Uint32Array;
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
    // Two passes over the keys: count each row's distinct trigrams, then fill.
    const counts = new Uint32Array(TRIGRAMS + 1);
    const last = new Int32Array(TRIGRAMS).fill(-1);
    for (let row = 0; row < rows.length; row++) {
      const key = rows[row]!.key;
      for (let i = 0, code = 0, run = 0; i < key.length; i++) {
        const c = charCode(key.charCodeAt(i));
        if (c < 0) {
          run = 0; // a field separator: no trigram spans two fields
          continue;
        }
        code = ((code << 6) | c) & (TRIGRAMS - 1);
        if (++run >= 3 && last[code] !== row) {
          last[code] = row;
          counts[code + 1]!++;
        }
      }
    }
    for (let c = 0; c < TRIGRAMS; c++) counts[c + 1]! += counts[c]!;
    this.offsets = counts;
    const postings = new Uint32Array(counts[TRIGRAMS]!);
    const fill = counts.slice(0, TRIGRAMS);
    last.fill(-1);
    for (let row = 0; row < rows.length; row++) {
      const key = rows[row]!.key;
      for (let i = 0, code = 0, run = 0; i < key.length; i++) {
        const c = charCode(key.charCodeAt(i));
        if (c < 0) {
          run = 0;
          continue;
        }
        code = ((code << 6) | c) & (TRIGRAMS - 1);
        if (++run >= 3 && last[code] !== row) {
          last[code] = row;
          postings[fill[code]!++] = row;
        }
      }
    }
    this.postings = postings;
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
    const ranges: { from: number; to: number }[] = [];
    for (const term of terms) {
      for (let i = 0; i + 2 < term.text.length; i++) {
        const code = trigramAt(term.text, i);
        if (code >= 0) ranges.push({ from: this.offsets[code]!, to: this.offsets[code + 1]! });
      }
    }
    if (ranges.length === 0) {
      for (let i = 0; i < rows.length; i++) check(i);
      return;
    }
    ranges.sort((a, b) => a.to - a.from - (b.to - b.from));
    const first = ranges[0]!;
    let candidates: Uint32Array | number[] = this.postings.subarray(first.from, first.to);
    for (let k = 1; k < ranges.length && k < MAX_INTERSECTIONS && candidates.length > INTERSECT_BELOW; k++) {
      const r = ranges[k]!;
      candidates = intersect(candidates, this.postings, r.from, r.to);
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

/** Posting lists intersected at most per query, and the candidate count below which it stops. */
const MAX_INTERSECTIONS = 6;
const INTERSECT_BELOW = 64;

/** 6 bits per character, 3 characters: 2^18 trigram codes. */
const TRIGRAMS = 1 << 18;
const CHAR_CODES = (() => {
  const m = new Int8Array(128).fill(63);
  m[0x1f] = -1; // the key separator: no trigram spans two fields
  for (let c = 0; c < 26; c++) m[65 + c] = 1 + c;
  for (let d = 0; d < 10; d++) m[48 + d] = 27 + d;
  " -&._|/()+,:'".split('').forEach((ch, n) => (m[ch.charCodeAt(0)] = 37 + n));
  return m;
})();

function charCode(c: number): number {
  return c < 128 ? CHAR_CODES[c]! : 62;
}

/** Code of the trigram at `i`, or -1 if it spans a field separator. */
function trigramAt(s: string, i: number): number {
  const a = charCode(s.charCodeAt(i));
  const b = charCode(s.charCodeAt(i + 1));
  const c = charCode(s.charCodeAt(i + 2));
  if (a < 0 || b < 0 || c < 0) return -1;
  return (a << 12) | (b << 6) | c;
}

/** Sets `outer[a][b] = v` unless already set (the first row in search order wins). */
function putFirst<V>(outer: Map<string, Map<string, V>>, a: string, b: string, v: V): void {
  let inner = outer.get(a);
  if (!inner) outer.set(a, (inner = new Map()));
  if (!inner.has(b)) inner.set(b, v);
}

/** Entries of the sorted `list` that are also in the sorted range `postings[from, to)`. */
function intersect(list: Uint32Array | number[], postings: Uint32Array, from: number, to: number): number[] {
  const out: number[] = [];
  let lo = from;
  for (const x of list) {
    // Gallop then binary-search: `list` is much shorter than the range.
    let step = 1;
    let hi = lo;
    while (hi < to && postings[hi]! < x) {
      lo = hi + 1;
      hi += step;
      step *= 2;
    }
    if (hi > to) hi = to;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (postings[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    if (lo >= to) break;
    if (postings[lo] === x) out.push(x);
  }
  return out;
}

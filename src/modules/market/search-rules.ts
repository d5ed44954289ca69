import type { Instrument } from './instrument.js';
import { EXCHANGES } from '../../domain/exchanges.js';

/**
 * The search semantics shared by the in-memory index and the database fallback
 * (docs/rules/market.md#index-or-database: both paths return the same results, so both are
 * written from these definitions).
 *
 * - A query is split on whitespace into upper-cased terms; every term must match.
 * - A term matches an instrument when it is a substring of its canonical symbol, broker symbol,
 *   name or token (upper-cased), or, for a numeric term, when it equals the strike.
 * - Ranking: exact symbol (= the first term), then symbol prefix, then other matches; within a
 *   rank shorter symbols first, then symbol, exchange, row id (byte order, a total order).
 */

/** Fields of a search key are joined with the ASCII unit separator, which no term contains. */
export const KEY_SEPARATOR = '\u001f';

/** Most results `/api/v1/search` returns (OpenAlgo's cache search uses the same cap). */
export const PUBLIC_SEARCH_LIMIT = 500;
/** Most results a session search returns; `total` still counts every match. */
export const SESSION_SEARCH_LIMIT = 500;
/** Longest query accepted; longer input is refused by the route schemas. */
export const MAX_QUERY_LENGTH = 200;
/** Most terms a query may have (each term is one more condition). */
export const MAX_TERMS = 8;

/** What a search term is matched against: `SYMBOL␟BRSYMBOL␟NAME␟TOKEN`, upper-cased. */
export function searchKey(i: Pick<Instrument, 'symbol' | 'brsymbol' | 'name' | 'token'>): string {
  return [i.symbol, i.brsymbol, i.name, i.token].join(KEY_SEPARATOR).toUpperCase();
}

export interface SearchTerm {
  /** Upper-cased text, control characters removed. */
  text: string;
  /** The numeric value when the term is a number (matched against the strike), else null. */
  number: number | null;
}

const NUMERIC = /^\d+(?:\.\d+)?$/;

/** Splits a query into terms (at most `MAX_TERMS`; control characters dropped). */
export function parseTerms(query: string): SearchTerm[] {
  return (
    query
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u001f\u007f]/g, ' ')
      .toUpperCase()
      .split(/\s+/)
      .filter((t) => t.length > 0)
      .slice(0, MAX_TERMS)
      .map((text) => ({ text, number: NUMERIC.test(text) ? Number(text) : null }))
  );
}

/** Whether an instrument (its key and strike) satisfies one term. */
export function termMatches(key: string, strike: number | null, term: SearchTerm): boolean {
  return key.includes(term.text) || (term.number !== null && strike === term.number);
}

/** 0 exact symbol, 1 symbol prefix, 2 other (the key starts with the symbol). */
export function rankOf(key: string, first: SearchTerm | undefined): 0 | 1 | 2 {
  if (!first) return 2;
  if (!key.startsWith(first.text)) return 2;
  return key.charCodeAt(first.text.length) === 0x1f ? 0 : 1;
}

/** The order of rows within a rank: shorter symbol, symbol, exchange, id (code-unit order). */
export function compareRows(
  a: { symbol: string; exchange: string; id: number },
  b: { symbol: string; exchange: string; id: number },
): number {
  return (
    a.symbol.length - b.symbol.length || cmp(a.symbol, b.symbol) || cmp(a.exchange, b.exchange) || a.id - b.id
  );
}

export const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Exchanges `/api/v1/search` accepts in its optional `exchange` field: every exchange. */
export const SEARCH_EXCHANGES = EXCHANGES;

/**
 * Filters of the session search's F&O path (docs/rules/market.md#fno-or-general-search,
 * docs/rules/market.md#multi-value-filters).
 */
export interface FnoFilters {
  /** Canonical exchanges (union); empty = any. */
  exchanges: string[];
  /** Canonical instrument types (union): FUT, CE, PE …; empty = any derivative. */
  instrumentTypes: string[];
  /** ISO expiry date, or null. */
  expiryDate: string | null;
  underlying: string | null;
  strikeMin: number | null;
  strikeMax: number | null;
}

/**
 * Order of F&O results within a rank: underlying, expiry, strike, type, symbol, exchange, id
 * (an option chain's order; the database fallback sorts the same way).
 */
export function compareFno(a: FnoSortable, b: FnoSortable): number {
  return (
    cmp(a.underlying ?? '', b.underlying ?? '') ||
    cmp(a.expiryDate ?? '', b.expiryDate ?? '') ||
    (a.strike ?? -1) - (b.strike ?? -1) ||
    cmp(a.instrumenttype, b.instrumenttype) ||
    cmp(a.symbol, b.symbol) ||
    cmp(a.exchange, b.exchange) ||
    a.id - b.id
  );
}

export interface FnoSortable {
  id: number;
  symbol: string;
  exchange: string;
  underlying: string | null;
  expiryDate: string | null;
  strike: number | null;
  instrumenttype: string;
}

/** Expands the session search's `instrumenttype` values: `options` = CE+PE, `futures` = FUT. */
export function expandInstrumentTypes(values: string[]): string[] {
  const out = new Set<string>();
  for (const v of values) {
    const t = v.trim().toUpperCase();
    if (!t) continue;
    if (t === 'OPTIONS' || t === 'OPT' || t === 'OPTION') {
      out.add('CE');
      out.add('PE');
    } else if (t === 'FUTURES' || t === 'FUTURE') out.add('FUT');
    else out.add(t);
  }
  return [...out];
}

/** Underlyings that are exchange test contracts (docs/rules/market.md#underlyings-without-test-symbols). */
export const isTestUnderlying = (u: string): boolean => u.includes('NSETEST') || u.includes('BSETEST');

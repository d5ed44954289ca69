import { badRequest } from '../../platform/errors.js';
import type { ContractsService } from './contracts.service.js';
import type { InstrumentEntry } from './instrument-index.js';
import {
  expandInstrumentTypes,
  parseTerms,
  PUBLIC_SEARCH_LIMIT,
  SEARCH_EXCHANGES,
  SESSION_SEARCH_LIMIT,
  type FnoFilters,
} from './search-rules.js';
import type { SearchItem } from './search.schema.js';
import { expiryLabel, parseExpiry } from './symbology.js';
import { DERIVATIVE_EXCHANGES } from '../../domain/exchanges.js';

const ALLOWED = new Set<string>(SEARCH_EXCHANGES);

/** Splits a comma-separated parameter; every exchange must be one the service knows (else 400). */
export function exchangeList(value: string | undefined, field = 'exchange'): string[] {
  const list = [...new Set(commaList(value).map((e) => e.toUpperCase()))];
  const bad = list.filter((e) => !ALLOWED.has(e));
  if (bad.length)
    throw badRequest(`Unknown exchange ${bad.map((b) => JSON.stringify(b.slice(0, 16))).join(', ')}`, {
      [field]: [`must be one of ${SEARCH_EXCHANGES.join(', ')}`],
    });
  return list;
}

const commaList = (value: string | undefined): string[] =>
  (value ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v.length > 0);

export interface SessionSearchParams {
  q?: string;
  exchange?: string;
  instrumenttype?: string;
  expiry?: string;
  underlying?: string;
  strike_min?: number;
  strike_max?: number;
}

/**
 * Instrument search for the public API and the session routes, over the live contract
 * (`ContractsService` picks the index or the database).
 */
export class SearchService {
  constructor(
    private readonly contracts: ContractsService,
    private readonly freezeQty: (exchange: string, underlying: string) => number | null,
    /**
     * The freeze table in use: a new value whenever a quantity changes (on any instance). Without
     * it no serialised answer is kept.
     */
    private readonly freezeVersion?: () => unknown,
  ) {}

  /** `POST /api/v1/search`: every term matches; ranked; at most 500 results. */
  async publicSearch(query: string, exchange: string | undefined): Promise<SearchItem[]> {
    return (await this.publicRows(query, exchange)).map((r) => this.item(r));
  }

  /**
   * The same answer as `{status, message, data: publicSearch()}`, already serialised, as the bytes
   * sent: each instrument's JSON is built once and kept (a 380-row answer such as `SBIN` on the full
   * Upstox contract cost 0.4 ms of serialisation per request), and an answer of the index (the same
   * rows for as long as its contract is live) is kept whole until the freeze quantities it carries
   * change.
   */
  async publicSearchJson(query: string, exchange: string | undefined): Promise<Buffer> {
    const rows = await this.publicRows(query, exchange);
    const freeze = this.freezeVersion?.();
    const kept = freeze === undefined ? undefined : this.answers.get(rows);
    if (kept !== undefined && kept.freeze === freeze) return kept.bytes;
    const message = rows.length ? `Found ${rows.length} matching symbols` : 'No matching symbols found';
    const data = rows.map((r) => `${this.fragment(r)},"freeze_qty":${JSON.stringify(this.freezeOf(r))}}`);
    const bytes = Buffer.from(
      `{"status":"success","message":${JSON.stringify(message)},"data":[${data.join(',')}]}`,
    );
    // Only the index's answers are shared (frozen); a database answer is new rows every time.
    if (freeze !== undefined && Object.isFrozen(rows)) this.answers.set(rows, { freeze, bytes });
    return bytes;
  }

  /** Serialised answers of the index, by its answer, with the freeze table they were built with. */
  private readonly answers = new WeakMap<readonly InstrumentEntry[], { freeze: unknown; bytes: Buffer }>();

  private async publicRows(query: string, exchange: string | undefined): Promise<readonly InstrumentEntry[]> {
    const terms = parseTerms(query);
    if (terms.length === 0) throw badRequest('Query parameter is required and cannot be empty');
    return (await this.contracts.search(terms, exchange ? [exchange] : [], PUBLIC_SEARCH_LIMIT)).rows;
  }

  /** Serialised instruments of the index (rows of a database answer are new objects: collected). */
  private readonly fragments = new WeakMap<InstrumentEntry, string>();

  /** `{…"tick_size":x` of an instrument: its wire form without `freeze_qty` and the closing brace. */
  private fragment(r: InstrumentEntry): string {
    let f = this.fragments.get(r);
    if (f === undefined) {
      const { freeze_qty: _omit, ...rest } = this.item(r);
      f = JSON.stringify(rest).slice(0, -1);
      this.fragments.set(r, f);
    }
    return f;
  }

  private freezeOf(r: InstrumentEntry): number | null {
    return r.underlying !== null && DERIVATIVE_EXCHANGES.has(r.exchange)
      ? this.freezeQty(r.exchange, r.underlying)
      : null;
  }

  /**
   * `GET /search/api/search` (docs/rules/market.md#empty-session-search,
   * docs/rules/market.md#fno-or-general-search, docs/rules/market.md#multi-value-filters).
   * Each exchange is searched on its own path (F&O exchanges, or any exchange once an F&O filter
   * is given, use the F&O search; the others the general search); the union is the general
   * matches then the F&O matches.
   */
  async sessionSearch(p: SessionSearchParams): Promise<{ results: SearchItem[]; total: number }> {
    const exchanges = exchangeList(p.exchange);
    const q = p.q?.trim() ?? '';
    // docs/rules/market.md#empty-session-search
    if (!q && exchanges.length === 0) return { results: [], total: 0 };
    const terms = parseTerms(q);
    const instrumentTypes = expandInstrumentTypes(commaList(p.instrumenttype)).filter((t) => t.length <= 16);
    let expiryDate: string | null = null;
    if (p.expiry !== undefined && p.expiry.trim() !== '') {
      expiryDate = parseExpiry(p.expiry);
      if (expiryDate === null)
        throw badRequest('expiry must be a date such as 30-DEC-25 or 2025-12-30', { expiry: ['not a date'] });
    }
    const underlying = p.underlying?.trim() ? p.underlying.trim().toUpperCase() : null;
    const strikeMin = p.strike_min ?? null;
    const strikeMax = p.strike_max ?? null;
    if (strikeMin !== null && strikeMax !== null && strikeMin > strikeMax)
      throw badRequest('strike_min is above strike_max', { strike_min: ['must not exceed strike_max'] });
    const fnoFilters =
      instrumentTypes.length > 0 ||
      expiryDate !== null ||
      underlying !== null ||
      strikeMin !== null ||
      strikeMax !== null;
    const fnoExchanges = fnoFilters ? exchanges : exchanges.filter((e) => DERIVATIVE_EXCHANGES.has(e));
    const generalExchanges = fnoFilters ? [] : exchanges.filter((e) => !DERIVATIVE_EXCHANGES.has(e));
    const useFno = fnoExchanges.length > 0 || (exchanges.length === 0 && fnoFilters);
    const useGeneral = generalExchanges.length > 0 || (exchanges.length === 0 && !fnoFilters);

    const rows: InstrumentEntry[] = [];
    let total = 0;
    if (useGeneral) {
      const g = await this.contracts.search(terms, generalExchanges, SESSION_SEARCH_LIMIT, true);
      rows.push(...g.rows);
      total += g.total;
    }
    if (useFno) {
      const f: FnoFilters = {
        exchanges: fnoExchanges,
        instrumentTypes,
        expiryDate,
        underlying,
        strikeMin,
        strikeMax,
      };
      const r = await this.contracts.searchFno(terms, f, SESSION_SEARCH_LIMIT);
      rows.push(...r.rows);
      total += r.total;
    }
    return { results: rows.slice(0, SESSION_SEARCH_LIMIT).map((r) => this.item(r)), total };
  }

  /**
   * Future expiries, `DD-MMM-YY`, by date (docs/rules/market.md#expiry-list:
   * `instrumenttype=options` keeps option expiries).
   */
  async expiries(p: { exchange?: string; underlying?: string; instrumenttype?: string }): Promise<string[]> {
    const list = await this.contracts.expiries({
      exchanges: exchangeList(p.exchange),
      underlying: p.underlying?.trim() ? p.underlying.trim().toUpperCase() : null,
      instrumentTypes: expandInstrumentTypes(commaList(p.instrumenttype)),
    });
    return list.map(expiryLabel);
  }

  /**
   * Underlyings of options (and futures with `include_futures`), test symbols dropped
   * (docs/rules/market.md#underlyings-without-test-symbols).
   */
  underlyings(p: { exchange?: string; include_futures?: string }): Promise<string[]> {
    const flag = (p.include_futures ?? '').trim().toLowerCase();
    return this.contracts.underlyings({
      exchanges: exchangeList(p.exchange),
      includeFutures: flag === '1' || flag === 'true' || flag === 'yes',
    });
  }

  /** `/search/token`: the instrument(s) of a symbol on an exchange, or of a token. */
  async token(p: { symbol?: string; exchange?: string; token?: string }): Promise<SearchItem[]> {
    if (p.token?.trim()) {
      const exchange = p.exchange?.trim() ? exchangeList(p.exchange)[0] : undefined;
      return (await this.contracts.getByToken(p.token.trim(), exchange)).map((r) => this.item(r));
    }
    if (!p.symbol?.trim() || !p.exchange?.trim())
      throw badRequest('Give symbol and exchange, or token', { symbol: ['required without token'] });
    const [exchange] = exchangeList(p.exchange);
    const row = await this.contracts.get(p.symbol.trim().toUpperCase(), exchange!);
    return row ? [this.item(row)] : [];
  }

  /** The wire form of a result (OpenAlgo's fields; empty expiry and zero strike for cash). */
  item(r: InstrumentEntry): SearchItem {
    return {
      symbol: r.symbol,
      brsymbol: r.brsymbol,
      name: r.name,
      exchange: r.exchange,
      brexchange: r.brexchange,
      token: r.token,
      expiry: r.expiry ?? '',
      strike: r.strike ?? 0,
      lotsize: r.lotsize,
      instrumenttype: r.instrumenttype,
      tick_size: r.tickSize,
      freeze_qty:
        r.underlying !== null && DERIVATIVE_EXCHANGES.has(r.exchange)
          ? this.freezeQty(r.exchange, r.underlying)
          : null,
    };
  }
}

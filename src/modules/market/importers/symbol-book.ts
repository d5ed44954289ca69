import type { Instrument, ParsedItem } from '../instrument.js';

/** A cash row whose plain symbol other securities of the same issuer may also carry. */
export interface DeferredRow {
  line: number;
  /** The row with its plain (series-less) symbol. */
  row: Instrument;
  /**
   * Symbol to use when the plain one is taken or shared (Kite `CHOLAFIN-D1`); null, or one that
   * does not tell the sharing securities apart: the row is skipped as ambiguous.
   */
  fallback: string | null;
  /** What identifies the security in a skip reason (`ISIN INE121A08PJ0`). */
  detail: string;
}

/**
 * Keeps canonical (symbol, exchange) unique for cash and index rows within one file.
 *
 * Exchanges list an issuer's debentures, warrants and partly-paid shares under the issuer's
 * symbol in another series (NSE `CHOLAFIN` in EQ and in D1). An order for `CHOLAFIN` must reach
 * the ordinary share, so the importers claim ordinary shares at once and defer every other
 * cash security to the end of the file ({@link settle}): a deferred row keeps its plain symbol
 * only if no other security claimed it; otherwise it takes its fallback or is skipped.
 *
 * Memory: one key per cash/index row plus the deferred rows (a few thousand on the full
 * masters). Derivatives are not tracked: their canonical symbol spells out underlying, expiry,
 * strike and side, so two rows with one symbol would be the same contract.
 */
export class SymbolBook {
  private readonly taken = new Set<string>();
  private readonly deferred: DeferredRow[] = [];

  /** Takes the row's symbol, or a skip when an earlier row of this file holds it. */
  claim(line: number, row: Instrument): ParsedItem {
    const key = `${row.exchange}:${row.symbol}`;
    if (this.taken.has(key))
      return { kind: 'skip', line, reason: `duplicate symbol ${row.symbol} on ${row.exchange}` };
    this.taken.add(key);
    return { kind: 'row', row };
  }

  /** Holds a row until the whole file has been read (see the class comment). */
  defer(item: DeferredRow): void {
    this.deferred.push(item);
  }

  /** Decides and emits the deferred rows; call once, after the last record. */
  *settle(): Generator<ParsedItem> {
    const groups = new Map<string, DeferredRow[]>();
    for (const item of this.deferred.splice(0)) {
      const key = `${item.row.exchange}:${item.row.symbol}`;
      const group = groups.get(key);
      if (group) group.push(item);
      else groups.set(key, [item]);
    }
    for (const [key, group] of groups) {
      const heldByClaimed = this.taken.has(key);
      if (!heldByClaimed && group.length === 1) {
        yield this.claim(group[0]!.line, group[0]!.row);
        continue;
      }
      // A fallback helps only if it tells the group's securities apart (Fyers lists two
      // issuers' `875PFL26` bonds both as `875PFL26-F`).
      const fallbacks = new Map<string, number>();
      for (const item of group)
        if (item.fallback !== null) fallbacks.set(item.fallback, (fallbacks.get(item.fallback) ?? 0) + 1);
      for (const item of group) {
        const { row } = item;
        if (item.fallback !== null && fallbacks.get(item.fallback) === 1) {
          yield this.claim(item.line, { ...row, symbol: item.fallback });
          continue;
        }
        const why = heldByClaimed ? 'used by another security' : `shared by ${group.length} securities`;
        yield {
          kind: 'skip',
          line: item.line,
          reason: `ambiguous symbol ${row.symbol} on ${row.exchange}, ${why} (${item.detail})`,
        };
      }
    }
  }
}

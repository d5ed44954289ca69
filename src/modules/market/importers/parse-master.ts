import type { Instrument, ParsedItem } from '../instrument.js';
import {
  columnIndex,
  describeHeader,
  fieldCountProblem,
  quoteLine,
  readCsvBatches,
  type ContractInput,
} from './csv.js';
import { ExpiryReader, RowSkip } from './fields.js';
import { SymbolBook, type DeferredRow } from './symbol-book.js';

/**
 * What a broker mapper makes of one CSV row:
 * - `claim`: a cash or index row, kept unique per (symbol, exchange) by the SymbolBook;
 * - `free`: a derivative, passed through;
 * - `defer`: a cash row that may share its symbol with another security (see SymbolBook).
 */
export type MappedRow =
  | { kind: 'claim'; row: Instrument }
  | { kind: 'free'; row: Instrument }
  | { kind: 'defer'; deferred: Omit<DeferredRow, 'line'> };

/** Position of each named column in the header. */
export type Columns<C extends string> = Readonly<Record<C, number>>;

/** One broker's CSV master: its header and how a row becomes a canonical instrument. */
export interface MasterSpec<C extends string> {
  /** For error messages: `not ${what}: …` (`a Zerodha instruments file`). */
  what: string;
  /**
   * Columns the header must name (any order; others are ignored), or, for a headerless format,
   * the leading columns in file order (later ones are ignored).
   */
  columns: readonly C[];
  /**
   * Columns read when the header names them; absent, their fields read as undefined (`col` holds
   * -1). Headerless formats have none.
   */
  optional?: readonly C[];
  /**
   * For a file without a header row: whether its first line looks like this format (checked
   * before anything is yielded). Rows are then read by position, `columns` in file order.
   */
  headerless?: (first: readonly string[]) => boolean;
  /**
   * Maps one row (`fields[col.name]`; the row has at least as many fields as the header);
   * throws RowSkip (via the field readers) for a row it cannot use.
   */
  map(fields: readonly string[], col: Columns<C>, expiries: ExpiryReader): MappedRow;
}

/**
 * The loop every CSV importer shares: checks the header before yielding anything, maps each
 * row, turns RowSkips into skip items, keeps cash symbols unique, and emits deferred cash rows
 * after the last line.
 */
export async function* parseMaster<C extends string>(
  input: ContractInput,
  spec: MasterSpec<C>,
): AsyncGenerator<ParsedItem> {
  const book = new SymbolBook();
  const expiries = new ExpiryReader();
  let col: Record<C, number> | undefined;
  let width = 0;
  for await (const batch of readCsvBatches(input)) {
    for (const { line, fields } of batch) {
      if (col === undefined) {
        if (spec.headerless) {
          if (!spec.headerless(fields)) throw new Error(`not ${spec.what}: first line ${quoteLine(fields)}`);
          col = positions(spec.columns);
          width = spec.columns.length;
        } else {
          const { index, missing } = columnIndex(fields, spec.columns);
          if (missing.length > 0)
            throw new Error(`not ${spec.what}: ${describeHeader(fields)} lacks ${missing.join(', ')}`);
          const optional = columnIndex(fields, spec.optional ?? []);
          for (const name of optional.missing) optional.index[name] = -1;
          Object.assign(index, optional.index);
          col = index;
          width = fields.length;
          continue;
        }
      }
      const problem = fieldCountProblem(fields, width, spec.headerless !== undefined);
      if (problem !== null) {
        yield { kind: 'skip', line, reason: problem };
        continue;
      }
      try {
        const mapped = spec.map(fields, col, expiries);
        if (mapped.kind === 'defer') book.defer({ ...mapped.deferred, line });
        else if (mapped.kind === 'claim') yield book.claim(line, mapped.row);
        else yield { kind: 'row', row: mapped.row };
      } catch (err) {
        if (!(err instanceof RowSkip)) throw err;
        yield { kind: 'skip', line, reason: err.reason };
      }
    }
  }
  if (col === undefined) throw new Error(`not ${spec.what}: ${describeHeader(undefined)}`);
  yield* book.settle();
}

function positions<C extends string>(columns: readonly C[]): Record<C, number> {
  const index = {} as Record<C, number>;
  columns.forEach((name, i) => (index[name] = i));
  return index;
}

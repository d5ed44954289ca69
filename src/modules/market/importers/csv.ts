import { CsvError, parse } from 'csv-parse';
import { pipeline, type Readable } from 'node:stream';

/** What a master-contract parser reads: a byte/text stream (already gunzipped by the caller). */
export type ContractInput = NodeJS.ReadableStream | AsyncIterable<Buffer | string>;

/** One CSV record with its 1-based line number. */
export interface CsvRecord {
  line: number;
  fields: string[];
}

/** A single record may not exceed this; a quote left open would otherwise swallow the whole file. */
const MAX_RECORD_BYTES = 64 * 1024;

/**
 * Streams CSV records from `input` with `csv-parse`, in bounded memory. Records come in
 * batches (whatever the parser holds at the moment, a few hundred at most): one await per
 * batch instead of two per record keeps the 200k-row masters fast.
 *
 * - BOM, CRLF/LF and a varying column count are accepted; blank lines are dropped.
 * - Stray quotes inside a field are kept as text (`relax_quotes`): the importers then judge
 *   the row by its values, so a junk line becomes a skip, not an abort.
 * - A quote that is never closed, or a record over 64 KiB, rejects with `malformed CSV …`
 *   (everything after it is unreadable, so the caller must abort the import).
 * - An error of the input stream (truncated gzip, I/O) is rethrown unchanged.
 *
 * Line numbers are counted here rather than taken from `csv-parse`'s `info` option (which costs
 * a third of the parse time on the 25 MB Upstox file); they are exact for files without line
 * breaks inside quoted fields, which no broker master has.
 */
export async function* readCsvBatches(input: ContractInput): AsyncGenerator<CsvRecord[]> {
  const parser = parse({
    bom: true,
    relax_column_count: true,
    relax_quotes: true,
    skip_empty_lines: false,
    max_record_size: MAX_RECORD_BYTES,
  });
  // pipeline() forwards an error of the input (e.g. a gzip error) to the parser, and tears
  // the input down when the parser is destroyed (the consumer stopped early).
  pipeline(input, parser, () => {});
  let line = 0;
  try {
    for (;;) {
      const batch: CsvRecord[] = [];
      let fields: string[] | null;
      while ((fields = parser.read() as string[] | null) !== null) {
        line += 1;
        if (fields.length === 1 && fields[0] === '') continue;
        batch.push({ line, fields });
      }
      if (batch.length > 0) yield batch;
      if (parser.errored) throw parser.errored;
      if (parser.readableEnded) return;
      if (parser.destroyed) throw new Error('CSV stream closed before its end');
      await settled(parser);
    }
  } catch (err) {
    if (err instanceof CsvError) throw new Error(`malformed CSV: ${err.message}`, { cause: err });
    throw err;
  } finally {
    parser.destroy();
  }
}

/** Resolves when `stream` has data, ended, failed or closed (the caller then looks which). */
function settled(stream: Readable): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      for (const event of EVENTS) stream.off(event, done);
      resolve();
    };
    for (const event of EVENTS) stream.on(event, done);
  });
}
const EVENTS = ['readable', 'end', 'error', 'close'] as const;

/** {@link readCsvBatches} one record at a time. */
export async function* readCsv(input: ContractInput): AsyncGenerator<CsvRecord> {
  for await (const batch of readCsvBatches(input)) yield* batch;
}

/** Index of each wanted column in a header row (names trimmed, case-insensitive), or the missing ones. */
export function columnIndex<K extends string>(
  header: readonly string[],
  wanted: readonly K[],
): { index: Record<K, number>; missing: K[] } {
  const positions = new Map<string, number>();
  header.forEach((name, i) => {
    const key = name.trim().toLowerCase();
    if (!positions.has(key)) positions.set(key, i);
  });
  const index = {} as Record<K, number>;
  const missing: K[] = [];
  for (const name of wanted) {
    const at = positions.get(name.toLowerCase());
    if (at === undefined) missing.push(name);
    else index[name] = at;
  }
  return { index, missing };
}

/**
 * Why a record cannot be matched to a header of `width` columns, or null when it can. Trailing
 * empty fields (a line ending in a comma) are tolerated; a real extra field means an unquoted
 * comma shifted the columns, so the values cannot be trusted (unless `extraOk`: a headerless
 * format whose publisher appends columns).
 */
export function fieldCountProblem(fields: readonly string[], width: number, extraOk = false): string | null {
  if (fields.length < width) return `too few fields (${fields.length} of ${width})`;
  if (extraOk) return null;
  for (let i = width; i < fields.length; i++) {
    if (fields[i]!.trim() !== '') return `too many fields (${fields.length} of ${width})`;
  }
  return null;
}

/** A line quoted for an error message, cut to a readable length. */
export function quoteLine(fields: readonly string[]): string {
  const text = fields.join(',');
  return `"${text.length > 160 ? `${text.slice(0, 160)}…` : text}"`;
}

/** A header for an error message (`header "a,b"`), or that there was none. */
export function describeHeader(fields: readonly string[] | undefined): string {
  return fields === undefined ? 'the file is empty' : `header ${quoteLine(fields)}`;
}

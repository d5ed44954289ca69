import { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import type { Logger } from 'pino';
import { badRequest, notFound } from '../../platform/errors.js';
import type { InvalidationBus } from '../../platform/invalidation.js';
import { isUniqueViolation, type FreezeRepository, type FreezeRow } from './freeze.repository.js';
import { Snapshot, syncAcrossInstances } from './timings.service.js';
import { FNO_ORDER_EXCHANGES } from '../../domain/exchanges.js';

/**
 * Exchanges with freeze quantities: the F&O segments where the exchange caps one order's size and
 * the order pipeline splits larger orders — every F&O exchange an order may name.
 */
const FREEZE_EXCHANGES = [...FNO_ORDER_EXCHANGES];
/** Largest freeze quantity stored (the column is a 32-bit integer). */
export const MAX_FREEZE_QTY = 2_147_483_647;
/** Skipped rows listed in an upload's answer; `skipped` still counts them all. */
export const SKIPPED_ROWS_SHOWN = 100;
/** The header row must be among the first lines of the file. */
const HEADER_SEARCH_RECORDS = 10;
/** Trading symbols: NSE's F&O underlyings are letters, digits, `&` and `-` (M&M, BAJAJ-AUTO). */
const SYMBOL = /^[A-Z0-9][A-Z0-9&._-]{0,49}$/;
const QTY_COLUMNS = ['VOL_FRZ_QTY', 'FREEZE_QTY'];
const TOPIC = 'market-freeze';

export interface FreezeEntry {
  id: number;
  exchange: string;
  symbol: string;
  freeze_qty: number;
}

export interface SkippedRow {
  /** 1-based line of the file. */
  line: number;
  reason: string;
}

export interface FreezeUploadResult {
  exchange: string;
  loaded: number;
  skipped: number;
  /** The first {@link SKIPPED_ROWS_SHOWN} skipped rows. */
  skipped_rows: SkippedRow[];
}

/** A quoted, bounded echo of client input for an error message. */
const shown = (s: string) => JSON.stringify(s.length > 20 ? `${s.slice(0, 20)}…` : s);

/** Trimmed and upper-cased F&O exchange code, or a 400 naming it. */
export function normaliseFreezeExchange(raw: string): string {
  const exchange = raw.trim().toUpperCase();
  if (!FNO_ORDER_EXCHANGES.has(exchange)) {
    const msg = `${shown(exchange)} is not an F&O exchange; use one of ${FREEZE_EXCHANGES.join(', ')}`;
    throw badRequest(`exchange ${msg}`, { exchange: [msg] });
  }
  return exchange;
}

function normaliseSymbol(raw: string): string {
  const symbol = raw.trim().toUpperCase();
  if (!SYMBOL.test(symbol)) {
    const msg = 'must be 1-50 characters: letters, digits, & . _ -';
    throw badRequest(`symbol ${msg}`, { symbol: [msg] });
  }
  return symbol;
}

/** A whole quantity from a CSV cell (`1800`, `1,800`, `1800.0`), or undefined. */
function parseQty(cell: string): number | undefined {
  if (!/^(\d+|\d{1,3}(,\d{3})+)(\.0+)?$/.test(cell)) return undefined;
  const n = Number(cell.replace(/,/g, '').replace(/\.0+$/, ''));
  return Number.isSafeInteger(n) ? n : undefined;
}

export interface ParsedFreezeCsv {
  rows: Array<{ symbol: string; freeze_qty: number; line: number }>;
  skipped: SkippedRow[];
}

/**
 * Parses NSE's `qtyfreeze` CSV (`S.No.,SYMBOL    ,VOL_FRZ_QTY    `): headers and values are
 * space-padded, so both are trimmed, and the columns are found by header name (`FREEZE_QTY` is
 * accepted for the quantity too). Lines before the header, malformed lines, bad symbols or
 * quantities and repeated symbols are skipped with their line and reason. A file without the
 * header is a 400. Each line is one record: a line with an unbalanced quote is skipped instead of
 * swallowing the lines after it. Parsed as a stream in 64 KB slices, so a large file never holds
 * the event loop in one block.
 */
export async function parseFreezeCsv(input: Buffer): Promise<ParsedFreezeCsv> {
  const skipped: SkippedRow[] = [];
  const lines = input
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .split(/\r\n|\n|\r/);
  for (let i = 0; i < lines.length; i++) {
    if (((lines[i]!.match(/"/g) ?? []).length & 1) === 1) {
      skipped.push({ line: i + 1, reason: 'malformed CSV line (unbalanced quote)' });
      lines[i] = '';
    }
  }
  const text = lines.join('\n');
  const slices: string[] = [];
  for (let i = 0; i < text.length; i += 65_536) slices.push(text.slice(i, i + 65_536));

  const parser = Readable.from(slices).pipe(
    parse({
      trim: true,
      relax_quotes: true,
      relax_column_count: true,
      skip_empty_lines: true,
      skip_records_with_error: true,
      max_record_size: 4096,
      info: true,
    }),
  );
  parser.on('skip', (err: { lines?: number }) => {
    skipped.push({ line: err.lines ?? 0, reason: 'malformed CSV line' });
  });

  const rows: ParsedFreezeCsv['rows'] = [];
  const firstLine = new Map<string, number>();
  let columns: { symbol: number; qty: number } | undefined;
  let records = 0;
  for await (const item of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
    const { record, info } = item;
    const line = info.lines;
    if (columns === undefined) {
      const names = record.map((c) => c.trim().toUpperCase());
      const symbol = names.indexOf('SYMBOL');
      const qty = names.findIndex((n) => QTY_COLUMNS.includes(n));
      if (symbol >= 0 && qty >= 0) {
        columns = { symbol, qty };
        continue;
      }
      if (++records >= HEADER_SEARCH_RECORDS) break;
      skipped.push({ line, reason: 'before the header row' });
      continue;
    }
    const symbolCell = (record[columns.symbol] ?? '').trim().toUpperCase();
    const qtyCell = (record[columns.qty] ?? '').trim();
    if (symbolCell === '') {
      skipped.push({ line, reason: 'no SYMBOL' });
      continue;
    }
    if (!SYMBOL.test(symbolCell)) {
      skipped.push({ line, reason: `invalid SYMBOL ${shown(symbolCell)}` });
      continue;
    }
    const qty = parseQty(qtyCell);
    if (qty === undefined || qty < 1 || qty > MAX_FREEZE_QTY) {
      skipped.push({ line, reason: `VOL_FRZ_QTY ${shown(qtyCell)} is not a positive whole number` });
      continue;
    }
    const first = firstLine.get(symbolCell);
    if (first !== undefined) {
      skipped.push({ line, reason: `duplicate SYMBOL ${symbolCell} (first on line ${first})` });
      continue;
    }
    firstLine.set(symbolCell, line);
    rows.push({ symbol: symbolCell, freeze_qty: qty, line });
  }
  parser.destroy();
  if (columns === undefined) {
    throw badRequest(
      'The file has no header row with SYMBOL and VOL_FRZ_QTY columns (NSE qtyfreeze CSV layout); nothing was changed',
    );
  }
  skipped.sort((a, b) => a.line - b.line);
  return { rows, skipped };
}

const entry = (r: FreezeRow): FreezeEntry => ({
  id: r.id,
  exchange: r.exchange,
  symbol: r.symbol,
  freeze_qty: r.freeze_qty,
});
const key = (exchange: string, symbol: string) => `${exchange}:${symbol}`;
const duplicate = (exchange: string, symbol: string) => {
  const msg = `${exchange} ${symbol} already has a freeze quantity; edit that entry instead`;
  return badRequest(msg, { symbol: [msg] });
};

/**
 * Freeze quantities (`/admin/api/freeze`) and the order pipeline's synchronous lookup: the whole
 * table is held in memory, reloaded after every change here and, through the invalidation bus, on
 * every other instance.
 */
export class FreezeService {
  private readonly cache: Snapshot<Map<string, number>>;
  private readonly changed: () => Promise<void>;

  constructor(
    private readonly repo: FreezeRepository,
    bus: InvalidationBus,
    log: Logger,
  ) {
    this.cache = new Snapshot(
      new Map(),
      async () => new Map((await repo.list()).map((r) => [key(r.exchange, r.symbol), r.freeze_qty])),
    );
    this.changed = syncAcrossInstances(bus, TOPIC, this.cache, log);
  }

  start(): Promise<void> {
    return this.cache.reload();
  }

  /** The table in memory: replaced by a new one at every reload, so it also says that one happened. */
  get table(): ReadonlyMap<string, number> {
    return this.cache.value;
  }

  /** Freeze quantity of an underlying on an F&O exchange, or null (synchronous, from memory). */
  freezeQty(exchange: string, underlying: string): number | null {
    return this.cache.value.get(key(exchange.trim().toUpperCase(), underlying.trim().toUpperCase())) ?? null;
  }

  async list(): Promise<FreezeEntry[]> {
    return (await this.repo.list()).map(entry);
  }

  async add(input: { exchange: string; symbol: string; freeze_qty: number }): Promise<FreezeEntry> {
    const values = {
      exchange: normaliseFreezeExchange(input.exchange),
      symbol: normaliseSymbol(input.symbol),
      freeze_qty: input.freeze_qty,
    };
    if (await this.repo.findByKey(values.exchange, values.symbol))
      throw duplicate(values.exchange, values.symbol);
    let row: FreezeRow;
    try {
      row = await this.repo.insert(values);
    } catch (err) {
      // A concurrent add of the same entry loses on the unique index.
      if (isUniqueViolation(err)) throw duplicate(values.exchange, values.symbol);
      throw err;
    }
    await this.changed();
    return entry(row);
  }

  async update(
    id: number,
    patch: { exchange?: string; symbol?: string; freeze_qty?: number },
  ): Promise<FreezeEntry> {
    const current = await this.repo.find(id);
    if (!current) throw notFound(`No freeze quantity with id ${id}`);
    const values = {
      exchange: patch.exchange === undefined ? current.exchange : normaliseFreezeExchange(patch.exchange),
      symbol: patch.symbol === undefined ? current.symbol : normaliseSymbol(patch.symbol),
      freeze_qty: patch.freeze_qty ?? current.freeze_qty,
    };
    const clash = await this.repo.findByKey(values.exchange, values.symbol);
    if (clash && clash.id !== id) throw duplicate(values.exchange, values.symbol);
    let updated: boolean;
    try {
      updated = await this.repo.update(id, values);
    } catch (err) {
      if (isUniqueViolation(err)) throw duplicate(values.exchange, values.symbol);
      throw err;
    }
    if (!updated) throw notFound(`No freeze quantity with id ${id}`);
    await this.changed();
    return { id, ...values };
  }

  async remove(id: number): Promise<void> {
    if (!(await this.repo.delete(id))) throw notFound(`No freeze quantity with id ${id}`);
    await this.changed();
  }

  /**
   * Replaces `exchange`'s list with the rows of an NSE `qtyfreeze` CSV in one transaction. A file
   * without a usable row is a 400 and changes nothing.
   */
  async upload(exchangeRaw: string, csv: Buffer): Promise<FreezeUploadResult> {
    const exchange = normaliseFreezeExchange(exchangeRaw);
    const { rows, skipped } = await parseFreezeCsv(csv);
    if (rows.length === 0) {
      const first = skipped[0] ? ` (line ${skipped[0].line}: ${skipped[0].reason})` : '';
      throw badRequest(`The file has no usable row: ${skipped.length} skipped${first}; nothing was changed`);
    }
    await this.repo.replaceExchange(exchange, rows);
    await this.changed();
    return {
      exchange,
      loaded: rows.length,
      skipped: skipped.length,
      skipped_rows: skipped.slice(0, SKIPPED_ROWS_SHOWN),
    };
  }

  count(): Promise<number> {
    return this.repo.count();
  }
}

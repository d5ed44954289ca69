/**
 * The Kite (Zerodha) instrument fixtures and helpers the Kite importer's tests share
 * (src/modules/market/importers/zerodha*.test.ts).
 */
import { createReadStream, readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import type { Instrument, ParsedItem } from '../../src/modules/market/instrument.js';
import { parseZerodha } from '../../src/modules/market/importers/zerodha.js';
import { marketFixture } from './market-fixtures.js';

export interface Parsed {
  rows: Instrument[];
  skips: Extract<ParsedItem, { kind: 'skip' }>[];
}

export async function collect(items: AsyncIterable<ParsedItem>): Promise<Parsed> {
  const out: Parsed = { rows: [], skips: [] };
  for await (const item of items) {
    if (item.kind === 'row') out.rows.push(item.row);
    else out.skips.push(item);
  }
  return out;
}

export function parseText(text: string): Promise<Parsed> {
  return collect(parseZerodha(Readable.from([Buffer.from(text)])));
}

/** Rows counted by `exchange instrumenttype`. */
export function countBy(rows: Instrument[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of rows)
    counts[`${r.exchange} ${r.instrumenttype}`] = (counts[`${r.exchange} ${r.instrumenttype}`] ?? 0) + 1;
  return counts;
}

export function dataLines(file: string): number {
  return readFileSync(file, 'utf8').trimEnd().split('\n').length - 1;
}

export const FO_FILE = marketFixture('zerodha', 'kite_instruments_NFO_BFO_2026-08-18.csv');
export const NSE_FILE = marketFixture('zerodha', 'kite_instruments_NSE_2025-10-06.csv');
export const HEADER =
  'instrument_token,exchange_token,tradingsymbol,name,last_price,expiry,strike,tick_size,lot_size,instrument_type,segment,exchange';

/** Both fixtures parsed: the NFO/BFO cut and the NSE file. */
export async function parseKiteFixtures(): Promise<{ fo: Parsed; nse: Parsed }> {
  const [fo, nse] = await Promise.all([
    collect(parseZerodha(createReadStream(FO_FILE))),
    collect(parseZerodha(createReadStream(NSE_FILE))),
  ]);
  return { fo, nse };
}

/** The row of `symbol` on `exchange`, if the parse has one. */
export const bySymbol = (p: Parsed, exchange: string, symbol: string) =>
  p.rows.find((r) => r.exchange === exchange && r.symbol === symbol);

import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Small real cuts of the broker instrument masters and the market reference files, committed in
 * test/fixtures/market (its README says what each holds and how scripts/cut-fixtures.ts cut it).
 * Tests read only these; the full files beside the repository are for the benches.
 */
export const MARKET_FIXTURES = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'market');

/** Absolute path of a market fixture, e.g. `marketFixture('zerodha', 'kite_instruments_NSE_2025-10-06.csv')`. */
export function marketFixture(...parts: string[]): string {
  const file = join(MARKET_FIXTURES, ...parts);
  if (!existsSync(file)) throw new Error(`market fixture missing: ${file}`);
  return file;
}

import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The real market reference files (instrument masters, …): `../shared/data` beside the
 * repository, or wherever `ALGODESK_SHARED_DATA` points.
 */
export const SHARED_DATA =
  process.env.ALGODESK_SHARED_DATA ??
  resolve(dirname(fileURLToPath(import.meta.url)), '../..', '../shared/data');

/** Absolute path of a shared data file; throws a clear error when it is missing. */
export function sharedData(...parts: string[]): string {
  const file = join(SHARED_DATA, ...parts);
  if (!existsSync(file))
    throw new Error(
      `shared data file missing: ${file} (the market-data benches need the real instrument files; ` +
        `set ALGODESK_SHARED_DATA to the folder holding upstox/ and zerodha/)`,
    );
  return file;
}

/** The repository's small cuts of the same files (test/fixtures/market, same names). */
const FIXTURES = resolve(dirname(fileURLToPath(import.meta.url)), '../../test/fixtures/market');

/**
 * A shared data file, or, where the shared folder is missing (a clean clone in CI), the
 * repository's cut of it: same name, same columns, a few hundred real rows. Says which on stderr.
 */
export function sharedDataOrCut(...parts: string[]): string {
  const file = join(SHARED_DATA, ...parts);
  if (existsSync(file)) return file;
  const cut = join(FIXTURES, ...parts);
  if (!existsSync(cut)) return sharedData(...parts);
  process.stderr.write(`[bench] ${file} is missing: using the repository's cut ${cut}\n`);
  return cut;
}

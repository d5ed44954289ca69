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

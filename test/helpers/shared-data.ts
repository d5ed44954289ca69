import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The real market reference files (`../shared/data` beside the repository; README there lists
 * every file and its row counts). `ALGODESK_SHARED_DATA` overrides the location.
 */
export const SHARED_DATA =
  process.env.ALGODESK_SHARED_DATA ??
  resolve(dirname(fileURLToPath(import.meta.url)), '../../../shared/data');

/** Absolute path of a shared data file; throws a clear error when the folder is missing. */
export function sharedData(...parts: string[]): string {
  const file = join(SHARED_DATA, ...parts);
  if (!existsSync(file)) throw new Error(`shared data file missing: ${file} (set ALGODESK_SHARED_DATA)`);
  return file;
}

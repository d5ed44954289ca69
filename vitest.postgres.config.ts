import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';
import base, { ISOLATED, projects } from './vitest.config.js';

/** Test files under `dir` whose suites run once per database (they call `describeEachDb`). */
function databaseSuites(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => join(dir, f))
    .filter((f) => readFileSync(f, 'utf8').includes('describeEachDb('));
}

// global-setup.ts reads these in this (the main) process; the tier needs both servers.
process.env.TEST_DB = 'postgres';
process.env.TEST_REQUIRE_POSTGRES ??= '1';
process.env.TEST_REQUIRE_REDIS ??= '1';

const suites = [...databaseSuites('src'), ...databaseSuites('test')];

/**
 * `npm run test:postgres`: the suites that touch a database, on PostgreSQL (and Redis where a
 * suite uses it), both required. Tests that never touch a database ran in `npm test` already.
 */
export default defineConfig({
  // Spread, not mergeConfig: that concatenates arrays, and the projects must replace the base's.
  test: {
    ...base.test,
    projects: projects(
      suites,
      suites.filter((f) => ISOLATED.includes(f)),
    ),
  },
});

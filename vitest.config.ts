import { defineConfig } from 'vitest/config';

/**
 * `npm test`: the unit tier (src/**) and the integration tier (test/**) on SQLite. The
 * PostgreSQL + Redis tier is vitest.postgres.config.ts (`npm run test:postgres`).
 */
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    pool: 'forks',
    // Vitest's default is one worker per core less one: a single worker on a 2-core machine,
    // idle while a suite waits on a child process or a socket. Two halve the wall time there.
    maxWorkers: 2,
    minWorkers: 1,
    testTimeout: 20_000,
    hookTimeout: 30_000,
    globalSetup: ['test/global-setup.ts'],
    reporters: ['default', './test/reporters/slowest-files.ts'],
  },
});

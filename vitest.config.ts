import { defineConfig } from 'vitest/config';

/**
 * `npm test`: the unit tier (src/**) and the integration tier (test/**) on SQLite. The
 * PostgreSQL + Redis tier is vitest.postgres.config.ts (`npm run test:postgres`).
 */
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 20_000,
    hookTimeout: 30_000,
    globalSetup: ['test/global-setup.ts'],
    reporters: ['default', './test/reporters/slowest-files.ts'],
  },
});

import { configDefaults, defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';

/**
 * Test files that run in a process of their own (Vitest's default isolation): one that replaces a
 * module with `vi.mock`, which takes effect only where that module was not imported yet.
 */
export const ISOLATED = ['test/app/openapi.test.ts'];

/**
 * A run's projects: the files of `include` but {@link ISOLATED} share their worker's modules
 * (the root's `isolate: false`); `isolated` (those of ISOLATED the run includes) get a fresh
 * module environment each, Vitest's default. Importing the service's module graph again for
 * every file was most of a run's time. Each file still builds its own app, database and
 * services; what files share is what a module keeps at its top level, which holds no per-test
 * state (docs/architecture.md, "Test files share their worker's modules").
 */
export function projects(include: string[], isolated: string[]): TestProjectInlineConfiguration[] {
  const shared: TestProjectInlineConfiguration = {
    extends: true,
    test: { name: 'shared', include, exclude: [...configDefaults.exclude, ...ISOLATED] },
  };
  if (isolated.length === 0) return [shared];
  return [
    shared,
    {
      extends: true,
      test: { name: 'isolated', include: isolated, poolOptions: { forks: { isolate: true } } },
    },
  ];
}

/**
 * `npm test`: the unit tier (src/**) and the integration tier (test/**) on SQLite. The
 * PostgreSQL + Redis tier is vitest.postgres.config.ts (`npm run test:postgres`).
 */
export default defineConfig({
  test: {
    projects: projects(['src/**/*.test.ts', 'test/**/*.test.ts'], ISOLATED),
    pool: 'forks',
    // Files share their worker's modules (read by Vitest 3.2 only here, on the root): the suite
    // runs in about half the time (docs/architecture.md, "Test files share their worker's modules").
    poolOptions: { forks: { isolate: false } },
    // Vitest's default is one worker per core less one: a single worker on a 2-core machine,
    // idle while a suite waits on a child process or a socket. Two halve the wall time there.
    maxWorkers: 2,
    minWorkers: 1,
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // `expect.poll` waits for what a step set off (a tick through the feed, a browser's redraw):
    // Vitest's 1 s bound is a timing assertion on a shared machine, so 5 s unless a test says.
    expect: { poll: { timeout: 5_000 } },
    globalSetup: ['test/global-setup.ts'],
    reporters: ['default', './test/reporters/slowest-files.ts'],
  },
});

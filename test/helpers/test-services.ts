/**
 * The middle tier of the tests: the real services on a real database (SQLite, or PostgreSQL in
 * CI), built and started as the app starts them (src/app.ts), driven directly rather than over HTTP.
 * Rule-by-rule cases of the webhook pipeline, the strategy runner, the ban service, sandbox
 * placement and the order pipeline live here; the app tier keeps what proves the HTTP contract.
 */
import { buildApp, type Services } from '../../src/app.js';
import type { ResolvedConfig } from '../../src/config.js';
import type { FakeClock } from '../../src/platform/clock.js';
import type { Dialect } from '../../src/platform/db/database.js';
import { createTestDeps, type TestAppOptions, type TestDatabase } from './test-app.js';

export interface TestServices {
  services: Services;
  config: ResolvedConfig;
  clock: FakeClock;
  db: TestDatabase;
  /** Log lines (JSON text) the services wrote. */
  logs: string[];
  /** Stops the services (flushing what is pending) and drops the database. */
  close(): Promise<void>;
}

/** Builds and starts every service on a database of its own, with a fake clock. */
export async function createTestServices(dialect: Dialect, opts: TestAppOptions = {}): Promise<TestServices> {
  const t = await createTestDeps(dialect, opts);
  const { app, services } = await buildApp(t.deps);
  await app.ready();
  return {
    services,
    config: t.config,
    clock: t.clock,
    db: t.db,
    logs: t.logs,
    async close() {
      await app.close();
      await t.release();
    },
  };
}

import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, inject } from 'vitest';
import { createTestDatabase, pgUrl, type TestDatabase } from './test-database.js';
import { buildApp, type AppDeps, type Services } from '../../src/app.js';
import type { MailConnectOptions } from '../../src/modules/mail/mail.plugin.js';
import { ensureInstallSecrets, loadConfig, sqliteFile, type ResolvedConfig } from '../../src/config.js';
import { FakeClock } from '../../src/platform/clock.js';
import type { Dialect } from '../../src/platform/db/database.js';
import type { App } from '../../src/platform/http/types.js';
import { LocalInvalidationBus, type InvalidationBus } from '../../src/platform/invalidation.js';
import { createLogger } from '../../src/platform/logger.js';
import { SchemaCompilers } from '../../src/platform/http/schema-compilers.js';
import { MemoryRateLimiter, type RateLimiter } from '../../src/platform/rate-limiter.js';

export const redisUrl = inject('redisUrl');
const dialects = inject('dialects');

export { createTestDatabase, pgUrl, type TestDatabase };

/**
 * Runs `body` once per database the run covers: SQLite always (unless TEST_DB=postgres), and
 * PostgreSQL when reachable. The skipped PostgreSQL block is announced by global-setup.
 */
export function describeEachDb(title: string, body: (dialect: Dialect) => void): void {
  for (const dialect of ['sqlite', 'postgres'] as const) {
    if (!dialects.includes(dialect)) continue;
    // Skipped (not hidden) when PostgreSQL is unreachable outside CI; CI makes it required.
    describe.skipIf(dialect === 'postgres' && pgUrl === '')(`${title} [${dialect}]`, () => body(dialect));
  }
}

/** Log lines captured from the app's logger (JSON text, one record per entry). */
export function captureStream(): { lines: string[]; stream: Writable } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
  return { lines, stream };
}

export interface TestApp {
  app: App;
  services: Services;
  config: ResolvedConfig;
  clock: FakeClock;
  db: TestDatabase;
  logs: string[];
  close(): Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  clock?: FakeClock;
  /** Share a database created elsewhere (scale-out tests). */
  db?: TestDatabase;
  bus?: InvalidationBus;
  rateLimiter?: RateLimiter;
  /** Mail TLS trust for the app's mail services (tests that talk to smtp-test-server). */
  mailConnect?: MailConnectOptions;
}

/** One set of compiled route schemas for every app this test worker builds (each compiled once). */
export const schemaCompilers = new SchemaCompilers();

/** What an app or a set of services is built from in a test: config, database, fakes, captured logs. */
export interface TestDeps {
  deps: AppDeps;
  config: ResolvedConfig;
  clock: FakeClock;
  db: TestDatabase;
  logs: string[];
  /** Drops the database and its folder unless it was shared in (`opts.db`). */
  release(): Promise<void>;
}

/** Config on a temp data folder, a database of its own, a fake clock, and trace logs captured. */
export async function createTestDeps(dialect: Dialect, opts: TestAppOptions = {}): Promise<TestDeps> {
  const dataDir = opts.db?.dataDir ?? mkdtempSync(join(tmpdir(), 'algodesk-test-'));
  // Each app is an instance of its own (two apps on one database are two instances) unless the
  // test names one (a restart on the same data keeps its name).
  const base = loadConfig(
    {
      DATA_DIR: dataDir,
      LOG_LEVEL: 'trace',
      INSTANCE_ID: `test-${randomBytes(4).toString('hex')}`,
      // Tests put their own feed in (usePriceSource); until then, and in an app restarted on the
      // same data, the sandbox's source stays quiet: the broker's quotes without a session. The
      // default (`auto`: simulated prices without a broker) would price resting orders at start.
      // A test of the default passes `SANDBOX_PRICE_SOURCE: ''` (empty is unset).
      SANDBOX_PRICE_SOURCE: 'broker',
      // Suites run at any hour on a fake clock and are about other rules: the sandbox takes orders
      // at any time unless a suite of the sessions rule asks for `enforce` (the default outside
      // tests, docs/rules/sandbox.md#sessions-and-holidays).
      SANDBOX_SESSIONS: 'ignore',
      // Likewise charges: suites of other rules count rupees without them; the suites of the
      // charges rule, and those that check the books balance, ask for `book` (the default
      // outside tests, docs/rules/sandbox.md#charges-booked).
      SANDBOX_CHARGES: 'off',
      ...opts.env,
    },
    { envFile: false },
  );
  const { config } = ensureInstallSecrets(base);
  const db = opts.db ?? (await createTestDatabase(dialect, dataDir));
  const clock = opts.clock ?? new FakeClock();
  const { lines, stream } = captureStream();
  const deps: AppDeps = {
    config,
    database: db.database,
    clock,
    logger: createLogger(config.logLevel, stream),
    rateLimiter: opts.rateLimiter ?? new MemoryRateLimiter(clock),
    bus: opts.bus ?? new LocalInvalidationBus(),
    schemaCompilers,
    // No web console: every path answers as the JSON API does, whether or not web/dist was built
    // (the browser tests pass the build in).
    webRoot: null,
    ...(opts.mailConnect ? { mailConnect: opts.mailConnect } : {}),
  };
  return {
    deps,
    config,
    clock,
    db,
    logs: lines,
    async release() {
      if (opts.db) return;
      await db.drop();
      // Retried: a last asynchronous write of the closed app may create a file in the directory
      // while it is being removed, which fails the removal with ENOTEMPTY (seen once in CI).
      rmSync(dataDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    },
  };
}

/** Builds the real app on a database of its own, with a fake clock and captured trace logs. */
export async function createTestApp(dialect: Dialect, opts: TestAppOptions = {}): Promise<TestApp> {
  const t = await createTestDeps(dialect, opts);
  const { app, services } = await buildApp(t.deps);
  await app.ready();
  return {
    app,
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

export { sqliteFile };

/** A logged-in browser: its cookie header and CSRF token. */
export interface Browser {
  cookie: string;
  csrf: string;
}

/** Creates a user through the service (first one is admin). */
export async function createUser(t: TestApp, username = 'admin', password = 'correct horse battery') {
  return t.services.auth.users.create({ username, password, email: `${username}@example.com` });
}

/** Logs in through the HTTP route and fetches the CSRF token, as the web UI does. */
export async function login(
  t: TestApp,
  username = 'admin',
  password = 'correct horse battery',
): Promise<Browser> {
  const res = await t.app.inject({ method: 'POST', url: '/auth/login', payload: { username, password } });
  if (res.statusCode !== 200) throw new Error(`login failed: ${res.statusCode} ${res.body}`);
  const set = res.cookies.find((c) => c.name === 'algodesk_session');
  if (!set) throw new Error('no session cookie');
  const cookie = `algodesk_session=${set.value}`;
  const csrfRes = await t.app.inject({ method: 'GET', url: '/auth/csrf-token', headers: { cookie } });
  return { cookie, csrf: (csrfRes.json() as { csrf_token: string }).csrf_token };
}

/** A test app whose first user (the administrator) is logged in. */
export async function appWithAdmin(
  dialect: Dialect,
  opts: TestAppOptions = {},
): Promise<{ t: TestApp; admin: Browser }> {
  const t = await createTestApp(dialect, opts);
  await createUser(t);
  return { t, admin: await login(t) };
}

/** Headers of a state-changing request from a logged-in browser. */
export const asBrowser = (b: Browser) => ({ cookie: b.cookie, 'x-csrf-token': b.csrf });

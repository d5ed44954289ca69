/**
 * Builders for the mail tests. Until app.ts wires the mail module, {@link mailRouteApp} mounts
 * `mailRoutes` on a small Fastify app made of the real platform plugins (error handler,
 * validation, body parsing incl. forms, cookies) and the real session guard over the test app's
 * sessions, so a browser logged in on the real app is recognised here as well.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import cookie from '@fastify/cookie';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import Fastify, { type LightMyRequestResponse } from 'fastify';
import { createSessionGuard } from '../../src/modules/auth/session.guard.js';
import {
  buildMailServices,
  type MailConnectOptions,
  type MailServices,
} from '../../src/modules/mail/mail.plugin.js';
import { mailRoutes } from '../../src/modules/mail/mail.routes.js';
import { FakeClock } from '../../src/platform/clock.js';
import { registerBodyParsing } from '../../src/platform/http/body.plugin.js';
import { registerErrorHandling } from '../../src/platform/http/errors.plugin.js';
import { createRateLimitHooks } from '../../src/platform/http/rate-limit.js';
import type { App } from '../../src/platform/http/types.js';
import { registerValidation } from '../../src/platform/http/validation.plugin.js';
import { createLogger } from '../../src/platform/logger.js';
import { MemoryRateLimiter } from '../../src/platform/rate-limiter.js';
import { parseRateRules } from '../../src/platform/rate-rule.js';
import type { Selectable } from 'kysely';
import type { SettingsTable } from '../../src/db/schema.js';
import type { Dialect } from '../../src/platform/db/database.js';
import {
  appWithAdmin,
  asBrowser,
  captureStream,
  createTestDatabase,
  createUser,
  login,
  schemaCompilers,
  type Browser,
  type TestApp,
  type TestDatabase,
} from './test-app.js';
import { TEST_CA, type SmtpTestServer } from './smtp-test-server.js';

/** Short timeouts so failure cases end quickly; the CA of test/fixtures/smtp is trusted. */
export const TEST_CONNECT: MailConnectOptions = {
  ca: TEST_CA,
  connectionTimeoutMs: 3_000,
  greetingTimeoutMs: 3_000,
  socketTimeoutMs: 5_000,
};

/** Connects the configured port 465 to a loopback listener (a port forward, see MailConnectOptions). */
export const forward465 =
  (port: number): MailConnectOptions['redirect'] =>
  (host, p) =>
    p === 465 ? { host: '127.0.0.1', port } : { host, port: p };

/** Mail services on a SQLite database of their own, with captured trace logs. */
export async function mailOnTempDb(): Promise<{
  db: TestDatabase;
  logs: string[];
  build(connect?: MailConnectOptions): MailServices;
  close(): Promise<void>;
}> {
  const dir = mkdtempSync(join(tmpdir(), 'algodesk-mail-'));
  const db = await createTestDatabase('sqlite', dir);
  const { lines, stream } = captureStream();
  const logger = createLogger('trace', stream);
  const appKey = 'test-app-key-0123456789abcdef0123456789abcdef';
  return {
    db,
    logs: lines,
    build: (connect = TEST_CONNECT) =>
      buildMailServices({ db: db.database.db, appKey, clock: new FakeClock(), logger, connect }),
    async close() {
      await db.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface MailRouteApp {
  app: App;
  mail: MailServices;
  logs: string[];
  close(): Promise<void>;
}

/** `mailRoutes` on the real platform plugins and session guard of `t`. */
export async function mailRouteApp(
  t: TestApp,
  connect: MailConnectOptions = TEST_CONNECT,
): Promise<MailRouteApp> {
  const { lines, stream } = captureStream();
  const logger = createLogger('trace', stream);
  const mail = buildMailServices({
    db: t.db.database.db,
    appKey: t.config.appKey,
    clock: t.clock,
    logger,
    connect,
  });
  const app = Fastify({ loggerInstance: logger }).withTypeProvider() as unknown as App;
  registerErrorHandling(app);
  registerValidation(app, schemaCompilers);
  registerBodyParsing(app);
  app.decorateRequest('clientIp', '');
  app.addHook('onRequest', (req, _reply, done) => {
    req.clientIp = req.ip;
    done();
  });
  const guard = createSessionGuard(t.services.auth.sessions, t.services.auth.users);
  const limit = createRateLimitHooks(new MemoryRateLimiter(t.clock), logger);
  await app.register(async (scope) => {
    await scope.register(cookie, { hook: false });
    mailRoutes(scope as unknown as App, {
      mail,
      guard,
      rateLimit: limit('admin', parseRateRules('50 per second')),
      probeRateLimit: limit('smtp-probe', parseRateRules('10 per minute')),
    });
  });
  await app.ready();
  return { app, mail, logs: lines, close: () => app.close() };
}

export const ROUTE_USER = 'mailer@example.com';
export const ROUTE_PASSWORD = 'Route-smtp-pa55word';
export const ROUTE_FROM = 'desk@example.com';

/** A complete, valid `POST /auth/smtp-config` body. */
export const VALID = {
  smtp_server: 'smtp.example.com',
  smtp_port: 2525,
  smtp_username: ROUTE_USER,
  smtp_password: ROUTE_PASSWORD,
  smtp_use_tls: true,
  smtp_from_email: ROUTE_FROM,
  smtp_helo_hostname: 'desk.example.net',
};

/**
 * Hooks for a route suite: one real app and one mail route app per database (logged-in
 * administrator); before each test the mail settings are emptied and the fake clock moves past
 * every rate window; SMTP servers a test pushes onto `servers` are closed after it.
 */
export interface MailRouteSuite {
  t: TestApp;
  admin: Browser;
  m: MailRouteApp;
  servers: SmtpTestServer[];
  viewer: Browser | undefined;
  post(url: string, payload: unknown, b?: Browser | null): Promise<LightMyRequestResponse>;
  postForm(url: string, form: Record<string, string>, b?: Browser): Promise<LightMyRequestResponse>;
  stored(): Promise<Selectable<SettingsTable>>;
  nonAdmin(): Promise<Browser>;
}

export function useMailRoutes(dialect: Dialect): MailRouteSuite {
  const c: MailRouteSuite = {
    t: undefined as unknown as TestApp,
    admin: undefined as unknown as Browser,
    m: undefined as unknown as MailRouteApp,
    servers: [] as SmtpTestServer[],
    viewer: undefined as Browser | undefined,
    /** A POST from the administrator's browser, or with no session at all when `b` is null. */
    post: (url: string, payload: unknown, b: Browser | null = c.admin) =>
      c.m.app.inject({ method: 'POST', url, payload: payload as object, headers: b ? asBrowser(b) : {} }),
    /** A form POST (`application/x-www-form-urlencoded`) from the administrator's browser. */
    postForm: (url: string, form: Record<string, string>, b: Browser = c.admin) =>
      c.m.app.inject({
        method: 'POST',
        url,
        payload: new URLSearchParams(form).toString(),
        headers: { ...asBrowser(b), 'content-type': 'application/x-www-form-urlencoded' },
      }),
    /** The settings row as stored. */
    stored: () =>
      c.t.db.database.db.selectFrom('settings').selectAll().where('id', '=', 1).executeTakeFirstOrThrow(),
    /** A logged-in user without the administrator flag. */
    async nonAdmin(): Promise<Browser> {
      if (!c.viewer) {
        await createUser(c.t, 'viewer', 'viewer password 1');
        c.viewer = await login(c.t, 'viewer', 'viewer password 1');
      }
      return c.viewer;
    },
  };
  beforeAll(async () => {
    ({ t: c.t, admin: c.admin } = await appWithAdmin(dialect));
    c.m = await mailRouteApp(c.t);
  });
  afterAll(async () => {
    await c.m?.close();
    await c.t?.close();
  });
  beforeEach(async () => {
    c.servers = [];
    c.t.clock.advance(61_000);
    await c.t.db.database.db
      .updateTable('settings')
      .set({
        smtp_server: null,
        smtp_port: 587,
        smtp_username: null,
        smtp_password_encrypted: null,
        smtp_use_tls: 1,
        smtp_from_email: null,
        smtp_helo_hostname: null,
      })
      .where('id', '=', 1)
      .execute();
  });
  afterEach(async () => {
    await Promise.all(c.servers.map((s) => s.close()));
  });
  return c;
}

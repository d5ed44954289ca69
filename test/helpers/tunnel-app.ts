/**
 * The real app with the tunnel's provider replaced (issue 10): like createTestApp, plus the
 * driver and the start bound, listening on an ephemeral loopback port when asked, so the tunnel
 * starts exactly as under `serve` (Fastify's onListen).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp, type Services } from '../../src/app.js';
import { ensureInstallSecrets, loadConfig, type ResolvedConfig } from '../../src/config.js';
import { FakeClock } from '../../src/platform/clock.js';
import type { Dialect } from '../../src/platform/db/database.js';
import type { App } from '../../src/platform/http/types.js';
import { LocalInvalidationBus } from '../../src/platform/invalidation.js';
import { createLogger } from '../../src/platform/logger.js';
import { MemoryRateLimiter } from '../../src/platform/rate-limiter.js';
import type { TunnelDriver } from '../../src/modules/tunnel/tunnel.types.js';
import { captureStream, createTestDatabase, type TestDatabase } from './test-app.js';

export interface TunnelTestApp {
  app: App;
  services: Services;
  config: ResolvedConfig;
  logs: string[];
  db: TestDatabase;
  /** Base URL of the listening server (after {@link listen}). */
  base: string;
  /** Listens on 127.0.0.1:0 and waits for the tunnel's start to settle; returns its result. */
  listen(): Promise<string | null>;
  close(): Promise<void>;
}

export interface TunnelAppOptions {
  env?: Record<string, string>;
  /** Omit for the real ngrok driver. */
  driver?: TunnelDriver;
  startTimeoutMs?: number;
  dialect?: Dialect;
}

export async function createTunnelApp(opts: TunnelAppOptions = {}): Promise<TunnelTestApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'algodesk-tunnel-'));
  const env = { DATA_DIR: dataDir, LOG_LEVEL: 'trace', ...opts.env };
  const { config } = ensureInstallSecrets(loadConfig(env, { envFile: false }));
  const db = await createTestDatabase(opts.dialect ?? 'sqlite', dataDir);
  const clock = new FakeClock();
  const { lines, stream } = captureStream();
  const { app, services } = await buildApp({
    config,
    database: db.database,
    clock,
    logger: createLogger(config.logLevel, stream),
    rateLimiter: new MemoryRateLimiter(clock),
    bus: new LocalInvalidationBus(),
    ...(opts.driver ? { tunnelDriver: opts.driver } : {}),
    ...(opts.startTimeoutMs !== undefined ? { tunnelStartTimeoutMs: opts.startTimeoutMs } : {}),
  });
  await app.ready();
  const t: TunnelTestApp = {
    app,
    services,
    config,
    logs: lines,
    db,
    base: '',
    async listen() {
      t.base = await app.listen({ host: '127.0.0.1', port: 0 });
      // onListen runs right after listen() resolves: let it run before reading `started`.
      await new Promise((r) => setImmediate(r));
      return services.tunnel.started;
    },
    async close() {
      await app.close();
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return t;
}

/** Parsed log records of a test app. */
export const records = (logs: string[]) =>
  logs.map((l) => JSON.parse(l) as { level: number; msg: string; [k: string]: unknown });

/** Messages logged at `warn` (40) or above. */
export const warnings = (logs: string[]) =>
  records(logs)
    .filter((r) => r.level >= 40)
    .map((r) => r.msg);

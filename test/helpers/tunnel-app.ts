/**
 * The real app with the tunnel's provider replaced (issue 10): like createTestApp, plus the
 * driver and the start bound, listening on an ephemeral loopback port when asked, so the tunnel
 * starts exactly as under `serve` (Fastify's onListen).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
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
import { captureStream, createTestDatabase, schemaCompilers, type TestDatabase } from './test-app.js';

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
    schemaCompilers,
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

/** A free loopback port (bound once, then released). */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const port = (probe.address() as AddressInfo).port;
  await new Promise((r) => probe.close(r));
  return port;
}

export interface ServeProcess {
  proc: ChildProcessWithoutNullStreams;
  port: number;
  /** Everything written so far, per stream. */
  out: { stdout: string; stderr: string };
  /** Resolves when `pattern` has appeared on either stream; rejects (with the output) on exit or after 40 s. */
  waitFor(pattern: RegExp): Promise<void>;
  /** The exit code (null when killed by a signal), once the output is complete. */
  exited: Promise<number | null>;
  /** Kills what is left and removes the data directory. */
  cleanup(): void;
}

/**
 * `algodesk serve` as a child process with the fake tunnel provider
 * (helpers/serve-fake-tunnel.ts), on a fresh SQLite data directory and a free port.
 */
export async function spawnServeWithFakeTunnel(
  env: Record<string, string>,
  args: string[] = [],
): Promise<ServeProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'algodesk-tunnel-proc-'));
  const port = await freePort();
  const entry = join(import.meta.dirname, 'serve-fake-tunnel.ts');
  const proc = spawn(process.execPath, ['--import', 'tsx', entry, ...args], {
    env: { ...process.env, DATA_DIR: dir, PORT: String(port), DATABASE_URL: '', REDIS_URL: '', ...env },
  });
  const out = { stdout: '', stderr: '' };
  const listeners = new Set<() => void>();
  const seen = () => listeners.forEach((l) => l());
  proc.stdout.on('data', (d: Buffer) => ((out.stdout += d.toString()), seen()));
  proc.stderr.on('data', (d: Buffer) => ((out.stderr += d.toString()), seen()));
  // 'close': after the exit and the end of both streams, so the output is complete by then.
  const exited = new Promise<number | null>((resolve) => proc.on('close', (code) => resolve(code)));
  return {
    proc,
    port,
    out,
    exited,
    waitFor: (pattern) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (!pattern.test(out.stdout + out.stderr)) return;
          listeners.delete(check);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`timed out waiting for ${pattern}:\n${out.stdout}\n${out.stderr}`));
        }, 40_000);
        listeners.add(check);
        check();
        void exited.then(() => {
          if (!listeners.delete(check)) return;
          clearTimeout(timer);
          reject(new Error(`exited before ${pattern}:\n${out.stdout}\n${out.stderr}`));
        });
      }),
    cleanup() {
      proc.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

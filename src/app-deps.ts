/**
 * What the app is built from: the runtime (database, clock, bus, limiter, logger), the resolved
 * configuration and the seams tests fill. Every module plugin receives it as its options; a leaf
 * file, so no module imports the app that lists it.
 */
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { ResolvedConfig } from './config.js';
import type { MailConnectOptions } from './modules/mail/mail-transport.js';
import type { StrategySeam } from './modules/strategies/strategy-runner.types.js';
import type { TunnelDriver } from './modules/tunnel/tunnel.types.js';
import type { Clock } from './platform/clock.js';
import type { Database } from './platform/db/database.js';
import type { SchemaCompilers } from './platform/http/schema-compilers.js';
import type { InvalidationBus } from './platform/invalidation.js';
import type { RateLimiter } from './platform/rate-limiter.js';

/** Everything the app is built from; tests pass fakes (clock, limiter, bus) here. */
export interface AppDeps {
  config: ResolvedConfig;
  database: Database;
  clock: Clock;
  logger: Logger;
  rateLimiter: RateLimiter;
  bus: InvalidationBus;
  /** The Redis commands connection shared by the modules, when `REDIS_URL` is set (the runtime's). */
  redis?: Redis;
  /** Mail TLS trust and timeouts (tests trust their own CA); default: the system's CAs. */
  mailConnect?: MailConnectOptions;
  /** The public base URL when it differs from HOST_SERVER (the tunnel's); for webhook URLs. */
  publicBaseUrl?: () => string | undefined;
  /** The public tunnel's provider (default ngrok); tests pass a fake. */
  tunnelDriver?: TunnelDriver;
  /** Bound on the tunnel's start (default 10 s); tests shorten it. */
  tunnelStartTimeoutMs?: number;
  /** Compiled route schemas, shared by every app a process builds (tests); default: the app's own. */
  schemaCompilers?: SchemaCompilers;
  /**
   * Called between a strategy order's writes (strategy-runner.ts, `StrategySeam`): tests kill the
   * process there to prove a restart reconciles; never set in production.
   */
  strategySeam?: (name: StrategySeam) => Promise<void> | void;
  /**
   * The built web console's folder (default: `web/dist` beside package.json); null serves no
   * console, as when it was never built.
   */
  webRoot?: string | null;
}

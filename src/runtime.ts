import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { sqliteFile, type ResolvedConfig } from './config.js';
import { systemClock, type Clock } from './platform/clock.js';
import { openDatabase, type Database } from './platform/db/database.js';
import { migrateToLatest } from './platform/db/migrate.js';
import { LocalInvalidationBus, RedisInvalidationBus, type InvalidationBus } from './platform/invalidation.js';
import { MemoryRateLimiter, type RateLimiter } from './platform/rate-limiter.js';
import { withDeadline } from './platform/deadline.js';
import { connectedWithin, createRedis } from './platform/redis.js';
import { printableUrl, reasonOf, StartupError } from './platform/startup-error.js';
import { RedisRateLimiter } from './platform/redis-rate-limiter.js';

/** The long-lived resources behind an app: database, Redis connections, bus, limiter. */
export interface Runtime {
  database: Database;
  bus: InvalidationBus;
  rateLimiter: RateLimiter;
  clock: Clock;
  /** The Redis commands connection, when `REDIS_URL` is set. */
  redis?: Redis;
  close(): Promise<void>;
}

/** How long start-up waits for the database and for Redis before it gives up with one line. */
const CONNECT_BOUND_MS = 5_000;

/**
 * Opens the configured database (migrated to the latest schema) and the shared-state pieces. A
 * database or Redis that cannot be reached fails within `CONNECT_BOUND_MS` with a `StartupError`
 * naming its variable (`DATABASE_URL`, `DATA_DIR`, `REDIS_URL`) and the reason.
 */
export async function openRuntime(
  config: ResolvedConfig,
  logger: Logger,
  clock: Clock = systemClock,
): Promise<Runtime> {
  const where = config.databaseUrl
    ? `DATABASE_URL: cannot use ${printableUrl(config.databaseUrl)}`
    : `DATA_DIR: cannot open ${sqliteFile(config)}`;
  let database: Database;
  try {
    database = openDatabase(
      config.databaseUrl
        ? { kind: 'postgres', url: config.databaseUrl }
        : { kind: 'sqlite', file: sqliteFile(config) },
    );
  } catch (err) {
    throw new StartupError(`${where} (${reasonOf(err)})`);
  }
  try {
    const { applied } = await withDeadline(
      migrateToLatest(database.db),
      CONNECT_BOUND_MS,
      () => new StartupError(`${where} (no answer within ${CONNECT_BOUND_MS / 1000} s)`),
    );
    if (applied.length > 0)
      logger.info(
        { latest: applied.at(-1) },
        `database migrated: ${applied.length} migration${applied.length === 1 ? '' : 's'} applied`,
      );
  } catch (err) {
    await withDeadline(database.close(), 1_000, () => new Error('close')).catch(() => undefined);
    throw err instanceof StartupError ? err : new StartupError(`${where} (${reasonOf(err)})`);
  }
  let bus: InvalidationBus = new LocalInvalidationBus();
  let rateLimiter: RateLimiter = new MemoryRateLimiter(clock);
  let redis: Redis | undefined;
  const closers: Array<() => Promise<unknown>> = [];
  if (config.redisUrl) {
    const pub = createRedis(config.redisUrl, 'pub', logger);
    const sub = createRedis(config.redisUrl, 'sub', logger);
    try {
      await connectedWithin(config.redisUrl, [pub, sub], CONNECT_BOUND_MS);
    } catch (err) {
      await database.close();
      throw err;
    }
    const redisBus = new RedisInvalidationBus(pub, sub, logger, config.redisPrefix);
    await redisBus.start();
    bus = redisBus;
    // The commands connection the modules share (the rate limiter, the feed's upstream lease).
    redis = pub;
    // Several instances share one window per client (the subscriber connection cannot run commands).
    rateLimiter = new RedisRateLimiter(pub, clock, { prefix: `${config.redisPrefix}:rl` });
    closers.push(
      () => redisBus.close(),
      () => pub.quit(),
      () => sub.quit(),
    );
  }
  return {
    database,
    bus,
    rateLimiter,
    clock,
    ...(redis ? { redis } : {}),
    async close() {
      await rateLimiter.close();
      for (const c of closers) await c().catch(() => undefined);
      await database.close();
    },
  };
}

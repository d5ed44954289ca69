import type { Logger } from 'pino';
import { sqliteFile, type ResolvedConfig } from './config.js';
import { systemClock, type Clock } from './platform/clock.js';
import { openDatabase, type Database } from './platform/db/database.js';
import { migrateToLatest } from './platform/db/migrate.js';
import { LocalInvalidationBus, RedisInvalidationBus, type InvalidationBus } from './platform/invalidation.js';
import { MemoryRateLimiter, type RateLimiter } from './platform/rate-limiter.js';
import { createRedis } from './platform/redis.js';
import { RedisRateLimiter } from './platform/redis-rate-limiter.js';

/** The long-lived resources behind an app: database, Redis connections, bus, limiter. */
export interface Runtime {
  database: Database;
  bus: InvalidationBus;
  rateLimiter: RateLimiter;
  clock: Clock;
  close(): Promise<void>;
}

/** Opens the configured database (migrated to the latest schema) and the shared-state pieces. */
export async function openRuntime(
  config: ResolvedConfig,
  logger: Logger,
  clock: Clock = systemClock,
): Promise<Runtime> {
  const database = openDatabase(
    config.databaseUrl
      ? { kind: 'postgres', url: config.databaseUrl }
      : { kind: 'sqlite', file: sqliteFile(config) },
  );
  try {
    const { applied } = await migrateToLatest(database.db);
    if (applied.length > 0) logger.info({ applied }, 'database migrated');
  } catch (err) {
    await database.close();
    throw err;
  }
  let bus: InvalidationBus = new LocalInvalidationBus();
  let rateLimiter: RateLimiter = new MemoryRateLimiter(clock);
  const closers: Array<() => Promise<unknown>> = [];
  if (config.redisUrl) {
    const pub = createRedis(config.redisUrl, 'pub');
    const sub = createRedis(config.redisUrl, 'sub');
    const redisBus = new RedisInvalidationBus(pub, sub, logger, config.redisPrefix);
    await redisBus.start();
    bus = redisBus;
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
    async close() {
      await rateLimiter.close();
      for (const c of closers) await c().catch(() => undefined);
      await database.close();
    },
  };
}

import pg from 'pg';
import { Redis } from 'ioredis';
import type { TestProject } from 'vitest/node';

/**
 * Decides which databases the integration suite runs on and tells the tests through `inject`.
 * - TEST_DB=sqlite|postgres|all (default sqlite: `npm test`; vitest.postgres.config.ts sets postgres).
 * - TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test).
 * - TEST_REQUIRE_POSTGRES=1 / TEST_REQUIRE_REDIS=1 (CI): an unreachable server fails the run
 *   instead of skipping with a notice.
 */
export default async function setup(project: TestProject): Promise<void> {
  const want = process.env.TEST_DB ?? 'sqlite';
  const pgUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/0';
  const requirePg = process.env.TEST_REQUIRE_POSTGRES === '1';
  const requireRedis = process.env.TEST_REQUIRE_REDIS === '1';

  let pgOk = false;
  if (want !== 'sqlite') {
    const client = new pg.Client({ connectionString: pgUrl, connectionTimeoutMillis: 2000 });
    try {
      await client.connect();
      await client.query('select 1');
      pgOk = true;
    } catch (err) {
      if (requirePg)
        throw new Error(`PostgreSQL is required but unreachable at ${pgUrl}: ${(err as Error).message}`);
      console.warn(
        `\n*** NOTICE: PostgreSQL unreachable at ${pgUrl}; PostgreSQL tests are SKIPPED (${(err as Error).message}) ***\n`,
      );
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  let redisOk = false;
  const redis = new Redis(redisUrl, {
    lazyConnect: true,
    connectTimeout: 1500,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  try {
    await redis.connect();
    await redis.ping();
    redisOk = true;
  } catch (err) {
    if (requireRedis)
      throw new Error(`Redis is required but unreachable at ${redisUrl}: ${(err as Error).message}`);
    console.warn(`\n*** NOTICE: Redis unreachable at ${redisUrl}; tests that need Redis are SKIPPED ***\n`);
  } finally {
    redis.disconnect();
  }

  project.provide(
    'dialects',
    want === 'postgres' ? ['postgres'] : want === 'sqlite' ? ['sqlite'] : ['sqlite', 'postgres'],
  );
  project.provide('pgUrl', pgOk ? pgUrl : '');
  project.provide('redisUrl', redisOk ? redisUrl : '');
}

declare module 'vitest' {
  export interface ProvidedContext {
    dialects: Array<'sqlite' | 'postgres'>;
    pgUrl: string;
    redisUrl: string;
  }
}

import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { printableUrl, reasonOf, StartupError } from './startup-error.js';

/**
 * A Redis connection for shared state. Commands fail fast while the server is away (no endless
 * offline queue), so a Redis outage shows as errors the caller handles, not as hung requests.
 * With a `log`, an outage is one warning when it begins and one line when it ends (ioredis keeps
 * reconnecting), not an unhandled-error stack per attempt.
 */
export function createRedis(url: string, name: string, log?: Logger): Redis {
  const redis = new Redis(url, {
    connectionName: `algodesk-${name}`,
    maxRetriesPerRequest: 2,
    enableOfflineQueue: true,
    connectTimeout: 3_000,
    lazyConnect: false,
  });
  let down = false;
  redis.on('error', (err: unknown) => {
    // While start-up watches the connection (its own listener), failures are start-up's to report.
    if (down || !log || redis.listenerCount('error') > 1) return;
    down = true;
    log.warn(
      { redis: name, reason: reasonOf(err) },
      'Redis is unreachable: serving on with local state (rate limits let requests through, other instances catch up at cache expiry); reconnecting',
    );
  });
  redis.on('ready', () => {
    if (!down) return;
    down = false;
    log?.info({ redis: name }, 'Redis connection restored');
  });
  return redis;
}

/** How many failed connection attempts start-up allows before it gives up on `REDIS_URL`. */
const STARTUP_ATTEMPTS = 3;

/**
 * Resolves once every connection is ready; fails with a one-line `REDIS_URL` message after
 * `STARTUP_ATTEMPTS` failed attempts on one of them or `ms`, whichever comes first, and then
 * disconnects them all (no retry loop is left behind).
 */
export async function connectedWithin(url: string, connections: Redis[], ms: number): Promise<void> {
  const cleanups: Array<() => void> = [];
  try {
    await new Promise<void>((resolve, reject) => {
      let pending = connections.length;
      const fail = (reason: string) =>
        reject(new StartupError(`REDIS_URL: cannot connect to ${printableUrl(url)} (${reason})`));
      const timer = setTimeout(() => fail(`no connection within ${ms / 1000} s`), ms);
      cleanups.push(() => clearTimeout(timer));
      for (const redis of connections) {
        if (redis.status === 'ready') {
          if (--pending === 0) resolve();
          continue;
        }
        let failures = 0;
        const onError = (err: unknown) => {
          if (++failures >= STARTUP_ATTEMPTS) fail(reasonOf(err));
        };
        const onReady = () => {
          if (--pending === 0) resolve();
        };
        redis.on('error', onError);
        redis.once('ready', onReady);
        cleanups.push(() => {
          redis.off('error', onError);
          redis.off('ready', onReady);
        });
      }
    });
  } catch (err) {
    for (const redis of connections) redis.disconnect();
    throw err;
  } finally {
    for (const c of cleanups) c();
  }
}

import { Redis } from 'ioredis';

/**
 * A Redis connection for shared state. Commands fail fast while the server is away (no endless
 * offline queue), so a Redis outage shows as errors the caller handles, not as hung requests.
 */
export function createRedis(url: string, name: string): Redis {
  return new Redis(url, {
    connectionName: `algodesk-${name}`,
    maxRetriesPerRequest: 2,
    enableOfflineQueue: true,
    connectTimeout: 3_000,
    lazyConnect: false,
  });
}

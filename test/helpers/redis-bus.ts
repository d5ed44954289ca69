/**
 * A Redis-backed bus for a test's instance (two apps on one Redis act as two instances): its own
 * publishing and subscribing connections, closed by the cleanup the caller registers.
 */
import pino from 'pino';
import { RedisInvalidationBus } from '../../src/platform/invalidation.js';
import { createRedis } from '../../src/platform/redis.js';
import { redisUrl } from './test-app.js';

export async function redisBus(prefix: string, cleanup: (() => unknown)[]): Promise<RedisInvalidationBus> {
  const pub = createRedis(redisUrl, 'test-pub');
  const sub = createRedis(redisUrl, 'test-sub');
  const bus = new RedisInvalidationBus(pub, sub, pino({ level: 'silent' }), prefix);
  await bus.start();
  cleanup.push(async () => {
    await bus.close();
    pub.disconnect();
    sub.disconnect();
  });
  return bus;
}

/**
 * The install's one upstream survives a kill -9 of its holder (docs/rules/market-data.md#one-upstream):
 * two real server processes on one database and one Redis, each serving a feed client on its
 * `/ws`; the holder of the upstream lease (its `/ready` says so) is killed with SIGKILL, and the
 * other instance's client receives prices again within 5 s: the lease expired, the survivor took
 * it and subscribed its sockets' instruments on its own upstream.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FeedTestClient } from '../helpers/feed-client.js';
import { killWorld, type KillWorld, type ServerProcess } from '../helpers/kill-server.js';
import { describeEachDb, redisUrl } from '../helpers/test-app.js';

describeEachDb('the live feed when its holder is killed', (dialect) => {
  let world: KillWorld;
  beforeAll(async () => {
    world = await killWorld(dialect, []);
  }, 60_000);
  afterAll(async () => world?.close());

  it.skipIf(redisUrl === '')(
    'the other instance takes the upstream over and its client keeps receiving within 5 s',
    async () => {
      const shared = {
        REDIS_URL: redisUrl,
        REDIS_PREFIX: `kill-feed-${randomBytes(4).toString('hex')}`,
        WEBSOCKET_PORT: '0',
        FEED_POLL_MS: '200',
      };
      const a = await world.start({ ...shared, INSTANCE_ID: 'feed-a' });
      const b = await world.start({ ...shared, INSTANCE_ID: 'feed-b' });
      const holds = async (s: ServerProcess) => {
        const res = await fetch(`http://127.0.0.1:${s.port}/ready`).catch(() => undefined);
        const body = res
          ? ((await res.json()) as { checks: { market_feed: { holds_upstream: boolean } } })
          : undefined;
        return body?.checks.market_feed.holds_upstream ?? false;
      };
      await expect.poll(async () => (await holds(a)) !== (await holds(b)), { timeout: 10_000 }).toBe(true);
      const [holder, survivor] = (await holds(a)) ? [a, b] : [b, a];

      const client = await FeedTestClient.open(`ws://127.0.0.1:${survivor.port}/ws`);
      try {
        await client.ask({ action: 'authenticate', api_key: world.apikey }, 'auth');
        await client.ask(
          { action: 'subscribe', symbols: [{ symbol: 'SBIN', exchange: 'NSE' }], mode: 'LTP' },
          'subscribe',
        );
        // Served by the holder's upstream, through Redis.
        expect((await client.next((m) => m.type === 'market_data', 10_000)).data).toMatchObject({ ltp: 800 });

        await holder.kill(); // SIGKILL: no lease released, no goodbye
        const tick = await client.next((m) => m.type === 'market_data', 5_000);
        expect(tick).toMatchObject({ symbol: 'SBIN', exchange: 'NSE', data: { ltp: 800 } });
        expect(await holds(survivor)).toBe(true);
      } finally {
        await client.close();
      }
    },
    90_000,
  );
});

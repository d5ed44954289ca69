/**
 * One upstream for two instances (docs/rules/market-data.md#one-upstream): two app instances on
 * one database and one Redis, both with a Zerodha session, both serving feed clients. One of them
 * holds the lease and the only Kite Ticker connection; the other's client receives the same ticks
 * through Redis. When the holder goes, the other takes the lease, connects, re-subscribes what its
 * own sockets want, and its client keeps receiving within 5 s.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, expect, it } from 'vitest';
import { redisBus } from '../helpers/redis-bus.js';
import { importContract } from '../helpers/contracts.js';
import { FeedTestClient } from '../helpers/feed-client.js';
import { KiteTickerStub } from '../helpers/kite-ticker-stub.js';
import { ist, miniKiteContract } from '../helpers/sandbox.js';
import { createTestApp, describeEachDb, redisUrl, type TestApp } from '../helpers/test-app.js';

const KEY = 'kite-api-key-1234';
const TOKEN = 'kite-token-day-1';

describeEachDb('the live feed on two instances sharing Redis', (dialect) => {
  const cleanup: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const c of cleanup.reverse()) await c().catch(() => undefined);
    cleanup.length = 0;
  });

  it.skipIf(redisUrl === '')(
    'one Kite connection serves both; the other takes over within 5 s when the holder goes',
    async () => {
      const stub = await KiteTickerStub.start({ apiKey: KEY, accessToken: TOKEN });
      cleanup.push(() => stub.close());
      const prefix = `feed-${randomBytes(4).toString('hex')}`;
      const env = {
        REDIS_URL: redisUrl,
        REDIS_PREFIX: prefix,
        BROKER_NAME: 'zerodha',
        BROKER_API_KEY: KEY,
        BROKER_API_SECRET: 'kite-secret',
        BROKER_FEED_URL: stub.url,
      };
      const a = await createTestApp(dialect, { env, bus: await redisBus(prefix, cleanup) });
      cleanup.push(() => a.close());
      const b = await createTestApp(dialect, {
        env,
        db: a.db,
        clock: a.clock,
        bus: await redisBus(prefix, cleanup),
      });
      cleanup.push(() => b.close());
      await a.services.auth.users.create({
        username: 'admin',
        password: 'correct horse battery',
        email: 'a@x.io',
      });
      await importContract(a, 'zerodha', miniKiteContract());
      a.clock.set(ist('2026-01-05', '10:00'));
      await a.services.brokers.sessions.set(1, 'zerodha', { accessToken: TOKEN });
      const apikey = (await a.services.auth.apiKeys.regenerate(1)).apikey;
      const token = Number((await a.app.market.contracts.get('SBIN', 'NSE'))!.token);
      for (const t of [a, b]) {
        await t.services.brokers.sessions.refreshPrimary();
        t.app.feed.upstream.reselect();
      }
      await expect
        .poll(() => [a, b].filter((t) => t.app.feed.cluster.holds).length, { timeout: 5000 })
        .toBe(1);
      const holder = a.app.feed.cluster.holds ? a : b;
      const other = holder === a ? b : a;

      const clientOf = async (t: TestApp) => {
        const at = await t.app.feed.server.listen('127.0.0.1', 0);
        const c = await FeedTestClient.open(`ws://127.0.0.1:${at.port}`);
        cleanup.push(() => c.close());
        await c.ask({ action: 'authenticate', api_key: apikey }, 'auth');
        await c.ask(
          { action: 'subscribe', symbols: [{ symbol: 'SBIN', exchange: 'NSE' }], mode: 'LTP' },
          'subscribe',
        );
        return c;
      };
      const onOther = await clientOf(other);
      const onHolder = await clientOf(holder);
      await stub.until(() => stub.subscriptions().get(token) !== undefined, 5000, 'SBIN subscribed upstream');
      expect(stub.connections).toBe(1);
      expect(stub.accepted).toBe(1);

      const ltp = (paise: number) => stub.send([{ mode: 'ltp', token, lastPrice: paise }]);
      const priced = (c: FeedTestClient, rupees: number) =>
        c.next((m) => m.type === 'market_data' && (m.data as { ltp: number }).ltp === rupees, 5000);
      ltp(80_000);
      await Promise.all([priced(onOther, 800), priced(onHolder, 800)]);

      // The holder goes: the other takes the lease, connects and re-subscribes within 5 s.
      await holder.app.close();
      await expect.poll(() => other.app.feed.cluster.holds, { timeout: 5000 }).toBe(true);
      await stub.until(
        () => stub.accepted === 2 && stub.subscriptions().get(token) !== undefined,
        5000,
        'failover',
      );
      ltp(80_500);
      await priced(onOther, 805);
    },
    30_000,
  );
});

import { mkdtempSync, readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import pino from 'pino';
import { FakeClock } from '../../src/platform/clock.js';
import { RedisInvalidationBus } from '../../src/platform/invalidation.js';
import { createRedis } from '../../src/platform/redis.js';
import {
  asBrowser,
  createTestApp,
  createTestDatabase,
  createUser,
  describeEachDb,
  login,
  redisUrl,
  type TestApp,
  type TestDatabase,
} from '../helpers/test-app.js';
import { importContract } from '../helpers/contracts.js';
import { marketFixture } from '../helpers/market-fixtures.js';

/** Two instances of the service on one database and one Redis, as a scaled-out install runs. */
describeEachDb('scale-out: API-key revocation reaches every instance through Redis', (dialect) => {
  const cleanup: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const c of cleanup.reverse()) await c();
    cleanup.length = 0;
  });

  async function instance(db: TestDatabase, prefix: string, clock: FakeClock): Promise<TestApp> {
    const pub = createRedis(redisUrl, 'test-pub');
    const sub = createRedis(redisUrl, 'test-sub');
    const bus = new RedisInvalidationBus(pub, sub, pino({ level: 'silent' }), prefix);
    await bus.start();
    const t = await createTestApp(dialect, {
      db,
      bus,
      clock,
      env: { API_KEY_PEPPER: 'p'.repeat(64), APP_KEY: 'a'.repeat(64) },
    });
    cleanup.push(async () => {
      await t.close();
      await bus.close();
      pub.disconnect();
      sub.disconnect();
    });
    return t;
  }

  /** Two instances on one fresh database, sharing one Redis channel and one clock. */
  async function twoInstances(): Promise<[TestApp, TestApp]> {
    const db = await createTestDatabase(dialect, mkdtempSync(join(tmpdir(), 'algodesk-scale-')));
    cleanup.push(() => db.drop());
    const prefix = `test-${randomBytes(4).toString('hex')}`;
    const clock = new FakeClock();
    return [await instance(db, prefix, clock), await instance(db, prefix, clock)];
  }

  // Needs Redis; skipped with a notice from global-setup when it is unreachable (required in CI).
  it.skipIf(redisUrl === '')(
    'a key regenerated on instance A is refused on instance B at once, though B had it cached',
    async () => {
      const [a, b] = await twoInstances();
      await createUser(a);
      const browser = await login(a);
      const ping = (t: TestApp, apikey: string) =>
        t.app.inject({ method: 'POST', url: '/api/v1/ping', payload: { apikey } });

      const k1 = (await a.app.inject({ method: 'POST', url: '/apikey', headers: asBrowser(browser) })).json()
        .apikey as string;
      expect((await ping(b, k1)).statusCode).toBe(200); // B caches k1 as valid
      // A session made on A is valid on B too: sessions live in the shared database.
      expect(
        (await b.app.inject({ method: 'GET', url: '/auth/session', headers: { cookie: browser.cookie } }))
          .statusCode,
      ).toBe(200);

      const k2 = (await a.app.inject({ method: 'POST', url: '/apikey', headers: asBrowser(browser) })).json()
        .apikey as string;
      // Pub/sub delivery is asynchronous: wait (bounded) for B to drop its cached entry.
      let status = 0;
      for (let i = 0; i < 50 && status !== 403; i++) {
        status = (await ping(b, k1)).statusCode;
        if (status !== 403) await new Promise((r) => setTimeout(r, 20));
      }
      expect(status).toBe(403);
      expect((await ping(b, k2)).statusCode).toBe(200);
    },
  );

  // Needs Redis; skipped with a notice from global-setup when it is unreachable (required in CI).
  it.skipIf(redisUrl === '')(
    'automatic-ban settings changed on instance A are in force on instance B at once, despite its cache',
    async () => {
      const [a, b] = await twoInstances();
      expect((await b.services.security.settings.get()).security_404_threshold).not.toBe(7); // B caches
      await a.services.security.settings.update({ security_404_threshold: 7 });
      // Pub/sub delivery is asynchronous; the shared clock does not move, so B's 5 s cache
      // cannot be what lets the new value through.
      let seen = 0;
      for (let i = 0; i < 50 && seen !== 7; i++) {
        seen = (await b.services.security.settings.get()).security_404_threshold;
        if (seen !== 7) await new Promise((r) => setTimeout(r, 20));
      }
      expect(seen).toBe(7);
    },
  );

  // Needs Redis; skipped with a notice from global-setup when it is unreachable (required in CI).
  it.skipIf(redisUrl === '')(
    'a ban or unban on instance A takes effect on instance B at once, despite its ban cache',
    async () => {
      const [a, b] = await twoInstances();
      const ip = '203.0.113.99';
      const get = () => b.app.inject({ method: 'GET', url: '/anything', remoteAddress: ip });
      const eventually = async (status: number) => {
        let got = 0;
        for (let i = 0; i < 50 && got !== status; i++) {
          got = (await get()).statusCode;
          if (got !== status) await new Promise((r) => setTimeout(r, 20));
        }
        return got;
      };
      expect((await get()).statusCode).toBe(404); // B caches "not banned"
      await a.services.security.bans.ban({
        ip,
        reason: 'x',
        durationHours: 0,
        permanent: true,
        force: false,
        by: 'test',
      });
      expect(await eventually(403)).toBe(403);
      await a.services.security.bans.unban(ip);
      expect(await eventually(404)).toBe(404);
    },
  );

  it.skipIf(redisUrl === '')(
    'a master-contract import on instance A rebuilds the instrument index on instance B',
    async () => {
      const [a, b] = await twoInstances();
      await b.services.market.contracts.whenIdle();
      expect(b.services.market.contracts.indexReady).toBe(false); // no contract yet
      const summary = await importContract(
        a,
        'zerodha',
        readFileSync(marketFixture('zerodha', 'kite_instruments_NSE_2025-10-06.csv')),
      );
      let ready = false;
      for (let i = 0; i < 200 && !ready; i++) {
        await b.services.market.contracts.whenIdle();
        ready = b.services.market.contracts.indexSize === summary.rows;
        if (!ready) await new Promise((r) => setTimeout(r, 20));
      }
      expect(ready).toBe(true);
      expect(await b.services.market.contracts.get('SBIN', 'NSE')).toMatchObject({ token: '779521' });
    },
    30_000,
  );
});

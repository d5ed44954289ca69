/**
 * The probe routes: `/health` answers while the process runs (no database, no auth), `/ready`
 * says whether this instance can serve and names what fails (503). Neither is rate-limited or
 * written to the traffic log. Real databases and a real Redis; an outage is a real closed
 * connection or a port nothing listens on.
 */
import pino from 'pino';
import { afterEach, expect, it as vitestIt } from 'vitest';
import { openDatabase } from '../../src/platform/db/database.js';
import { RedisInvalidationBus } from '../../src/platform/invalidation.js';
import { createRedis } from '../../src/platform/redis.js';
import { createTestApp, describeEachDb, redisUrl, type TestApp } from '../helpers/test-app.js';

const redisIt = vitestIt.skipIf(redisUrl === '');
const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup.length = 0;
});

async function app(dialect: 'sqlite' | 'postgres', opts: Parameters<typeof createTestApp>[1] = {}) {
  const t = await createTestApp(dialect, opts);
  cleanup.push(() => t.close());
  return t;
}

async function redisBus(url: string) {
  const pub = createRedis(url, 'test-pub');
  const sub = createRedis(url, 'test-sub');
  for (const r of [pub, sub]) r.on('error', () => undefined);
  const bus = new RedisInvalidationBus(pub, sub, pino({ level: 'silent' }), `health-${Date.now()}`);
  cleanup.push(async () => {
    await bus.close();
    pub.disconnect();
    sub.disconnect();
  });
  return bus;
}

const ready = async (t: TestApp) => {
  const res = await t.app.inject({ method: 'GET', url: '/ready' });
  return {
    status: res.statusCode,
    cache: res.headers['cache-control'],
    body: res.json() as {
      status: string;
      failing: string[];
      checks: Record<
        string,
        { ok: boolean; state: string; reason?: string; mode?: string; instruments?: number }
      >;
    },
  };
};

describeEachDb('health and readiness', (dialect) => {
  const it = vitestIt;

  it('/health answers 200 without a session or a key, uncached', async () => {
    const t = await app(dialect);
    const res = await t.app.inject({ method: 'GET', url: '/health' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok' });
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('/ready is 200 with every check on a healthy instance; Redis is "not configured" without REDIS_URL', async () => {
    const t = await app(dialect);
    const r = await ready(t);
    expect(r.status).toBe(200);
    expect(r.cache).toBe('no-store');
    expect(r.body.status).toBe('ready');
    expect(r.body.failing).toEqual([]);
    expect(r.body.checks.database).toMatchObject({ ok: true, state: 'up' });
    expect(r.body.checks.redis).toEqual({ ok: true, state: 'not configured' });
    expect(r.body.checks.instrument_index!.ok).toBe(true);
    expect(['ready', 'loading', 'disabled']).toContain(r.body.checks.instrument_index!.state);
    expect(r.body.checks.sandbox_engine).toMatchObject({ ok: true, mode: 'live', state: 'stopped' });
  });

  it('/ready is 503 naming the sandbox engine when analyzer mode is on and the engine is stopped', async () => {
    const t = await app(dialect);
    await t.services.sandbox.mode.set(true);
    expect((await ready(t)).body.checks.sandbox_engine).toMatchObject({ ok: true, state: 'running' });
    await t.services.sandbox.engine.stop();
    const r = await ready(t);
    expect(r.status).toBe(503);
    expect(r.body.status).toBe('not_ready');
    expect(r.body.failing).toEqual(['sandbox_engine']);
    expect(r.body.checks.sandbox_engine).toMatchObject({ ok: false, mode: 'analyze', state: 'stopped' });
    expect(r.body.checks.sandbox_engine!.reason).toMatch(/engine is not running/);
  });

  it('/ready is 503 naming the database when its connection is gone; /health still answers', async () => {
    const healthy = await app(dialect);
    // A second instance on the same database through a connection of its own, then closed.
    const own = await openDatabase(healthy.db.target);
    const t = await app(dialect, { db: { ...healthy.db, database: own, drop: async () => undefined } });
    await own.close();
    const r = await ready(t);
    expect(r.status).toBe(503);
    expect(r.body.failing).toContain('database');
    expect(r.body.checks.database).toMatchObject({ ok: false, state: 'down' });
    expect(r.body.checks.database!.reason).toBeTruthy();
    expect(r.body.checks.database!.reason).not.toMatch(/postgres(ql)?:\/\//);
    expect((await t.app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
    // From another address the ban check needs the database: a probe route still answers, any
    // other route fails as the database does. Loopback, never banned, needs no lookup at all.
    const remote = { remoteAddress: '203.0.113.7' };
    expect((await t.app.inject({ method: 'GET', url: '/health', ...remote })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/ready', ...remote })).statusCode).toBe(503);
    expect((await t.app.inject({ method: 'GET', url: '/no-such-page', ...remote })).statusCode).toBe(500);
    expect((await t.app.inject({ method: 'GET', url: '/no-such-page' })).statusCode).toBe(404);
    // The first instance, on its own connection, is unaffected.
    expect((await ready(healthy)).status).toBe(200);
  });

  it('neither route is rate-limited or written to the traffic log', async () => {
    const t = await app(dialect, { env: { API_RATE_LIMIT: '2 per minute' } });
    for (let i = 0; i < 6; i++) {
      expect((await t.app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
      expect((await ready(t)).status).toBe(200);
    }
    await t.app.inject({ method: 'GET', url: '/no-such-page' });
    await t.services.observability.traffic.flush();
    const rows = await t.db.database.db.selectFrom('traffic_log').select('path').execute();
    expect(rows.map((r) => r.path)).toEqual(['/no-such-page']);
  });

  redisIt('with REDIS_URL, /ready pings Redis: up on a live server', async () => {
    const t = await app(dialect, { env: { REDIS_URL: redisUrl }, bus: await redisBus(redisUrl) });
    await new Promise((r) => setTimeout(r, 100));
    const r = await ready(t);
    expect(r.body.checks.redis).toMatchObject({ ok: true, state: 'up' });
    expect(r.status).toBe(200);
  });

  it('with REDIS_URL on a port nothing listens on, /ready is 503 naming Redis, within the bound', async () => {
    const dead = 'redis://127.0.0.1:1';
    const t = await app(dialect, { env: { REDIS_URL: dead }, bus: await redisBus(dead) });
    const t0 = Date.now();
    const r = await ready(t);
    expect(Date.now() - t0).toBeLessThan(3_000);
    expect(r.status).toBe(503);
    expect(r.body.failing).toEqual(['redis']);
    expect(r.body.checks.redis).toMatchObject({ ok: false, state: 'down' });
    expect(r.body.checks.redis!.reason).not.toMatch(/redis:\/\//);
  });
});

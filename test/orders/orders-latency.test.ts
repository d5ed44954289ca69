/**
 * Orders issue, part 6, through the running app: samples with known totals are recorded through
 * the app's LatencyService (the API every placement uses), and `GET /logs/api/latency/stats`
 * answers the hand-computed nearest-rank percentiles and SLA shares, overall and per broker,
 * over the window the fake clock defines. Also: a sample is stamped when it is recorded, not when
 * the buffer is written; a whole burst (more rows than one statement may bind) is written; and
 * `GET /logs/api/latency/logs?limit=` keeps to its bounds.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { LatencySample } from '../../src/modules/orders/latency.service.js';
import {
  appWithAdmin,
  asBrowser,
  createUser,
  describeEachDb,
  login,
  type Browser,
  type TestApp,
} from '../helpers/test-app.js';

const sample = (broker: string, totalMs: number, extra: Partial<LatencySample> = {}): LatencySample => ({
  label: 'PLACE',
  userId: 1,
  broker,
  symbol: 'SBIN',
  orderId: null,
  status: 'success',
  totalMs,
  brokerMs: 0,
  validationMs: 0,
  ...extra,
});

// zerodha: 40 80 120 160 300. upstox: 5, 10, …, 100 (twenty values).
const ZERODHA = [120, 40, 300, 80, 160];
const UPSTOX = Array.from({ length: 20 }, (_, i) => 100 - i * 5);

describeEachDb('latency statistics of the running app', (dialect) => {
  let t: TestApp;
  let admin: Browser;
  let bob: Browser;

  beforeAll(async () => {
    ({ t, admin } = await appWithAdmin(dialect));
    await createUser(t, 'bob', 'bob horse battery staple');
    bob = await login(t, 'bob', 'bob horse battery staple');
  });
  afterAll(async () => {
    await t?.close();
  });
  beforeEach(async () => {
    await t.services.orders.latency.flush();
    await t.db.database.db.deleteFrom('order_latency').execute();
  });

  const get = (url: string, who: Browser = admin) =>
    t.app.inject({ method: 'GET', url, headers: asBrowser(who) });
  const record = (samples: LatencySample[]) => {
    for (const s of samples) t.services.orders.latency.record(s);
  };
  const rowCount = async () =>
    Number(
      (
        await t.db.database.db
          .selectFrom('order_latency')
          .select((e) => e.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  describe('stats: nearest-rank p50/p90/p95/p99 and the share under 100/150/200 ms, overall and per broker', () => {
    it('answers the hand-computed values for known samples; a sample outside the window is left out', async () => {
      record([sample('zerodha', 5_000)]); // two hours before the others: outside a 1-hour window
      t.clock.advance(2 * 3_600_000);
      record([...ZERODHA.map((ms) => sample('zerodha', ms)), ...UPSTOX.map((ms) => sample('upstox', ms))]);
      await t.services.orders.latency.flush();

      const res = await get('/logs/api/latency/stats?hours=1');
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body).toMatchObject({ status: 'success', window_hours: 1, percentile_method: 'nearest-rank' });
      // zerodha sorted 40 80 120 160 300: p50 = rank ⌈2.5⌉ = 3 → 120; p90..p99 = rank 5 → 300.
      expect(body.by_broker.zerodha).toEqual({
        count: 5,
        avg_ms: 140,
        min_ms: 40,
        max_ms: 300,
        p50_ms: 120,
        p90_ms: 300,
        p95_ms: 300,
        p99_ms: 300,
        sla_100ms: 40,
        sla_150ms: 60,
        sla_200ms: 80,
      });
      // upstox 5..100: p50 rank 10 → 50, p90 rank 18 → 90, p95 rank 19 → 95, p99 rank ⌈19.8⌉ = 20
      // → 100; exactly 100 ms is not under 100 ms: 19 of 20.
      expect(body.by_broker.upstox).toEqual({
        count: 20,
        avg_ms: 52.5,
        min_ms: 5,
        max_ms: 100,
        p50_ms: 50,
        p90_ms: 90,
        p95_ms: 95,
        p99_ms: 100,
        sla_100ms: 95,
        sla_150ms: 100,
        sla_200ms: 100,
      });
      // All 25: 5 10 15 20 25 30 35 40 40 45 50 55 60 65 70 75 80 80 85 90 95 100 120 160 300.
      // p50 rank 13 → 60, p90 rank 23 → 120, p95 rank 24 → 160, p99 rank 25 → 300;
      // under 100: 21, under 150: 23, under 200: 24 of 25; average 1750 / 25.
      expect(body.overall).toEqual({
        count: 25,
        avg_ms: 70,
        min_ms: 5,
        max_ms: 300,
        p50_ms: 60,
        p90_ms: 120,
        p95_ms: 160,
        p99_ms: 300,
        sla_100ms: 84,
        sla_150ms: 92,
        sla_200ms: 96,
      });

      const day = (await get('/logs/api/latency/stats')).json();
      expect(day.window_hours).toBe(24);
      expect([day.overall.count, day.by_broker.zerodha.count, day.overall.max_ms]).toEqual([26, 6, 5_000]);
    });

    it('an empty window is all zeros; the window is 1 to 2160 hours; administrator only', async () => {
      const empty = (await get('/logs/api/latency/stats?hours=1')).json();
      expect(empty.overall).toMatchObject({ count: 0, p50_ms: 0, p99_ms: 0, sla_100ms: 0 });
      expect(empty.by_broker).toEqual({});
      for (const hours of ['0', '2161', 'x']) {
        expect((await get(`/logs/api/latency/stats?hours=${hours}`)).statusCode, hours).toBe(400);
      }
      expect((await get('/logs/api/latency/stats', bob)).statusCode).toBe(403);
      expect((await get('/logs/api/latency/logs', bob)).statusCode).toBe(403);
    });
  });

  describe('a sample is stamped with the time it was recorded, not when the buffer is written', () => {
    it('recorded at T, written five minutes later: created_at is T; overhead is what is left of the total', async () => {
      const at = t.clock.now();
      record([sample('zerodha', 42.5, { brokerMs: 30, validationMs: 2.5, orderId: '250818000000042' })]);
      t.clock.advance(5 * 60_000);
      await t.services.orders.latency.flush();
      const row = (await get('/logs/api/latency/logs?limit=1')).json().data[0];
      expect(row).toMatchObject({
        label: 'PLACE',
        broker: 'zerodha',
        symbol: 'SBIN',
        order_id: '250818000000042',
        status: 'success',
        total_latency_ms: 42.5,
        broker_ms: 30,
        validation_ms: 2.5,
        overhead_ms: 10,
        created_at: new Date(at).toISOString(),
      });
    });
  });

  describe('a burst is written whole: more samples than one INSERT may bind, in one flush', () => {
    it('6,000 samples (66,000 values: over SQLite’s 32,766 and PostgreSQL’s 65,535 parameters) are all stored', async () => {
      record(Array.from({ length: 6_000 }, (_, i) => sample('burst', 1 + (i % 250))));
      await t.services.orders.latency.flush();
      expect(await rowCount()).toBe(6_000);
      expect(t.services.orders.latency.dropped).toBe(0);
      const stats = (await get('/logs/api/latency/stats?hours=1')).json();
      expect(stats.by_broker.burst).toMatchObject({ count: 6_000, min_ms: 1, max_ms: 250 });
    });
  });

  describe('GET /logs/api/latency/logs?limit= lists the newest rows, limit 1 to 1000 (default 100)', () => {
    it('default 100, limit 1 and 1000 honoured, newest first; 0, 1001 and text refused', async () => {
      record(Array.from({ length: 1_200 }, (_, i) => sample('zerodha', i + 1)));
      await t.services.orders.latency.flush();
      const list = async (qs: string) =>
        (await get(`/logs/api/latency/logs${qs}`)).json().data as { total_latency_ms: number }[];
      expect(await list('')).toHaveLength(100);
      expect((await list('?limit=1')).map((r) => r.total_latency_ms)).toEqual([1_200]);
      const thousand = await list('?limit=1000');
      expect(thousand).toHaveLength(1_000);
      expect([thousand[0]!.total_latency_ms, thousand[999]!.total_latency_ms]).toEqual([1_200, 201]);
      for (const limit of ['0', '1001', 'ten']) {
        expect((await get(`/logs/api/latency/logs?limit=${limit}`)).statusCode, limit).toBe(400);
      }
    });
  });
});

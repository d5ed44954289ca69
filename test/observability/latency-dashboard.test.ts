/**
 * The latency page's data (docs/rules/orders.md#latency-statistics) through the running app:
 * `GET /logs/api/latency/stats` adds, to the percentiles and SLA shares, the figures per API type,
 * the histogram of totals and the series per minute (windows up to 6 hours) or per hour, each
 * checked against values worked by hand; `GET /logs/api/latency/logs` lists the recent orders.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { LatencySample } from '../../src/modules/orders/latency.service.js';
import { appWithAdmin, describeEachDb, login, type Browser, type TestApp } from '../helpers/test-app.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

const sample = (broker: string, totalMs: number): LatencySample => ({
  label: 'PLACE',
  userId: 1,
  broker,
  symbol: 'SBIN',
  orderId: `o${totalMs}`,
  status: 'success',
  totalMs,
  brokerMs: broker === 'sandbox' ? 0 : totalMs / 2,
  validationMs: 1,
});

describeEachDb('latency page data', (dialect) => {
  let t: TestApp;
  let admin: Browser;
  let start: number;
  beforeAll(async () => {
    ({ t, admin } = await appWithAdmin(dialect));
    // The clock on a minute boundary: samples below fall in known buckets.
    t.clock.set(Math.ceil(t.clock.now() / HOUR) * HOUR);
    start = t.clock.now();
    const latency = t.services.orders.latency;
    // Minute 0: 10, 40, 120 (sandbox). Minute 2: 90, 160 (zerodha). Two hours later: 700, 1500.
    for (const ms of [10, 40, 120]) latency.record(sample('sandbox', ms));
    t.clock.advance(2 * MINUTE + 5_000);
    for (const ms of [90, 160]) latency.record(sample('zerodha', ms));
    t.clock.advance(2 * HOUR);
    for (const ms of [700, 1500]) latency.record(sample('zerodha', ms));
    await latency.flush();
  });
  afterAll(() => t?.close());

  const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { cookie: admin.cookie } });

  it('answers the histogram, the figures per broker and per API type, and the hourly series', async () => {
    const res = await get('/logs/api/latency/stats?hours=24');
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      since: new Date(start + 2 * HOUR + 2 * MINUTE + 5_000 - 24 * HOUR).toISOString(),
      until: new Date(start + 2 * HOUR + 2 * MINUTE + 5_000).toISOString(),
    });
    expect(body.overall).toMatchObject({ count: 7, p50_ms: 120, max_ms: 1500, sla_100ms: 42.86 });
    expect(Object.keys(body.by_broker).sort()).toEqual(['sandbox', 'zerodha']);
    expect(body.by_broker.sandbox).toMatchObject({ count: 3, p50_ms: 40, sla_100ms: 66.67 });
    expect(body.by_api_type).toEqual({ PLACE: body.overall });
    const bars = body.histogram.map((b: { from_ms: number; count: number }) => [b.from_ms, b.count]);
    expect(bars).toEqual([
      [0, 1],
      [25, 1],
      [50, 0],
      [75, 1],
      [100, 1],
      [150, 1],
      [200, 0],
      [300, 0],
      [500, 1],
      [1000, 1],
    ]);
    expect(body.histogram.at(-1).to_ms).toBeNull();
    expect(body.series).toEqual({
      bucket: 'hour',
      bucket_ms: HOUR,
      points: [
        { ts: new Date(start).toISOString(), count: 5, avg_ms: 84, p50_ms: 90, p95_ms: 160, max_ms: 160 },
        {
          ts: new Date(start + 2 * HOUR).toISOString(),
          count: 2,
          avg_ms: 1100,
          p50_ms: 700,
          p95_ms: 1500,
          max_ms: 1500,
        },
      ],
    });
  });

  it('charts a window of up to 6 hours per minute', async () => {
    const body = (await get('/logs/api/latency/stats?hours=3')).json();
    expect(body.series.bucket).toBe('minute');
    expect(body.series.points).toEqual([
      { ts: new Date(start).toISOString(), count: 3, avg_ms: 56.67, p50_ms: 40, p95_ms: 120, max_ms: 120 },
      {
        ts: new Date(start + 2 * MINUTE).toISOString(),
        count: 2,
        avg_ms: 125,
        p50_ms: 90,
        p95_ms: 160,
        max_ms: 160,
      },
      {
        ts: new Date(start + 2 * HOUR + 2 * MINUTE).toISOString(),
        count: 2,
        avg_ms: 1100,
        p50_ms: 700,
        p95_ms: 1500,
        max_ms: 1500,
      },
    ]);
  });

  it('an empty window has zero figures, empty bars and no points', async () => {
    t.clock.advance(48 * HOUR);
    admin = await login(t); // the session idled out
    const body = (await get('/logs/api/latency/stats?hours=1')).json();
    expect(body.overall).toMatchObject({ count: 0, p99_ms: 0 });
    expect(body.by_broker).toEqual({});
    expect(body.histogram.every((b: { count: number }) => b.count === 0)).toBe(true);
    expect(body.series.points).toEqual([]);
  });

  it('lists the recent orders newest first with their parts', async () => {
    const body = (await get('/logs/api/latency/logs?limit=2')).json();
    expect(body.data.map((r: { total_latency_ms: number }) => r.total_latency_ms)).toEqual([1500, 700]);
    expect(body.data[0]).toMatchObject({
      label: 'PLACE',
      broker: 'zerodha',
      symbol: 'SBIN',
      order_id: 'o1500',
      broker_ms: 750,
      validation_ms: 1,
      overhead_ms: 749,
    });
  });
});

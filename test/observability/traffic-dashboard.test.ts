/**
 * The traffic page's data (docs/rules/web.md#traffic-page) through the real app, on 10,000
 * stored requests: the request list's filters (status or class, method, path, address) and
 * paging with the matching total, and the stats' status classes, top paths and addresses and the
 * series per minute or hour, each checked against the same numbers computed here. Webhook tokens
 * never appear. Timings are printed, not asserted (the page budget is measured, see the report).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TrafficRepository, type NewTrafficRow } from '../../src/modules/observability/traffic.repository.js';
import { appWithAdmin, describeEachDb, type Browser, type TestApp } from '../helpers/test-app.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const ROWS = 10_000;
const STATUSES = [500, 404, 302, 200, 200, 200, 200, 201, 200, 200];

interface Row {
  ts: string;
  ip: string;
  method: string;
  path: string;
  status: number;
}

describeEachDb('traffic page data on 10,000 stored requests', (dialect) => {
  let t: TestApp;
  let admin: Browser;
  let now: number;
  let rows: NewTrafficRow[];

  beforeAll(async () => {
    ({ t, admin } = await appWithAdmin(dialect));
    // The app's own requests would land between the reads: stop the log's writer, start empty.
    await t.services.observability.traffic.stop();
    await t.db.database.db.deleteFrom('traffic_log').execute();
    now = t.clock.now();
    rows = Array.from({ length: ROWS }, (_, i) => ({
      // One request every 8 s back from now: about 22 hours, all inside the default 24.
      ts: now - i * 8_000,
      ip: `198.51.100.${i % 50}`,
      method: i % 5 === 0 ? 'POST' : 'GET',
      path: i % 97 === 0 ? '/strategy/webhook/[redacted]' : `/api/v1/p${i % 20}`,
      endpoint_group: '/api/v1/x',
      status: STATUSES[i % 10]!,
      duration_ms: (i % 100) + 0.5,
      host: 'localhost',
      user_id: null,
    }));
    await new TrafficRepository(t.db.database.db).insertMany(rows);
  }, 60_000);
  afterAll(() => t?.close());

  const timings: string[] = [];
  afterAll(() => console.log(`traffic routes on ${ROWS} rows [${dialect}]: ${timings.join(', ')}`));
  const get = async (url: string) => {
    const started = performance.now();
    const res = await t.app.inject({ method: 'GET', url, headers: { cookie: admin.cookie } });
    timings.push(`${url.replace('/logs/api/traffic', '')} ${(performance.now() - started).toFixed(0)} ms`);
    return res;
  };
  const list = async (qs: string) => {
    const res = await get(`/logs/api/traffic?${qs}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { total: number; limit: number; offset: number; data: Row[] };
  };
  const expected = (pred: (r: NewTrafficRow) => boolean) => rows.filter(pred);

  describe('GET /logs/api/traffic: filters and paging', () => {
    it('pages newest first with the total of every page', async () => {
      const first = await list('limit=50');
      expect(first).toMatchObject({ total: ROWS, limit: 50, offset: 0 });
      expect(first.data.map((r) => r.ts)).toEqual(
        rows.slice(0, 50).map((r) => new Date(Number(r.ts)).toISOString()),
      );
      const last = await list(`limit=50&offset=${ROWS - 20}`);
      expect(last.data).toHaveLength(20);
      expect(last.data.at(-1)!.ts).toBe(new Date(Number(rows.at(-1)!.ts)).toISOString());
      expect((await list(`limit=50&offset=${ROWS}`)).data).toEqual([]);
    });

    it('filters by status class and exact status, method, path substring and address prefix, combined', async () => {
      const cases: Array<[string, (r: NewTrafficRow) => boolean]> = [
        ['status=4xx', (r) => r.status >= 400 && r.status < 500],
        ['status=5XX', (r) => r.status >= 500],
        ['status=201', (r) => r.status === 201],
        ['method=post', (r) => r.method === 'POST'],
        ['path=P1', (r) => r.path.toLowerCase().includes('p1')],
        ['path=webhook', (r) => r.path.includes('webhook')],
        ['ip=198.51.100.4', (r) => r.ip === '198.51.100.4'],
        ['ip=198.51.100.', (r) => r.ip.startsWith('198.51.100.')],
        [
          'status=2xx&method=GET&path=%2Fp7&ip=198.51.100.7',
          (r) =>
            r.status < 300 && r.method === 'GET' && r.path.includes('/p7') && r.ip.startsWith('198.51.100.7'),
        ],
      ];
      for (const [qs, pred] of cases) {
        const want = expected(pred);
        expect(want.length, qs).toBeGreaterThan(0);
        const got = await list(`${qs}&limit=1000`);
        expect(got.total, qs).toBe(want.length);
        expect(got.data.length, qs).toBe(Math.min(1000, want.length));
        expect(
          got.data.every((r) => pred({ ...r, ts: 0 } as unknown as NewTrafficRow)),
          qs,
        ).toBe(true);
      }
      // LIKE wildcards are literal text: `_` and `%` match themselves only.
      expect((await list('path=_')).total).toBe(0);
      expect((await list('path=%25')).total).toBe(0);
      const lastHour = expected((r) => r.ts >= now - HOUR).length;
      expect((await list(`since=${now - HOUR}`)).total).toBe(lastHour);
      expect((await list('hours=1')).total).toBe(lastHour);
    });

    it('refuses malformed filters with a 400 naming the field', async () => {
      for (const qs of [
        'status=600',
        'status=4x',
        'status=abc',
        'method=GE T',
        'method=ABCDEFGHIJK',
        'ip=not-an-ip',
        'ip=',
        'path=',
        'offset=-1',
        'offset=1.5',
        'hours=0',
        `hours=1&since=${now}`,
      ]) {
        const res = await get(`/logs/api/traffic?${qs}`);
        expect(res.statusCode, qs).toBe(400);
      }
    });
  });

  describe('GET /logs/api/traffic/stats: status classes, top paths and addresses, series', () => {
    it('counts each status class and lists the busiest paths and addresses with their errors', async () => {
      const res = await get('/logs/api/traffic/stats');
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body.until).toBe(new Date(now).toISOString());
      expect(body.totals.requests).toBe(ROWS);
      expect(body.status_classes).toEqual({
        '1xx': 0,
        '2xx': (ROWS / 10) * 7,
        '3xx': ROWS / 10,
        '4xx': ROWS / 10,
        '5xx': ROWS / 10,
      });
      const tally = (key: 'path' | 'ip') => {
        const m = new Map<string, { requests: number; errors: number }>();
        for (const r of rows) {
          const e = m.get(r[key]) ?? { requests: 0, errors: 0 };
          e.requests++;
          if (r.status >= 400) e.errors++;
          m.set(r[key], e);
        }
        return [...m]
          .sort(([ka, a], [kb, b]) => b.requests - a.requests || (ka < kb ? -1 : 1))
          .slice(0, 10)
          .map(([k, v]) => ({ [key]: k, ...v }));
      };
      expect(body.top_paths).toEqual(tally('path'));
      expect(body.top_ips).toEqual(tally('ip'));
      const five = (await get('/logs/api/traffic/stats?top=5')).json();
      expect(five.top_paths).toEqual(tally('path').slice(0, 5));
    });

    it('buckets requests and errors per hour over 24 hours and per minute over one hour', async () => {
      type Point = { ts: string; requests: number; errors: number };
      const day = (await get('/logs/api/traffic/stats')).json();
      expect(day.series).toMatchObject({ bucket: 'hour', bucket_ms: HOUR });
      const points = day.series.points as Point[];
      expect(points.reduce((n, p) => n + p.requests, 0)).toBe(ROWS);
      expect(points.reduce((n, p) => n + p.errors, 0)).toBe(ROWS / 5);
      const times = points.map((p) => Date.parse(p.ts));
      expect(times).toEqual([...times].sort((a, b) => a - b));
      expect(times.every((ts) => ts % HOUR === 0)).toBe(true);
      const inHour = (start: number) => rows.filter((r) => r.ts >= start && r.ts < start + HOUR).length;
      for (const p of points) expect(p.requests, p.ts).toBe(inHour(Date.parse(p.ts)));

      const since = now - HOUR;
      const hour = (await get(`/logs/api/traffic/stats?since=${since}`)).json();
      expect(hour.series).toMatchObject({ bucket: 'minute', bucket_ms: MINUTE });
      const perMinute = hour.series.points as Point[];
      expect(perMinute.reduce((n, p) => n + p.requests, 0)).toBe(rows.filter((r) => r.ts >= since).length);
      expect(perMinute.every((p) => Date.parse(p.ts) % MINUTE === 0)).toBe(true);
      // Asked for: hours over the short window too.
      const hourly = (await get(`/logs/api/traffic/stats?since=${since}&bucket=hour`)).json();
      expect(hourly.series.bucket).toBe('hour');
      // `hours` is the same window on the server's clock.
      const byHours = (await get('/logs/api/traffic/stats?hours=1')).json();
      expect(byHours.since).toBe(new Date(since).toISOString());
      expect(byHours.series).toEqual(hour.series);
    });

    it('refuses minute buckets over more than 2 days, and a bad bucket or top', async () => {
      const long = await get(`/logs/api/traffic/stats?since=${now - 3 * DAY}&bucket=minute`);
      expect(long.statusCode).toBe(400);
      expect(long.json().errors).toEqual({ bucket: [expect.stringContaining('2 days')] });
      const both = await get(`/logs/api/traffic/stats?hours=1&since=${now}`);
      expect(both.json().errors).toEqual({ hours: [expect.any(String)] });
      for (const qs of ['bucket=second', 'top=0', 'top=51', 'hours=0', 'hours=2161'])
        expect((await get(`/logs/api/traffic/stats?${qs}`)).statusCode, qs).toBe(400);
    });
  });
});

describeEachDb('traffic page data: webhook tokens stay masked', (dialect) => {
  let t: TestApp;
  let admin: Browser;
  beforeAll(async () => {
    ({ t, admin } = await appWithAdmin(dialect));
  });
  afterAll(() => t?.close());

  it('lists, filters and ranks webhook paths with the token masked', async () => {
    for (const url of ['/strategy/webhook/SECRETTOKEN123', '/flow/webhook/SECRETTOKEN456/NIFTY'])
      await t.app.inject({ method: 'POST', url, remoteAddress: '203.0.113.9', payload: { x: 1 } });
    await t.services.observability.traffic.flush();
    const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { cookie: admin.cookie } });
    const list = await get('/logs/api/traffic?path=webhook');
    expect(
      list
        .json()
        .data.map((r: { path: string }) => r.path)
        .sort(),
    ).toEqual(['/flow/webhook/[redacted]/NIFTY', '/strategy/webhook/[redacted]']);
    // Searching for the token finds nothing: it was never stored.
    expect((await get('/logs/api/traffic?path=SECRETTOKEN')).json().total).toBe(0);
    const stats = await get('/logs/api/traffic/stats');
    expect(stats.json().top_paths.map((p: { path: string }) => p.path)).toContain(
      '/strategy/webhook/[redacted]',
    );
    for (const body of [list.body, stats.body]) expect(body).not.toMatch(/SECRETTOKEN/);
  });
});

import { Kysely, type KyselyPlugin } from 'kysely';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { TrafficRepository, type NewTrafficRow } from '../../src/modules/observability/traffic.repository.js';
import {
  TRAFFIC_BUFFER_MAX,
  TRAFFIC_FLUSH_ROWS,
  TrafficLogService,
  type TrafficEntry,
} from '../../src/modules/observability/traffic.service.js';
import { trafficRow } from '../helpers/observability.js';
import {
  asBrowser,
  appWithAdmin,
  createTestApp,
  createUser,
  describeEachDb,
  login,
  type Browser,
  type TestApp,
} from '../helpers/test-app.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const A = '203.0.113.7';
const B = '198.51.100.20';

/** Counts the statements a Kysely instance sends, by kind of root node. */
function counting(t: TestApp) {
  const kinds: string[] = [];
  const plugin: KyselyPlugin = {
    transformQuery: (args) => (kinds.push(args.node.kind), args.node),
    transformResult: (args) => Promise.resolve(args.result),
  };
  return { kinds, db: t.db.database.db.withPlugin(plugin) };
}

describeEachDb('traffic log: repository and service', (dialect) => {
  let t: TestApp;
  let repo: TrafficRepository;
  let svc: TrafficLogService;
  const warn = vi.fn();
  beforeEach(async () => {
    t = await createTestApp(dialect);
    repo = new TrafficRepository(t.db.database.db);
    svc = new TrafficLogService(repo, t.clock, { warn });
    warn.mockClear();
  });
  afterEach(async () => {
    await svc.stop();
    vi.useRealTimers();
    await t.close();
  });

  const row = (over: Partial<NewTrafficRow> = {}): NewTrafficRow =>
    trafficRow(t.clock.now(), { ip: A, ...over });
  const entry = (over: Partial<TrafficEntry> = {}): TrafficEntry => ({
    ip: A,
    method: 'GET',
    url: '/x',
    routeUrl: '/x',
    status: 200,
    durationMs: 1,
    host: 'localhost:80',
    ...over,
  });
  const stored = () => t.db.database.db.selectFrom('traffic_log').selectAll().orderBy('id').execute();

  it('insertMany sends one multi-row INSERT per 500 rows and keeps the values and types', async () => {
    // The statements are precompiled, so they are counted where every query passes (on the
    // instance and inside the transaction alike).
    const spy = vi.spyOn(Kysely.prototype, 'executeQuery');
    const rows = Array.from({ length: 1234 }, (_, i) => row({ path: `/p${i}`, ts: t.clock.now() + i }));
    rows[1233] = { ...rows[1233]!, host: null, user_id: 7, duration_ms: 12.5, status: 503 };
    try {
      await repo.insertMany(rows);
      const inserts = spy.mock.calls.filter(([q]) =>
        (q as { sql: string }).sql.startsWith('insert into traffic_log'),
      );
      expect(inserts).toHaveLength(3);
    } finally {
      spy.mockRestore();
    }
    expect(await stored()).toHaveLength(1234);
    const [newest] = await repo.recent({ limit: 1 });
    expect(newest).toMatchObject({ path: '/p1233', host: null, user_id: 7, duration_ms: 12.5, status: 503 });
    expect(newest!.ts).toBe(t.clock.now() + 1233);
    await repo.insertMany([]);
  });

  it('record only buffers; flush, the 1-second timer and stop() write, without duplicates', async () => {
    svc.record(entry({ url: '/strategy/webhook/SECRETTOKEN123?apikey=SECRETKEY', routeUrl: undefined }));
    expect(await stored()).toEqual([]);
    await svc.flush();
    const [first] = await stored();
    expect(first).toMatchObject({ path: '/strategy/webhook/[redacted]', endpoint_group: '(unmatched)' });
    expect(first).toMatchObject({ host: 'localhost', ts: t.clock.now() });
    expect(JSON.stringify(first)).not.toMatch(/SECRET/);

    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      svc.start();
      svc.record(entry());
      vi.advanceTimersByTime(1000);
      await svc.flush(); // waits for the flush the timer started
      expect(await stored()).toHaveLength(2);
    } finally {
      vi.useRealTimers();
    }
    for (let i = 0; i < 10; i++) svc.record(entry());
    await Promise.all([svc.flush(), svc.flush(), svc.flush()]);
    expect(await stored()).toHaveLength(12);
    svc.record(entry());
    await svc.stop();
    expect(await stored()).toHaveLength(13);
  });

  it('recent: newest first (insertion order on equal times), limit, since', async () => {
    const base = t.clock.now();
    await repo.insertMany(Array.from({ length: 10 }, (_, i) => row({ ts: base + i * 1000, path: `/p${i}` })));
    await repo.insertMany([row({ ts: base + 9000, path: '/p9b' })]);
    expect((await svc.recent({ limit: 3 })).map((r) => r.path)).toEqual(['/p9b', '/p9', '/p8']);
    const since = await svc.recent({ limit: 100, since: base + 5000 });
    expect(since.map((r) => r.path)).toEqual(['/p9b', '/p9', '/p8', '/p7', '/p6', '/p5']);
    expect(await svc.recent({ limit: 5, since: base + 60_000 })).toEqual([]);
  });

  it('stats: one statement; counts, errors, average and nearest-rank p95 per group, busiest first', async () => {
    const now = t.clock.now();
    const shuffled = Array.from({ length: 100 }, (_, i) => ((i * 37) % 100) + 1); // 1..100, out of order
    await repo.insertMany([
      ...shuffled.map((d) =>
        row({ endpoint_group: '/api/v1/ping', duration_ms: d, status: d <= 10 ? 404 : d > 90 ? 500 : 200 }),
      ),
      ...[5, 1, 3].map((d, i) => row({ endpoint_group: '/b', duration_ms: d, status: i === 1 ? 403 : 200 })),
      ...Array.from({ length: 20 }, (_, i) =>
        row({ endpoint_group: '(unmatched)', duration_ms: 2 * (i + 1), status: 404 }),
      ),
      row({ endpoint_group: '/c', duration_ms: 7.25, status: 302 }),
      row({ endpoint_group: '/api/v1/ping', duration_ms: 1000, status: 500, ts: now - DAY - 1 }),
    ]);
    const c = counting(t);
    const groups = await new TrafficRepository(c.db).stats({ since: now - DAY });
    expect(c.kinds).toEqual(['SelectQueryNode']);
    expect(groups).toEqual([
      {
        endpoint_group: '/api/v1/ping',
        requests: 100,
        errors: 20,
        server_errors: 10,
        avg_ms: 50.5,
        p95_ms: 95,
      },
      { endpoint_group: '(unmatched)', requests: 20, errors: 20, server_errors: 0, avg_ms: 21, p95_ms: 38 },
      { endpoint_group: '/b', requests: 3, errors: 1, server_errors: 0, avg_ms: 3, p95_ms: 5 },
      { endpoint_group: '/c', requests: 1, errors: 0, server_errors: 0, avg_ms: 7.25, p95_ms: 7.25 },
    ]);
    const s = await svc.stats(); // default: the last 24 hours
    expect(s.since).toBe(now - DAY);
    expect(s.totals).toMatchObject({ requests: 124, errors: 41, server_errors: 10 });
    expect(s.totals.avg_ms).toBeCloseTo((5050 + 9 + 420 + 7.25) / 124, 9);
    const none = await svc.stats({ since: now + 1 });
    expect(none).toEqual({
      since: now + 1,
      totals: expect.objectContaining({ requests: 0, avg_ms: 0 }),
      groups: [],
    });
  });

  it('p95 is the value at rank ceil(0.95 n), ties included', async () => {
    // [n, expected rank], worked by hand: ceil(0.95 × n); durations are 1..n, so value = rank.
    const ranks = '1:1 2:2 19:19 20:19 21:20 40:38 59:57 60:57 61:58'
      .split(' ')
      .map((p) => p.split(':').map(Number));
    const rows = ranks.flatMap(([n]) =>
      Array.from({ length: n! }, (_, i) => row({ endpoint_group: `/n${n}`, duration_ms: i + 1 })),
    );
    rows.push(...[10, 10, 10, 10, 20].map((d) => row({ endpoint_group: '/ties', duration_ms: d })));
    rows.push(
      ...[...Array<number>(19).fill(10), 20].map((d) => row({ endpoint_group: '/ties20', duration_ms: d })),
    );
    await repo.insertMany(rows);
    const p95 = Object.fromEntries((await repo.stats({ since: 0 })).map((g) => [g.endpoint_group, g.p95_ms]));
    for (const [n, rank] of ranks) expect(p95[`/n${n}`], `n=${n}`).toBe(rank);
    expect(p95['/ties']).toBe(20);
    expect(p95['/ties20']).toBe(10);
  });

  it('purge deletes rows older than the retention: 30 days by default, or retentionDays', async () => {
    const now = t.clock.now();
    const ages = [31 * DAY, 30 * DAY + 1, 30 * DAY, 29 * DAY, 6 * DAY, 0];
    await repo.insertMany(ages.map((age) => row({ ts: now - age, path: `/${age}` })));
    expect(await svc.purge()).toBe(2);
    expect(await svc.purge()).toBe(0);
    const weekly = new TrafficLogService(repo, t.clock, { warn }, { retentionDays: 7 });
    expect(await weekly.purge()).toBe(2);
    expect((await stored()).map((r) => r.ts)).toEqual([now - 6 * DAY, now]);
  });

  it('ipsForHost: distinct addresses that sent a host since a time; garbage hosts match nothing', async () => {
    const now = t.clock.now();
    await repo.insertMany([
      row({ ip: B, host: 'example.com' }),
      row({ ip: A, host: 'example.com' }),
      row({ ip: A, host: 'example.com' }),
      row({ ip: '192.0.2.1', host: 'other.example' }),
      row({ ip: '192.0.2.2', host: 'example.com', ts: now - 2 * HOUR }),
      row({ ip: '192.0.2.3', host: null }),
    ]);
    svc.record(entry({ ip: '2001:db8::5', host: 'EXAMPLE.com:8443' }));
    svc.record(entry({ ip: '192.0.2.4', host: 'example.com\r\nx: y' }));
    await svc.flush();
    expect(await svc.ipsForHost('Example.COM:443', now - HOUR)).toEqual(['198.51.100.20', '2001:db8::5', A]);
    expect(await svc.ipsForHost('example.com', now - 3 * HOUR)).toContain('192.0.2.2');
    expect(await svc.ipsForHost("' or 1=1 --", 0)).toEqual([]);
    expect(await svc.ipsForHost('', 0)).toEqual([]);
  });

  it('a running log writes a burst once 250 requests wait, on the next turn, not in the request', async () => {
    expect(TRAFFIC_FLUSH_ROWS).toBe(250);
    const writes: number[] = [];
    const insertMany = repo.insertMany.bind(repo);
    vi.spyOn(repo, 'insertMany').mockImplementation((rows) => (writes.push(rows.length), insertMany(rows)));
    // The 100 ms timer never fires here: only the count starts the write.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    svc.start();
    for (let i = 0; i < TRAFFIC_FLUSH_ROWS - 1; i++) svc.record(entry({ url: `/p${i}` }));
    await new Promise((r) => setImmediate(r));
    expect(svc.pending).toBe(TRAFFIC_FLUSH_ROWS - 1);
    svc.record(entry({ url: '/last' }));
    // Recording never writes: the flush starts on the next turn of the event loop.
    expect(svc.pending).toBe(TRAFFIC_FLUSH_ROWS);
    await vi.waitFor(() => expect(writes).toEqual([TRAFFIC_FLUSH_ROWS]));
    await svc.flush();
    expect(await stored()).toHaveLength(TRAFFIC_FLUSH_ROWS);
  });

  it('the buffer is bounded (50,000 by default): the oldest entries are dropped and counted', async () => {
    expect(TRAFFIC_BUFFER_MAX).toBe(50_000);
    for (let i = 0; i < TRAFFIC_BUFFER_MAX + 5; i++) svc.record(entry({ url: `/p${i}` }));
    expect(svc.dropped).toBe(5);
    expect(svc.pending).toBe(TRAFFIC_BUFFER_MAX);
    await svc.flush();
    expect(warn).toHaveBeenCalledWith({ dropped: 5 }, expect.any(String));
    const rows = await stored();
    expect(rows).toHaveLength(TRAFFIC_BUFFER_MAX);
    expect([rows[0]!.path, rows.at(-1)!.path]).toEqual(['/p5', `/p${TRAFFIC_BUFFER_MAX + 4}`]);
    expect(svc.pending).toBe(0);
  });
});

/** HTTP routes, through the real app, which records every response it serves. */
describeEachDb('traffic log: routes', (dialect) => {
  let t: TestApp;
  let admin: Browser;
  let adminId: number;
  const traffic = () => t.services.observability.traffic;
  beforeEach(async () => {
    t = await createTestApp(dialect);
    adminId = (await createUser(t)).id;
    admin = await login(t);
  });
  afterEach(() => t.close());

  const get = (url: string, b: Browser | null = admin) =>
    t.app.inject({ method: 'GET', url, headers: b ? { cookie: b.cookie } : {} });
  const ping = (url = '/api/v1/ping') =>
    t.app.inject({ method: 'POST', url, remoteAddress: A, payload: { apikey: 'x'.repeat(64) } });

  it('are for administrators only', async () => {
    await createUser(t, 'bob');
    const bob = await login(t, 'bob');
    for (const url of ['/logs/api/traffic', '/logs/api/traffic/stats']) {
      expect((await get(url, null)).statusCode, url).toBe(401);
      expect((await get(url, bob)).statusCode, url).toBe(403);
      expect((await get(url)).statusCode, url).toBe(200);
    }
  });

  it('lists recorded requests newest first with the documented fields', async () => {
    await ping();
    t.clock.advance(1000);
    const host = { host: 'Evil.Example:8080' };
    await t.app.inject({ method: 'GET', url: '/nothing/here', remoteAddress: B, headers: host });
    await get('/logs/api/traffic');
    await traffic().flush();
    const res = await get('/logs/api/traffic?limit=3');
    expect(res.json().status).toBe('success');
    const [self, miss, api] = res.json().data;
    expect(self).toMatchObject({ path: '/logs/api/traffic', endpoint_group: '/logs/api/traffic' });
    expect(self).toMatchObject({ status: 200, user_id: adminId });
    expect(miss).toMatchObject({
      ip: B,
      method: 'GET',
      path: '/nothing/here',
      endpoint_group: '(unmatched)',
    });
    expect(miss).toMatchObject({ status: 404, host: 'evil.example', user_id: null });
    expect(api).toMatchObject({ ip: A, method: 'POST', endpoint_group: '/api/v1/ping', status: 403 });
    expect(api).toMatchObject({ host: 'localhost', ts: new Date(t.clock.now() - 1000).toISOString() });
    expect(typeof api.duration_ms).toBe('number');
  });

  it('validates limit and since (400) and filters by since, ISO or epoch ms', async () => {
    const bad = 'limit=0 limit=1001 limit=abc limit=1.5 since=garbage since=-5 since=2026-13-45T00:00:00Z';
    for (const q of bad.split(' ')) expect((await get(`/logs/api/traffic?${q}`)).statusCode, q).toBe(400);
    expect((await get('/logs/api/traffic/stats?since=yesterday')).statusCode).toBe(400);
    await traffic().flush();
    t.clock.advance(HOUR);
    const cut = t.clock.now();
    await ping();
    await traffic().flush();
    for (const since of [new Date(cut).toISOString(), String(cut)]) {
      const res = await get(`/logs/api/traffic?limit=1000&since=${encodeURIComponent(since)}`);
      expect(res.statusCode).toBe(200);
      // The ping, and at most the first of these two reads (its row is written within 100 ms,
      // which a loaded machine may let pass before the second); none of the refused reads
      // made before the cut.
      const rows: Array<{ path: string; ts: string }> = res.json().data;
      expect(rows.map((r) => r.path).filter((p) => p !== '/logs/api/traffic')).toEqual(['/api/v1/ping']);
      expect(rows.length).toBeLessThanOrEqual(2);
      for (const r of rows) expect(Date.parse(r.ts)).toBeGreaterThanOrEqual(cut);
    }
  });

  it('the list without a window is the last 24 hours; a window reaches further back', async () => {
    const now = t.clock.now();
    await new TrafficRepository(t.db.database.db).insertMany([
      trafficRow(now - 2 * DAY, { path: '/two-days-ago' }),
      trafficRow(now - HOUR, { path: '/an-hour-ago' }),
    ]);
    const paths = async (q: string) =>
      ((await get(`/logs/api/traffic?limit=1000${q}`)).json().data as { path: string }[])
        .map((r) => r.path)
        .filter((p) => p.endsWith('-ago'));
    expect(await paths('')).toEqual(['/an-hour-ago']);
    expect(await paths('&hours=72')).toEqual(['/an-hour-ago', '/two-days-ago']);
  });

  it('stats: the last 24 hours by default, per route group, busiest first', async () => {
    for (let i = 0; i < 3; i++) await ping();
    for (let i = 0; i < 2; i++) await get('/nothing', null);
    await traffic().flush();
    const body = (await get('/logs/api/traffic/stats')).json();
    expect(body.since).toBe(new Date(t.clock.now() - DAY).toISOString());
    const group = (name: string) =>
      body.groups.find((g: { endpoint_group: string }) => g.endpoint_group === name);
    expect(group('/api/v1/ping')).toMatchObject({ requests: 3, errors: 3, server_errors: 0 });
    expect(group('(unmatched)')).toMatchObject({ requests: 2, errors: 2, server_errors: 0 });
    const counts = body.groups.map((g: { requests: number }) => g.requests);
    expect(counts).toEqual([...counts].sort((a, b) => b - a));
    expect(body.totals.requests).toBe(counts.reduce((a: number, b: number) => a + b, 0));
    t.clock.advance(DAY + 1);
    admin = await login(t); // the morning session has expired
    await traffic().flush();
    const later = (await get('/logs/api/traffic/stats')).json();
    expect(later.groups.map((g: { endpoint_group: string }) => g.endpoint_group)).not.toContain(
      '/api/v1/ping',
    );
  });

  it('never stores or returns a webhook token from the URL', async () => {
    for (const url of [
      '/strategy/webhook/SECRETTOKEN123',
      '/strategy/webhook/SECRETTOKEN123/extra?x=1',
      '/Strategy/Webhook/SECRETTOKEN123',
      '/strategy/%77ebhook/SECRETTOKEN123',
    ])
      await t.app.inject({ method: 'POST', url, remoteAddress: A, payload: { x: 1 } });
    await traffic().flush();
    const rows = await t.db.database.db.selectFrom('traffic_log').selectAll().execute();
    expect(rows.some((r) => r.path === '/strategy/webhook/[redacted]')).toBe(true);
    const list = await get('/logs/api/traffic?limit=1000');
    const stats = await get('/logs/api/traffic/stats');
    for (const text of [JSON.stringify(rows), list.body, stats.body])
      expect(text).not.toContain('SECRETTOKEN123');
  });

  it('never stores or returns an apikey from a query string', async () => {
    await ping('/api/v1/ping?apikey=SECRETKEY123');
    await get('/api/v1/ping?apikey=SECRETKEY123', null);
    await get('/logs/api/traffic?apikey=SECRETKEY123');
    await traffic().flush();
    const rows = await t.db.database.db.selectFrom('traffic_log').selectAll().execute();
    const list = await get('/logs/api/traffic?limit=1000');
    const stats = await get('/logs/api/traffic/stats');
    for (const text of [JSON.stringify(rows), list.body, stats.body])
      expect(text).not.toContain('SECRETKEY123');
    expect(rows.filter((r) => r.path === '/api/v1/ping')).toHaveLength(2);
  });
});

describeEachDb('POST /security/ban-host', (dialect) => {
  let t: TestApp;
  let admin: Browser;
  beforeEach(async () => {
    ({ t, admin } = await appWithAdmin(dialect));
  });
  afterEach(() => t.close());
  const banHost = (host: string) =>
    t.app.inject({ method: 'POST', url: '/security/ban-host', payload: { host }, headers: asBrowser(admin) });
  const visit = (ip: string, host: string) =>
    t.app.inject({ method: 'GET', url: '/wp-admin', remoteAddress: ip, headers: { host } });

  it('bans every recent client that sent that Host, skipping internal ones', async () => {
    await visit('198.51.100.61', 'evil.example.com:8080');
    await visit('198.51.100.62', 'EVIL.example.com');
    await visit('10.0.0.9', 'evil.example.com');
    await visit('198.51.100.63', 'good.example.com');
    await t.services.observability.traffic.flush();
    const res = await banHost('evil.example.com');
    expect(res.statusCode).toBe(200);
    expect(res.json().banned.sort()).toEqual(['198.51.100.61', '198.51.100.62']);
    expect(res.json().skipped).toEqual([{ ip: '10.0.0.9', reason: 'loopback or internal address' }]);
    expect((await visit('198.51.100.61', 'x')).statusCode).toBe(403);
    expect((await visit('198.51.100.63', 'x')).statusCode).toBe(404);
  });

  it('bans an address given as the host, and refuses what is neither', async () => {
    expect((await banHost('198.51.100.70')).json().banned).toEqual(['198.51.100.70']);
    for (const bad of ['bad host!', '-x-.com', 'a'.repeat(300), '<script>']) {
      expect((await banHost(bad)).statusCode, bad).toBe(400);
    }
  });
});

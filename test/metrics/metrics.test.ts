/**
 * `GET /metrics`: off unless `METRICS_TOKEN` is set (then 404 as for any unknown path), a bearer
 * token when on (401 otherwise), the Prometheus text format, and counters and gauges that follow
 * what the app does: requests by route pattern (never the URL sent: a webhook token never shows),
 * paper orders by mode and outcome, bans, the instrument index and the sandbox book.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { register as promDefaultRegistry } from 'prom-client';
import type { LightMyRequestResponse } from 'fastify';
import { UNAUTHORIZED_MESSAGE } from '../../src/modules/metrics/metrics.routes.js';
import { MINI, startSandbox, type SandboxHarness } from '../helpers/sandbox.js';
import {
  asBrowser,
  createTestApp,
  createUser,
  describeEachDb,
  login,
  type TestApp,
  type TestAppOptions,
} from '../helpers/test-app.js';

const TOKEN = 'metrics-TOKEN-7f3a9c51d2e84b06';
const ON = { env: { METRICS_TOKEN: TOKEN } };
const BEARER = { authorization: `Bearer ${TOKEN}` };

const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup.length = 0;
});

async function app(dialect: 'sqlite' | 'postgres', opts: TestAppOptions = {}): Promise<TestApp> {
  const t = await createTestApp(dialect, opts);
  cleanup.push(() => t.close());
  return t;
}

const scrape = (t: TestApp, headers: Record<string, string> = BEARER): Promise<LightMyRequestResponse> =>
  t.app.inject({ method: 'GET', url: '/metrics', headers });

/** A sample line: `name{labels} value` (labels optional). */
const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*",?)*\})? (\S+)$/;

/**
 * Parses the text format as Prometheus reads it: `# HELP name text`, `# TYPE name type` before
 * the family's samples, samples `name{label="value",…} number`; returns the samples by series.
 */
function parse(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  const typed = new Map<string, string>();
  expect(text.endsWith('\n')).toBe(true);
  for (const line of text.split('\n').filter((l) => l !== '')) {
    const help = /^# HELP ([a-zA-Z_:][a-zA-Z0-9_:]*) .+$/.exec(line);
    if (help) continue;
    const type = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$/.exec(line);
    if (type) {
      typed.set(type[1]!, type[2]!);
      continue;
    }
    const m = SAMPLE.exec(line);
    expect(m, `not a sample line: ${line}`).not.toBeNull();
    const [, name, labels = '', value] = m!;
    const family = [...typed.keys()].find(
      (f) =>
        name === f || (/_(bucket|sum|count)$/.test(name!) && name!.replace(/_(bucket|sum|count)$/, '') === f),
    );
    expect(family, `sample before its # TYPE: ${line}`).toBeDefined();
    // Go's float parser, which Prometheus uses, takes NaN in any case (an event-loop lag mean
    // before the monitor's first sample) and ±Inf.
    const n = /^nan$/i.test(value!) ? NaN : Number(value);
    expect(Number.isNaN(n) && !/^nan$/i.test(value!), `not a number: ${line}`).toBe(false);
    samples.set(`${name}${labels}`, n);
  }
  return samples;
}

async function metrics(t: TestApp): Promise<{ text: string; samples: Map<string, number> }> {
  const res = await scrape(t);
  expect(res.statusCode).toBe(200);
  return { text: res.body, samples: parse(res.body) };
}

describeEachDb('GET /metrics', (dialect) => {
  describe('off by default: without METRICS_TOKEN the route answers as an unknown path', () => {
    it('404 with the not-found body, also with a bearer token; the route is still listed', async () => {
      const t = await app(dialect);
      expect(t.app.hasRoute({ method: 'GET', url: '/metrics' })).toBe(true);
      for (const headers of [{}, BEARER]) {
        const res = await scrape(t, headers);
        expect(res.statusCode).toBe(404);
        expect(res.json()).toEqual({
          status: 'error',
          message: 'No route for GET /metrics',
          code: 'not_found',
        });
      }
      const unknown = await t.app.inject({ method: 'GET', url: '/metricz' });
      expect(unknown.statusCode).toBe(404);
      expect(Object.keys(unknown.json())).toEqual(['status', 'message', 'code']);
    });

    it('like an unknown path, it is a traffic-log row and feeds the 404 tracker', async () => {
      const t = await app(dialect);
      const from = '203.0.113.50';
      const res = await t.app.inject({ method: 'GET', url: '/metrics', remoteAddress: from });
      expect(res.statusCode).toBe(404);
      await t.services.observability.traffic.flush();
      await t.services.security.trackers.flush();
      const rows = await t.db.database.db.selectFrom('traffic_log').select(['path', 'status']).execute();
      expect(rows).toEqual([{ path: '/metrics', status: 404 }]);
      const tracked = await t.services.security.trackers.list('404');
      expect(tracked.map((r) => r.ip)).toEqual([from]);
    });
  });

  describe('on: a bearer token', () => {
    it('401 with a clear JSON message without the header, with a wrong token or another scheme', async () => {
      const t = await app(dialect, ON);
      const refused: Record<string, string>[] = [
        {},
        { authorization: 'Bearer wrong-token-wrong-token' },
        { authorization: `Bearer ${TOKEN}x` },
        { authorization: `Bearer ${TOKEN.slice(0, -1)}` },
        { authorization: `Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}` },
        { authorization: TOKEN },
        { authorization: 'Bearer' },
      ];
      for (const headers of refused) {
        const res = await scrape(t, headers);
        expect(res.statusCode, JSON.stringify(headers)).toBe(401);
        expect(res.json()).toEqual({ status: 'error', message: UNAUTHORIZED_MESSAGE, code: 'unauthorized' });
        expect(res.headers['www-authenticate']).toBe('Bearer realm="metrics"');
        expect(res.body).not.toContain(TOKEN);
      }
      expect((await scrape(t, { authorization: `bearer  ${TOKEN}` })).statusCode).toBe(200);
    });

    it('200 in the Prometheus text format, with process and event-loop metrics, on a registry of its own', async () => {
      const t = await app(dialect, ON);
      const res = await scrape(t);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
      expect(res.headers['cache-control']).toBe('no-store');
      const samples = parse(res.body);
      expect(res.body).toMatch(/^# HELP algodesk_http_requests_total /m);
      expect(res.body).toMatch(/^# TYPE algodesk_http_request_duration_seconds histogram$/m);
      expect(res.body).toMatch(/^# TYPE nodejs_eventloop_lag_seconds gauge$/m);
      expect(samples.get('nodejs_eventloop_lag_p99_seconds')).toBeGreaterThanOrEqual(0);
      expect(samples.get('process_cpu_user_seconds_total')).toBeGreaterThan(0);
      expect(samples.get('algodesk_http_requests_in_flight')).toBe(1); // this scrape
      expect(samples.get('algodesk_order_events_queue_limit')).toBe(1000);
      expect(samples.get('algodesk_order_events_dropped_total')).toBe(0);
      // Nothing went to prom-client's process-wide default registry.
      expect(await promDefaultRegistry.metrics()).not.toContain('algodesk_');
    });

    it('never writes the token to a log line, and a scrape leaves no traffic-log row', async () => {
      const t = await app(dialect, ON);
      expect((await scrape(t)).statusCode).toBe(200);
      await scrape(t, { authorization: 'Bearer wrong-token-wrong-token' });
      // A request that is traffic, so the check below reads a log that is being written.
      expect((await t.app.inject({ method: 'GET', url: '/metricz' })).statusCode).toBe(404);
      await t.services.observability.traffic.flush();
      expect(t.logs.join('')).not.toContain(TOKEN);
      expect(t.logs.join('')).toContain('/metrics');
      const rows = await t.db.database.db.selectFrom('traffic_log').select('path').execute();
      expect(rows.map((r) => r.path)).toEqual(['/metricz']);
    });
  });

  describe('the process metrics ride along', () => {
    it('event-loop lag, GC and process metrics are in the scrape of an app that is on', async () => {
      const text = (await scrape(await app(dialect, ON))).body;
      for (const name of [
        'nodejs_eventloop_lag_seconds',
        'nodejs_gc_duration_seconds',
        'process_cpu_user_seconds_total',
      ])
        expect(text).toMatch(new RegExp(`^# TYPE ${name} `, 'm'));
    });
  });

  describe('HTTP requests by method, route pattern and status', () => {
    it('a request moves its counter and its histogram; a second app counts on its own', async () => {
      const t = await app(dialect, ON);
      await createUser(t);
      const { apikey } = await t.services.auth.apiKeys.regenerate(1);
      const other = await app(dialect, ON);
      const ping = (key: string) =>
        t.app.inject({ method: 'POST', url: '/api/v1/ping', payload: { apikey: key } });
      const forbidden = 'algodesk_http_requests_total{method="POST",route="/api/v1/ping",status="403"}';
      const ok = 'algodesk_http_requests_total{method="POST",route="/api/v1/ping",status="200"}';
      const before = (await metrics(t)).samples;
      expect(before.get(forbidden)).toBeUndefined();
      expect((await ping('not-a-key')).statusCode).toBe(403);
      expect((await ping('not-a-key')).statusCode).toBe(403);
      expect((await ping(apikey)).statusCode).toBe(200);
      const after = (await metrics(t)).samples;
      expect(after.get(forbidden)).toBe(2);
      expect(after.get(ok)).toBe(1);
      expect(
        after.get(
          'algodesk_http_request_duration_seconds_count{method="POST",route="/api/v1/ping",status="200"}',
        ),
      ).toBe(1);
      expect(
        after.get(
          'algodesk_http_request_duration_seconds_bucket{le="+Inf",method="POST",route="/api/v1/ping",status="403"}',
        ),
      ).toBe(2);
      // The earlier scrape is counted too (as the probe it is).
      expect(after.get('algodesk_http_requests_total{method="GET",route="/metrics",status="200"}')).toBe(1);
      expect((await metrics(other)).samples.get(forbidden)).toBeUndefined();
    });

    it('a webhook URL holding a token is counted under its route pattern; the token appears nowhere', async () => {
      const t = await app(dialect, ON);
      const webhookToken = 'WEBHOOKtoken' + 'q7ZrX2mV9kLp4sT8wB1nC6dF3gH5jA0e';
      const res = await t.app.inject({
        method: 'POST',
        url: `/strategy/webhook/${webhookToken}`,
        payload: { action: 'BUY' },
      });
      expect(res.statusCode).toBe(404);
      const unknown = await t.app.inject({ method: 'GET', url: `/no/such/${webhookToken}` });
      expect(unknown.statusCode).toBe(404);
      const { text, samples } = await metrics(t);
      expect(text).not.toContain(webhookToken);
      expect(text).not.toContain('WEBHOOKtoken');
      expect(
        samples.get(
          'algodesk_http_requests_total{method="POST",route="/strategy/webhook/:token",status="404"}',
        ),
      ).toBe(1);
      expect(samples.get('algodesk_webhook_requests_total{kind="strategy",status="404"}')).toBe(1);
      expect(samples.get('algodesk_http_requests_total{method="GET",route="unmatched",status="404"}')).toBe(
        1,
      );
    });
  });

  describe('bans', () => {
    it('a ban by the administrator and an automatic one move their counters', async () => {
      const t = await app(dialect, ON);
      await createUser(t);
      const admin = await login(t);
      const key = (kind: string, duration: string) =>
        `algodesk_ip_bans_total{kind="${kind}",duration="${duration}"}`;
      const before = (await metrics(t)).samples;
      expect(before.get(key('manual', 'temporary'))).toBe(0);
      expect(before.get(key('auto', 'permanent'))).toBe(0);
      const res = await t.app.inject({
        method: 'POST',
        url: '/security/ban',
        headers: asBrowser(admin),
        payload: { ip: '203.0.113.7', reason: 'scanner', duration_hours: 2, permanent: false },
      });
      expect(res.statusCode).toBe(200);
      expect(await t.services.security.bans.autoBan('198.51.100.9', '404 flood', 0, 3)).toBeDefined();
      const after = (await metrics(t)).samples;
      expect(after.get(key('manual', 'temporary'))).toBe(1);
      expect(after.get(key('auto', 'permanent'))).toBe(1);
      expect(after.get(key('manual', 'permanent'))).toBe(0);
    });
  });
});

describeEachDb('GET /metrics with the sandbox (analyzer mode)', (dialect) => {
  let h: SandboxHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });
  const SBIN = `${MINI.SBIN.exchange}:${MINI.SBIN.symbol}`;
  const order = (extra: Record<string, unknown> = {}) => ({
    strategy: 'test',
    symbol: 'SBIN',
    exchange: 'NSE',
    action: 'BUY',
    quantity: 10,
    pricetype: 'MARKET',
    product: 'MIS',
    ...extra,
  });

  it('paper orders by outcome, resting orders in the book, the instrument index size', async () => {
    h = await startSandbox(dialect, ON);
    h.t.clock.set(Date.parse('2026-01-05T10:00:00+05:30'));
    await h.tick({ [SBIN]: h.quote(800) });
    const outcome = (mode: string, o: string) => `algodesk_orders_total{mode="${mode}",outcome="${o}"}`;
    const before = (await metrics(h.t)).samples;
    expect(before.get(outcome('analyze', 'placed'))).toBe(0);
    expect(before.get('algodesk_analyze_mode')).toBe(1);
    expect(before.get('algodesk_sandbox_engine_running')).toBe(1);
    expect(before.get('algodesk_sandbox_resting_orders')).toBe(0);

    expect((await h.api('placeorder', order())).statusCode).toBe(200);
    // A limit far below the market rests in the book.
    const limit = await h.api('placeorder', order({ pricetype: 'LIMIT', price: 700 }));
    expect(limit.statusCode).toBe(200);
    expect((await h.api('placeorder', order({ symbol: 'NOSUCHSYMBOL' }))).statusCode).toBe(400);
    await h.t.services.orders.events.whenIdle();
    await h.t.services.sandbox.engine.whenIdle();

    const after = (await metrics(h.t)).samples;
    expect(after.get(outcome('analyze', 'placed'))).toBe(2);
    expect(after.get(outcome('analyze', 'analyzer_error'))).toBe(1);
    expect(after.get(outcome('live', 'placed'))).toBe(0);
    expect(after.get('algodesk_sandbox_resting_orders')).toBe(1);
    expect(after.get('algodesk_order_events_delivered_total')).toBe(3);
    const indexSize = h.t.services.market.contracts.indexSize;
    expect(indexSize).toBeGreaterThan(0);
    expect(after.get('algodesk_instrument_index_size')).toBe(indexSize);
    expect(after.get('algodesk_instrument_index_ready')).toBe(1);
  });

  it('a semi-automatic key queues its order: counted as semi_auto queued, then approved', async () => {
    h = await startSandbox(dialect, ON);
    h.t.clock.set(Date.parse('2026-01-05T10:00:00+05:30'));
    await h.tick({ [SBIN]: h.quote(800) });
    await h.t.services.auth.apiKeys.setOrderMode(1, 'semi_auto');
    const queued = await h.api('placeorder', order());
    expect(queued.statusCode).toBe(200);
    const id = (queued.json() as { pending_order_id: number }).pending_order_id;
    await h.t.services.orders.actionCenter.approve(1, id);
    await h.t.services.orders.events.whenIdle();
    const samples = (await metrics(h.t)).samples;
    expect(samples.get('algodesk_orders_total{mode="semi_auto",outcome="queued"}')).toBe(1);
    expect(samples.get('algodesk_orders_total{mode="semi_auto",outcome="approved"}')).toBe(1);
    expect(samples.get('algodesk_orders_total{mode="analyze",outcome="placed"}')).toBe(1);
  });
});

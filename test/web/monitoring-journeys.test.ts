/**
 * The web console's monitoring pages in Chromium (docs/rules/web.md#traffic-page and
 * #latency-page): after a few API calls (a refused key, a webhook with a token in its path, a
 * missing page) and an analyzer order placed through `POST /api/v1/placeorder`, `/logs/traffic`
 * and `/logs/latency` show those figures, the traffic table filters and pages, tokens stay masked,
 * the pages fit a phone screen, and the browser logs no error. Screenshots go to SCREENSHOTS.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type Services } from '../../src/app.js';
import { FakeClock } from '../../src/platform/clock.js';
import type { App } from '../../src/platform/http/types.js';
import { ScriptedFeed } from '../../src/modules/sandbox/prices/price-source.js';
import { TrafficRepository } from '../../src/modules/observability/traffic.repository.js';
import { openJourneyBrowser, HAVE_CHROMIUM, type JourneyBrowser } from '../helpers/browser-journey.js';
import { importContract } from '../helpers/contracts.js';
import { ist, miniKiteContract } from '../helpers/sandbox.js';
import { createTestDeps, login, type TestApp, type TestDeps } from '../helpers/test-app.js';
import { ensureWebBuild, WEB_DIST } from '../helpers/web-build.js';

const PASSWORD = 'monitoring horse battery';
const TOKEN = 'SECRETWEBHOOKTOKEN0123456789';

describe.skipIf(!HAVE_CHROMIUM)('the monitoring pages in Chromium: traffic and latency', () => {
  let t: TestDeps;
  let app: App;
  let services: Services;
  let clock: FakeClock;
  let base: string;
  let b: JourneyBrowser;
  let apikey: string;

  beforeAll(async () => {
    await ensureWebBuild();
    // A Monday morning, market open; the session cookie's lifetime is relative, so any date works.
    clock = new FakeClock(ist('2026-01-05', '10:00'));
    t = await createTestDeps('sqlite', {
      clock,
      // The fake clock does not move between calls: lift the limits these few calls would meet.
      env: {
        LOGIN_RATE_LIMIT: '1000 per minute',
        API_RATE_LIMIT: '100000 per second',
        ORDER_RATE_LIMIT: '100000 per second',
      },
    });
    ({ app, services } = await buildApp({ ...t.deps, webRoot: WEB_DIST }));
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    if (address === null || typeof address === 'string') throw new Error('no TCP address');
    base = `http://127.0.0.1:${address.port}`;
    await services.auth.users.create({ username: 'admin', password: PASSWORD });
    await importContract({ services }, 'zerodha', miniKiteContract());
    apikey = (await services.auth.apiKeys.regenerate(1)).apikey;
    const feed = new ScriptedFeed();
    await services.sandbox.usePriceSource(feed);
    feed.push({
      'NSE:SBIN': { ltp: 800, bid: 799.95, ask: 800.05, high: 840, low: 760, timestamp: clock.now() },
    });
    await services.sandbox.engine.whenIdle();
    b = await openJourneyBrowser();
    // Signed out, the console's session probe is answered 401: an answer, not a fault.
    b.expected4xx.add('/auth/session');
  }, 120_000);

  afterAll(async () => {
    await b?.close();
    await app?.close();
    await t?.release();
    expect(b?.consoleErrors ?? []).toEqual([]);
  });

  afterEach(async (ctx) => {
    if (ctx.task.result?.state === 'fail')
      await b
        .shot(`failed-${ctx.task.name.replace(/[^a-z0-9]+/gi, '-').slice(0, 40)}`)
        .catch(() => undefined);
  });

  const page = () => b.page;
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });

  it('records API calls and an analyzer order', async () => {
    // 60 pings (more than one page of the request table), a refused key, a webhook, a 404.
    for (let i = 0; i < 60; i++) expect((await post('/api/v1/ping', { apikey })).status).toBe(200);
    expect((await post('/api/v1/ping', { apikey: 'x'.repeat(64) })).status).toBe(403);
    // Twice: the webhook path then ranks among the top paths (above the pages' one-off requests).
    for (let i = 0; i < 2; i++) await post(`/strategy/webhook/${TOKEN}`, { symbol: 'SBIN' });
    expect((await fetch(`${base}/no/such/page`)).status).toBe(404);
    // Analyzer mode on, then a MARKET order: it fills in the sandbox at the scripted quote.
    const admin = await login({ app } as TestApp, 'admin', PASSWORD);
    const mode = await post(
      '/settings/analyze-mode/1',
      {},
      { cookie: admin.cookie, 'x-csrf-token': admin.csrf },
    );
    expect(mode.status).toBe(200);
    const order = await post('/api/v1/placeorder', {
      apikey,
      strategy: 'journey',
      symbol: 'SBIN',
      exchange: 'NSE',
      action: 'BUY',
      quantity: 1,
      pricetype: 'MARKET',
      product: 'MIS',
    });
    const answer = (await order.json()) as { status: string; orderid?: string; mode?: string };
    expect(order.status, JSON.stringify(answer)).toBe(200);
    expect(answer).toMatchObject({ status: 'success', mode: 'analyze' });
    await services.orders.latency.flush();
    await app.observability.traffic.flush();
  });

  it('/logs/traffic shows the requests, errors, classes, top paths and the request table', async () => {
    const p = page();
    await p.goto(`${base}/login?next=%2Flogs%2Ftraffic`);
    await p.getByRole('textbox', { name: 'Username', exact: true }).fill('admin');
    await p.getByRole('textbox', { name: 'Password', exact: true }).fill(PASSWORD);
    await p.getByRole('button', { name: 'Sign in', exact: true }).click();
    await p.waitForURL(`${base}/logs/traffic`);
    await p.getByRole('heading', { name: 'Traffic', exact: true }).waitFor();
    await p.getByRole('radiogroup', { name: 'Window' }).waitFor();
    const figure = async (name: string) =>
      Number((await p.getByTestId(`figure-${name}`).textContent())!.replace(/,/g, ''));
    await p.getByTestId('figure-Requests').waitFor();
    expect(await figure('Requests')).toBeGreaterThanOrEqual(64);
    expect(await figure('Errors')).toBeGreaterThanOrEqual(2); // the refused key, the 404
    expect(await figure('2xx')).toBeGreaterThanOrEqual(61);
    expect(await figure('4xx')).toBeGreaterThanOrEqual(2);
    // The chart is drawn (a canvas in the labelled image).
    await p
      .getByRole('img', { name: /^Requests and errors per hour/ })
      .locator('canvas')
      .waitFor();
    const topPaths = p.getByRole('table', { name: 'Top paths' });
    await topPaths.getByText('/api/v1/ping', { exact: true }).waitFor();
    await topPaths.getByText('/strategy/webhook/[redacted]', { exact: true }).waitFor();
    await p.getByRole('table', { name: 'Top client addresses' }).getByText('127.0.0.1').waitFor();
    // The request table: first page of 50, then the next.
    const range = p.getByTestId('requests-range');
    await expect.poll(() => range.textContent()).toMatch(/^Showing 1–50 of \d+ requests$/);
    await p.waitForTimeout(300); // the chart settles its size
    await b.shot('m0-traffic-1280');
    await p.getByRole('button', { name: 'Next page' }).click();
    await expect.poll(() => range.textContent()).toMatch(/^Showing 51–\d+ of \d+ requests$/);
    // Filters: a class, then a path.
    await p.getByRole('combobox', { name: 'Status', exact: true }).selectOption('4xx');
    await expect.poll(() => range.textContent()).toMatch(/^Showing 1–\d of \d requests$/);
    const statuses = await p
      .getByRole('table', { name: 'Requests' })
      .locator('tbody tr td:nth-child(5)')
      .allTextContents();
    expect(statuses.length).toBeGreaterThanOrEqual(2);
    expect(statuses.every((s) => /^4\d\d$/.test(s))).toBe(true);
    await p.getByRole('button', { name: 'Clear filters' }).click();
    await p.getByRole('textbox', { name: 'Path contains' }).fill('webhook');
    await expect.poll(() => range.textContent()).toBe('Showing 1–2 of 2 requests');
    const requests = p.getByRole('table', { name: 'Requests' });
    expect(await requests.getByText('/strategy/webhook/[redacted]', { exact: true }).count()).toBe(2);
    await requests.scrollIntoViewIfNeeded();
    await b.shot('m1-traffic-filtered-webhook', { viewport: true });
    // An address with other characters is refused in words, under the field.
    await p.getByRole('textbox', { name: 'IP address' }).fill('not an address');
    await p.getByText('An address has only digits, the letters a to f, "." and ":".').waitFor();
    // A top address picks the address filter.
    await p.getByRole('button', { name: 'Show the requests of 127.0.0.1' }).click();
    expect(await p.getByRole('textbox', { name: 'IP address' }).inputValue()).toBe('127.0.0.1');
    // The token is nowhere on the page.
    expect(await p.content()).not.toContain(TOKEN);
  });

  it('/logs/latency shows the percentiles, SLA shares, charts, the broker and API type and the order', async () => {
    const p = page();
    await p.getByRole('link', { name: 'Latency' }).click();
    await p.waitForURL(`${base}/logs/latency`);
    await p.getByRole('heading', { name: 'Latency', exact: true }).waitFor();
    await p.getByTestId('figure-Orders').waitFor();
    expect(await p.getByTestId('figure-Orders').textContent()).toBe('1');
    for (const f of ['p50', 'p90', 'p95', 'p99'])
      expect(await p.getByTestId(`figure-${f}`).textContent(), f).toMatch(/^\d+(\.\d+)? ms$/);
    for (const f of ['Under 100 ms', 'Under 150 ms', 'Under 200 ms'])
      expect(await p.getByTestId(`figure-${f}`).textContent(), f).toMatch(/^\d+(\.\d+)? %$/);
    await p
      .getByRole('img', { name: /^Orders by total latency/ })
      .locator('canvas')
      .waitFor();
    await p
      .getByRole('img', { name: /^Total latency per hour/ })
      .locator('canvas')
      .waitFor();
    await p.getByRole('table', { name: 'Latency by broker' }).getByText('sandbox').waitFor();
    await p.getByRole('table', { name: 'Latency by API type' }).getByText('PLACE').waitFor();
    const recent = p.getByRole('table', { name: 'Recent order latencies' });
    await recent.getByText('SBIN').waitFor();
    await recent.getByText('success').waitFor();
    await p.waitForTimeout(300);
    await b.shot('m2-latency-1280');
  });

  it('says so when a window has no order, and fits a phone screen', async () => {
    const p = page();
    clock.advance(2 * 3_600_000);
    await p.getByText('1 hour', { exact: true }).click();
    await p.getByText('No order was placed in the last 1 hour.').waitFor();
    await p.setViewportSize({ width: 390, height: 844 });
    await p.getByText('24 hours', { exact: true }).click();
    await p
      .getByRole('img', { name: /^Orders by total latency/ })
      .locator('canvas')
      .waitFor();
    await p.waitForTimeout(300);
    const overflow = () => p.evaluate('document.documentElement.scrollWidth - window.innerWidth');
    expect(await overflow()).toBeLessThanOrEqual(0);
    await b.shot('m3-latency-phone');
    await p.goto(`${base}/logs/traffic`);
    await p.getByTestId('figure-Requests').waitFor();
    await p
      .getByRole('img', { name: /^Requests and errors per/ })
      .locator('canvas')
      .waitFor();
    await p.waitForTimeout(300);
    expect(await overflow()).toBeLessThanOrEqual(0);
    await b.shot('m4-traffic-phone');
  });

  it('answers with 10,000 stored requests (the time is printed, not asserted)', async () => {
    const p = page();
    await p.setViewportSize({ width: 1280, height: 800 });
    const now = clock.now();
    await new TrafficRepository(t.deps.database.db).insertMany(
      Array.from({ length: 10_000 }, (_, i) => ({
        ts: now - i * 8_000,
        ip: `198.51.100.${i % 50}`,
        method: i % 5 === 0 ? 'POST' : 'GET',
        path: `/api/v1/p${i % 20}`,
        endpoint_group: `/api/v1/p${i % 20}`,
        status: i % 10 === 0 ? 500 : i % 10 === 1 ? 404 : 200,
        duration_ms: (i % 100) + 0.5,
        host: 'localhost',
        user_id: null,
      })),
    );
    const started = Date.now();
    await p.goto(`${base}/logs/traffic`);
    const range = p.getByTestId('requests-range');
    await expect.poll(() => range.textContent()).toMatch(/^Showing 1–50 of 10,\d{3} requests$/);
    await p
      .getByRole('img', { name: /^Requests and errors per hour/ })
      .locator('canvas')
      .waitFor();
    const ms = Date.now() - started;
    const requests = Number((await p.getByTestId('figure-Requests').textContent())!.replace(/,/g, ''));
    expect(requests).toBeGreaterThan(10_000);
    expect(Number((await p.getByTestId('figure-5xx').textContent())!.replace(/,/g, ''))).toBe(1_000);
    // A filter on 10,000 rows.
    const filtered = Date.now();
    await p.getByRole('combobox', { name: 'Status', exact: true }).selectOption('5xx');
    await expect.poll(() => range.textContent()).toBe('Showing 1–50 of 1,000 requests');
    const filterMs = Date.now() - filtered;
    // The server's part, as the browser timed each answer.
    const api = (await p.evaluate(
      `performance.getEntriesByType('resource').filter((e) => e.name.includes('/logs/api/traffic'))` +
        `.map((e) => new URL(e.name).pathname + new URL(e.name).search.replace(/hours=24&?/, '') + ' ' + Math.round(e.duration) + ' ms')`,
    )) as string[];
    console.log(
      `/logs/traffic with ${requests} stored requests: drawn in ${ms} ms (shell, scripts, stats, table, chart); ` +
        `a status filter answered in ${filterMs} ms; API answers: ${api.join(', ')}`,
    );
    await b.shot('m5-traffic-10000-rows');
  });

  it('draws the latency charts over many orders', async () => {
    const p = page();
    const now = clock.now();
    // 300 orders over 24 hours: mostly fast, a slow tail, two brokers.
    await t.deps.database.db
      .insertInto('order_latency')
      .values(
        Array.from({ length: 300 }, (_, i) => {
          const total = i % 50 === 0 ? 400 + i : 20 + ((i * 37) % 160);
          return {
            label: 'PLACE',
            user_id: 1,
            broker: i % 3 === 0 ? 'zerodha' : 'sandbox',
            symbol: 'SBIN',
            order_id: `x${i}`,
            status: 'success',
            total_ms: total,
            broker_ms: i % 3 === 0 ? total * 0.8 : 0,
            validation_ms: 1,
            overhead_ms: i % 3 === 0 ? total * 0.2 - 1 : total - 1,
            created_at: now - (299 - i) * 280_000, // ids ascend with time, as placed
          };
        }),
      )
      .execute();
    await p.goto(`${base}/logs/latency`);
    await expect.poll(() => p.getByTestId('figure-Orders').textContent()).toBe('301');
    await p.getByRole('table', { name: 'Latency by broker' }).getByText('zerodha').waitFor();
    await p
      .getByRole('img', { name: /^Total latency per hour/ })
      .locator('canvas')
      .waitFor();
    await p.waitForTimeout(300);
    await b.shot('m6-latency-many-orders');
  });
});

import { afterEach, expect, it, vi } from 'vitest';
import { ErrorLogRepository } from '../../src/modules/observability/error-log.repository.js';
import { ERROR_LOG_LIMITS } from '../../src/modules/observability/error-log.service.js';
import { adminGet, adminPost, errorEntries } from '../helpers/observability.js';
import {
  appWithAdmin,
  asBrowser,
  createUser,
  describeEachDb,
  login,
  type Browser,
  type TestApp,
} from '../helpers/test-app.js';

const HOUR = 3_600_000;

describeEachDb('error log: server records at warn and above are kept and queryable', (dialect) => {
  let t: TestApp;
  let admin: Browser;
  afterEach(() => t.close());

  it('stores warn, error and fatal records (not info), redacted exactly as the log line, newest first', async () => {
    ({ t, admin } = await appWithAdmin(dialect));
    const log = t.app.log.child({ module: 'orders' });
    log.info('routine line');
    log.warn({ password: 'PW-SECRET-1', order: 17 }, 'order 17 slow');
    t.clock.advance(1000);
    log.error({ err: new Error('broker said 502'), token: 'TK-SECRET-2' }, 'order 18 failed');
    const entries = await errorEntries(t, admin);
    const mine = entries.filter((e) => e.module === 'orders');
    expect(mine.map((e) => e.message)).toEqual(['order 18 failed', 'order 17 slow']);
    expect(mine[0]).toMatchObject({
      level: 'error',
      origin: 'server',
      exception: 'Error: broker said 502',
      time: new Date(t.clock.now()).toISOString(),
    });
    expect(mine[0]!.stack).toContain('broker said 502');
    expect(mine[1]!.context).toBe(JSON.stringify({ password: '[redacted]', order: 17 }));
    const text = JSON.stringify(entries);
    expect(text).not.toContain('PW-SECRET-1');
    expect(text).not.toContain('TK-SECRET-2');
    expect(text).not.toContain('routine line');
    // Each stored record is a line the log itself received.
    expect(t.logs.some((l) => l.includes('order 18 failed') && l.includes('[redacted]'))).toBe(true);
  });

  it("a failing request's record carries its method, masked path and request id", async () => {
    ({ t, admin } = await appWithAdmin(dialect));
    vi.spyOn(t.services.system.snapshot, 'snapshot').mockRejectedValueOnce(new Error('disk 0xdead gone'));
    const res = await adminGet(t, admin, '/admin/api/system?x=SECRET-QUERY');
    expect(res.statusCode).toBe(500);
    expect(res.body).not.toContain('0xdead');
    const [entry] = await errorEntries(t, admin, '?level=error');
    expect(entry).toMatchObject({
      level: 'error',
      message: 'unhandled error',
      exception: 'Error: disk 0xdead gone',
      request: { id: res.headers['x-request-id'], method: 'GET', path: '/admin/api/system' },
    });
    expect(JSON.stringify(entry)).not.toContain('SECRET-QUERY');
  });

  it("a warning logged by a handler that answers 200 carries the request's method, masked path and id", async () => {
    ({ t, admin } = await appWithAdmin(dialect));
    const res = await adminPost(t, admin, '/security/ban?note=SECRET-QUERY', {
      ip: '203.0.113.77',
      permanent: true,
    });
    expect(res.statusCode).toBe(200);
    const [entry] = await errorEntries(t, admin, `?q=${encodeURIComponent('IP banned manually')}`);
    expect(entry).toMatchObject({
      level: 'warn',
      request: { id: res.headers['x-request-id'], method: 'POST', path: '/security/ban' },
    });
    expect(JSON.stringify(entry)).not.toContain('SECRET-QUERY');
  });

  it('limit is clamped to 1..500, unknown level and malformed limit are 400s', async () => {
    ({ t, admin } = await appWithAdmin(dialect));
    for (let i = 0; i < 3; i++) t.app.log.warn(`warning ${i}`);
    const one = await adminGet(t, admin, '/admin/api/errors?limit=0');
    expect(one.statusCode).toBe(200);
    expect(one.json().data).toMatchObject({ limit: 1, count: 1 });
    expect((await adminGet(t, admin, '/admin/api/errors?limit=100000')).json().data.limit).toBe(
      ERROR_LOG_LIMITS.listMax,
    );
    expect((await adminGet(t, admin, '/admin/api/errors')).json().data.limit).toBe(
      ERROR_LOG_LIMITS.listDefault,
    );
    const bad = await adminGet(t, admin, '/admin/api/errors?level=verbose');
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({
      code: 'validation_failed',
      errors: { level: [expect.stringContaining('warn')] },
    });
    expect((await adminGet(t, admin, '/admin/api/errors?limit=ten')).statusCode).toBe(400);
    expect((await adminGet(t, admin, `/admin/api/errors?q=${'x'.repeat(201)}`)).statusCode).toBe(400);
  });

  it('level selects that level and above; q matches text case-insensitively, wildcards literally', async () => {
    ({ t, admin } = await appWithAdmin(dialect));
    t.app.log.warn({ module: 'sandbox' }, 'Quote STALE for 100%_SBIN');
    t.app.log.error('database timeout');
    t.app.log.fatal('out of memory');
    const levels = async (qs: string) => (await errorEntries(t, admin, qs)).map((e) => e.level).sort();
    expect(await levels('?level=error')).toEqual(['error', 'fatal']);
    expect(await levels('?level=fatal')).toEqual(['fatal']);
    expect((await errorEntries(t, admin, '?q=stale')).map((e) => e.message)).toEqual([
      'Quote STALE for 100%_SBIN',
    ]);
    expect(await errorEntries(t, admin, '?q=SANDBOX')).toHaveLength(1); // module matches too
    expect(await errorEntries(t, admin, `?q=${encodeURIComponent('0%_S')}`)).toHaveLength(1);
    expect(await errorEntries(t, admin, `?q=${encodeURIComponent('%')}`)).toHaveLength(1);
    expect(await errorEntries(t, admin, '?q=_')).toHaveLength(1);
  });

  it('stats count by level and origin, and the last hour and day on the injected clock', async () => {
    ({ t, admin } = await appWithAdmin(dialect));
    t.app.log.error('old error');
    await t.services.observability.errors.flush();
    t.clock.advance(2 * HOUR);
    t.app.log.warn('recent warning');
    t.app.log.fatal('recent fatal');
    await adminPost(t, admin, '/admin/api/errors/client', { message: 'TypeError in chart' });
    const res = await adminGet(t, admin, '/admin/api/errors/stats');
    expect(res.statusCode).toBe(200);
    const s = res.json().data;
    expect(s).toMatchObject({
      by_level: { warn: s.by_level.warn, error: 2, fatal: 1 },
      by_origin: { client: 1 },
      last_hour: s.total - 1,
      last_24h: s.total,
      dropped: 0,
      retention: { max_rows: ERROR_LOG_LIMITS.maxRows, max_age_days: ERROR_LOG_LIMITS.maxAgeDays },
    });
    expect(s.by_level.warn).toBeGreaterThanOrEqual(1);
    expect(s.total).toBe(s.by_level.warn + 3);
  });

  it('groups repeats by level + module + normalised message with count, first/last seen and a sample', async () => {
    ({ t, admin } = await appWithAdmin(dialect));
    const log = t.app.log.child({ module: 'orders' });
    log.error('order 17 failed: HTTP 502 at 2026-01-05T09:16:00Z');
    const first = t.clock.now();
    t.clock.advance(60_000);
    log.error('order 90210 failed: HTTP 503 at 2026-01-05T09:17:00Z');
    log.warn('order 5 failed: HTTP 502 at 2026-01-05T09:16:00Z'); // other level: other group
    const res = await adminGet(t, admin, '/admin/api/errors/groups');
    expect(res.statusCode).toBe(200);
    const groups = res.json().data.groups as Record<string, unknown>[];
    const g = groups.find((x) => x.level === 'error' && x.module === 'orders')!;
    expect(g).toMatchObject({
      count: 2,
      pattern: 'order <n> failed: HTTP <n> at <ts>',
      first_seen: new Date(first).toISOString(),
      last_seen: new Date(t.clock.now()).toISOString(),
      sample: { message: 'order 90210 failed: HTTP 503 at 2026-01-05T09:17:00Z' },
    });
    expect(groups.filter((x) => x.module === 'orders')).toHaveLength(2);
    expect((await adminGet(t, admin, '/admin/api/errors/groups?level=nope')).statusCode).toBe(400);
    expect((await adminGet(t, admin, '/admin/api/errors/groups?limit=0')).json().data.limit).toBe(1);
  });

  it('retention: rows past the age limit go on the next purge, and the row cap keeps the newest', async () => {
    ({ t, admin } = await appWithAdmin(dialect));
    t.app.log.error('ancient');
    await t.services.observability.errors.flush();
    t.clock.advance((ERROR_LOG_LIMITS.maxAgeDays + 1) * 24 * HOUR);
    t.app.log.error('fresh');
    await t.services.observability.errors.flush();
    expect(await t.services.observability.errors.purge()).toBeGreaterThanOrEqual(1);
    admin = await login(t); // the old session expired with the days that passed
    const messages = (await errorEntries(t, admin)).map((e) => e.message);
    expect(messages).toContain('fresh');
    expect(messages).not.toContain('ancient');
    const repo = new ErrorLogRepository(t.db.database.db);
    for (let i = 0; i < 5; i++) t.app.log.error(`row ${i}`);
    await t.services.observability.errors.flush();
    await repo.prune(0, 2);
    expect(await repo.count()).toBe(2);
    expect((await errorEntries(t, admin)).map((e) => e.message)).toEqual(['row 4', 'row 3']);
  });
});

describeEachDb('error log: browser error reports', (dialect) => {
  let t: TestApp;
  let admin: Browser;
  afterEach(() => t.close());
  const post = (payload: unknown) => adminPost(t, admin, '/admin/api/errors/client', payload);

  it('stores a report with the client origin, the reporting user, cleaned text and a masked page URL', async () => {
    ({ t, admin } = await appWithAdmin(dialect));
    const res = await post({
      level: 'warning',
      message: 'Cannot read\u0001 properties\u001b[0m of undefined\nline two\u202E',
      stack: 'TypeError: x\n    at Chart (chart.js:1:2)\u0007',
      url: 'https://desk.example/orders?apikey=KEY-IN-QUERY#frag',
      component_stack: '\n    in Chart\n    in App',
      user_agent: 'Mozilla/5.0\u0008 (X11)',
      extra_field: 'ignored',
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'success', data: { level: 'warn' } });
    const [e] = await errorEntries(t, admin, '?origin=client');
    expect(e).toMatchObject({
      origin: 'client',
      level: 'warn',
      module: 'browser',
      message: 'Cannot read properties [0m of undefined line two',
      stack: 'TypeError: x\n    at Chart (chart.js:1:2)',
      url: 'https://desk.example/orders',
      component_stack: '\n    in Chart\n    in App',
      user_agent: 'Mozilla/5.0 (X11)',
      user_id: 1,
    });
    expect(JSON.stringify(e)).not.toContain('KEY-IN-QUERY');
  });

  it('cuts over-long fields to their caps instead of refusing them, within the 256 KiB body', async () => {
    ({ t, admin } = await appWithAdmin(dialect));
    const res = await post({
      message: 'm'.repeat(100_000),
      stack: 's'.repeat(60_000),
      url: `https://desk.example/${'p'.repeat(40_000)}`,
      component_stack: 'c'.repeat(40_000),
      user_agent: 'u'.repeat(10_000),
    });
    expect(res.statusCode).toBe(200);
    const [e] = await errorEntries(t, admin, '?origin=client');
    const lengths = Object.fromEntries(
      ['message', 'stack', 'url', 'component_stack', 'user_agent'].map((k) => [k, (e![k] as string).length]),
    );
    expect(lengths).toEqual({
      message: 2_000,
      stack: 16_000,
      url: 2_048,
      component_stack: 8_000,
      user_agent: 512,
    });
    for (const k of ['message', 'stack', 'url', 'component_stack', 'user_agent'])
      expect(e![k] as string, k).toMatch(/\[truncated]$/);
  });

  it('refuses a body over 256 KiB with 413, however it is split between fields', async () => {
    ({ t, admin } = await appWithAdmin(dialect));
    for (const payload of [{ message: 'x'.repeat(270_000) }, { message: 'x', stack: 'y'.repeat(300_000) }]) {
      const huge = await post(payload);
      expect(huge.statusCode).toBe(413);
      expect(huge.json()).toMatchObject({ status: 'error', message: 'Request body is too large' });
    }
    expect(await errorEntries(t, admin, '?origin=client')).toHaveLength(0);
  });

  it('missing, empty or control-only message, wrong types and unknown levels are 400s naming the field', async () => {
    ({ t, admin } = await appWithAdmin(dialect));
    const cases: [unknown, string][] = [
      [{ stack: 'x' }, 'message'],
      [{ message: '' }, 'message'],
      [{ message: '\u0001\u001f\u007f\n\t\u202e' }, 'message'],
      [{ message: 42 }, 'message'],
      [{ message: 'x', level: 'debug' }, 'level'],
      [{ message: 'x', stack: 7 }, 'stack'],
    ];
    for (const [payload, field] of cases) {
      const res = await post(payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(Object.keys(res.json().errors)).toContain(field);
    }
    const notJson = await t.app.inject({
      method: 'POST',
      url: '/admin/api/errors/client',
      headers: { ...asBrowser(admin), 'content-type': 'application/json' },
      payload: '{"message":',
    });
    expect(notJson.statusCode).toBe(400);
    expect(await errorEntries(t, admin, '?origin=client')).toHaveLength(0);
  });

  it('a report holding NUL and other control characters is stored cleaned, not refused', async () => {
    ({ t, admin } = await appWithAdmin(dialect));
    const res = await post({ message: 'a\u0000b\u0007c', stack: 'at f\u0000 (x.js:1)\nat g' });
    expect(res.statusCode).toBe(200);
    const [e] = await errorEntries(t, admin, '?origin=client');
    // Each control character becomes a space; newlines stay in stacks.
    expect(e!.message).toBe('a b c');
    expect(e!.stack).not.toContain('\u0000');
    expect(e!.stack).toMatch(/^at f\s+\(x\.js:1\)\nat g$/);
    // Only this route keeps NUL for its own cleaning: any other body with one is still a 400.
    const other = await t.app.inject({
      method: 'POST',
      url: '/api/v1/ping',
      headers: { 'content-type': 'application/json' },
      payload: '{"apikey":"a\\u0000b"}',
    });
    expect(other.statusCode).toBe(400);
  });

  it('has its own rate limit (60 per minute) that does not spend the admin window', async () => {
    ({ t, admin } = await appWithAdmin(dialect));
    for (let i = 0; i < 60; i++) expect((await post({ message: `e ${i}` })).statusCode).toBe(200);
    const limited = await post({ message: 'one too many' });
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBeDefined();
    expect((await adminGet(t, admin, '/admin/api/errors/stats')).statusCode).toBe(200);
    t.clock.advance(60_000);
    expect((await post({ message: 'after the window' })).statusCode).toBe(200);
  });
});

describeEachDb('error routes need an administrator session', (dialect) => {
  let t: TestApp;
  afterEach(() => t.close());

  it('401 without a session, 403 for a non-administrator or without the CSRF token', async () => {
    let admin: Browser;
    ({ t, admin } = await appWithAdmin(dialect));
    await createUser(t, 'trader');
    const trader = await login(t, 'trader');
    const routes: [string, string][] = [
      ['GET', '/admin/api/errors'],
      ['GET', '/admin/api/errors/stats'],
      ['GET', '/admin/api/errors/groups'],
      ['POST', '/admin/api/errors/client'],
      ['GET', '/admin/api/system'],
      ['POST', '/admin/api/system/diagnostics'],
      ['GET', '/admin/api/system/report'],
    ];
    for (const [method, url] of routes) {
      const payload = method === 'POST' ? { message: 'x' } : undefined;
      const anon = await t.app.inject({ method: method as 'GET', url, ...(payload ? { payload } : {}) });
      expect(anon.statusCode, `${method} ${url}`).toBe(401);
      const user = await t.app.inject({
        method: method as 'GET',
        url,
        headers: asBrowser(trader),
        ...(payload ? { payload } : {}),
      });
      expect(user.statusCode, `${method} ${url}`).toBe(403);
    }
    const noCsrf = await t.app.inject({
      method: 'POST',
      url: '/admin/api/errors/client',
      headers: { cookie: admin.cookie },
      payload: { message: 'x' },
    });
    expect(noCsrf.statusCode).toBe(403);
    expect(noCsrf.json().code).toBe('csrf_failed');
  });
});

describeEachDb(
  'observability reads count against the administration rate limit (API_RATE_LIMIT)',
  (dialect) => {
    let t: TestApp;
    let admin: Browser;
    afterEach(() => t.close());
    const READS = [
      '/admin/api/errors',
      '/admin/api/errors/stats',
      '/admin/api/errors/groups',
      '/admin/api/system',
    ];

    it('each read route is refused past the limit with 429 and Retry-After, in the one admin window', async () => {
      ({ t, admin } = await appWithAdmin(dialect, { env: { API_RATE_LIMIT: '4 per second' } }));
      for (const url of READS) {
        t.clock.advance(1_000); // a fresh window
        for (let i = 0; i < 4; i++) expect((await adminGet(t, admin, url)).statusCode, url).toBe(200);
        const refused = await adminGet(t, admin, url);
        expect(refused.statusCode, url).toBe(429);
        expect(refused.json(), url).toMatchObject({ status: 'error', code: 'rate_limited' });
        expect(refused.headers['retry-after'], url).toBe('1');
      }
      // The window is the administration surface's: security reads spend it for these routes too.
      t.clock.advance(1_000);
      for (let i = 0; i < 4; i++) expect((await adminGet(t, admin, '/security/stats')).statusCode).toBe(200);
      for (const url of READS) expect((await adminGet(t, admin, url)).statusCode, url).toBe(429);
      t.clock.advance(1_000);
      for (const url of READS) expect((await adminGet(t, admin, url)).statusCode, url).toBe(200);
    });

    it('the default is 50 per second', async () => {
      ({ t, admin } = await appWithAdmin(dialect));
      t.clock.advance(1_000);
      for (let i = 0; i < 50; i++)
        expect((await adminGet(t, admin, READS[i % READS.length]!)).statusCode).toBe(200);
      expect((await adminGet(t, admin, '/admin/api/errors/stats')).statusCode).toBe(429);
    });
  },
);

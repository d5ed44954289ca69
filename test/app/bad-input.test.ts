import { afterEach, beforeEach, expect, it } from 'vitest';
import { asBrowser, appWithAdmin, describeEachDb, type Browser, type TestApp } from '../helpers/test-app.js';

/** Every public route of the foundation, with a browser session where it needs one. */
const ROUTES: Array<{ method: 'POST' | 'GET'; url: string; session: boolean }> = [
  { method: 'POST', url: '/auth/login', session: false },
  { method: 'POST', url: '/api/v1/ping', session: false },
  { method: 'POST', url: '/apikey', session: true },
  { method: 'POST', url: '/apikey/mode', session: true },
  { method: 'POST', url: '/auth/logout', session: true },
];

const HOSTILE = [
  "' OR '1'='1' --",
  '"; DROP TABLE users; --',
  '<script>alert(1)</script>',
  '../../../../etc/passwd',
  'a\u0000b',
  '\u202e\u0000\uffff',
  '😀'.repeat(300),
  '{{7*7}}${7*7}',
  '__proto__',
];

describeEachDb('bad input gets a 4xx with a clear message, never a 500, and writes nothing', (dialect) => {
  let t: TestApp;
  let b: Browser;
  beforeEach(async () => {
    ({ t, admin: b } = await appWithAdmin(dialect));
  });
  afterEach(() => t.close());

  const send = (route: (typeof ROUTES)[number], payload: string | Buffer, contentType = 'application/json') =>
    t.app.inject({
      method: route.method,
      url: route.url,
      payload,
      headers: { 'content-type': contentType, ...(route.session ? asBrowser(b) : {}) },
    });

  const rowCounts = async () => {
    const db = t.db.database.db;
    const count = async (table: 'users' | 'api_keys' | 'sessions') =>
      Number(
        (
          await db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    return {
      users: await count('users'),
      api_keys: await count('api_keys'),
      sessions: await count('sessions'),
    };
  };

  it('malformed JSON → 400 "Malformed JSON"', async () => {
    const before = await rowCounts();
    for (const route of ROUTES) {
      for (const body of ['{"apikey":', '{bad json}', '{"a":1,}']) {
        const res = await send(route, body);
        expect(res.statusCode, `${route.url} ${body}`).toBe(400);
        expect(res.json()).toMatchObject({ status: 'error', message: 'Malformed JSON in request body' });
      }
    }
    expect(await rowCounts()).toEqual(before);
  });

  it('prototype-poisoning JSON is refused', async () => {
    for (const route of ROUTES) {
      const res = await send(
        route,
        '{"__proto__":{"admin":true},"apikey":"x","username":"a","password":"b"}',
      );
      expect(res.statusCode, route.url).toBe(400);
    }
  });

  it('a 1 MB body → 413, before any route logic', async () => {
    const before = await rowCounts();
    const huge = JSON.stringify({
      apikey: 'k',
      username: 'a',
      password: 'x'.repeat(1024 * 1024),
      mode: 'auto',
    });
    for (const route of ROUTES) {
      const res = await send(route, huge);
      expect(res.statusCode, route.url).toBe(413);
      expect(res.json()).toMatchObject({ status: 'error', message: 'Request body is too large' });
    }
    expect(await rowCounts()).toEqual(before);
  });

  it('wrong types and non-object bodies → 400 naming the field', async () => {
    const login400 = await send(ROUTES[0]!, JSON.stringify({ username: ['admin'], password: { $ne: null } }));
    expect(login400.statusCode).toBe(400);
    expect(Object.keys(login400.json().errors).sort()).toEqual(['password', 'username']);
    for (const body of ['[]', '"text"', '42', 'null']) {
      for (const route of [ROUTES[0]!, ROUTES[1]!, ROUTES[3]!]) {
        const res = await send(route, body);
        expect(res.statusCode, `${route.url} ${body}`).toBe(400);
        expect(res.json().status).toBe('error');
      }
    }
  });

  it('hostile strings are ordinary data: a 4xx, no 500, nothing written', async () => {
    const before = await rowCounts();
    for (const s of HOSTILE) {
      const loginRes = await send(ROUTES[0]!, JSON.stringify({ username: s, password: s }));
      expect([400, 401, 429], s).toContain(loginRes.statusCode);
      const pingRes = await send(ROUTES[1]!, JSON.stringify({ apikey: s }));
      expect([400, 403], s).toContain(pingRes.statusCode);
      const modeRes = await send(ROUTES[3]!, JSON.stringify({ mode: s }));
      expect(modeRes.statusCode, s).toBe(400);
      t.clock.advance(3_600_000); // stay clear of the login limit
    }
    expect(await rowCounts()).toEqual(before);
    expect(t.logs.join('')).not.toMatch(/"level":50/); // nothing reached the 500 path
  });

  it('NUL characters are refused at parsing with 400, in JSON and form bodies', async () => {
    const before = await rowCounts();
    for (const route of ROUTES) {
      const res = await send(
        route,
        JSON.stringify({ apikey: 'a\u0000b', username: 'x\u0000', password: 'p', mode: 'auto' }),
      );
      expect(res.statusCode, route.url).toBe(400);
      expect(res.json()).toMatchObject({ message: 'Request body must not contain NUL characters' });
    }
    const form = await send(ROUTES[1]!, 'apikey=a%00b', 'application/x-www-form-urlencoded');
    expect(form.statusCode).toBe(400);
    expect(await rowCounts()).toEqual(before);
  });

  it('unknown routes → 404 JSON, for /api/ and elsewhere, with hostile paths', async () => {
    for (const url of [
      '/api/v1/nope',
      '/api/unknown',
      '/nothing/here',
      '/%3Cscript%3E',
      '/api/v1/../../etc/passwd',
    ]) {
      const res = await t.app.inject({ method: 'POST', url, payload: {} });
      expect(res.statusCode, url).toBe(404);
      expect(res.json()).toMatchObject({ status: 'error', code: 'not_found' });
    }
    const get = await t.app.inject({ method: 'GET', url: '/api/v1/ping' });
    expect(get.statusCode).toBe(404);
  });

  it('a 404 never echoes a webhook token, whatever the shape of the path', async () => {
    const token = 'whk_7c1e9a2b4d6f8e0a1c3b5d7f';
    for (const url of [
      `//strategy/webhook/${token}`,
      `/strategy//webhook/${token}/x`,
      `/STRATEGY/WEBHOOK/${token}`,
      `/strategy%2Fwebhook%2F${token}`,
      `/nothing/webhook/${token}`,
    ]) {
      const res = await t.app.inject({ method: 'POST', url, payload: {} });
      expect(res.statusCode, url).toBe(404);
      expect(res.body, url).not.toContain(token);
    }
    expect(t.logs.join('\n')).not.toContain(token);
  });

  it('an unreadable session cookie is just "not logged in"', async () => {
    for (const cookie of [
      'algodesk_session=',
      'algodesk_session=' + 'x'.repeat(5000),
      'algodesk_session=%00%ff',
      'garbage',
    ]) {
      const res = await t.app.inject({ method: 'GET', url: '/auth/session', headers: { cookie } });
      expect(res.statusCode, cookie.slice(0, 40)).toBe(401);
    }
  });
});

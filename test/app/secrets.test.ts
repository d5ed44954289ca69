import { afterEach, expect, it } from 'vitest';
import {
  asBrowser,
  createTestApp,
  createUser,
  describeEachDb,
  login,
  type TestApp,
} from '../helpers/test-app.js';

describeEachDb('secrets never appear in logs or in responses after their one-time display', (dialect) => {
  let t: TestApp;
  afterEach(() => t.close());

  it('a full login + key + ping + regenerate + logout run leaves no secret in trace-level logs', async () => {
    t = await createTestApp(dialect, { env: { LOG_LEVEL: 'trace' } });
    const password = 'Sup3r-Secret-Passw0rd';
    await createUser(t, 'trader', password);
    // A failed login with a near-miss password must not be logged either.
    await t.app.inject({
      method: 'POST',
      url: '/auth/login',
      payload: { username: 'trader', password: password + 'x' },
    });
    const b = await login(t, 'trader', password);
    const k1 = (await t.app.inject({ method: 'POST', url: '/apikey', headers: asBrowser(b) })).json()
      .apikey as string;
    const responses: string[] = [];
    for (const apikey of [k1, 'f'.repeat(64)]) {
      responses.push((await t.app.inject({ method: 'POST', url: '/api/v1/ping', payload: { apikey } })).body);
    }
    const k2 = (await t.app.inject({ method: 'POST', url: '/apikey', headers: asBrowser(b) })).json()
      .apikey as string;
    responses.push(
      (await t.app.inject({ method: 'POST', url: '/api/v1/ping', payload: { apikey: k1 } })).body,
    );
    responses.push(
      (await t.app.inject({ method: 'GET', url: '/apikey', headers: { cookie: b.cookie } })).body,
    );
    responses.push(
      (await t.app.inject({ method: 'GET', url: '/auth/session', headers: { cookie: b.cookie } })).body,
    );
    await t.app.inject({ method: 'POST', url: '/auth/logout', headers: asBrowser(b) });

    const logs = t.logs.join('\n');
    expect(t.logs.length).toBeGreaterThan(5); // the run really logged
    const sessionToken = b.cookie.split('=')[1]!;
    const secrets = {
      password,
      k1,
      k2,
      sessionToken,
      csrf: b.csrf,
      pepper: t.config.apiKeyPepper,
      appKey: t.config.appKey,
      badKey: 'f'.repeat(64),
    };
    for (const [name, value] of Object.entries(secrets)) {
      expect(logs.includes(value), `${name} in logs`).toBe(false);
      expect(responses.join('\n').includes(value), `${name} in later responses`).toBe(false);
    }
    // Every request-bound log line carries the request id.
    const requestLines = t.logs
      .map((l) => JSON.parse(l) as { msg: string; reqId?: string })
      .filter((l) => l.msg === 'request');
    expect(requestLines.length).toBeGreaterThan(5);
    for (const l of requestLines) expect(l.reqId).toMatch(/^[0-9a-f]{8}-[0-9a-z]+$/);
  });

  it('5xx answers hide internals and are logged with the request id', async () => {
    t = await createTestApp(dialect);
    await t.db.database.close(); // every query now fails inside the service
    const res = await t.app.inject({
      method: 'POST',
      url: '/auth/login',
      payload: { username: 'a', password: 'bbbbbbbb' },
    });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ status: 'error', message: 'Internal server error', code: 'internal' });
    // (Background work on the closed database logs its own errors; the request's line is there.)
    const errors = t.logs
      .map((l) => JSON.parse(l) as { level: number; reqId?: string })
      .filter((l) => l.level === 50);
    expect(errors.map((l) => l.reqId)).toContain(res.headers['x-request-id']);
  });
});

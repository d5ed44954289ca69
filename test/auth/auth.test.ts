import { afterEach, expect, it } from 'vitest';
import { sha256Hex } from '../../src/platform/crypto.js';
import {
  asBrowser,
  createTestApp,
  createUser,
  describeEachDb,
  login,
  type TestApp,
} from '../helpers/test-app.js';

const PASSWORD = 'correct horse battery';

describeEachDb(
  'users: first user is the administrator; passwords under 8 characters are refused',
  (dialect) => {
    let t: TestApp;
    afterEach(() => t.close());

    it('makes only the first user an administrator', async () => {
      t = await createTestApp(dialect);
      expect((await createUser(t, 'Admin')).is_admin).toBe(true);
      expect((await createUser(t, 'bob')).is_admin).toBe(false);
      expect((await t.services.auth.users.list()).map((u) => [u.username, u.is_admin])).toEqual([
        ['admin', true],
        ['bob', false],
      ]);
    });

    it('refuses short passwords, duplicate (case-insensitive) names and bad e-mail without writing', async () => {
      t = await createTestApp(dialect);
      await expect(
        t.services.auth.users.create({ username: 'a', password: '1234567' }),
      ).rejects.toMatchObject({
        statusCode: 400,
        message: 'password must be at least 8 characters',
      });
      await createUser(t, 'carol');
      await expect(createUser(t, 'CAROL')).rejects.toMatchObject({ statusCode: 409 });
      await expect(
        t.services.auth.users.create({ username: 'd', password: PASSWORD, email: 'not-mail' }),
      ).rejects.toMatchObject({ statusCode: 400 });
      await expect(
        t.services.auth.users.create({ username: 'bad name!', password: PASSWORD }),
      ).rejects.toMatchObject({
        statusCode: 400,
      });
      expect(await t.services.auth.users.count()).toBe(1);
    });

    it('stores an argon2id hash, never the password', async () => {
      t = await createTestApp(dialect);
      await createUser(t);
      const row = await t.db.database.db.selectFrom('users').selectAll().executeTakeFirstOrThrow();
      expect(row.password_hash).toMatch(/^\$argon2id\$/);
      expect(JSON.stringify(row)).not.toContain(PASSWORD);
    });
  },
);

describeEachDb('POST /auth/login', (dialect) => {
  let t: TestApp;
  afterEach(() => t.close());
  const post = (payload: unknown, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'POST', url: '/auth/login', payload: payload as object, headers });

  it('opens a session: 200 {"status":"success"} and an HttpOnly SameSite=Lax cookie holding only an id', async () => {
    t = await createTestApp(dialect);
    await createUser(t);
    const res = await post({ username: 'ADMIN', password: PASSWORD });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'success' });
    const cookie = res.cookies.find((c) => c.name === 'algodesk_session')!;
    expect(cookie.httpOnly).toBe(true);
    expect(cookie.sameSite).toBe('Lax');
    expect(cookie.secure).toBeUndefined();
    expect(cookie.path).toBe('/');
    // The table holds the digest of the cookie value, never the value itself.
    const rows = await t.db.database.db.selectFrom('sessions').selectAll().execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.id).toBe(sha256Hex(cookie.value));
    expect(JSON.stringify(rows)).not.toContain(cookie.value);
  });

  it('marks the cookie Secure when HOST_SERVER is https', async () => {
    t = await createTestApp(dialect, { env: { HOST_SERVER: 'https://algo.example.com' } });
    await createUser(t);
    const res = await post({ username: 'admin', password: PASSWORD });
    expect(res.cookies.find((c) => c.name === 'algodesk_session')!.secure).toBe(true);
  });

  it('answers an unknown user and a wrong password with the same 401', async () => {
    t = await createTestApp(dialect);
    await createUser(t);
    const wrong = await post({ username: 'admin', password: 'wrong password' });
    const unknown = await post({ username: 'nobody', password: 'wrong password' });
    expect(wrong.statusCode).toBe(401);
    expect(unknown.statusCode).toBe(401);
    expect(wrong.json()).toEqual(unknown.json());
    expect(wrong.json()).toMatchObject({ status: 'error', message: 'Invalid username or password' });
    expect(wrong.cookies).toEqual([]);
  });

  it('writes every attempt to login activity (time, IP, username tried, success, user agent)', async () => {
    t = await createTestApp(dialect);
    await createUser(t);
    await post({ username: 'admin', password: 'nope-nope' }, { 'user-agent': 'UA-1' });
    await post({ username: 'Admin', password: PASSWORD }, { 'user-agent': 'UA-2' });
    const rows = await t.services.auth.loginActivity.recent(10);
    expect(rows.map((r) => [r.username, r.success, r.user_agent, r.ip, r.ts])).toEqual([
      ['admin', true, 'UA-2', '127.0.0.1', t.clock.now()],
      ['admin', false, 'UA-1', '127.0.0.1', t.clock.now()],
    ]);
    expect(JSON.stringify(rows)).not.toContain('nope-nope');
  });

  it('replaces a session the browser already holds (no fixation)', async () => {
    t = await createTestApp(dialect);
    await createUser(t);
    const first = await login(t);
    const res = await post({ username: 'admin', password: PASSWORD }, { cookie: first.cookie });
    expect(res.statusCode).toBe(200);
    expect(
      (await t.app.inject({ method: 'GET', url: '/auth/session', headers: { cookie: first.cookie } }))
        .statusCode,
    ).toBe(401);
  });
});

describeEachDb('login rate limit: 5 per minute and 25 per hour per client IP', (dialect) => {
  let t: TestApp;
  afterEach(() => t.close());
  const attempt = (ip = '127.0.0.1') =>
    t.app.inject({
      method: 'POST',
      url: '/auth/login',
      payload: { username: 'admin', password: 'wrong-password' },
      remoteAddress: ip,
    });

  it('refuses the 6th attempt within a minute with 429 and Retry-After, and allows again after the window', async () => {
    t = await createTestApp(dialect);
    await createUser(t);
    for (let i = 0; i < 5; i++) expect((await attempt()).statusCode).toBe(401);
    const refused = await attempt();
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ status: 'error' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect((await attempt('198.51.100.1')).statusCode).toBe(401); // another client is unaffected
    t.clock.advance(60_000);
    expect((await attempt()).statusCode).toBe(401);
    // Refused attempts are not audited as logins.
    expect(await t.services.auth.loginActivity.recent(100)).toHaveLength(7);
  });

  it('caps an hour at 25 attempts even when spread out', async () => {
    t = await createTestApp(dialect);
    await createUser(t);
    for (let i = 0; i < 25; i++) {
      expect((await attempt()).statusCode).toBe(401);
      t.clock.advance(61_000 / 5 + 1); // under 5 per minute
    }
    expect((await attempt()).statusCode).toBe(429);
  });

  it('takes LOGIN_RATE_LIMIT from the configuration', async () => {
    t = await createTestApp(dialect, { env: { LOGIN_RATE_LIMIT: '2 per minute' } });
    await createUser(t);
    expect((await attempt()).statusCode).toBe(401);
    expect((await attempt()).statusCode).toBe(401);
    expect((await attempt()).statusCode).toBe(429);
  });
});

describeEachDb('sessions: validity checked on every session route', (dialect) => {
  let t: TestApp;
  afterEach(() => t.close());
  const session = (cookie?: string) =>
    t.app.inject({ method: 'GET', url: '/auth/session', headers: cookie ? { cookie } : {} });

  it('GET /auth/session returns the user without secrets, or 401 JSON', async () => {
    t = await createTestApp(dialect);
    await createUser(t);
    const b = await login(t);
    const res = await session(b.cookie);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      status: 'success',
      user: { username: 'admin', is_admin: true, order_mode: 'auto' },
    });
    expect(res.body).not.toMatch(/argon2|password|totp_secret/);
    const none = await session();
    expect(none.statusCode).toBe(401);
    expect(none.json()).toMatchObject({ status: 'error', message: 'Session expired or not logged in' });
    expect((await session('algodesk_session=forged')).statusCode).toBe(401);
  });

  it('expires after the idle time without requests', async () => {
    t = await createTestApp(dialect, { env: { SESSION_IDLE_MINUTES: '30' } });
    await createUser(t);
    const b = await login(t);
    t.clock.advance(29 * 60_000);
    expect((await session(b.cookie)).statusCode).toBe(200); // activity renews the idle window
    t.clock.advance(29 * 60_000);
    expect((await session(b.cookie)).statusCode).toBe(200);
    t.clock.advance(30 * 60_000);
    expect((await session(b.cookie)).statusCode).toBe(401);
  });

  it('expires at its absolute lifetime even when active', async () => {
    t = await createTestApp(dialect, { env: { SESSION_IDLE_MINUTES: '60', SESSION_MAX_HOURS: '2' } });
    await createUser(t);
    const b = await login(t);
    for (let i = 0; i < 3; i++) {
      t.clock.advance(35 * 60_000);
      expect((await session(b.cookie)).statusCode).toBe(200);
    }
    t.clock.advance(16 * 60_000); // 121 minutes in
    expect((await session(b.cookie)).statusCode).toBe(401);
  });

  it('gives 401 at the next request once the session is revoked', async () => {
    t = await createTestApp(dialect);
    await createUser(t);
    const b = await login(t);
    const [active] = await t.services.auth.sessions.listActive();
    expect(active).toMatchObject({ username: 'admin', ip: '127.0.0.1' });
    expect(await t.services.auth.sessions.revokeById(active!.id)).toBe(true);
    expect((await session(b.cookie)).statusCode).toBe(401);
  });

  it('purges expired sessions in the background sweep', async () => {
    t = await createTestApp(dialect, { env: { SESSION_IDLE_MINUTES: '5' } });
    await createUser(t);
    await login(t);
    t.clock.advance(6 * 60_000);
    expect(await t.services.auth.sessions.purgeExpired()).toBe(1);
  });
});

describeEachDb(
  'CSRF: a per-session token in X-CSRF-Token on every state-changing session route',
  (dialect) => {
    let t: TestApp;
    afterEach(() => t.close());

    it('refuses a missing or wrong token with 403 and accepts the session token', async () => {
      t = await createTestApp(dialect);
      await createUser(t);
      const b = await login(t);
      const missing = await t.app.inject({
        method: 'POST',
        url: '/auth/logout',
        headers: { cookie: b.cookie },
      });
      expect(missing.statusCode).toBe(403);
      expect(missing.json()).toMatchObject({ status: 'error', code: 'csrf_failed' });
      const wrong = await t.app.inject({
        method: 'POST',
        url: '/auth/logout',
        headers: { cookie: b.cookie, 'x-csrf-token': 'x'.repeat(43) },
      });
      expect(wrong.statusCode).toBe(403);
      const other = await login(t); // another session's token does not count
      const crossed = await t.app.inject({
        method: 'POST',
        url: '/apikey',
        headers: { cookie: b.cookie, 'x-csrf-token': other.csrf },
      });
      expect(crossed.statusCode).toBe(403);
      const ok = await t.app.inject({ method: 'POST', url: '/auth/logout', headers: asBrowser(b) });
      expect(ok.statusCode).toBe(200);
      expect(ok.json()).toEqual({ status: 'success' });
      expect(
        (await t.app.inject({ method: 'GET', url: '/auth/session', headers: { cookie: b.cookie } }))
          .statusCode,
      ).toBe(401);
    });

    it('serves the token only to its session, uncached', async () => {
      t = await createTestApp(dialect);
      await createUser(t);
      const b = await login(t);
      const res = await t.app.inject({
        method: 'GET',
        url: '/auth/csrf-token',
        headers: { cookie: b.cookie },
      });
      expect(res.json()).toEqual({ csrf_token: b.csrf });
      expect(res.headers['cache-control']).toBe('no-store');
      expect((await t.app.inject({ method: 'GET', url: '/auth/csrf-token' })).statusCode).toBe(401);
    });
  },
);

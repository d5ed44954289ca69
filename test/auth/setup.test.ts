import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, describeEachDb, type TestApp } from '../helpers/test-app.js';

const PASSWORD = 'first-run horse battery';
/** Setup attempts share the login window (5 per minute by default); most tests need more. */
const ROOMY = { env: { LOGIN_RATE_LIMIT: '1000 per minute' } };

const setup = (t: TestApp, payload: unknown, headers: Record<string, string> = {}) =>
  t.app.inject({
    method: 'POST',
    url: '/auth/setup',
    headers: { 'content-type': 'application/json', ...headers },
    payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
  });

describeEachDb(
  'first-run setup: the administrator is created over HTTP only while no user exists',
  (dialect) => {
    let t: TestApp;
    afterEach(() => t.close());

    describe('docs/rules/auth.md#first-run-setup', () => {
      it('says setup is needed on an empty install and not once a user exists', async () => {
        t = await createTestApp(dialect, ROOMY);
        const before = await t.app.inject({ method: 'GET', url: '/auth/setup' });
        expect(before.statusCode).toBe(200);
        expect(before.headers['cache-control']).toBe('no-store');
        expect(before.json()).toEqual({ status: 'success', needs_setup: true });
        expect((await setup(t, { username: 'Admin', password: PASSWORD })).statusCode).toBe(200);
        expect((await t.app.inject({ method: 'GET', url: '/auth/setup' })).json()).toEqual({
          status: 'success',
          needs_setup: false,
        });
      });

      it('creates the administrator and opens a session, as /auth/login does', async () => {
        t = await createTestApp(dialect, ROOMY);
        const res = await setup(t, { username: 'Admin', password: PASSWORD, email: 'admin@example.com' });
        expect(res.statusCode).toBe(200);
        expect(res.json()).toMatchObject({
          status: 'success',
          user: { username: 'admin', email: 'admin@example.com', is_admin: true, totp_enabled: false },
        });
        const cookie = res.cookies.find((c) => c.name === 'algodesk_session');
        expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
        const headers = { cookie: `algodesk_session=${cookie!.value}` };
        const session = await t.app.inject({ method: 'GET', url: '/auth/session', headers });
        expect(session.json()).toMatchObject({ user: { username: 'admin', is_admin: true } });
        const csrf = await t.app.inject({ method: 'GET', url: '/auth/csrf-token', headers });
        expect(csrf.statusCode).toBe(200);
        // The password signs in afterwards like any other.
        const login = await t.app.inject({
          method: 'POST',
          url: '/auth/login',
          payload: { username: 'admin', password: PASSWORD },
        });
        expect(login.statusCode).toBe(200);
      });

      it('refuses a second setup with 409 setup_done and writes nothing', async () => {
        t = await createTestApp(dialect, ROOMY);
        expect((await setup(t, { username: 'admin', password: PASSWORD })).statusCode).toBe(200);
        const again = await setup(t, { username: 'mallory', password: 'another password' });
        expect(again.statusCode).toBe(409);
        expect(again.json()).toMatchObject({ status: 'error', code: 'setup_done' });
        expect(again.cookies.find((c) => c.name === 'algodesk_session')).toBeUndefined();
        expect((await t.services.auth.users.list()).map((u) => u.username)).toEqual(['admin']);
      });

      it('refuses setup after the CLI created a user', async () => {
        t = await createTestApp(dialect, ROOMY);
        await t.services.auth.users.create({ username: 'cli-admin', password: PASSWORD });
        expect((await setup(t, { username: 'admin', password: PASSWORD })).statusCode).toBe(409);
      });

      it('lets exactly one of two concurrent setups win', async () => {
        t = await createTestApp(dialect, ROOMY);
        const [a, b] = await Promise.all([
          setup(t, { username: 'alice', password: PASSWORD }),
          setup(t, { username: 'bob', password: PASSWORD }),
        ]);
        expect([a.statusCode, b.statusCode].sort()).toEqual([200, 409]);
        const users = await t.services.auth.users.list();
        expect(users).toHaveLength(1);
        expect(users[0]!.is_admin).toBe(true);
      });
    });

    describe('bad input gets a 4xx with a clear message and writes no user', () => {
      it.each([
        ['malformed JSON', '{"username": "admin", "password": ', 400, /Malformed JSON/],
        ['a body that is not an object', '"admin"', 400, /JSON object/],
        ['a username of the wrong type', { username: 5, password: PASSWORD }, 400, /username/],
        ['a missing password', { username: 'admin' }, 400, /password: Missing data for required field/],
        [
          'an unknown field',
          { username: 'admin', password: PASSWORD, is_admin: false },
          400,
          /is_admin|additional/i,
        ],
        [
          'a weak password',
          { username: 'admin', password: 'short' },
          400,
          /password must be at least 8 characters/,
        ],
        [
          'a bad user name',
          { username: 'bad name!', password: PASSWORD },
          400,
          /username must be 1-64 characters/,
        ],
        [
          'a bad e-mail',
          { username: 'admin', password: PASSWORD, email: 'not-mail' },
          400,
          /email is not a valid/,
        ],
        [
          'a password over 1024 characters',
          { username: 'admin', password: 'x'.repeat(1025) },
          400,
          /password/,
        ],
      ])('%s', async (_what, payload, status, message) => {
        t = await createTestApp(dialect, ROOMY);
        const res = await setup(t, payload);
        expect(res.statusCode).toBe(status);
        expect(res.json()).toMatchObject({ status: 'error' });
        expect(res.json<{ message: string }>().message).toMatch(message);
        expect(await t.services.auth.users.count()).toBe(0);
      });

      it('names the field in `errors` for the form to show under it', async () => {
        t = await createTestApp(dialect, ROOMY);
        const res = await setup(t, { username: 'admin', password: 'short' });
        expect(res.json()).toMatchObject({ errors: { password: ['must be at least 8 characters'] } });
      });

      it('refuses a huge body with 413 and a form or text body with 415 (a cross-site form cannot set up)', async () => {
        t = await createTestApp(dialect, ROOMY);
        const huge = await setup(t, { username: 'admin', password: 'x'.repeat(2 * 1024 * 1024) });
        expect(huge.statusCode).toBe(413);
        expect(huge.json()).toMatchObject({ message: 'Request body is too large' });
        const form = await t.app.inject({
          method: 'POST',
          url: '/auth/setup',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: `username=admin&password=${PASSWORD}`,
        });
        expect(form.statusCode).toBe(415);
        // A cross-site form can send text/plain that looks like JSON: refused too.
        const plain = await t.app.inject({
          method: 'POST',
          url: '/auth/setup',
          headers: { 'content-type': 'text/plain' },
          payload: JSON.stringify({ username: 'admin', password: PASSWORD }),
        });
        expect(plain.statusCode).toBe(415);
        expect(plain.json()).toMatchObject({ code: 'unsupported_media_type' });
        expect(await t.services.auth.users.count()).toBe(0);
      });
    });

    describe('secrets never leave', () => {
      it('keeps the password out of answers and log lines, also when setup fails', async () => {
        t = await createTestApp(dialect, ROOMY);
        const bodies = [
          (await setup(t, { username: 'bad name!', password: PASSWORD })).body,
          (await setup(t, { username: 'admin', password: PASSWORD, extra: 1 })).body,
          (await setup(t, { username: 'admin', password: PASSWORD })).body,
          (await setup(t, { username: 'admin2', password: PASSWORD })).body,
        ];
        for (const body of bodies) expect(body).not.toContain(PASSWORD);
        expect(t.logs.join('\n')).toContain('administrator created by first-run setup');
        expect(t.logs.join('\n')).not.toContain(PASSWORD);
      });
    });

    describe('rate limit', () => {
      it('counts setup attempts against the login window of the address (5 per minute by default)', async () => {
        t = await createTestApp(dialect);
        const codes: number[] = [];
        for (let i = 0; i < 6; i++)
          codes.push((await setup(t, { username: 'admin', password: 'short' })).statusCode);
        expect(codes).toEqual([400, 400, 400, 400, 400, 429]);
        const login = await t.app.inject({
          method: 'POST',
          url: '/auth/login',
          payload: { username: 'admin', password: PASSWORD },
        });
        expect(login.statusCode).toBe(429);
      });
    });
  },
);

describeEachDb('UsersService.createFirst (middle tier)', (dialect) => {
  let t: TestApp;
  afterEach(() => t.close());

  it('creates the administrator once, with the rules of create, and refuses after', async () => {
    t = await createTestApp(dialect);
    const users = t.services.auth.users;
    await expect(users.createFirst({ username: 'admin', password: 'short' })).rejects.toMatchObject({
      statusCode: 400,
    });
    const row = await users.createFirst({ username: 'Root', password: PASSWORD });
    expect(row).toMatchObject({ username: 'root' });
    expect(row.password_hash).toMatch(/^\$argon2id\$/);
    await expect(users.createFirst({ username: 'other', password: PASSWORD })).rejects.toMatchObject({
      statusCode: 409,
      code: 'setup_done',
    });
    expect(await users.count()).toBe(1);
  });
});

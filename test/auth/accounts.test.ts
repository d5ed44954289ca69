/**
 * docs/rules/auth.md#account-management over HTTP: an administrator creates users (administrators
 * when asked), makes and unmakes administrators, sets passwords, resets two-factor, disables and
 * deletes users, never leaving the install without an enabled administrator; a user changes their
 * own password with the current one (and a fresh code while two-factor is on), which ends every
 * other session of theirs. Bad input answers 4xx and changes nothing; no password, secret or key
 * appears in an answer or a log line.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  asBrowser,
  appWithAdmin,
  describeEachDb,
  login,
  type Browser,
  type TestApp,
} from '../helpers/test-app.js';
import { codeAt, enroll, status } from '../helpers/totp.js';

const PW = 'correct horse battery';

describeEachDb('account management', (dialect) => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  const post = (b: Browser, url: string, payload?: object) =>
    t!.app.inject({ method: 'POST', url, headers: asBrowser(b), ...(payload ? { payload } : {}) });
  const del = (b: Browser, url: string) => t!.app.inject({ method: 'DELETE', url, headers: asBrowser(b) });
  const session = (b: Browser) =>
    t!.app.inject({ method: 'GET', url: '/auth/session', headers: { cookie: b.cookie } });
  const users = async (b: Browser) =>
    (
      (
        await t!.app.inject({ method: 'GET', url: '/admin/api/users', headers: { cookie: b.cookie } })
      ).json() as {
        data: Array<Record<string, unknown>>;
      }
    ).data;
  const newUser = async (admin: Browser, username: string, extra: object = {}) => {
    const res = await post(admin, '/admin/api/users', { username, password: PW, ...extra });
    expect(res.statusCode, res.body).toBe(201);
    return (res.json() as { data: { id: number } }).data.id;
  };

  describe('an administrator manages users', () => {
    it('creates a user and an administrator; the list shows role, two-factor and state', async () => {
      let admin: Browser;
      ({ t, admin } = await appWithAdmin(dialect));
      await newUser(admin, 'bob');
      await newUser(admin, 'carol', { admin: true, email: 'carol@example.com' });
      expect((await users(admin)).map((u) => [u.username, u.is_admin, u.totp_enabled, u.disabled])).toEqual([
        ['admin', true, false, false],
        ['bob', false, false, false],
        ['carol', true, false, false],
      ]);
      expect(JSON.stringify(await users(admin))).not.toMatch(/password|hash|secret/);
    });

    it('resets another user’s password (their sessions end) and two-factor (they sign in with the password alone)', async () => {
      let admin: Browser;
      ({ t, admin } = await appWithAdmin(dialect));
      const bobId = await newUser(admin, 'bob');
      const bob = await login(t, 'bob', PW);
      await enroll(t, bob, {
        enabled: true,
        required_for_login: true,
        required_for_mcp: false,
        required_for_password_reset: false,
      });
      expect(
        (await post(admin, `/admin/api/users/${bobId}/password`, { password: 'a new horse battery' }))
          .statusCode,
      ).toBe(200);
      expect((await session(bob)).statusCode).toBe(401); // ended
      const withOld = await t.app.inject({
        method: 'POST',
        url: '/auth/login',
        payload: { username: 'bob', password: PW },
      });
      expect(withOld.statusCode).toBe(401);
      // Two-factor is still required for bob's login: the password leads to the code step.
      const pending = await t.app.inject({
        method: 'POST',
        url: '/auth/login',
        payload: { username: 'bob', password: 'a new horse battery' },
      });
      expect(pending.json()).toMatchObject({ status: 'pending_totp' });
      const reset = await post(admin, `/admin/api/users/${bobId}/2fa/reset`);
      expect(reset.json()).toMatchObject({ data: { username: 'bob', totp_enabled: false } });
      const back = await login(t, 'bob', 'a new horse battery'); // no code asked any more
      expect((await status(t, back)).json()).toMatchObject({ totp_enabled: false });
    });

    it('disables a user (sign-in refused, sessions and API key revoked) and enables them again', async () => {
      let admin: Browser;
      ({ t, admin } = await appWithAdmin(dialect));
      const bobId = await newUser(admin, 'bob');
      const bob = await login(t, 'bob', PW);
      const { apikey } = await t.services.auth.apiKeys.regenerate(bobId);
      const ping = () => t!.app.inject({ method: 'POST', url: '/api/v1/ping', payload: { apikey } });
      expect((await ping()).statusCode).toBe(200);
      // An agent holds a token for bob (the MCP module's table, as its OAuth flow writes it).
      const db = t.db.database.db;
      await db
        .insertInto('oauth_tokens')
        .values({
          token_digest: 'a'.repeat(64),
          kind: 'access',
          client_id: 'agent',
          user_id: bobId,
          scope: 'read:account',
          family: 'f1',
          expires_at: t.clock.now() + 3_600_000,
          used_at: null,
          revoked_at: null,
          created_at: t.clock.now(),
        })
        .execute();
      const off = await post(admin, `/admin/api/users/${bobId}/disabled`, { disabled: true });
      expect(off.json()).toMatchObject({ data: { disabled: true } });
      expect((await session(bob)).statusCode).toBe(401);
      expect((await ping()).statusCode).toBe(403);
      const refused = await t.app.inject({
        method: 'POST',
        url: '/auth/login',
        payload: { username: 'bob', password: PW },
      });
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toMatchObject({ code: 'account_disabled' });
      const token = await db.selectFrom('oauth_tokens').select('revoked_at').executeTakeFirstOrThrow();
      expect(token.revoked_at).not.toBeNull(); // the agent's token was revoked with the account
      await post(admin, `/admin/api/users/${bobId}/disabled`, { disabled: false });
      await login(t, 'bob', PW);
      expect((await ping()).statusCode).toBe(403); // the old key stays revoked: bob issues a new one
    });

    it('deletes a user and what belongs to them', async () => {
      let admin: Browser;
      ({ t, admin } = await appWithAdmin(dialect));
      const bobId = await newUser(admin, 'bob');
      const bob = await login(t, 'bob', PW);
      await t.services.sandbox.books.funds(bobId); // opens bob's paper-trading account
      expect(
        (await t.db.database.db.selectFrom('sandbox_accounts').select('user_id').execute()).map((a) =>
          Number(a.user_id),
        ),
      ).toContain(bobId);
      expect((await del(admin, `/admin/api/users/${bobId}`)).statusCode).toBe(200);
      expect((await users(admin)).map((u) => u.username)).toEqual(['admin']);
      expect((await session(bob)).statusCode).toBe(401);
      expect((await del(admin, `/admin/api/users/${bobId}`)).statusCode).toBe(404);
      const sessions = await t.db.database.db.selectFrom('sessions').select('user_id').execute();
      expect(sessions.map((s) => Number(s.user_id))).toEqual([1]);
      // What had no foreign key to the user went with it too: the paper-trading account.
      const accounts = await t.db.database.db.selectFrom('sandbox_accounts').select('user_id').execute();
      expect(accounts.map((a) => Number(a.user_id))).not.toContain(bobId);
    });

    it('never leaves the install without an enabled administrator', async () => {
      let admin: Browser;
      ({ t, admin } = await appWithAdmin(dialect));
      for (const [url, payload] of [
        ['/admin/api/users/1/admin', { admin: false }],
        ['/admin/api/users/1/disabled', { disabled: true }],
      ] as const) {
        const res = await post(admin, url, payload);
        expect(res.statusCode, url).toBe(409);
        expect(res.json()).toMatchObject({ code: 'last_admin' });
      }
      expect((await del(admin, '/admin/api/users/1')).json()).toMatchObject({ code: 'last_admin' });
      // With a second administrator, the first may step down.
      const carolId = await newUser(admin, 'carol', { admin: true });
      expect((await post(admin, '/admin/api/users/1/admin', { admin: false })).statusCode).toBe(200);
      // Now admin is no administrator: the administrator routes refuse them.
      expect((await post(admin, `/admin/api/users/${carolId}/disabled`, { disabled: true })).statusCode).toBe(
        403,
      );
      const list = await t.app.inject({
        method: 'GET',
        url: '/admin/api/users',
        headers: { cookie: admin.cookie },
      });
      expect(list.statusCode).toBe(403);
    });

    it('refuses a user who is not an administrator, bad input and unknown ids, changing nothing', async () => {
      let admin: Browser;
      ({ t, admin } = await appWithAdmin(dialect));
      const bobId = await newUser(admin, 'bob');
      const bob = await login(t, 'bob', PW);
      expect((await post(bob, `/admin/api/users/1/disabled`, { disabled: true })).statusCode).toBe(403);
      expect((await post(bob, '/admin/api/users', { username: 'eve', password: PW })).statusCode).toBe(403);
      for (const [url, payload] of [
        ['/admin/api/users', { username: 'eve', password: 'short' }],
        ['/admin/api/users', { username: 'bob', password: PW }],
        ['/admin/api/users', { username: '', password: PW }],
        ['/admin/api/users', { username: 'x'.repeat(65), password: PW }],
        ['/admin/api/users', { username: 'eve', password: PW, admin: 'yes' }],
        [`/admin/api/users/${bobId}/admin`, { admin: 1 }],
        [`/admin/api/users/${bobId}/password`, { password: 'short' }],
        ['/admin/api/users/0/disabled', { disabled: true }],
        ['/admin/api/users/abc/disabled', { disabled: true }],
        [`/admin/api/users/99999/disabled`, { disabled: true }],
        [`/admin/api/users/99999/2fa/reset`, undefined],
      ] as const) {
        const res = await post(admin, url, payload);
        expect(res.statusCode, `${url} ${JSON.stringify(payload)}`).toBeGreaterThanOrEqual(400);
        expect(res.statusCode, url).toBeLessThan(500);
      }
      const malformed = await t.app.inject({
        method: 'POST',
        url: '/admin/api/users',
        headers: { ...asBrowser(admin), 'content-type': 'application/json' },
        payload: '{"username":',
      });
      expect(malformed.statusCode).toBe(400);
      expect((await users(admin)).map((u) => u.username)).toEqual(['admin', 'bob']);
      expect(t.logs.join('\n')).not.toContain(PW);
    });
  });

  describe('a user changes their own password', () => {
    it('with the current password; every other session of theirs ends, this one stays', async () => {
      ({ t } = await appWithAdmin(dialect));
      const here = await login(t);
      const elsewhere = await login(t);
      const wrong = await post(here, '/auth/password', {
        current_password: 'not it at all',
        new_password: 'a new horse battery',
      });
      expect(wrong.statusCode).toBe(400);
      expect(wrong.json()).toMatchObject({ code: 'wrong_password' });
      const short = await post(here, '/auth/password', { current_password: PW, new_password: 'short' });
      expect(short.statusCode).toBe(400);
      const ok = await post(here, '/auth/password', {
        current_password: PW,
        new_password: 'a new horse battery',
      });
      expect(ok.statusCode).toBe(200);
      // Three sessions existed: appWithAdmin's, here and elsewhere; two ended.
      expect(ok.json()).toMatchObject({ sessions_revoked: 2 });
      expect((await session(here)).statusCode).toBe(200);
      expect((await session(elsewhere)).statusCode).toBe(401);
      await login(t, 'admin', 'a new horse battery');
      expect(t.logs.join('\n')).not.toMatch(/a new horse battery|correct horse battery/);
    });

    it('while two-factor is on, only with a fresh code from the authenticator', async () => {
      ({ t } = await appWithAdmin(dialect));
      const here = await login(t);
      const { secret } = await enroll(t, here);
      const change = (code?: string) =>
        post(here, '/auth/password', {
          current_password: PW,
          new_password: 'a new horse battery',
          ...(code ? { totp_code: code } : {}),
        });
      const none = await change();
      expect(none.statusCode).toBe(400);
      expect(none.json()).toMatchObject({ code: 'totp_required' });
      expect((await change('000000')).json()).toMatchObject({ code: 'invalid_totp' });
      const code = codeAt(secret, t.clock.now());
      expect((await change(code)).statusCode).toBe(200);
      expect(JSON.stringify(t.logs)).not.toContain(code);
    });
  });
});

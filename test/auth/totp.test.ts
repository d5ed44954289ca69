import { afterEach, expect, it } from 'vitest';
import { fromDbBool } from '../../src/platform/db/database.js';
import { ALL_ON, codeAt, configure, enroll, MASTER_ONLY, setup, status, wrongCode } from '../helpers/totp.js';
import {
  appWithAdmin,
  asBrowser,
  createTestApp,
  describeEachDb,
  login,
  type Browser,
  type TestApp,
} from '../helpers/test-app.js';

const userRow = (t: TestApp) =>
  t.db.database.db.selectFrom('users').selectAll().where('username', '=', 'admin').executeTakeFirstOrThrow();

describeEachDb('two-factor enrollment: POST /auth/2fa/setup, enabled only with a valid code', (dialect) => {
  let t: TestApp;
  let admin: Browser;
  afterEach(() => t.close());

  it('returns the provisioning URI and an SVG QR code, uncached; the secret is stored sealed and pending', async () => {
    ({ t, admin } = await appWithAdmin(dialect));
    const res = await setup(t, admin);
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const body = res.json() as { otpauth_uri: string; qr_code: string; secret: string };
    expect(body.secret).toMatch(/^[A-Z2-7]{32}$/); // 160 bits, base32
    const uri = new URL(body.otpauth_uri);
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.host).toBe('totp');
    expect(uri.searchParams.get('secret')).toBe(body.secret);
    expect(uri.searchParams.get('algorithm')).toBe('SHA1');
    expect(uri.searchParams.get('digits')).toBe('6');
    expect(uri.searchParams.get('period')).toBe('30');
    expect(uri.searchParams.get('issuer')).toBe('algodesk');
    expect(body.qr_code).toMatch(/^data:image\/svg\+xml;base64,/);
    const svg = Buffer.from(body.qr_code.split(',')[1]!, 'base64').toString('utf8');
    expect(svg).toContain('<svg');

    const row = await userRow(t);
    expect(row.totp_secret).toBeNull();
    expect(row.totp_pending_secret).toMatch(/^v1\./);
    expect(JSON.stringify(row)).not.toContain(body.secret);
    expect(fromDbBool(row.totp_enabled)).toBe(false);
  });

  it('turns two-factor on only with a code of the pending secret, which then becomes the active one', async () => {
    ({ t, admin } = await appWithAdmin(dialect));
    const { secret } = (await setup(t, admin)).json() as { secret: string };
    const wrong = await configure(t, admin, { totp_code: wrongCode(secret, t.clock.now()), ...MASTER_ONLY });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toMatchObject({ status: 'error', code: 'invalid_totp' });
    expect(fromDbBool((await userRow(t)).totp_enabled)).toBe(false);

    const ok = await configure(t, admin, { totp_code: codeAt(secret, t.clock.now()), ...MASTER_ONLY });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ totp_enabled: true, totp_required_for_login: false });
    const row = await userRow(t);
    expect(row.totp_secret).toMatch(/^v1\./);
    expect(row.totp_pending_secret).toBeNull();
    expect(fromDbBool(row.totp_enabled)).toBe(true);
  });

  it('refuses a new enrollment while two-factor is on (409) and without a CSRF token (403)', async () => {
    ({ t, admin } = await appWithAdmin(dialect));
    const noCsrf = await t.app.inject({
      method: 'POST',
      url: '/auth/2fa/setup',
      headers: { cookie: admin.cookie },
    });
    expect(noCsrf.statusCode).toBe(403);
    await enroll(t, admin);
    const again = await setup(t, admin);
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ code: 'totp_enabled' });
  });
});

describeEachDb("GET /auth/2fa/status: flags and this session's marker (rule 4)", (dialect) => {
  let t: TestApp;
  let admin: Browser;
  afterEach(() => t.close());

  it('reports the flags, and last_totp_verified_at from this browser session only', async () => {
    ({ t, admin } = await appWithAdmin(dialect));
    expect((await status(t, admin)).json()).toEqual({
      status: 'success',
      totp_enabled: false,
      totp_required_for_login: false,
      totp_required_for_mcp: false,
      totp_required_for_password_reset: false,
      last_totp_verified_at: null,
    });
    const stampedAt = t.clock.now();
    await enroll(t, admin, { ...MASTER_ONLY, required_for_mcp: true });
    expect((await status(t, admin)).json()).toEqual({
      status: 'success',
      totp_enabled: true,
      totp_required_for_login: false,
      totp_required_for_mcp: true,
      totp_required_for_password_reset: false,
      last_totp_verified_at: new Date(stampedAt).toISOString(),
    });
    const other = await login(t); // another browser of the same user
    expect((await status(t, other)).json()).toMatchObject({
      totp_enabled: true,
      last_totp_verified_at: null,
    });
    expect((await t.app.inject({ method: 'GET', url: '/auth/2fa/status' })).statusCode).toBe(401);
  });
});

describeEachDb('POST /auth/2fa/configure: a valid current code for every change (rule 1)', (dialect) => {
  let t: TestApp;
  let admin: Browser;
  afterEach(() => t.close());

  it('refuses a change without a code, with a malformed code or with a wrong code, writing nothing', async () => {
    ({ t, admin } = await appWithAdmin(dialect));
    const { secret } = await enroll(t, admin, ALL_ON);
    const before = await userRow(t);
    const missing = await configure(t, admin, { ...MASTER_ONLY, enabled: false });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({
      code: 'validation_failed',
      errors: { totp_code: expect.any(Array) },
    });
    for (const totp_code of ['12345', '1234567', 'abcdef', '']) {
      expect((await configure(t, admin, { totp_code, ...MASTER_ONLY, enabled: false })).statusCode).toBe(400);
    }
    const wrong = await configure(t, admin, { totp_code: wrongCode(secret, t.clock.now()), ...MASTER_ONLY });
    expect(wrong.json()).toMatchObject({ code: 'invalid_totp' });
    const noCsrf = await t.app.inject({
      method: 'POST',
      url: '/auth/2fa/configure',
      headers: { cookie: admin.cookie },
      payload: { totp_code: codeAt(secret, t.clock.now()), ...MASTER_ONLY, enabled: false },
    });
    expect(noCsrf.statusCode).toBe(403);
    expect(await userRow(t)).toEqual(before);
  });

  it('disabling the master clears every purpose flag in the same write and restamps the marker', async () => {
    ({ t, admin } = await appWithAdmin(dialect));
    const { secret } = await enroll(t, admin, ALL_ON);
    t.clock.advance(90_000);
    const res = await configure(t, admin, {
      totp_code: codeAt(secret, t.clock.now()),
      ...ALL_ON,
      enabled: false,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      status: 'success',
      totp_enabled: false,
      totp_required_for_login: false,
      totp_required_for_mcp: false,
      totp_required_for_password_reset: false,
      last_totp_verified_at: new Date(t.clock.now()).toISOString(),
    });
    const row = await userRow(t);
    expect(
      [
        row.totp_enabled,
        row.totp_required_for_login,
        row.totp_required_for_mcp,
        row.totp_required_for_password_reset,
      ].map(fromDbBool),
    ).toEqual([false, false, false, false]);
    // The authenticator stays enrolled: turning it back on needs a code from it.
    t.clock.advance(30_000);
    const back = await configure(t, admin, { totp_code: codeAt(secret, t.clock.now()), ...MASTER_ONLY });
    expect(back.json()).toMatchObject({ totp_enabled: true });
  });

  it('ignores purpose flags while the master is off: login needs no code and status reports false', async () => {
    ({ t, admin } = await appWithAdmin(dialect));
    await enroll(t, admin, MASTER_ONLY);
    // Flags left on under a master that is off (written below the service).
    await t.db.database.db
      .updateTable('users')
      .set({
        totp_enabled: 0,
        totp_required_for_login: 1,
        totp_required_for_mcp: 1,
        totp_required_for_password_reset: 1,
      })
      .execute();
    const res = await t.app.inject({
      method: 'POST',
      url: '/auth/login',
      payload: { username: 'admin', password: 'correct horse battery' },
    });
    expect(res.json()).toEqual({ status: 'success' });
    expect((await status(t, admin)).json()).toMatchObject({
      totp_enabled: false,
      totp_required_for_login: false,
      totp_required_for_mcp: false,
      totp_required_for_password_reset: false,
    });
    expect(t.services.auth.login.totp(t.config.appKey).isRequired(await userRow(t), 'login')).toBe(false);
  });

  it('refuses a change when no authenticator was ever set up (409)', async () => {
    ({ t, admin } = await appWithAdmin(dialect));
    const res = await configure(t, admin, { totp_code: '123456', ...MASTER_ONLY });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ code: 'totp_not_enrolled' });
  });
});

describeEachDb('code window: RFC 6238, 30 s steps, ±1 step accepted', (dialect) => {
  let t: TestApp;
  let admin: Browser;
  afterEach(() => t.close());

  it('accepts the codes of -30 s and +30 s and refuses those of -60 s and +60 s', async () => {
    ({ t, admin } = await appWithAdmin(dialect));
    const { secret } = await enroll(t, admin);
    t.clock.advance(10 * 60_000 + 7_000); // mid-step
    const now = t.clock.now();
    const at = (offset: number) =>
      configure(t, admin, { totp_code: codeAt(secret, now + offset), ...MASTER_ONLY });
    for (const offset of [-60_000, 60_000, -90_000, 90_000]) {
      expect((await at(offset)).json(), `offset ${offset}`).toMatchObject({ code: 'invalid_totp' });
    }
    expect((await at(-30_000)).statusCode).toBe(200);
    expect((await at(30_000)).statusCode).toBe(200);
  });
});

describeEachDb('replay: a code already used (in its step or before a later one) is refused', (dialect) => {
  let t: TestApp;
  let admin: Browser;
  let second: TestApp | undefined;
  afterEach(async () => {
    await second?.close();
    second = undefined;
    await t.close();
  });

  it('refuses the same code twice in its step, and a code of an earlier step after a later one', async () => {
    ({ t, admin } = await appWithAdmin(dialect));
    const { secret } = await enroll(t, admin);
    const code = codeAt(secret, t.clock.now());
    expect((await configure(t, admin, { totp_code: code, ...MASTER_ONLY })).statusCode).toBe(200);
    t.clock.advance(10_000); // same step
    const replay = await configure(t, admin, { totp_code: code, ...MASTER_ONLY });
    expect(replay.statusCode).toBe(400);
    expect(replay.json()).toMatchObject({ code: 'totp_replayed' });
    // A code of the next step is fine; the previous step's code is then refused.
    t.clock.advance(30_000);
    expect(
      (await configure(t, admin, { totp_code: codeAt(secret, t.clock.now() + 30_000), ...MASTER_ONLY }))
        .statusCode,
    ).toBe(200);
    const older = await configure(t, admin, { totp_code: codeAt(secret, t.clock.now()), ...MASTER_ONLY });
    expect(older.json()).toMatchObject({ code: 'totp_replayed' });
  });

  it('refuses a code used on one instance when it reaches a second instance on the same database', async () => {
    ({ t, admin } = await appWithAdmin(dialect));
    const { secret } = await enroll(t, admin);
    second = await createTestApp(dialect, { db: t.db, clock: t.clock });
    const onSecond = await login(second);
    const code = codeAt(secret, t.clock.now());
    expect((await configure(t, admin, { totp_code: code, ...MASTER_ONLY })).statusCode).toBe(200);
    const res = await second.app.inject({
      method: 'POST',
      url: '/auth/2fa/configure',
      headers: asBrowser(onSecond),
      payload: { totp_code: code, ...MASTER_ONLY },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'totp_replayed' });
  });
});

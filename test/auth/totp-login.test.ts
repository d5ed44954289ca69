import { afterEach, expect, it } from 'vitest';
import { sha256Hex } from '../../src/platform/crypto.js';
import { ALL_ON, codeAt, enroll, MASTER_ONLY, recorder, setup, status, wrongCode } from '../helpers/totp.js';
import { appWithAdmin, describeEachDb, type Browser, type TestApp } from '../helpers/test-app.js';

const PASSWORD = 'correct horse battery';
const LOGIN_ON = { ...MASTER_ONLY, required_for_login: true };

/** A browser's password step: the pending cookie (if any) and the response. */
async function passwordStep(t: TestApp, payload = { username: 'admin', password: PASSWORD }) {
  const res = await t.app.inject({ method: 'POST', url: '/auth/login', payload });
  const pending = res.cookies.find((c) => c.name === 'algodesk_totp_pending');
  return { res, pending: pending ? `algodesk_totp_pending=${pending.value}` : undefined, raw: pending };
}

const totpStep = (t: TestApp, pendingCookie: string | undefined, totp_code: string) =>
  t.app.inject({
    method: 'POST',
    url: '/auth/login/totp',
    payload: { totp_code },
    headers: pendingCookie ? { cookie: pendingCookie } : {},
  });

const session = (t: TestApp, cookie: string) =>
  t.app.inject({ method: 'GET', url: '/auth/session', headers: { cookie } });

describeEachDb('login with TOTP: pending after the password, a session after the code', (dialect) => {
  let t: TestApp;
  let admin: Browser;
  afterEach(() => t.close());

  it('answers {"status":"pending_totp"} with no session; the code opens a stamped session once', async () => {
    ({ t, admin } = await appWithAdmin(dialect));
    const { secret } = await enroll(t, admin, LOGIN_ON);
    const { res, pending, raw } = await passwordStep(t);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'pending_totp' });
    expect(res.cookies.find((c) => c.name === 'algodesk_session')?.value ?? '').toBe('');
    expect(raw).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/auth/login', maxAge: 300 });
    // The pending marker is no session, and the table holds only its digest.
    expect((await session(t, `algodesk_session=${raw!.value}`)).statusCode).toBe(401);
    const rows = await t.db.database.db.selectFrom('pending_totp_logins').selectAll().execute();
    expect(rows.map((r) => r.id)).toEqual([sha256Hex(raw!.value)]);
    expect(JSON.stringify(rows)).not.toContain(raw!.value);

    t.clock.advance(20_000);
    const done = await totpStep(t, pending, codeAt(secret, t.clock.now()));
    expect(done.statusCode).toBe(200);
    expect(done.json()).toEqual({ status: 'success' });
    const cookie = `algodesk_session=${done.cookies.find((c) => c.name === 'algodesk_session')!.value}`;
    expect((await session(t, cookie)).statusCode).toBe(200);
    const st = await t.app.inject({ method: 'GET', url: '/auth/2fa/status', headers: { cookie } });
    expect(st.json()).toMatchObject({ last_totp_verified_at: new Date(t.clock.now()).toISOString() });
    // Single use: the pending login is gone.
    t.clock.advance(30_000);
    const again = await totpStep(t, pending, codeAt(secret, t.clock.now()));
    expect(again.statusCode).toBe(401);
    expect(again.json()).toMatchObject({ code: 'totp_login_expired' });
    expect(await t.db.database.db.selectFrom('pending_totp_logins').selectAll().execute()).toEqual([]);
  });

  it('keeps the pending login after a wrong code, so the right code still completes it', async () => {
    ({ t, admin } = await appWithAdmin(dialect));
    const { secret } = await enroll(t, admin, LOGIN_ON);
    const { pending } = await passwordStep(t);
    const wrong = await totpStep(t, pending, wrongCode(secret, t.clock.now()));
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toMatchObject({ status: 'error', code: 'invalid_totp' });
    expect(wrong.cookies.find((c) => c.name === 'algodesk_session')).toBeUndefined();
    expect((await totpStep(t, pending, codeAt(secret, t.clock.now()))).statusCode).toBe(200);
  });

  it('lets the pending login live five minutes: at 4:59 the code works, at 5:00 the flow is gone (401)', async () => {
    ({ t, admin } = await appWithAdmin(dialect));
    const { secret } = await enroll(t, admin, LOGIN_ON);
    const first = await passwordStep(t);
    t.clock.advance(5 * 60_000 - 1_000);
    expect((await totpStep(t, first.pending, codeAt(secret, t.clock.now()))).statusCode).toBe(200);

    t.clock.advance(60_000);
    const second = await passwordStep(t);
    t.clock.advance(5 * 60_000);
    const late = await totpStep(t, second.pending, codeAt(secret, t.clock.now()));
    expect(late.statusCode).toBe(401);
    expect(late.json()).toMatchObject({ code: 'totp_login_expired' });
    // Starting again works.
    const third = await passwordStep(t);
    expect((await totpStep(t, third.pending, codeAt(secret, t.clock.now() + 30_000))).statusCode).toBe(200);
  });

  it('answers 401 without a pending login, and refuses a replayed code', async () => {
    ({ t, admin } = await appWithAdmin(dialect));
    const { secret } = await enroll(t, admin, LOGIN_ON);
    expect((await totpStep(t, undefined, codeAt(secret, t.clock.now()))).json()).toMatchObject({
      code: 'totp_login_expired',
    });
    t.clock.advance(60_000); // out of the login rate limit's minute
    const a = await passwordStep(t);
    const b = await passwordStep(t);
    const code = codeAt(secret, t.clock.now());
    expect((await totpStep(t, a.pending, code)).statusCode).toBe(200);
    const replay = await totpStep(t, b.pending, code);
    expect(replay.statusCode).toBe(401);
    expect(replay.json()).toMatchObject({ code: 'totp_replayed' });
  });

  it('opens a session directly when two-factor is on but not required for login', async () => {
    ({ t, admin } = await appWithAdmin(dialect));
    await enroll(t, admin, { ...ALL_ON, required_for_login: false });
    const { res, pending } = await passwordStep(t);
    expect(res.json()).toEqual({ status: 'success' });
    expect(pending).toBeUndefined();
  });
});

describeEachDb('login with TOTP: a wrong code counts against the login rate limit', (dialect) => {
  let t: TestApp;
  let admin: Browser;
  afterEach(() => t.close());

  it('refuses with 429 once password and code attempts together reach LOGIN_RATE_LIMIT', async () => {
    ({ t, admin } = await appWithAdmin(dialect, { env: { LOGIN_RATE_LIMIT: '4 per minute' } }));
    t.clock.advance(60_000); // the helper's own login leaves the window
    const { secret } = await enroll(t, admin, LOGIN_ON);
    t.clock.advance(60_000);
    const { pending } = await passwordStep(t); // 1
    expect((await totpStep(t, pending, wrongCode(secret, t.clock.now()))).statusCode).toBe(401); // 2
    expect((await totpStep(t, pending, wrongCode(secret, t.clock.now() + 60_000))).statusCode).toBe(401); // 3
    expect((await totpStep(t, pending, wrongCode(secret, t.clock.now() + 120_000))).statusCode).toBe(401); // 4
    const limited = await totpStep(t, pending, codeAt(secret, t.clock.now()));
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // The pending login survived the wrong codes; after the window the right code completes it.
    t.clock.advance(60_000);
    expect((await totpStep(t, pending, codeAt(secret, t.clock.now()))).statusCode).toBe(200);
  });
});

describeEachDb('two-factor secrets never leave: secret, URI and submitted codes', (dialect) => {
  let t: TestApp;
  let admin: Browser;
  afterEach(() => t.close());

  it('a full enrollment + login + configure run leaves none of them in any log line or later response', async () => {
    ({ t, admin } = await appWithAdmin(dialect, { env: { LOG_LEVEL: 'trace' } }));
    const { bodies, call } = recorder(t);
    const setupRes = await setup(t, admin);
    const { secret, otpauth_uri: uri } = setupRes.json() as { secret: string; otpauth_uri: string };
    const submitted: string[] = [];
    const code = (at = t.clock.now()) => {
      const c = codeAt(secret, at);
      submitted.push(c);
      return c;
    };
    const wrong = () => {
      const c = wrongCode(secret, t.clock.now());
      submitted.push(c);
      return c;
    };
    const post = (url: string, payload: object, headers: Record<string, string>) =>
      call({ method: 'POST', url, payload, headers });
    const browser = { cookie: admin.cookie, 'x-csrf-token': admin.csrf };

    await post('/auth/2fa/configure', { totp_code: wrong(), ...LOGIN_ON }, browser);
    await post('/auth/2fa/configure', { totp_code: code(), ...LOGIN_ON }, browser);
    await post('/auth/2fa/configure', { totp_code: submitted.at(-1)!, ...LOGIN_ON }, browser); // replay
    t.clock.advance(30_000);
    const { pending } = await passwordStep(t);
    await call({
      method: 'POST',
      url: '/auth/login/totp',
      payload: { totp_code: wrong() },
      headers: { cookie: pending! },
    });
    await call({
      method: 'POST',
      url: '/auth/login/totp',
      payload: { totp_code: 'x' + secret },
      headers: { cookie: pending! },
    });
    const done = await call({
      method: 'POST',
      url: '/auth/login/totp',
      payload: { totp_code: code() },
      headers: { cookie: pending! },
    });
    expect(done.statusCode).toBe(200);
    await call({ method: 'GET', url: '/auth/2fa/status', headers: { cookie: admin.cookie } });
    await call({ method: 'GET', url: '/auth/session', headers: { cookie: admin.cookie } });
    await call({ method: 'POST', url: '/auth/2fa/setup', headers: browser }); // 409 while on
    t.clock.advance(30_000);
    await post('/auth/2fa/configure', { totp_code: code(), ...ALL_ON, enabled: false }, browser);
    expect((await status(t, admin)).json()).toMatchObject({ totp_enabled: false });

    expect(t.logs.length).toBeGreaterThan(10); // the run really logged, at trace level
    const logs = t.logs.join('\n');
    const responses = bodies.join('\n');
    const secrets = { secret, uri, encodedUri: encodeURIComponent(uri), pending: pending!.split('=')[1]! };
    for (const [name, value] of Object.entries(secrets)) {
      expect(logs.includes(value), `${name} in logs`).toBe(false);
      expect(responses.includes(value), `${name} in later responses`).toBe(false);
    }
    expect(setupRes.body).toContain(secret); // shown once, at enrollment
    for (const c of submitted) {
      const asNumber = new RegExp(`(?<![0-9])${c}(?![0-9])`);
      expect(asNumber.test(logs), `code ${c} in logs`).toBe(false);
      expect(asNumber.test(responses), `code ${c} in responses`).toBe(false);
    }
    const row = await t.db.database.db.selectFrom('users').selectAll().executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(secret);
  });
});

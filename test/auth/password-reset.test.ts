/**
 * Issue 8 part 5, spec "Session routes: two-factor, mail, profile" rule 5: password reset by an
 * authenticator code or a mailed link (real SMTP conversation over STARTTLS with the test CA),
 * never revealing whether an account exists, single-use 15-minute tokens stored as digests, the
 * link built from HOST_SERVER, every session revoked on success.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { sha256Hex } from '../../src/platform/crypto.js';
import { TEST_CONNECT } from '../helpers/mail-app.js';
import { startSmtpServer, type SmtpTestServer } from '../helpers/smtp-test-server.js';
import { ALL_ON, codeAt, enroll, MASTER_ONLY, wrongCode } from '../helpers/totp.js';
import {
  appWithAdmin,
  createUser,
  describeEachDb,
  login,
  type Browser,
  type TestApp,
} from '../helpers/test-app.js';

const PASSWORD = 'correct horse battery';
const NEW_PASSWORD = 'a brand new passphrase 42';
const EMAIL = 'admin@example.com';
const HOST_SERVER = 'https://desk.example.com';
const RESET_OFF = { ...MASTER_ONLY, required_for_password_reset: false };

let t: TestApp;
let admin: Browser;
let smtp: SmtpTestServer | undefined;
afterEach(async () => {
  await t?.services.mail.whenIdle();
  await smtp?.close();
  smtp = undefined;
  await t?.close();
});

const start = async (dialect: 'sqlite' | 'postgres', env: Record<string, string> = {}) => {
  ({ t, admin } = await appWithAdmin(dialect, {
    env: { HOST_SERVER, RESET_RATE_LIMIT: '1000 per hour', ...env },
    mailConnect: TEST_CONNECT,
  }));
};

const reset = (payload: object, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'POST', url: '/auth/reset-password', payload, headers });

/** A mail server (STARTTLS, test CA) and the saved settings pointing at it. */
async function withMailServer() {
  smtp = await startSmtpServer('starttls', { username: 'mailer@example.com', password: 'smtp-pa55word' });
  await t.services.mail.settings.update({
    smtp_server: 'localhost',
    smtp_port: smtp.port,
    smtp_username: 'mailer@example.com',
    smtp_password: 'smtp-pa55word',
    smtp_use_tls: true,
    smtp_from_email: 'desk@example.com',
    smtp_helo_hostname: 'desk.example.com',
  });
  return smtp;
}

/** The reset link of the newest mail (quoted-printable soft breaks removed). */
async function mailedLink(srv: SmtpTestServer): Promise<string> {
  await t.services.mail.whenIdle();
  const raw = srv.received.at(-1)?.raw.replace(/=\r?\n/g, '');
  const link = /https?:\/\/[^\s"<>]+\/auth\/reset-password-email\/[A-Za-z0-9_-]{43}/.exec(raw ?? '')?.[0];
  if (!link) throw new Error('no reset link in the mail');
  return link;
}
const tokenOf = (link: string) => link.slice(link.lastIndexOf('/') + 1);

const sessionOk = async (cookie: string) =>
  (await t.app.inject({ method: 'GET', url: '/auth/session', headers: { cookie } })).statusCode === 200;

const loginStatus = async (password: string) =>
  (await t.app.inject({ method: 'POST', url: '/auth/login', payload: { username: 'admin', password } }))
    .statusCode;

const strip = (res: LightMyRequestResponse) => ({ status: res.statusCode, body: res.json() as unknown });

describeEachDb('password reset by authenticator code', (dialect) => {
  it('email → select_totp → totp gives a token; password sets it, ends every session, works once', async () => {
    await start(dialect);
    const { secret } = await enroll(t, admin, RESET_OFF);
    const other = await login(t);

    expect(strip(await reset({ step: 'email', email: EMAIL }))).toMatchObject({ status: 200 });
    expect((await reset({ step: 'select_totp' })).json()).toMatchObject({
      status: 'success',
      method: 'totp',
    });

    const wrong = await reset({ step: 'totp', email: EMAIL, totp_code: wrongCode(secret, t.clock.now()) });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toMatchObject({ status: 'error', code: 'invalid_totp' });

    const code = codeAt(secret, t.clock.now());
    const ok = await reset({ step: 'totp', email: EMAIL, totp_code: code });
    expect(ok.statusCode).toBe(200);
    const { token } = ok.json() as { token: string };
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The same code again (same step): replay refused.
    const replay = await reset({ step: 'totp', email: EMAIL, totp_code: code });
    expect(replay.statusCode).toBe(400);
    expect(replay.json()).toMatchObject({ code: 'totp_replayed' });

    const rows = await t.db.database.db.selectFrom('password_resets').selectAll().execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ id: sha256Hex(token), method: 'totp', used_at: null });
    expect(JSON.stringify(rows)).not.toContain(token);

    const done = await reset({ step: 'password', email: EMAIL, token, password: NEW_PASSWORD });
    expect(done.statusCode).toBe(200);
    expect(done.json()).toMatchObject({ status: 'success' });
    expect(await sessionOk(admin.cookie)).toBe(false);
    expect(await sessionOk(other.cookie)).toBe(false);
    expect(await loginStatus(PASSWORD)).toBe(401);
    expect(await loginStatus(NEW_PASSWORD)).toBe(200);

    const again = await reset({ step: 'password', token, password: 'yet another passphrase' });
    expect(again.statusCode).toBe(400);
    expect(again.json()).toMatchObject({ code: 'invalid_reset_token' });
    expect(await loginStatus(NEW_PASSWORD)).toBe(200);
  });

  it('refuses a token issued for another account, and a weak or mismatched password without spending it', async () => {
    await start(dialect);
    const { secret } = await enroll(t, admin, RESET_OFF);
    await createUser(t, 'bob', 'bob password 123');
    const { token } = (
      await reset({ step: 'totp', email: EMAIL, totp_code: codeAt(secret, t.clock.now()) })
    ).json() as { token: string };

    const foreign = await reset({
      step: 'password',
      email: 'bob@example.com',
      token,
      password: NEW_PASSWORD,
    });
    expect(foreign.json()).toMatchObject({ code: 'invalid_reset_token' });
    const short = await reset({ step: 'password', token, password: 'short' });
    expect(short.statusCode).toBe(400);
    expect(short.json()).toMatchObject({ errors: { password: [expect.stringMatching(/at least 8/)] } });
    const mismatch = await reset({
      step: 'password',
      token,
      password: NEW_PASSWORD,
      confirm_password: 'other one!',
    });
    expect(mismatch.statusCode).toBe(400);
    expect(await loginStatus(PASSWORD)).toBe(200);
    expect((await reset({ step: 'password', token, password: NEW_PASSWORD })).statusCode).toBe(200);
  });

  it('lets the token live 15 minutes', async () => {
    await start(dialect);
    const { secret } = await enroll(t, admin, RESET_OFF);
    const first = (
      await reset({ step: 'totp', email: EMAIL, totp_code: codeAt(secret, t.clock.now()) })
    ).json() as {
      token: string;
    };
    t.clock.advance(15 * 60_000);
    expect((await reset({ step: 'password', token: first.token, password: NEW_PASSWORD })).statusCode).toBe(
      400,
    );
    const second = (
      await reset({ step: 'totp', email: EMAIL, totp_code: codeAt(secret, t.clock.now()) })
    ).json() as {
      token: string;
    };
    t.clock.advance(15 * 60_000 - 1_000);
    expect((await reset({ step: 'password', token: second.token, password: NEW_PASSWORD })).statusCode).toBe(
      200,
    );
    // The reset deleted the user's other token; the periodic purge removes the spent one once expired.
    expect(await t.services.passwordReset.purgeExpired()).toBe(0);
    t.clock.advance(60_000);
    expect(await t.services.passwordReset.purgeExpired()).toBe(1);
    expect(await t.db.database.db.selectFrom('password_resets').selectAll().execute()).toEqual([]);
  });
});

describeEachDb('password reset by mailed link', (dialect) => {
  it('mails a HOST_SERVER link over STARTTLS; the link shows a form, the form sets the password once', async () => {
    await start(dialect);
    const srv = await withMailServer();
    const other = await login(t);

    const sent = await reset({ step: 'select_email', email: 'ADMIN@example.com' }, { host: 'evil.example' });
    expect(sent.statusCode).toBe(200);
    expect(sent.json()).toMatchObject({ status: 'success', method: 'email' });
    const link = await mailedLink(srv);
    // Built from HOST_SERVER, never from the request's Host header.
    expect(link.startsWith(`${HOST_SERVER}/auth/reset-password-email/`)).toBe(true);
    const m = srv.received.at(-1)!;
    expect(m.secure).toBe(true);
    expect(m.ehlo).toBe('desk.example.com');
    expect(m.rcptTo).toEqual([EMAIL]);
    const token = tokenOf(link);
    const path = new URL(link).pathname;

    // Opening the link (twice: mail scanners prefetch) does not spend it.
    for (let i = 0; i < 2; i++) {
      const page = await t.app.inject({ method: 'GET', url: path, headers: { accept: 'text/html' } });
      expect(page.statusCode).toBe(200);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.headers['cache-control']).toBe('no-store');
      expect(page.headers['referrer-policy']).toBe('no-referrer');
      expect(page.headers['content-security-policy']).toContain("default-src 'none'");
      expect(page.body).toContain('action="/auth/reset-password"');
      expect(page.body).toContain(`name="token" value="${token}"`);
    }
    const json = await t.app.inject({ method: 'GET', url: path, headers: { accept: 'application/json' } });
    expect(json.json()).toMatchObject({ status: 'success', valid: true });

    // The browser posts the page's form: an HTML answer.
    const form = new URLSearchParams({
      step: 'password',
      token,
      password: NEW_PASSWORD,
      confirm_password: NEW_PASSWORD,
    });
    const posted = await t.app.inject({
      method: 'POST',
      url: '/auth/reset-password',
      payload: form.toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html,*/*' },
    });
    expect(posted.statusCode).toBe(200);
    expect(posted.headers['content-type']).toMatch(/^text\/html/);
    expect(posted.body).toContain('reset successfully');
    expect(await sessionOk(admin.cookie)).toBe(false);
    expect(await sessionOk(other.cookie)).toBe(false);
    expect(await loginStatus(NEW_PASSWORD)).toBe(200);

    // Spent: the link and the form are dead.
    const dead = await t.app.inject({ method: 'GET', url: path, headers: { accept: 'text/html' } });
    expect(dead.statusCode).toBe(404);
    expect(dead.body).toContain('Invalid or expired reset token');
    const twice = await t.app.inject({
      method: 'POST',
      url: '/auth/reset-password',
      payload: form.toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
    });
    expect(twice.statusCode).toBe(400);
    expect(twice.body).toContain('Invalid or expired reset token');
  });

  it('a HOST_SERVER with credentials in it (a proxy login) mails a link without them', async () => {
    await start(dialect, { HOST_SERVER: 'https://ops:proxy-s3cret@desk.example.com/algo?x=1#f' });
    const srv = await withMailServer();
    expect((await reset({ step: 'select_email', email: EMAIL })).statusCode).toBe(200);
    const link = await mailedLink(srv);
    expect(link.startsWith('https://desk.example.com/algo/auth/reset-password-email/')).toBe(true);
    expect(srv.received.at(-1)!.raw).not.toContain('proxy-s3cret');
    expect(srv.received.at(-1)!.raw).not.toContain('ops:');
  });

  it('a newer link replaces the older one; a link dies after 15 minutes', async () => {
    await start(dialect);
    const srv = await withMailServer();
    await reset({ step: 'select_email', email: EMAIL });
    const older = tokenOf(await mailedLink(srv));
    await reset({ step: 'select_email', email: EMAIL });
    const newer = tokenOf(await mailedLink(srv));
    expect(newer).not.toBe(older);
    expect((await reset({ step: 'password', token: older, password: NEW_PASSWORD })).statusCode).toBe(400);
    t.clock.advance(15 * 60_000);
    expect((await reset({ step: 'password', token: newer, password: NEW_PASSWORD })).statusCode).toBe(400);
    expect(await loginStatus(PASSWORD)).toBe(200);
  });

  it('refuses the e-mail path at select_email when the account requires TOTP for reset; TOTP still works', async () => {
    await start(dialect);
    const srv = await withMailServer();
    const { secret } = await enroll(t, admin, ALL_ON);
    const refused = await reset({ step: 'select_email', email: EMAIL });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ status: 'error', code: 'totp_required' });
    expect((refused.json() as { message: string }).message).toMatch(/authenticator/i);
    await t.services.mail.whenIdle();
    expect(srv.received).toHaveLength(0);
    expect(await t.db.database.db.selectFrom('password_resets').selectAll().execute()).toEqual([]);

    const ok = await reset({ step: 'totp', email: EMAIL, totp_code: codeAt(secret, t.clock.now()) });
    expect(ok.statusCode).toBe(200);
  });

  it('offers no e-mail path while no mail server is configured, to anyone', async () => {
    await start(dialect);
    for (const email of [EMAIL, 'nobody@example.com']) {
      const res = await reset({ step: 'select_email', email });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 'email_reset_unavailable' });
    }
  });
});

describeEachDb('password reset never reveals whether an account exists', (dialect) => {
  it('answers an unknown address exactly like a known one at every step', async () => {
    await start(dialect);
    const srv = await withMailServer();
    const { secret } = await enroll(t, admin, RESET_OFF);
    const code = wrongCode(secret, t.clock.now());
    for (const step of [
      { step: 'email' },
      { step: 'select_totp' },
      { step: 'select_email' },
      { step: 'totp', totp_code: code },
    ]) {
      const known = await reset({ ...step, email: EMAIL });
      const unknown = await reset({ ...step, email: 'nobody@example.com' });
      expect(strip(unknown)).toEqual(strip(known));
    }
    await t.services.mail.whenIdle();
    // Only the real account got a message.
    expect(srv.received.map((m) => m.rcptTo)).toEqual([[EMAIL]]);
  });
});

describeEachDb('password reset: rate limit and bad input', (dialect) => {
  it('limits every reset request per client IP (RESET_RATE_LIMIT)', async () => {
    await start(dialect, { RESET_RATE_LIMIT: '3 per hour' });
    for (let i = 0; i < 3; i++) expect((await reset({ step: 'select_totp' })).statusCode).toBe(200);
    const limited = await reset({ step: 'select_totp' });
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBeDefined();
    const link = await t.app.inject({ method: 'GET', url: `/auth/reset-password-email/${'a'.repeat(43)}` });
    expect(link.statusCode).toBe(429);
    t.clock.advance(3_600_000);
    expect((await reset({ step: 'select_totp' })).statusCode).toBe(200);
  });

  it('answers malformed, mistyped, oversized and hostile input with a 4xx and writes nothing', async () => {
    await start(dialect);
    await withMailServer();
    const cases: { payload: string; type?: string }[] = [
      { payload: '{"step":' },
      { payload: '[]' },
      { payload: JSON.stringify({}) },
      { payload: JSON.stringify({ step: 'nope' }) },
      { payload: JSON.stringify({ step: 'email' }) },
      { payload: JSON.stringify({ step: 'email', email: 42 }) },
      { payload: JSON.stringify({ step: 'email', email: 'not an address' }) },
      { payload: JSON.stringify({ step: 'select_email', email: '<script>@x' }) },
      { payload: JSON.stringify({ step: 'totp', email: EMAIL }) },
      { payload: JSON.stringify({ step: 'totp', email: EMAIL, totp_code: '12ab56' }) },
      { payload: JSON.stringify({ step: 'password', password: NEW_PASSWORD }) },
      { payload: JSON.stringify({ step: 'password', token: "' OR 1=1 --", password: NEW_PASSWORD }) },
      { payload: JSON.stringify({ step: 'password', token: 'x'.repeat(129), password: NEW_PASSWORD }) },
      { payload: JSON.stringify({ step: 'password', token: 'a'.repeat(43), password: 'p'.repeat(5000) }) },
      { payload: JSON.stringify({ step: 'email', email: `${'a'.repeat(400)}@example.com` }) },
      { payload: 'step=password&token=%00%00', type: 'application/x-www-form-urlencoded' },
      {
        payload: JSON.stringify({ step: 'email', email: 'x@example.com', pad: 'z'.repeat(2 * 1024 * 1024) }),
      },
    ];
    for (const c of cases) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/auth/reset-password',
        payload: c.payload,
        headers: { 'content-type': c.type ?? 'application/json' },
      });
      expect(res.statusCode, c.payload.slice(0, 80)).toBeGreaterThanOrEqual(400);
      expect(res.statusCode, c.payload.slice(0, 80)).toBeLessThan(500);
      expect(res.json(), c.payload.slice(0, 80)).toMatchObject({ status: 'error' });
    }
    for (const url of [
      '/auth/reset-password-email/short',
      `/auth/reset-password-email/${'b'.repeat(43)}`,
      `/auth/reset-password-email/${encodeURIComponent('<img src=x>')}`,
      `/auth/reset-password-email/${'c'.repeat(300)}`,
    ]) {
      const res = await t.app.inject({ method: 'GET', url, headers: { accept: 'text/html' } });
      expect(res.statusCode, url).toBeGreaterThanOrEqual(400);
      expect(res.statusCode, url).toBeLessThan(500);
      expect(res.body).not.toContain('<img src=x>');
    }
    expect(await t.db.database.db.selectFrom('password_resets').selectAll().execute()).toEqual([]);
    expect(await loginStatus(PASSWORD)).toBe(200);
  });
});

describe('password reset keeps its secrets out of logs and the traffic log', () => {
  it('never logs the token, the code, the passwords or the address; the link path is masked', async () => {
    await start('sqlite');
    const srv = await withMailServer();
    const { secret } = await enroll(t, admin, RESET_OFF);
    await reset({ step: 'select_email', email: EMAIL });
    const link = await mailedLink(srv);
    const token = tokenOf(link);
    await t.app.inject({ method: 'GET', url: new URL(link).pathname, headers: { accept: 'text/html' } });
    const code = codeAt(secret, t.clock.now());
    const viaTotp = (await reset({ step: 'totp', email: EMAIL, totp_code: code })).json() as {
      token: string;
    };
    await reset({ step: 'password', token, password: NEW_PASSWORD });
    await t.services.observability.traffic.flush();
    const logs = t.logs.join('\n');
    expect(logs).toContain('password reset');
    for (const s of [token, viaTotp.token, code, secret, NEW_PASSWORD, 'smtp-pa55word']) {
      expect(logs).not.toContain(s);
    }
    expect(logs).not.toContain(EMAIL);
    const paths = (await t.db.database.db.selectFrom('traffic_log').select('path').execute()).map(
      (r) => r.path,
    );
    expect(paths).toContain('/auth/reset-password-email/[redacted]');
    expect(JSON.stringify(paths)).not.toContain(token);
  });
});

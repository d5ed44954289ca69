/**
 * Spec "Errors → Other": mail error messages and logs never contain credentials.
 * A failing server — wrong password (also one that echoes it back), a refused port, TLS with a
 * certificate the client does not trust, a server that hides STARTTLS — gives a sanitised error,
 * credentials are never sent over a connection that failed verification, and the staged
 * diagnostics report which stage failed and how long each took.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MailError } from './mail.plugin.js';
import { forward465, mailOnTempDb, TEST_CONNECT } from '../../../test/helpers/mail-app.js';
import { refusedPort, startSmtpServer, type SmtpTestServer } from '../../../test/helpers/smtp-test-server.js';

const USER = 'mailer@example.com';
const PASSWORD = 'S3cret-smtp-pass!word';
const WRONG = 'Wr0ng-smtp-pass!word';
const FROM = 'desk@example.com';
const TO = 'trader@example.com';
const b64 = (s: string) => Buffer.from(s).toString('base64');
/** Every form of a password a leak could take. */
const forms = (p: string) => [p, b64(p), b64(`\u0000${USER}\u0000${p}`), encodeURIComponent(p)];

let env: Awaited<ReturnType<typeof mailOnTempDb>>;
const servers: SmtpTestServer[] = [];
const start = async (...args: Parameters<typeof startSmtpServer>) => {
  const s = await startSmtpServer(...args);
  servers.push(s);
  return s;
};

beforeAll(async () => {
  env = await mailOnTempDb();
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await env.close();
});

/** The rejection of `p`, which must be a MailError. */
async function failure(p: Promise<unknown>): Promise<MailError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(MailError);
  return err as MailError;
}

function expectClean(text: string, ...passwords: string[]) {
  for (const p of passwords) for (const f of forms(p)) expect(text).not.toContain(f);
}

describe('a wrong password gives a sanitised error', () => {
  it('reports the refused login without the password', async () => {
    const srv = await start('starttls', { username: USER, password: PASSWORD });
    const mail = env.build();
    await mail.settings.update({
      smtp_server: 'localhost',
      smtp_port: srv.port,
      smtp_username: USER,
      smtp_password: WRONG,
      smtp_from_email: FROM,
    });

    const err = await failure(mail.send({ to: TO, subject: 's', text: 't' }));

    expect(err).toMatchObject({ statusCode: 502, code: 'mail_failed', mailCode: 'EAUTH', responseCode: 535 });
    expect(err.message).toMatch(/^The SMTP server refused the login: /);
    expectClean(JSON.stringify({ ...err, message: err.message, stack: err.stack }), WRONG);
    expect(srv.received).toHaveLength(0);
  });

  it('cuts the password out of a server reply that echoes it', async () => {
    const srv = await start('plain', { username: USER, password: PASSWORD, echoPasswordOnFailure: true });
    const mail = env.build();
    await mail.settings.update({
      smtp_server: '127.0.0.1',
      smtp_port: srv.port,
      smtp_username: USER,
      smtp_password: WRONG,
      smtp_use_tls: false,
      smtp_from_email: FROM,
    });

    const err = await failure(mail.send({ to: TO, subject: 's', text: 't' }));

    expect(srv.auths[0]?.password).toBe(WRONG); // the server did see it and echoed it
    expect(err.message).toContain('with password [redacted]');
    expectClean(err.message, WRONG);
  });
});

describe('connection failures', () => {
  it('a refused port is reported as such', async () => {
    const mail = env.build();
    await mail.settings.update({
      smtp_server: '127.0.0.1',
      smtp_port: await refusedPort(),
      smtp_username: USER,
      smtp_password: PASSWORD,
      smtp_from_email: FROM,
    });

    const err = await failure(mail.send({ to: TO, subject: 's', text: 't' }));

    expect(err.message).toMatch(/^Could not connect to the SMTP server \(ECONNREFUSED\)/);
    expectClean(err.message, PASSWORD);
  });

  it('an untrusted certificate on port 465 fails before any login is sent', async () => {
    const srv = await start('implicit_tls', { username: USER, password: PASSWORD, cert: 'untrusted' });
    const mail = env.build({ ...TEST_CONNECT, redirect: forward465(srv.port) });
    await mail.settings.update({
      smtp_server: 'localhost',
      smtp_port: 465,
      smtp_username: USER,
      smtp_password: PASSWORD,
      smtp_from_email: FROM,
    });

    const err = await failure(mail.send({ to: TO, subject: 's', text: 't' }));

    expect(err.message).toMatch(/^TLS with the SMTP server failed .*certificate/i);
    expectClean(err.message, PASSWORD);
    expect(srv.auths).toEqual([]);
    expect(srv.received).toEqual([]);
  });

  it('an untrusted certificate after STARTTLS fails before any login is sent', async () => {
    const srv = await start('starttls', { username: USER, password: PASSWORD, cert: 'untrusted' });
    const mail = env.build();
    await mail.settings.update({
      smtp_server: 'localhost',
      smtp_port: srv.port,
      smtp_username: USER,
      smtp_password: PASSWORD,
      smtp_from_email: FROM,
    });

    const err = await failure(mail.send({ to: TO, subject: 's', text: 't' }));

    expect(err.message).toMatch(/^TLS with the SMTP server failed .*certificate/i);
    expect(srv.auths).toEqual([]);
  });

  it('a certificate for another name is refused (the configured name is checked)', async () => {
    const srv = await start('implicit_tls', { username: USER, password: PASSWORD });
    const mail = env.build({ ...TEST_CONNECT, redirect: forward465(srv.port) });
    await mail.settings.update({
      smtp_server: 'mail.example.com',
      smtp_port: 465,
      smtp_username: USER,
      smtp_password: PASSWORD,
      smtp_from_email: FROM,
    });

    const err = await failure(mail.send({ to: TO, subject: 's', text: 't' }));

    expect(err.message).toMatch(/^TLS with the SMTP server failed .*mail\.example\.com/);
    expect(srv.auths).toEqual([]);
  });

  it('with smtp_use_tls, a server that does not offer STARTTLS is refused (no downgrade)', async () => {
    const srv = await start('plain', { username: USER, password: PASSWORD });
    const mail = env.build();
    await mail.settings.update({
      smtp_server: 'localhost',
      smtp_port: srv.port,
      smtp_username: USER,
      smtp_password: PASSWORD,
      smtp_use_tls: true,
      smtp_from_email: FROM,
    });

    const err = await failure(mail.send({ to: TO, subject: 's', text: 't' }));

    expect(err.message).toMatch(/STARTTLS/);
    expect(srv.auths).toEqual([]);
  });

  it('a background send that fails is logged, sanitised', async () => {
    const srv = await start('plain', { username: USER, password: PASSWORD, echoPasswordOnFailure: true });
    const mail = env.build();
    await mail.settings.update({
      smtp_server: '127.0.0.1',
      smtp_port: srv.port,
      smtp_username: USER,
      smtp_password: WRONG,
      smtp_use_tls: false,
      smtp_from_email: FROM,
    });

    mail.sendLater({ to: TO, subject: 's', text: 't' }, 'password_reset');
    await mail.whenIdle();

    const line = env.logs.find((l) => l.includes('mail not sent') && l.includes('password_reset'));
    expect(line).toBeDefined();
    expect(JSON.parse(line!).mail.error).toMatchObject({ code: 'EAUTH', responseCode: 535 });
  });
});

describe('staged diagnostics report each stage with its time', () => {
  const names = (r: { stages: Array<{ stage: string; result: string }> }) =>
    r.stages.map((s) => `${s.stage}:${s.result}`);

  it('implicit TLS: resolve, connect, tls, greeting, ehlo, auth', async () => {
    const srv = await start('implicit_tls', { username: USER, password: PASSWORD });
    const mail = env.build({ ...TEST_CONNECT, redirect: forward465(srv.port) });
    await mail.settings.update({
      smtp_server: 'localhost',
      smtp_port: 465,
      smtp_username: USER,
      smtp_password: PASSWORD,
      smtp_from_email: FROM,
      smtp_helo_hostname: 'desk.example.net',
    });

    const r = await mail.diagnose();

    expect(r).toMatchObject({ ok: true, security: 'implicit_tls', port: 465, server: 'localhost' });
    expect(names(r)).toEqual(['resolve:ok', 'connect:ok', 'tls:ok', 'greeting:ok', 'ehlo:ok', 'auth:ok']);
    for (const s of r.stages) expect(s.ms).toBeGreaterThanOrEqual(0);
    expect(r.stages.find((s) => s.stage === 'tls')!.detail).toMatch(/TLSv1\.[23].*verified/);
    expect(r.stages.find((s) => s.stage === 'greeting')!.detail).toMatch(/^220 /);
    expect(r.stages.find((s) => s.stage === 'ehlo')!.detail).toMatch(
      /EHLO desk\.example\.net accepted.*AUTH PLAIN LOGIN/,
    );
    expect(srv.auths).toEqual([expect.objectContaining({ username: USER, secure: true })]);
  });

  it('STARTTLS: tls after ehlo; plain: tls skipped; no username: auth skipped', async () => {
    const tlsSrv = await start('starttls', { username: USER, password: PASSWORD });
    const mail = env.build();
    await mail.settings.update({
      smtp_server: 'localhost',
      smtp_port: tlsSrv.port,
      smtp_username: USER,
      smtp_password: PASSWORD,
      smtp_from_email: FROM,
    });
    const r1 = await mail.diagnose();
    expect(r1).toMatchObject({ ok: true, security: 'starttls' });
    expect(names(r1)).toEqual(['resolve:ok', 'connect:ok', 'greeting:ok', 'ehlo:ok', 'tls:ok', 'auth:ok']);
    expect(r1.stages[4]!.detail).toMatch(/^STARTTLS: TLSv1\.[23]/);

    const plainSrv = await start('plain');
    await mail.settings.update({
      smtp_server: '127.0.0.1',
      smtp_port: plainSrv.port,
      smtp_use_tls: false,
      smtp_from_email: FROM,
    });
    const r2 = await mail.diagnose();
    expect(r2).toMatchObject({ ok: true, security: 'plain' });
    expect(names(r2)).toEqual([
      'resolve:ok',
      'connect:ok',
      'greeting:ok',
      'ehlo:ok',
      'tls:skipped',
      'auth:skipped',
    ]);
  });

  it('a refused port fails at connect and skips the rest', async () => {
    const mail = env.build();
    await mail.settings.update({
      smtp_server: '127.0.0.1',
      smtp_port: await refusedPort(),
      smtp_username: USER,
      smtp_password: PASSWORD,
      smtp_from_email: FROM,
    });

    const r = await mail.diagnose();

    expect(r.ok).toBe(false);
    expect(names(r)).toEqual([
      'resolve:ok',
      'connect:failed',
      'greeting:skipped',
      'ehlo:skipped',
      'tls:skipped',
      'auth:skipped',
    ]);
    expect(r.stages[1]!.detail).toMatch(/ECONNREFUSED/);
  });

  it('an untrusted certificate fails at tls; a wrong password fails at auth, sanitised', async () => {
    const bad = await start('starttls', { username: USER, password: PASSWORD, cert: 'untrusted' });
    const mail = env.build();
    await mail.settings.update({
      smtp_server: 'localhost',
      smtp_port: bad.port,
      smtp_username: USER,
      smtp_password: PASSWORD,
      smtp_from_email: FROM,
    });
    const r1 = await mail.diagnose();
    expect(names(r1)).toEqual([
      'resolve:ok',
      'connect:ok',
      'greeting:ok',
      'ehlo:ok',
      'tls:failed',
      'auth:skipped',
    ]);
    expect(r1.stages[4]!.detail).toMatch(/certificate/i);
    expect(bad.auths).toEqual([]);

    const echo = await start('plain', { username: USER, password: PASSWORD, echoPasswordOnFailure: true });
    await mail.settings.update({
      smtp_server: '127.0.0.1',
      smtp_port: echo.port,
      smtp_username: USER,
      smtp_password: WRONG,
      smtp_use_tls: false,
      smtp_from_email: FROM,
    });
    const r2 = await mail.diagnose();
    expect(names(r2)).toEqual([
      'resolve:ok',
      'connect:ok',
      'greeting:ok',
      'ehlo:ok',
      'tls:skipped',
      'auth:failed',
    ]);
    expect(r2.stages[5]!.detail).toContain('[redacted]');
    expectClean(JSON.stringify(r2), WRONG);
  });

  it('a host name that does not resolve fails at resolve', async () => {
    const mail = env.build();
    await mail.settings.update({
      smtp_server: 'no-such-host.invalid',
      smtp_port: 587,
      smtp_from_email: FROM,
    });
    const r = await mail.diagnose();
    expect(r.stages[0]).toMatchObject({ stage: 'resolve', result: 'failed' });
    expect(r.stages.slice(1).every((s) => s.result === 'skipped')).toBe(true);
  });
});

describe('no log line carries a password', () => {
  it('holds for every line captured in this file', () => {
    expect(env.logs.length).toBeGreaterThan(0);
    expectClean(env.logs.join('\n'), PASSWORD, WRONG);
  });
});

/**
 * Spec "Session routes: two-factor, mail, profile", outgoing mail: a real SMTP
 * conversation with `smtp-server` on loopback in three setups — implicit TLS on a "465-style"
 * listener, STARTTLS, plain — with the test CA of test/fixtures/smtp trusted by the client.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forward465, mailOnTempDb, TEST_CONNECT } from '../../../test/helpers/mail-app.js';
import { header, startSmtpServer, type SmtpTestServer } from '../../../test/helpers/smtp-test-server.js';

const USER = 'mailer@example.com';
const PASSWORD = 'Tr0ub4dor &3 "quoted" Δ';
const FROM = 'desk@example.com';
const TO = 'trader@example.com';

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

describe('port 465 opens an implicit-TLS connection from the start', () => {
  it('logs in and delivers over TLS, with the configured EHLO name', async () => {
    const srv = await start('implicit_tls', { username: USER, password: PASSWORD });
    const mail = env.build({ ...TEST_CONNECT, redirect: forward465(srv.port) });
    await mail.settings.update({
      smtp_server: 'localhost',
      smtp_port: 465,
      smtp_username: USER,
      smtp_password: PASSWORD,
      // Port 465 is TLS whatever this flag says.
      smtp_use_tls: false,
      smtp_from_email: FROM,
      smtp_helo_hostname: 'desk.example.net',
    });

    const result = await mail.send({
      to: TO,
      subject: 'Password reset',
      text: 'Line one of the message\nLine two of the message',
      html: '<p>Line one of the message</p>',
    });

    expect(result.messageId).toMatch(/@/);
    expect(srv.received).toHaveLength(1);
    const m = srv.received[0]!;
    expect(m.secure).toBe(true);
    expect(m.tlsProtocol).toMatch(/^TLSv1\.[23]$/);
    expect(m.ehlo).toBe('desk.example.net');
    expect(m.user).toBe(USER);
    expect(srv.auths).toEqual([
      expect.objectContaining({ username: USER, password: PASSWORD, secure: true }),
    ]);
    expect(m.mailFrom).toBe(FROM);
    expect(m.rcptTo).toEqual([TO]);
    expect(header(m.raw, 'From')).toBe(FROM);
    expect(header(m.raw, 'To')).toBe(TO);
    expect(header(m.raw, 'Subject')).toBe('Password reset');
    expect(m.raw).toContain('Line one of the message');
    expect(m.raw).toContain('Line two of the message');
    expect(m.raw).toContain('<p>Line one of the message</p>');
  });
});

describe('other ports open plain and upgrade with STARTTLS when smtp_use_tls is true', () => {
  it('upgrades before logging in; the EHLO name defaults to the server name', async () => {
    const srv = await start('starttls', { username: USER, password: PASSWORD });
    const mail = env.build();
    await mail.settings.update({
      smtp_server: 'localhost',
      smtp_port: srv.port,
      smtp_username: USER,
      smtp_password: PASSWORD,
      smtp_use_tls: true,
      smtp_from_email: FROM,
      smtp_helo_hostname: '',
    });

    await mail.send({ to: TO, subject: 'STARTTLS check', text: 'Body over STARTTLS' });

    const m = srv.received[0]!;
    expect(m.secure).toBe(true);
    expect(m.tlsProtocol).toMatch(/^TLSv1\.[23]$/);
    expect(m.ehlo).toBe('localhost');
    expect(srv.auths).toEqual([
      expect.objectContaining({ username: USER, password: PASSWORD, secure: true }),
    ]);
    expect(m.user).toBe(USER);
    expect(header(m.raw, 'Subject')).toBe('STARTTLS check');
    expect(m.raw).toContain('Body over STARTTLS');
  });
});

describe('smtp_use_tls false keeps a plain connection', () => {
  it('delivers without TLS; an IP server name is sent as an address literal in EHLO', async () => {
    const srv = await start('plain', { username: USER, password: PASSWORD });
    const mail = env.build();
    await mail.settings.update({
      smtp_server: '127.0.0.1',
      smtp_port: String(srv.port),
      smtp_username: USER,
      smtp_password: PASSWORD,
      smtp_use_tls: 'false',
      smtp_from_email: FROM,
    });

    await mail.send({ to: TO, subject: 'Plain check', text: 'Body in the clear' });

    const m = srv.received[0]!;
    expect(m.secure).toBe(false);
    expect(m.tlsProtocol).toBeNull();
    expect(m.ehlo).toBe('[127.0.0.1]');
    expect(srv.auths).toEqual([
      expect.objectContaining({ username: USER, password: PASSWORD, secure: false }),
    ]);
    expect(m.mailFrom).toBe(FROM);
    expect(m.raw).toContain('Body in the clear');
  });

  it('does not attempt STARTTLS even when the server offers it', async () => {
    const srv = await start('starttls');
    const mail = env.build();
    await mail.settings.update({
      smtp_server: 'localhost',
      smtp_port: srv.port,
      smtp_use_tls: false,
      smtp_from_email: FROM,
      smtp_helo_hostname: 'plain.example.net',
    });

    await mail.send({ to: TO, subject: 'No upgrade', text: 'Body' });

    expect(srv.received[0]).toMatchObject({ secure: false, user: null, ehlo: 'plain.example.net' });
    expect(srv.auths).toEqual([]);
  });
});

describe('sending off the request path', () => {
  it('sendLater returns at once and the message arrives in the background', async () => {
    const srv = await start('starttls', { username: USER, password: PASSWORD });
    const mail = env.build();
    await mail.settings.update({
      smtp_server: 'localhost',
      smtp_port: srv.port,
      smtp_username: USER,
      smtp_password: PASSWORD,
      smtp_from_email: FROM,
    });

    expect(mail.sendLater({ to: TO, subject: 'Later', text: 'Background body' }, 'test')).toBeUndefined();
    expect(srv.received).toHaveLength(0);
    await mail.whenIdle();

    expect(srv.received).toHaveLength(1);
    expect(srv.received[0]!.raw).toContain('Background body');
  });

  it('isConfigured follows the saved settings', async () => {
    const fresh = await mailOnTempDb();
    try {
      const mail = fresh.build();
      expect(await mail.isConfigured()).toBe(false);
      await expect(mail.send({ to: TO, subject: 's', text: 't' })).rejects.toMatchObject({
        statusCode: 409,
        code: 'mail_not_configured',
      });
      await mail.settings.update({ smtp_server: 'mail.example.com', smtp_from_email: FROM });
      expect(await mail.isConfigured()).toBe(true);
    } finally {
      await fresh.close();
    }
  });

  it('refuses a recipient that is not one address (no header or envelope injection)', async () => {
    const mail = env.build();
    for (const to of ['a@example.com, b@example.com', 'a@example.com\r\nBcc: x@example.com', 'nobody']) {
      await expect(mail.send({ to, subject: 's', text: 't' })).rejects.toMatchObject({ statusCode: 400 });
    }
  });
});

describe('no log line carries the password', () => {
  it('holds for every line written while sending', () => {
    const joined = env.logs.join('\n');
    expect(env.logs.some((l) => l.includes('mail sent'))).toBe(true);
    expect(joined).not.toContain(PASSWORD);
    expect(joined).not.toContain(Buffer.from(PASSWORD).toString('base64'));
  });
});

/**
 * Issue 8 part 4 through the routes: `POST /auth/test-smtp` (validated recipient, sanitised
 * failure), `POST /auth/debug-smtp` (stages with times), their rate limit, and a scan of every
 * captured log line for the password. Routes mounted as in mail-routes.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { describeEachDb } from '../helpers/test-app.js';
import { ROUTE_PASSWORD as PASSWORD, ROUTE_USER as USER, useMailRoutes, VALID } from '../helpers/mail-app.js';
import { startSmtpServer } from '../helpers/smtp-test-server.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');

describeEachDb('mail probe routes', (dialect) => {
  const c = useMailRoutes(dialect);
  const { post, stored } = c;

  describe('POST /auth/test-smtp and /auth/debug-smtp', () => {
    it('sends a test message to a validated recipient', async () => {
      const srv = await startSmtpServer('starttls', { username: USER, password: PASSWORD });
      c.servers.push(srv);
      await post('/auth/smtp-config', { ...VALID, smtp_server: 'localhost', smtp_port: srv.port });

      expect((await post('/auth/test-smtp', { recipient: 'not an address' })).json().errors).toHaveProperty(
        'recipient',
      );
      expect((await post('/auth/test-smtp', {})).statusCode).toBe(400);
      const sent = await post('/auth/test-smtp', { recipient: 'trader@example.com' });

      expect(sent.statusCode).toBe(200);
      expect(sent.json()).toEqual({ status: 'success', message: 'Test message sent to trader@example.com' });
      expect(srv.received).toHaveLength(1);
      expect(srv.received[0]).toMatchObject({
        rcptTo: ['trader@example.com'],
        secure: true,
        ehlo: 'desk.example.net',
      });
    });

    it('a failing server gives 502 with a sanitised message', async () => {
      const srv = await startSmtpServer('plain', {
        username: USER,
        password: 'other',
        echoPasswordOnFailure: true,
      });
      c.servers.push(srv);
      await post('/auth/smtp-config', {
        ...VALID,
        smtp_server: '127.0.0.1',
        smtp_port: srv.port,
        smtp_use_tls: false,
      });

      const res = await post('/auth/test-smtp', { recipient: 'trader@example.com' });

      expect(res.statusCode).toBe(502);
      expect(res.json()).toMatchObject({ status: 'error', code: 'mail_failed' });
      expect(res.json().message).toContain('[redacted]');
      expect(res.body).not.toContain(PASSWORD);
    });

    it('409 before mail is configured; administrator and CSRF required', async () => {
      expect((await post('/auth/test-smtp', { recipient: 'trader@example.com' })).json().code).toBe(
        'mail_not_configured',
      );
      expect((await post('/auth/debug-smtp', undefined)).statusCode).toBe(409);
      const noCsrf = await c.m.app.inject({
        method: 'POST',
        url: '/auth/debug-smtp',
        headers: { cookie: c.admin.cookie },
      });
      expect(noCsrf.statusCode).toBe(403);
    });

    it('debug-smtp reports each stage with its time', async () => {
      const srv = await startSmtpServer('starttls', { username: USER, password: PASSWORD });
      c.servers.push(srv);
      await post('/auth/smtp-config', { ...VALID, smtp_server: 'localhost', smtp_port: srv.port });

      const res = await post('/auth/debug-smtp', undefined);

      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body).toMatchObject({ status: 'success', ok: true, security: 'starttls' });
      expect(body.stages.map((s: { stage: string }) => s.stage)).toEqual([
        'resolve',
        'connect',
        'greeting',
        'ehlo',
        'tls',
        'auth',
      ]);
      for (const s of body.stages) expect(typeof s.ms).toBe('number');
      expect(res.body).not.toContain(PASSWORD);
    });

    it('the probes are rate-limited (10 per minute)', async () => {
      const codes: number[] = [];
      for (let i = 0; i < 11; i++) codes.push((await post('/auth/debug-smtp', undefined)).statusCode);
      expect(codes.slice(0, 10).every((c) => c === 409)).toBe(true);
      expect(codes[10]).toBe(429);
    });
  });

  it('no log line of the app or the mail routes carries the password', async () => {
    const srv = await startSmtpServer('plain', {
      username: USER,
      password: 'other',
      echoPasswordOnFailure: true,
    });
    c.servers.push(srv);
    await post('/auth/smtp-config', {
      ...VALID,
      smtp_server: '127.0.0.1',
      smtp_port: srv.port,
      smtp_use_tls: false,
    });
    await post('/auth/test-smtp', { recipient: 'trader@example.com' });
    await post('/auth/debug-smtp', undefined);
    c.m.mail.sendLater({ to: 'trader@example.com', subject: 's', text: 't' });
    await c.m.mail.whenIdle();

    const lines = [...c.t.logs, ...c.m.logs];
    expect(c.m.logs.some((l) => l.includes('mail not sent'))).toBe(true);
    const ciphertext = (await stored()).smtp_password_encrypted!;
    for (const secret of [PASSWORD, b64(PASSWORD), b64(`\u0000${USER}\u0000${PASSWORD}`), ciphertext]) {
      expect(lines.join('\n')).not.toContain(secret);
    }
  });
});

/**
 * Issue 8 part 3, spec "Session routes: two-factor, mail, profile" rules 2–3 and "Authentication"
 * (mail settings changes need a session plus the CSRF token): saving the mail settings (JSON or
 * form), validation, the kept password, and profile data without the password. The routes are
 * mounted by helpers/mail-app.ts on the real platform plugins and session guard (app.ts does not
 * wire the mail module yet); sessions come from logging in on the real app.
 */
import { describe, expect, it } from 'vitest';
import { describeEachDb } from '../helpers/test-app.js';
import {
  ROUTE_FROM as FROM,
  ROUTE_PASSWORD as PASSWORD,
  ROUTE_USER as USER,
  useMailRoutes,
  VALID,
} from '../helpers/mail-app.js';
import { startSmtpServer } from '../helpers/smtp-test-server.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');

describeEachDb('mail settings routes', (dialect) => {
  const c = useMailRoutes(dialect);
  const { post, postForm, stored, nonAdmin } = c;

  describe('POST /auth/smtp-config needs an administrator session and the CSRF token', () => {
    it('refuses a request without a session (401), without CSRF (403), from a non-admin (403)', async () => {
      expect((await post('/auth/smtp-config', VALID, null)).statusCode).toBe(401);
      const noCsrf = await c.m.app.inject({
        method: 'POST',
        url: '/auth/smtp-config',
        payload: VALID,
        headers: { cookie: c.admin.cookie },
      });
      expect(noCsrf.statusCode).toBe(403);
      expect(noCsrf.json().code).toBe('csrf_failed');
      expect((await post('/auth/smtp-config', VALID, await nonAdmin())).statusCode).toBe(403);
      expect((await stored()).smtp_server).toBeNull();
    });
  });

  describe('saving the mail settings', () => {
    it('saves JSON; the password is stored only as ciphertext', async () => {
      const res = await post('/auth/smtp-config', VALID);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        status: 'success',
        message: 'Mail settings saved',
        smtp: {
          smtp_server: 'smtp.example.com',
          smtp_port: 2525,
          smtp_username: USER,
          smtp_use_tls: true,
          smtp_from_email: FROM,
          smtp_helo_hostname: 'desk.example.net',
          smtp_password_set: true,
          smtp_configured: true,
        },
      });
      const row = await stored();
      expect(row.smtp_password_encrypted).toMatch(/^v1\./);
      expect(row.smtp_password_encrypted).not.toContain(PASSWORD);
      expect(res.body).not.toContain(PASSWORD);
      expect(res.body).not.toContain(row.smtp_password_encrypted!);
    });

    it('takes form fields; port 587 and use_tls true when omitted', async () => {
      const res = await postForm('/auth/smtp-config', {
        smtp_server: 'mail.example.org',
        smtp_from_email: 'ops@example.org',
      });
      expect(res.statusCode).toBe(200);
      expect(res.json().smtp).toMatchObject({
        smtp_server: 'mail.example.org',
        smtp_port: 587,
        smtp_use_tls: true,
        smtp_username: null,
        smtp_helo_hostname: null,
        smtp_password_set: false,
      });

      const off = await postForm('/auth/smtp-config', {
        smtp_server: 'mail.example.org',
        smtp_port: '465',
        smtp_use_tls: 'false',
        smtp_from_email: 'ops@example.org',
      });
      expect(off.json().smtp).toMatchObject({ smtp_port: 465, smtp_use_tls: false });
    });

    it('a blank password keeps the stored one', async () => {
      await post('/auth/smtp-config', VALID);
      const before = (await stored()).smtp_password_encrypted;
      const res = await postForm('/auth/smtp-config', {
        ...Object.fromEntries(Object.entries(VALID).map(([k, v]) => [k, String(v)])),
        smtp_server: 'smtp2.example.com',
        smtp_password: '',
      });
      expect(res.statusCode).toBe(200);
      expect(res.json().smtp).toMatchObject({ smtp_server: 'smtp2.example.com', smtp_password_set: true });
      expect((await stored()).smtp_password_encrypted).toBe(before);
      const { smtp_password: _omitted, ...withoutPassword } = VALID;
      await post('/auth/smtp-config', withoutPassword);
      expect((await stored()).smtp_password_encrypted).toBe(before);
    });

    it('the kept password still logs in', async () => {
      const srv = await startSmtpServer('plain', { username: USER, password: PASSWORD });
      c.servers.push(srv);
      await post('/auth/smtp-config', {
        ...VALID,
        smtp_server: '127.0.0.1',
        smtp_port: srv.port,
        smtp_use_tls: false,
      });
      await post('/auth/smtp-config', {
        ...VALID,
        smtp_server: '127.0.0.1',
        smtp_port: srv.port,
        smtp_use_tls: false,
        smtp_password: '',
      });

      const res = await post('/auth/test-smtp', { recipient: 'trader@example.com' });

      expect(res.statusCode).toBe(200);
      expect(srv.auths).toEqual([expect.objectContaining({ username: USER, password: PASSWORD })]);
    });
  });

  describe('validation answers 400 with messages by field and writes nothing', () => {
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['a host name with a space', { smtp_server: 'smtp example.com' }, 'smtp_server'],
      ['a host name with a scheme', { smtp_server: 'smtp://example.com' }, 'smtp_server'],
      ['a blank host', { smtp_server: '  ' }, 'smtp_server'],
      ['port 0', { smtp_port: 0 }, 'smtp_port'],
      ['port 65536', { smtp_port: 65536 }, 'smtp_port'],
      ['a port that is not a number', { smtp_port: '25a' }, 'smtp_port'],
      ['a fractional port', { smtp_port: 25.5 }, 'smtp_port'],
      ['a sender that is not an address', { smtp_from_email: 'desk' }, 'smtp_from_email'],
      ['a sender with a display name', { smtp_from_email: 'Desk <desk@example.com>' }, 'smtp_from_email'],
      ['a bad HELO name', { smtp_helo_hostname: 'desk_example!' }, 'smtp_helo_hostname'],
      ['a use_tls that is not a flag', { smtp_use_tls: 'maybe' }, 'smtp_use_tls'],
      ['a username with a line break', { smtp_username: 'a\r\nMAIL FROM:<x@y.z>' }, 'smtp_username'],
      ['an unknown field', { smtp_colour: 'blue' }, 'smtp_colour'],
    ];
    it('refuses each malformed field', async () => {
      for (const [name, change, field] of cases) {
        const res = await post('/auth/smtp-config', { ...VALID, ...change });
        expect(res.statusCode, name).toBe(400);
        const body = res.json();
        expect(body.status, name).toBe('error');
        if (field !== 'smtp_colour') expect(Object.keys(body.errors), name).toContain(field);
        expect(res.body, name).not.toContain(PASSWORD);
        expect((await stored()).smtp_server, name).toBeNull();
      }
    });

    it('reports every bad field at once, form bodies too', async () => {
      const res = await postForm('/auth/smtp-config', {
        smtp_server: 'bad host',
        smtp_port: '99999',
        smtp_from_email: 'nobody',
      });
      expect(res.statusCode).toBe(400);
      expect(Object.keys(res.json().errors).sort()).toEqual(['smtp_from_email', 'smtp_port', 'smtp_server']);
    });

    it('a username needs a password when none is stored', async () => {
      const { smtp_password: _p, ...noPassword } = VALID;
      const res = await post('/auth/smtp-config', noPassword);
      expect(res.statusCode).toBe(400);
      expect(res.json().errors).toHaveProperty('smtp_password');
    });

    it('accepts IPv4 and IPv6 servers', async () => {
      for (const host of ['192.0.2.10', '2001:db8::25']) {
        const res = await post('/auth/smtp-config', { ...VALID, smtp_server: host });
        expect(res.statusCode).toBe(200);
      }
    });
  });

  describe('GET /auth/profile-data shows the mail settings, never the password', () => {
    it('says only whether a password is set', async () => {
      const empty = await c.m.app.inject({
        method: 'GET',
        url: '/auth/profile-data',
        headers: { cookie: c.admin.cookie },
      });
      expect(empty.json().data.smtp).toMatchObject({
        smtp_password_set: false,
        smtp_configured: false,
        smtp_port: 587,
      });

      await post('/auth/smtp-config', VALID);
      const res = await c.m.app.inject({
        method: 'GET',
        url: '/auth/profile-data',
        headers: { cookie: c.admin.cookie },
      });
      expect(res.statusCode).toBe(200);
      const { smtp_password: _p, ...withoutPassword } = VALID;
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.json()).toMatchObject({
        status: 'success',
        data: { username: 'admin', is_admin: true, smtp: { ...withoutPassword, smtp_password_set: true } },
      });
      const ciphertext = (await stored()).smtp_password_encrypted!;
      for (const secret of [PASSWORD, b64(PASSWORD), ciphertext, ciphertext.split('.')[3]!]) {
        expect(res.body).not.toContain(secret);
      }
      expect(res.body).not.toMatch(/smtp_password"|encrypted/);
    });

    it('needs a session; other users do not see the mail settings', async () => {
      expect((await c.m.app.inject({ method: 'GET', url: '/auth/profile-data' })).statusCode).toBe(401);
      await post('/auth/smtp-config', VALID);
      const res = await c.m.app.inject({
        method: 'GET',
        url: '/auth/profile-data',
        headers: { cookie: (await nonAdmin()).cookie },
      });
      expect(res.json()).toEqual({
        status: 'success',
        data: { username: 'viewer', is_admin: false, smtp: null },
      });
    });
  });
});

import { describe } from 'vitest';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { hmacSha256Hex } from '../../src/platform/crypto.js';
import {
  asBrowser,
  appWithAdmin,
  createUser,
  describeEachDb,
  login,
  type Browser,
  type TestApp,
} from '../helpers/test-app.js';

const PUBLIC_IP = '203.0.113.7';

describeEachDb('shield', (dialect) => {
  let t: TestApp;
  let admin: Browser;
  beforeEach(async () => {
    ({ t, admin } = await appWithAdmin(dialect));
  });
  afterEach(() => t.close());

  const post = (url: string, payload: object, b: Browser = admin) =>
    t.app.inject({ method: 'POST', url, payload, headers: asBrowser(b) });
  const from = (ip: string, url = '/api/v1/ping', method: 'GET' | 'POST' = 'POST') =>
    t.app.inject({
      method,
      url,
      remoteAddress: ip,
      payload: method === 'POST' ? { apikey: 'x'.repeat(64) } : undefined,
    });
  const settings = (patch: object) => post('/security/settings', patch);
  const banRows = () => t.db.database.db.selectFrom('ip_bans').selectAll().execute();

  describe('ban check: plain-text 403 before any route logic', () => {
    it('blocks a banned address on every path, known or not, and lets others through', async () => {
      const res = await post('/security/ban', { ip: PUBLIC_IP, reason: 'scanner', permanent: true });
      expect(res.statusCode).toBe(200);
      expect(res.json().ban).toMatchObject({
        ip: PUBLIC_IP,
        permanent: true,
        created_by: 'admin',
        reason: 'scanner',
      });
      for (const [url, method] of [
        ['/api/v1/ping', 'POST'],
        ['/no/such/page', 'GET'],
        ['/auth/login', 'POST'],
        ['/favicon.ico', 'GET'],
      ] as const) {
        const r = await from(PUBLIC_IP, url, method);
        expect(r.statusCode, url).toBe(403);
        expect(r.headers['content-type']).toMatch(/^text\/plain/);
        expect(r.body).toBe('Access Denied: Your IP has been banned');
      }
      expect((await from('198.51.100.20')).statusCode).toBe(403); // invalid key, not a ban
      expect((await from('198.51.100.20')).body).toContain('Invalid algodesk apikey');
    });

    it('unban lifts the block at once (cache invalidated); unknown unban is 404', async () => {
      await post('/security/ban', { ip: PUBLIC_IP, permanent: true });
      expect((await from(PUBLIC_IP)).statusCode).toBe(403); // now cached as banned
      expect((await post('/security/unban', { ip: PUBLIC_IP })).statusCode).toBe(200);
      expect((await from(PUBLIC_IP, '/nothing', 'GET')).statusCode).toBe(404);
      expect((await post('/security/unban', { ip: PUBLIC_IP })).statusCode).toBe(404);
    });

    it('accepts IPv6 and refuses what is not an address, loopback always, internal without force', async () => {
      expect((await post('/security/ban', { ip: '2001:db8::dead', permanent: true })).statusCode).toBe(200);
      expect((await from('2001:db8::dead', '/x', 'GET')).statusCode).toBe(403);
      for (const ip of ['not-an-ip', '300.1.1.1', '1.2.3', '<script>', '']) {
        const r = await post('/security/ban', { ip });
        expect(r.statusCode, ip).toBe(400);
      }
      const lo = await post('/security/ban', { ip: '127.0.0.1', force: true });
      expect(lo.statusCode).toBe(400);
      expect(lo.json().message).toMatch(/loopback address and is never banned/);
      const priv = await post('/security/ban', { ip: '192.168.1.10' });
      expect(priv.statusCode).toBe(400);
      expect(priv.json().message).toMatch(/send "force": true/);
      expect((await post('/security/ban', { ip: '192.168.1.10', force: true })).statusCode).toBe(200);
      expect((await banRows()).map((r) => r.ip).sort()).toEqual(['192.168.1.10', '2001:db8::dead']);
    });

    it('security routes need an administrator session and CSRF', async () => {
      await createUser(t, 'bob');
      const bob = await login(t, 'bob');
      expect((await post('/security/ban', { ip: PUBLIC_IP }, bob)).statusCode).toBe(403);
      expect(
        (await t.app.inject({ method: 'GET', url: '/security/api/data', headers: { cookie: bob.cookie } }))
          .statusCode,
      ).toBe(403);
      expect(
        (
          await t.app.inject({
            method: 'POST',
            url: '/security/ban',
            payload: { ip: PUBLIC_IP },
            headers: { cookie: admin.cookie },
          })
        ).statusCode,
      ).toBe(403);
      expect((await t.app.inject({ method: 'GET', url: '/security/stats' })).statusCode).toBe(401);
      expect(await banRows()).toEqual([]);
    });
  });

  describe('404 tracker: fed by the not-found handler for clients without a session', () => {
    it('counts an anonymous client’s 404s, not a logged-in browser’s broken link', async () => {
      await from(PUBLIC_IP, '/probe/1', 'GET');
      await from(PUBLIC_IP, '/probe/1', 'GET');
      await from(PUBLIC_IP, '/probe/2', 'GET');
      await t.app.inject({ method: 'GET', url: '/my/broken/link', headers: { cookie: admin.cookie } });
      await t.services.security.trackers.flush();
      expect(await t.services.security.trackers.list('404')).toEqual([
        expect.objectContaining({ ip: PUBLIC_IP, count: 3, items: ['/probe/1', '/probe/2'] }),
      ]);
    });

    it('POST /security/clear-404 removes the tracker of an address and says whether there was one', async () => {
      await from(PUBLIC_IP, '/a', 'GET');
      await t.services.security.trackers.flush();
      expect((await post('/security/clear-404', { ip: PUBLIC_IP })).json()).toEqual({
        status: 'success',
        cleared: true,
      });
      expect(await t.services.security.trackers.list('404')).toEqual([]);
      expect((await post('/security/clear-404', { ip: PUBLIC_IP })).json()).toEqual({
        status: 'success',
        cleared: false,
      });
    });
  });

  describe('invalid-API-key tracker: digests only, 20 per IP', () => {
    it('records every invalid key by its HMAC digest, never the raw key', async () => {
      for (let i = 0; i < 25; i++) {
        t.clock.advance(200); // stay under the API rate limit
        await t.app.inject({
          method: 'POST',
          url: '/api/v1/ping',
          remoteAddress: PUBLIC_IP,
          payload: { apikey: `guess-${i}` },
        });
      }
      await t.services.security.trackers.flush();
      const [row] = await t.services.security.trackers.list('apikey');
      expect(row).toMatchObject({ ip: PUBLIC_IP, count: 25 });
      expect(row!.items).toHaveLength(20);
      expect(row!.items[0]).toBe(hmacSha256Hex(t.config.apiKeyPepper, 'guess-0'));
      const stored = JSON.stringify(
        await t.db.database.db.selectFrom('invalid_api_key_tracker').selectAll().execute(),
      );
      expect(stored).not.toContain('guess-');
    });
  });

  describe('POST /security/settings enforces every range and writes nothing on a bad value', () => {
    const cases: Array<[string, number, number]> = [
      ['security_404_threshold', 1, 1000],
      ['security_404_ban_duration', 0, 8760],
      ['security_api_threshold', 1, 100],
      ['security_api_ban_duration', 0, 8760],
      ['security_repeat_offender_limit', 1, 10],
    ];
    it('accepts min and max, refuses min-1 and max+1 naming the field', async () => {
      for (const [field, min, max] of cases) {
        for (const ok of [min, max]) {
          const r = await settings({ [field]: ok });
          expect(r.statusCode, `${field}=${ok}`).toBe(200);
          expect(r.json().settings[field]).toBe(ok);
        }
        for (const bad of [min - 1, max + 1]) {
          const r = await settings({ [field]: bad });
          expect(r.statusCode, `${field}=${bad}`).toBe(400);
          expect(Object.keys(r.json().errors)).toEqual([field]);
        }
      }
    });
    it('a mix of valid and invalid values writes nothing; wrong types and unknown fields are 400', async () => {
      const before = await t.services.security.settings.get();
      const r = await settings({
        security_auto_ban_enabled: true,
        security_404_threshold: 50,
        security_api_threshold: 101,
      });
      expect(r.statusCode).toBe(400);
      for (const body of [
        { security_404_threshold: '50' },
        { security_404_threshold: 5.5 },
        { bogus: 1 },
        {},
      ]) {
        expect((await settings(body)).statusCode, JSON.stringify(body)).toBe(400);
      }
      expect(await t.services.security.settings.get()).toEqual(before);
    });
  });

  describe('read routes: data, stats, login activity, active sessions', () => {
    it('stats count bans and suspicious IPs against the current thresholds', async () => {
      await post('/security/ban', { ip: '198.51.100.1', permanent: true });
      await post('/security/ban', { ip: '198.51.100.2', duration_hours: 3 });
      await settings({ security_404_threshold: 10 });
      for (let i = 0; i < 8; i++) await from(PUBLIC_IP, `/p${i}`, 'GET');
      await from('198.51.100.50', '/once', 'GET');
      await t.services.security.trackers.flush();
      const stats = (
        await t.app.inject({ method: 'GET', url: '/security/stats', headers: { cookie: admin.cookie } })
      ).json();
      expect(stats).toEqual({
        status: 'success',
        total_bans: 2,
        permanent_bans: 1,
        temporary_bans: 1,
        suspicious_ips: 2,
        near_threshold_ips: 1,
      });
      await settings({ security_404_threshold: 100 });
      const later = (
        await t.app.inject({ method: 'GET', url: '/security/stats', headers: { cookie: admin.cookie } })
      ).json();
      expect(later.near_threshold_ips).toBe(0);
      const data = (
        await t.app.inject({ method: 'GET', url: '/security/api/data', headers: { cookie: admin.cookie } })
      ).json();
      expect(data.bans).toHaveLength(2);
      expect(data.error_404_tracker[0]).toMatchObject({ ip: PUBLIC_IP, count: 8 });
      expect(data.settings).toMatchObject({ security_404_threshold: 100, security_auto_ban_enabled: false });
    });

    it('lists and clears login activity; lists and revokes active sessions', async () => {
      const other = await login(t);
      const activity = (
        await t.app.inject({
          method: 'GET',
          url: '/security/api/login-activity?limit=5',
          headers: { cookie: admin.cookie },
        })
      ).json();
      expect(activity.data[0]).toMatchObject({ username: 'admin', success: true, ip: '127.0.0.1' });
      expect((await post('/security/api/login-activity/clear', {})).json()).toMatchObject({
        status: 'success',
        cleared: 2,
      });
      const sessions = (
        await t.app.inject({
          method: 'GET',
          url: '/security/api/active-sessions',
          headers: { cookie: admin.cookie },
        })
      ).json();
      expect(sessions.data).toHaveLength(2);
      const target = sessions.data.find((s: { current: boolean }) => !s.current);
      expect(target).toMatchObject({ user: 'admin', ip: '127.0.0.1' });
      expect((await post('/security/api/active-sessions/revoke', { id: target.id })).statusCode).toBe(200);
      expect(
        (await t.app.inject({ method: 'GET', url: '/auth/session', headers: { cookie: other.cookie } }))
          .statusCode,
      ).toBe(401);
      expect((await post('/security/api/active-sessions/revoke', { id: 'nope' })).statusCode).toBe(404);
    });
  });
});

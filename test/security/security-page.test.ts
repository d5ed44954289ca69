import { afterEach, describe, expect, it } from 'vitest';
import {
  appWithAdmin,
  createUser,
  describeEachDb,
  login,
  type Browser,
  type TestApp,
} from '../helpers/test-app.js';

describeEachDb('docs/rules/web.md#security-summary-page: /security/ without JavaScript', (dialect) => {
  let t: TestApp;
  let admin: Browser;
  afterEach(() => t.close());

  it('sends a visitor without a session to sign in and back', async () => {
    ({ t, admin } = await appWithAdmin(dialect));
    const res = await t.app.inject({ method: 'GET', url: '/security/' });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/login?next=%2Fsecurity%2F');
  });

  it('tells another user it is not allowed', async () => {
    ({ t, admin } = await appWithAdmin(dialect));
    await createUser(t, 'trader');
    const trader = await login(t, 'trader');
    const res = await t.app.inject({ method: 'GET', url: '/security/', headers: { cookie: trader.cookie } });
    expect(res.statusCode).toBe(403);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).toContain('Not allowed');
  });

  it('shows the administrator the totals, the bans and the top offenders, escaped, with no script', async () => {
    ({ t, admin } = await appWithAdmin(dialect));
    const { bans, trackers } = t.services.security;
    await bans.ban({
      ip: '203.0.113.5',
      reason: '<script>alert(1)</script>',
      durationHours: 0,
      permanent: true,
      force: false,
      by: 'admin',
    });
    trackers.record404('198.51.100.9', '/wp-<b>.php');
    trackers.record404('198.51.100.9', '/.env');
    await trackers.flush();
    const res = await t.app.inject({ method: 'GET', url: '/security/', headers: { cookie: admin.cookie } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
    expect(res.body).toContain('<code>203.0.113.5</code>');
    expect(res.body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(res.body).toContain('permanent');
    expect(res.body).toContain('<code>198.51.100.9</code>');
    expect(res.body).toContain('&lt;b&gt;');
    expect(res.body).toContain('href="/logs/security"');
    expect(res.body).not.toMatch(/<script/i);
  });
});

describe('the summary page and the ban check', () => {
  it('is refused to a banned address like every route', async () => {
    const { t } = await appWithAdmin('sqlite');
    try {
      await t.services.security.bans.ban({
        ip: '203.0.113.6',
        reason: 'x',
        durationHours: 1,
        permanent: false,
        force: false,
        by: 'admin',
      });
      const res = await t.app.inject({ method: 'GET', url: '/security/', remoteAddress: '203.0.113.6' });
      expect(res.statusCode).toBe(403);
      expect(res.headers['content-type']).toMatch(/^text\/plain/);
    } finally {
      await t.close();
    }
  });
});

import { afterEach, expect, it } from 'vitest';
import { createTestApp, describeEachDb, type TestApp } from '../helpers/test-app.js';

const SPOOFED = {
  'cf-connecting-ip': '203.0.113.1',
  'true-client-ip': '203.0.113.2',
  'x-real-ip': '203.0.113.3',
  'x-forwarded-for': '203.0.113.4, 10.0.0.1',
  'x-client-ip': '203.0.113.5',
};

/** The resolved client IP is what the ban check, trackers, limits and logs all see. */
describeEachDb('client IP through the app', (dialect) => {
  let t: TestApp;
  afterEach(() => t.close());
  const ban = (ip: string) =>
    t.services.security.bans.ban({
      ip,
      reason: 'test',
      durationHours: 0,
      permanent: true,
      force: false,
      by: 'test',
    });
  const get = (headers: Record<string, string>, peer = '198.51.100.200') =>
    t.app.inject({ method: 'GET', url: '/x', remoteAddress: peer, headers });

  it('TRUST_PROXY_HEADERS=false (default): spoofed headers are ignored, the peer is judged', async () => {
    t = await createTestApp(dialect);
    for (const ip of Object.values(SPOOFED)) await ban(ip.split(',')[0]!);
    expect((await get(SPOOFED)).statusCode).toBe(404); // the banned header addresses do not count
    await ban('198.51.100.200');
    expect((await get({ 'x-forwarded-for': '198.51.100.99' })).statusCode).toBe(403); // nor do they help
  });

  it('TRUST_PROXY_HEADERS=true: headers in the spec order decide, garbage is skipped', async () => {
    t = await createTestApp(dialect, { env: { TRUST_PROXY_HEADERS: 'true' } });
    const order = Object.keys(SPOOFED);
    for (let i = 0; i < order.length; i++) {
      const headers = Object.fromEntries(Object.entries(SPOOFED).slice(i));
      const expected = Object.values(SPOOFED)[i]!.split(',')[0]!;
      await ban(expected);
      expect((await get(headers)).statusCode, order[i]).toBe(403);
      await t.services.security.bans.unban(expected);
      expect((await get(headers)).statusCode, order[i]).toBe(404);
    }
    await ban('198.51.100.200'); // the peer, used when every header is garbage
    expect((await get({ 'x-forwarded-for': 'unknown', 'x-real-ip': '<script>' })).statusCode).toBe(403);
  });

  it('IPv4-mapped IPv6 peers are judged as IPv4', async () => {
    t = await createTestApp(dialect);
    await ban('198.51.100.201');
    expect((await get({}, '::ffff:198.51.100.201')).statusCode).toBe(403);
  });
});

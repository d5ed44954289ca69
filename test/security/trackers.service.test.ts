/**
 * The abuse trackers and the automatic bans, rule by rule, in the middle tier: TrackersService,
 * BanService and the security settings on a real database, started as the app starts them, no
 * HTTP. The app tier (shield.test.ts) keeps what the HTTP layer decides: that the not-found
 * handler feeds the 404 tracker for clients without a session, that the API-key guard feeds the
 * invalid-key tracker with digests, and the admin routes.
 *
 * The 1 s flush timer is faked and never ticks: events reach the database at an explicit
 * `flush()`, or through the immediate flush a threshold triggers.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TRACKER_WINDOW_MS } from '../../src/domain/limits.js';
import type { TrackersService } from '../../src/modules/security/trackers.service.js';
import type { SecuritySettings } from '../../src/modules/security/security-settings.service.js';
import { describeEachDb } from '../helpers/test-app.js';
import { createTestServices, type TestServices } from '../helpers/test-services.js';

const IP = '203.0.113.7';
const HOUR = 3_600_000;
const digest = (i: number) => `${i}`.padStart(64, 'd');

describeEachDb('trackers and automatic bans (service)', (dialect) => {
  let s: TestServices;
  let trackers: TrackersService;

  beforeEach(async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    s = await createTestServices(dialect);
    trackers = s.services.security.trackers;
  });
  afterEach(async () => {
    await s.close();
    vi.useRealTimers();
  });

  const banRows = () => s.db.database.db.selectFrom('ip_bans').selectAll().execute();
  const settings = (patch: Partial<SecuritySettings>) => s.services.security.settings.update(patch);
  /** Records `n` distinct 404s from `ip` and writes them. */
  const probe404 = async (n: number, ip = IP, prefix = '/p') => {
    for (let i = 0; i < n; i++) trackers.record404(ip, `${prefix}${i}`);
    await trackers.flush();
  };
  const autoBanLogs = () =>
    s.logs
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.msg === 'IP banned automatically');

  describe('404 tracker: every 404 counted per address, 50 distinct paths kept, browser noise skipped', () => {
    it('counts repeats, keeps the first 50 distinct paths, and ignores favicon, robots, well-known and the like', async () => {
      for (let i = 0; i < 60; i++) trackers.record404(IP, `/probe/${i}`);
      trackers.record404(IP, '/probe/1');
      for (const noise of [
        '/favicon.ico',
        '/robots.txt',
        '/robots.txt?x=1',
        '/.well-known/security.txt',
        '/apple-touch-icon.png',
        '/sitemap.xml',
        '/manifest.json',
      ])
        trackers.record404(IP, noise);
      await trackers.flush();
      const list = await trackers.list('404');
      expect(list).toHaveLength(1);
      expect(list[0]).toMatchObject({ ip: IP, count: 61 });
      expect(list[0]!.items).toEqual(Array.from({ length: 50 }, (_, i) => `/probe/${i}`));
    });

    it('never stores a webhook token, a reset token or a query string from the URL', async () => {
      trackers.record404(IP, '/strategy/webhook/SECRETTOKEN123/extra');
      trackers.record404(IP, '/flow/webhook/FLOWTOKEN456');
      trackers.record404(IP, '/auth/reset-password-email/RESETTOKEN789');
      trackers.record404(IP, '/nothing?apikey=SECRETKEY');
      await trackers.flush();
      expect((await trackers.list('404'))[0]!.items).toEqual([
        '/strategy/webhook/[redacted]/extra',
        '/flow/webhook/[redacted]',
        '/auth/reset-password-email/[redacted]',
        '/nothing',
      ]);
      const stored = JSON.stringify(
        await s.db.database.db.selectFrom('error_404_tracker').selectAll().execute(),
      );
      for (const secret of ['SECRETTOKEN123', 'FLOWTOKEN456', 'RESETTOKEN789', 'SECRETKEY'])
        expect(stored).not.toContain(secret);
    });
  });

  describe('invalid-API-key tracker: every invalid key counted per address, 20 distinct digests kept', () => {
    it('counts all 25 and keeps the first 20 digests once each', async () => {
      for (let i = 0; i < 25; i++) trackers.recordInvalidKey(IP, digest(i));
      trackers.recordInvalidKey(IP, digest(0));
      await trackers.flush();
      const [row] = await trackers.list('apikey');
      expect(row).toMatchObject({ ip: IP, count: 26 });
      expect(row!.items).toEqual(Array.from({ length: 20 }, (_, i) => digest(i)));
      expect(await trackers.list('404')).toEqual([]);
    });
  });

  describe('both trackers count within a 24-hour window, then start over', () => {
    it('events of several flushes add up inside the window; at 24 h the window closes and the next event starts a new one', async () => {
      trackers.record404(IP, '/a');
      trackers.recordInvalidKey(IP, digest(1));
      await trackers.flush();
      const opened = s.clock.now();
      s.clock.advance(TRACKER_WINDOW_MS - 1);
      trackers.record404(IP, '/a');
      trackers.record404(IP, '/b');
      await trackers.flush();
      expect((await trackers.list('404'))[0]).toMatchObject({
        count: 3,
        items: ['/a', '/b'],
        first_seen: opened,
      });

      s.clock.advance(1);
      expect(await trackers.list('404')).toEqual([]); // closed windows are not listed
      expect(await trackers.list('apikey')).toEqual([]);
      trackers.record404(IP, '/c');
      await trackers.flush();
      expect((await trackers.list('404'))[0]).toMatchObject({
        count: 1,
        items: ['/c'],
        first_seen: s.clock.now(),
      });
    });

    it('purge deletes the trackers whose window closed and keeps the open ones', async () => {
      trackers.record404(IP, '/old');
      trackers.recordInvalidKey(IP, digest(1));
      await trackers.flush();
      s.clock.advance(TRACKER_WINDOW_MS - 1);
      trackers.record404('198.51.100.1', '/new');
      await trackers.flush();
      expect(await trackers.purge()).toBe(0);
      s.clock.advance(1);
      expect(await trackers.purge()).toBe(2);
      expect((await trackers.list('404')).map((r) => r.ip)).toEqual(['198.51.100.1']);
      expect(await s.db.database.db.selectFrom('invalid_api_key_tracker').selectAll().execute()).toEqual([]);
    });
  });

  describe('clearing a 404 tracker removes what is stored and what is pending', () => {
    it('deletes the row, drops unwritten events of the address, and reports an unknown address as not cleared', async () => {
      await probe404(3);
      trackers.record404(IP, '/pending');
      expect(await trackers.clear('404', IP)).toBe(true);
      await trackers.flush();
      expect(await trackers.list('404')).toEqual([]);
      expect(await trackers.clear('404', IP)).toBe(false);
    });
  });

  describe('automatic bans', () => {
    it('are off by default: a tracker over the threshold bans nobody', async () => {
      expect(await s.services.security.settings.get()).toMatchObject({ security_auto_ban_enabled: false });
      await settings({ security_404_threshold: 2, security_api_threshold: 1 });
      await probe404(5);
      trackers.recordInvalidKey(IP, digest(1));
      await trackers.flush();
      expect((await trackers.list('404'))[0]).toMatchObject({ count: 5 });
      expect(await banRows()).toEqual([]);
      expect(await s.services.security.bans.isBanned(IP)).toBe(false);
    });

    it('ban at the 404 threshold for the configured hours, with the reason and an audit log line', async () => {
      await settings({
        security_auto_ban_enabled: true,
        security_404_threshold: 3,
        security_404_ban_duration: 5,
      });
      await probe404(2);
      expect(await banRows()).toEqual([]);
      trackers.record404(IP, '/p2');
      await trackers.flush();
      const [ban] = await banRows();
      expect(ban).toMatchObject({
        ip: IP,
        ban_count: 1,
        created_by: 'auto',
        created_at: s.clock.now(),
        expires_at: s.clock.now() + 5 * HOUR,
        reason: 'Automatic: 3 not-found requests within 24 h (threshold 3)',
      });
      expect(await s.services.security.bans.isBanned(IP)).toBe(true);
      expect(await s.services.security.bans.isBanned('198.51.100.9')).toBe(false);
      expect(autoBanLogs()).toEqual([
        expect.objectContaining({ ip: IP, tracker: '404', ban_count: 1, permanent: false }),
      ]);
    });

    it('ban at the invalid-key threshold; duration 0 is permanent', async () => {
      await settings({
        security_auto_ban_enabled: true,
        security_api_threshold: 4,
        security_api_ban_duration: 0,
      });
      for (let i = 0; i < 3; i++) trackers.recordInvalidKey(IP, digest(i));
      await trackers.flush();
      expect(await banRows()).toEqual([]);
      trackers.recordInvalidKey(IP, digest(3));
      await trackers.flush();
      expect(await banRows()).toEqual([
        expect.objectContaining({
          ip: IP,
          expires_at: null,
          ban_count: 1,
          reason: 'Automatic: 4 invalid API keys within 24 h (threshold 4)',
        }),
      ]);
      expect(autoBanLogs()).toEqual([
        expect.objectContaining({ ip: IP, tracker: 'apikey', permanent: true }),
      ]);
    });

    it('repeat offenders: ban_count grows on each automatic ban and the limit makes it permanent; durations are not doubled', async () => {
      await settings({
        security_auto_ban_enabled: true,
        security_404_threshold: 2,
        security_404_ban_duration: 1,
        security_repeat_offender_limit: 3,
      });
      const offend = async () => {
        await probe404(2);
        return (await banRows())[0]!;
      };
      const first = await offend();
      expect(first).toMatchObject({ ban_count: 1, expires_at: s.clock.now() + HOUR });
      s.clock.advance(HOUR);
      const second = await offend();
      expect(second).toMatchObject({ ban_count: 2, expires_at: s.clock.now() + HOUR });
      s.clock.advance(HOUR);
      const third = await offend();
      expect(third).toMatchObject({ ban_count: 3, expires_at: null });
      s.clock.advance(100 * HOUR);
      expect(await s.services.security.bans.isBanned(IP)).toBe(true);
      expect(autoBanLogs().map((l) => [l.ban_count, l.permanent])).toEqual([
        [1, false],
        [2, false],
        [3, true],
      ]);
    });

    it('an address already banned is not banned again while its events keep coming', async () => {
      await settings({
        security_auto_ban_enabled: true,
        security_404_threshold: 2,
        security_404_ban_duration: 1,
      });
      await probe404(2);
      const [ban] = await banRows();
      s.clock.advance(HOUR / 2);
      await probe404(5, IP, '/more');
      expect((await trackers.list('404'))[0]).toMatchObject({ count: 7 });
      expect(await banRows()).toEqual([ban]);
      expect(autoBanLogs()).toHaveLength(1);
    });

    it('a flood is banned at its threshold without waiting for the next flush tick', async () => {
      await settings({
        security_auto_ban_enabled: true,
        security_api_threshold: 5,
        security_api_ban_duration: 1,
      });
      await trackers.flush(); // arms the thresholds, as the first timer tick would
      for (let i = 0; i < 4; i++) trackers.recordInvalidKey(IP, digest(i));
      trackers.recordInvalidKey(IP, digest(4)); // the fifth reaches the threshold: written at once
      // No flush and no timer tick (the timer is faked): only the immediate flush can ban.
      await vi.waitFor(async () => expect(await banRows()).toHaveLength(1), { timeout: 2_000, interval: 5 });
      expect(await s.services.security.bans.isBanned(IP)).toBe(true);
      expect((await trackers.list('apikey'))[0]).toMatchObject({ count: 5 });
    });

    it('never ban loopback, private, link-local, unique-local or carrier-grade NAT addresses automatically', async () => {
      await settings({
        security_auto_ban_enabled: true,
        security_404_threshold: 1,
        security_api_threshold: 1,
      });
      const internal = [
        '127.0.0.1',
        '10.0.0.5',
        '172.17.0.1',
        '192.168.0.2',
        '169.254.3.4',
        '100.64.0.1',
        'fd12::1',
        '::1',
      ];
      for (const ip of internal) {
        trackers.record404(ip, '/nope');
        trackers.recordInvalidKey(ip, digest(1));
      }
      await trackers.flush();
      expect(await banRows()).toEqual([]);
      expect(
        await s.services.security.bans.autoBan('::ffff:10.0.0.5', 'Automatic: direct', 1, 3),
      ).toBeUndefined();
      // They are still tracked, so an administrator sees them.
      expect((await trackers.list('404')).map((r) => r.ip).sort()).toEqual([...internal].sort());
      expect(await trackers.list('apikey')).toHaveLength(internal.length);
    });

    it('a settings change applies from the next flush', async () => {
      await probe404(3);
      expect(await banRows()).toEqual([]);
      await settings({ security_auto_ban_enabled: true, security_404_threshold: 4 });
      trackers.record404(IP, '/one-more');
      await trackers.flush();
      expect(await banRows()).toEqual([expect.objectContaining({ ip: IP, created_by: 'auto' })]);
    });
  });
});

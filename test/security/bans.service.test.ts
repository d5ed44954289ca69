/**
 * IP bans, rule by rule, in the middle tier: BanService on a real database, started as the app
 * starts it, no HTTP. The app tier (shield.test.ts) keeps the HTTP contract: the plain-text 403 of
 * a banned client, the admin routes, their status codes, bodies and CSRF.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  EXPIRED_BAN_RETENTION_MS,
  type BanService,
  type ManualBan,
} from '../../src/modules/security/ban.service.js';
import { AppError } from '../../src/platform/errors.js';
import { LocalInvalidationBus } from '../../src/platform/invalidation.js';
import { describeEachDb } from '../helpers/test-app.js';
import { createTestServices, type TestServices } from '../helpers/test-services.js';

const IP = '203.0.113.7';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describeEachDb('bans (service)', (dialect) => {
  let s: TestServices;
  let bans: BanService;
  let bus: LocalInvalidationBus;
  /** Addresses published on the `ipban` topic of the bus, in order. */
  let published: string[];

  beforeEach(async () => {
    bus = new LocalInvalidationBus();
    published = [];
    bus.subscribe('ipban', (ip) => published.push(ip));
    s = await createTestServices(dialect, { bus });
    bans = s.services.security.bans;
  });
  afterEach(() => s.close());

  const manual = (patch: Partial<ManualBan> = {}) =>
    bans.ban({
      ip: IP,
      reason: 'scanner',
      durationHours: 24,
      permanent: false,
      force: false,
      by: 'admin',
      ...patch,
    });
  const rows = () => s.db.database.db.selectFrom('ip_bans').selectAll().orderBy('ip').execute();
  /** The ban check as the request hook awaits it (from the cache or one lookup). */
  const banned = async (ip = IP) => await bans.isBanned(ip);
  const refusal = async (p: Promise<unknown>) => {
    const err = await p.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  };

  describe('manual bans: temporary for the given hours, permanent when asked or for 0 hours', () => {
    it('a temporary ban expires the given hours after it was made, with who and why', async () => {
      const row = await manual({ durationHours: 5 });
      expect(row).toMatchObject({
        ip: IP,
        reason: 'scanner',
        created_by: 'admin',
        created_at: s.clock.now(),
        expires_at: s.clock.now() + 5 * HOUR,
        ban_count: 1,
      });
      expect(await rows()).toEqual([row]);
      expect(await banned()).toBe(true);
      expect(await banned('198.51.100.20')).toBe(false);
    });

    it('permanent: true, or a duration of 0 hours, stores no expiry and blocks forever', async () => {
      await manual({ permanent: true, durationHours: 3 });
      await manual({ ip: '198.51.100.1', durationHours: 0 });
      expect((await rows()).map((r) => [r.ip, r.expires_at])).toEqual([
        ['198.51.100.1', null],
        [IP, null],
      ]);
      s.clock.advance(10 * 365 * DAY);
      expect(await banned()).toBe(true);
      expect(await banned('198.51.100.1')).toBe(true);
      expect(await bans.purgeExpired()).toBe(0);
    });

    it('banning a banned address again replaces reason and expiry but does not count as an offence', async () => {
      await manual({ durationHours: 1 });
      s.clock.advance(HOUR / 2);
      const again = await manual({ reason: 'still scanning', durationHours: 48, by: 'ops' });
      expect(again).toMatchObject({
        reason: 'still scanning',
        created_by: 'ops',
        expires_at: s.clock.now() + 48 * HOUR,
        ban_count: 1,
      });
      expect(await rows()).toHaveLength(1);
    });
  });

  describe('a temporary ban stops blocking at its expiry, even while cached', () => {
    it('blocks until the last millisecond and not at the expiry, answering from the cache', async () => {
      await manual({ durationHours: 2 });
      s.clock.advance(2 * HOUR - 1_000);
      expect(await banned()).toBe(true); // one lookup, now cached
      s.clock.advance(999);
      expect(bans.isBanned(IP)).toBe(true); // synchronous: from the cache
      s.clock.advance(1);
      expect(bans.isBanned(IP)).toBe(false); // still the cached entry, judged by its expiry
      expect(await bans.listActive()).toEqual([]);
      expect(await bans.countActive()).toEqual({ total: 0, permanent: 0 });
    });
  });

  describe('addresses are normalised: IPv4-mapped IPv6 is its IPv4 address, IPv6 is canonical', () => {
    it('both spellings of an IPv4 address are one ban, stored as the IPv4 address', async () => {
      await manual({ ip: '::ffff:203.0.113.7', permanent: true });
      expect(await banned(IP)).toBe(true);
      expect((await rows()).map((r) => r.ip)).toEqual([IP]);
      await manual({ ip: IP, permanent: true });
      expect(await rows()).toHaveLength(1);
      expect(await bans.unban('::ffff:203.0.113.7')).toBe(true);
      expect(await banned(IP)).toBe(false);
    });

    it('an IPv6 address is stored and matched in its canonical lower-case compressed form', async () => {
      await manual({ ip: '2001:DB8:0:0::DEAD', permanent: true });
      expect((await rows()).map((r) => r.ip)).toEqual(['2001:db8::dead']);
      expect(await banned('2001:db8::dead')).toBe(true);
      expect(await banned('2001:db8::beef')).toBe(false);
    });
  });

  describe('never banned: loopback always, internal ranges only with force, nothing that is not an address', () => {
    it('refuses loopback even with force, internal without force, and garbage, writing nothing', async () => {
      for (const ip of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1']) {
        const err = await refusal(manual({ ip, force: true }));
        expect(err, ip).toMatchObject({ statusCode: 400, code: 'loopback_ban_refused' });
      }
      for (const ip of ['10.0.0.5', '172.17.0.1', '192.168.1.10', '169.254.3.4', 'fd12::1', '100.64.0.1']) {
        const err = await refusal(manual({ ip }));
        expect(err, ip).toMatchObject({ statusCode: 400, code: 'internal_ban_refused' });
      }
      for (const ip of ['not-an-ip', '300.1.1.1', '1.2.3', '0x7f.1', '']) {
        expect((await refusal(manual({ ip }))).statusCode, ip).toBe(400);
      }
      expect(await rows()).toEqual([]);
      expect(published).toEqual([]);
    });

    it('bans an internal address when forced', async () => {
      await manual({ ip: '192.168.1.10', force: true });
      expect(await banned('192.168.1.10')).toBe(true);
      expect((await rows()).map((r) => r.ip)).toEqual(['192.168.1.10']);
    });
  });

  describe('unban lifts the ban at once', () => {
    it('deletes the row and stops blocking although the address was cached as banned; an unknown address is false', async () => {
      await manual({ permanent: true });
      expect(await banned()).toBe(true); // cached as banned
      expect(await bans.unban(IP)).toBe(true);
      expect(await banned()).toBe(false);
      expect(await rows()).toEqual([]);
      expect(await bans.unban(IP)).toBe(false);
      expect(await refusal(bans.unban('nope'))).toMatchObject({ statusCode: 400 });
    });
  });

  describe('cache invalidation: every change publishes the address on the bus', () => {
    it('ban, unban and automatic ban publish the normalised address', async () => {
      await manual({ ip: '::ffff:203.0.113.7' });
      await bans.autoBan('198.51.100.9', 'Automatic: test', 1, 3);
      await bans.unban(IP);
      expect(published).toEqual([IP, '198.51.100.9', IP]);
    });

    it('another instance on the same database and bus sees a ban and an unban at once, despite its cache', async () => {
      const b = await createTestServices(dialect, { db: s.db, bus, clock: s.clock });
      try {
        expect(await b.services.security.bans.isBanned(IP)).toBe(false); // B caches "not banned"
        expect(b.services.security.bans.isBanned(IP)).toBe(false); // synchronously, from its cache
        await manual({ permanent: true }); // on instance A
        expect(await b.services.security.bans.isBanned(IP)).toBe(true);
        await bans.unban(IP);
        expect(await b.services.security.bans.isBanned(IP)).toBe(false);
      } finally {
        await b.close();
      }
    });
  });

  describe('retention: an expired temporary ban is kept 30 days for the repeat-offender rule, then purged', () => {
    it('keeps the inactive row through the retention and deletes it after; permanent bans stay', async () => {
      await manual({ durationHours: 2 });
      await manual({ ip: '198.51.100.1', permanent: true });
      s.clock.advance(2 * HOUR);
      expect(await banned()).toBe(false);
      expect(await rows()).toHaveLength(2);
      expect((await bans.listActive()).map((r) => r.ip)).toEqual(['198.51.100.1']);
      s.clock.advance(EXPIRED_BAN_RETENTION_MS);
      expect(await bans.purgeExpired()).toBe(0); // expired exactly 30 days ago: kept
      s.clock.advance(1);
      expect(await bans.purgeExpired()).toBe(1);
      expect((await rows()).map((r) => r.ip)).toEqual(['198.51.100.1']);
    });

    it('an offence within the retention counts on the kept row; after the purge the count starts over', async () => {
      expect(await bans.autoBan(IP, 'Automatic: first', 1, 10)).toMatchObject({ ban_count: 1 });
      s.clock.advance(HOUR + 29 * DAY);
      expect(await bans.autoBan(IP, 'Automatic: second', 1, 10)).toMatchObject({ ban_count: 2 });
      s.clock.advance(HOUR + EXPIRED_BAN_RETENTION_MS + 1);
      expect(await bans.purgeExpired()).toBe(1);
      expect(await bans.autoBan(IP, 'Automatic: third', 1, 10)).toMatchObject({
        ban_count: 1,
        expires_at: s.clock.now() + HOUR,
      });
    });

    it('active lists and counts hold permanent and unexpired bans only', async () => {
      await manual({ ip: '198.51.100.1', permanent: true });
      s.clock.advance(1);
      await manual({ ip: '198.51.100.2', durationHours: 3 });
      s.clock.advance(1);
      await manual({ ip: '198.51.100.3', durationHours: 1 });
      expect((await bans.listActive()).map((r) => r.ip)).toEqual([
        '198.51.100.3',
        '198.51.100.2',
        '198.51.100.1',
      ]); // newest first
      s.clock.advance(HOUR);
      expect(await bans.countActive()).toEqual({ total: 2, permanent: 1 });
      expect((await bans.listActive()).map((r) => r.ip)).toEqual(['198.51.100.2', '198.51.100.1']);
    });
  });
});

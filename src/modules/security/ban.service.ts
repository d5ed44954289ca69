import { LRUCache } from 'lru-cache';
import type { Clock } from '../../platform/clock.js';
import { isInternal, isLoopback, normaliseIp } from '../../platform/client-ip.js';
import { badRequest, internalBanRefused, loopbackBanRefused } from '../../platform/errors.js';
import type { InvalidationBus } from '../../platform/invalidation.js';
import type { BanRow, BansRepository } from './bans.repository.js';

export const BAN_MESSAGE = 'Access Denied: Your IP has been banned';
const TOPIC = 'ipban';
/** Ban lookups are cached this long; ban/unban invalidate at once (here and through Redis). */
export const BAN_CACHE_TTL_MS = 5_000;
/** Expired temporary bans are kept this long for the repeat-offender rule, then deleted. */
export const EXPIRED_BAN_RETENTION_MS = 30 * 86_400_000;
const HOUR_MS = 3_600_000;

/** What the cache knows of an address: no ban row, or the row's expiry (null = permanent). */
type CacheEntry = { banned: false } | { banned: true; expiresAt: number | null };

export interface ManualBan {
  ip: string;
  reason: string;
  durationHours: number;
  permanent: boolean;
  /** Allows banning a private, link-local or unique-local address (never loopback). */
  force: boolean;
  by: string;
}

/** Told of every ban written: by an administrator or automatic, temporary or permanent. */
export type BanListener = (ban: { automatic: boolean; permanent: boolean }) => void;

/**
 * IP bans: the check that runs before any route logic, manual bans and unbans, and the
 * automatic bans the trackers ask for. Every change invalidates the cached entry of the address
 * on every instance.
 */
export class BanService {
  private readonly cache: LRUCache<string, CacheEntry>;
  /** Told after each ban is written (the metrics module's counter); synchronous, never throw. */
  readonly listeners: BanListener[] = [];

  constructor(
    private readonly bans: BansRepository,
    private readonly clock: Clock,
    private readonly bus: InvalidationBus,
  ) {
    this.cache = new LRUCache<string, CacheEntry>({
      max: 100_000,
      ttl: BAN_CACHE_TTL_MS,
      perf: { now: () => clock.now() },
    });
    bus.subscribe(TOPIC, (ip) => this.cache.delete(ip));
  }

  /**
   * Whether `ip` is banned now: synchronous from the cache (the common case), else a promise
   * after one indexed lookup. A temporary ban stops blocking at its expiry, also from the cache.
   */
  isBanned(ip: string): boolean | Promise<boolean> {
    // Loopback is never banned (ban() refuses it, the trackers skip internal addresses).
    if (isLoopback(ip)) return false;
    const hit = this.cache.get(ip);
    if (hit !== undefined) return this.active(hit);
    return this.bans.find(ip).then((row) => {
      const entry: CacheEntry = row ? { banned: true, expiresAt: row.expires_at } : { banned: false };
      this.cache.set(ip, entry);
      return this.active(entry);
    });
  }

  private active(e: CacheEntry): boolean {
    return e.banned && (e.expiresAt === null || e.expiresAt > this.clock.now());
  }

  /** Manual ban by an administrator. Loopback is never banned; internal ranges need `force`. */
  async ban(input: ManualBan): Promise<BanRow> {
    const ip = normaliseIp(input.ip);
    if (ip === undefined)
      throw badRequest('ip must be a valid IPv4 or IPv6 address', {
        ip: ['must be a valid IPv4 or IPv6 address'],
      });
    if (isLoopback(ip)) throw loopbackBanRefused(`${ip} is a loopback address and is never banned`);
    if (isInternal(ip) && !input.force) {
      throw internalBanRefused(
        `${ip} is a private, link-local or unique-local address (a reverse proxy or container gateway would lock everyone out); send "force": true to ban it anyway`,
      );
    }
    const at = this.clock.now();
    const row = await this.bans.upsert(ip, (prev) => ({
      reason: input.reason,
      createdBy: input.by,
      at,
      expiresAt: input.permanent || input.durationHours === 0 ? null : at + input.durationHours * HOUR_MS,
      banCount: prev?.ban_count ?? 1,
    }));
    this.bus.publish(TOPIC, ip);
    this.told(false, row);
    return row;
  }

  /**
   * Automatic ban after a tracker reached its threshold: `ban_count` grows by one on each; at the
   * repeat-offender limit the ban is permanent; durations are never doubled. Loopback and
   * internal addresses are never banned automatically. Returns undefined when nothing was banned.
   */
  async autoBan(
    rawIp: string,
    reason: string,
    durationHours: number,
    repeatOffenderLimit: number,
  ): Promise<BanRow | undefined> {
    const ip = normaliseIp(rawIp);
    if (ip === undefined || isInternal(ip)) return undefined;
    const at = this.clock.now();
    const row = await this.bans.upsert(ip, (prev) => {
      const banCount = (prev?.ban_count ?? 0) + 1;
      const permanent = durationHours === 0 || banCount >= repeatOffenderLimit;
      return {
        reason,
        createdBy: 'auto',
        at,
        expiresAt: permanent ? null : at + durationHours * HOUR_MS,
        banCount,
      };
    });
    this.bus.publish(TOPIC, ip);
    this.told(true, row);
    return row;
  }

  private told(automatic: boolean, row: BanRow): void {
    for (const listener of this.listeners) listener({ automatic, permanent: row.expires_at === null });
  }

  async unban(rawIp: string): Promise<boolean> {
    const ip = normaliseIp(rawIp);
    if (ip === undefined)
      throw badRequest('ip must be a valid IPv4 or IPv6 address', {
        ip: ['must be a valid IPv4 or IPv6 address'],
      });
    const removed = await this.bans.delete(ip);
    this.bus.publish(TOPIC, ip);
    return removed;
  }

  listActive(limit = 1000): Promise<BanRow[]> {
    return this.bans.listActive(this.clock.now(), limit);
  }

  countActive() {
    return this.bans.countActive(this.clock.now());
  }

  /** Deletes temporary bans that expired more than the retention ago. */
  purgeExpired(): Promise<number> {
    return this.bans.deleteExpiredBefore(this.clock.now() - EXPIRED_BAN_RETENTION_MS);
  }
}

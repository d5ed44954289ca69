import { randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Clock } from '../../platform/clock.js';
import { hmacSha256Hex, newApiKey } from '../../platform/crypto.js';
import type { InvalidationBus } from '../../platform/invalidation.js';
import { badRequest } from '../../platform/errors.js';
import { fromDbBool } from '../../platform/db/database.js';
import type { ApiKeysRepository } from './api-keys.repository.js';
import type { UsersRepository } from './users.repository.js';

export type OrderMode = 'auto' | 'semi_auto';
export const ORDER_MODES: readonly OrderMode[] = ['auto', 'semi_auto'];

/** Who an API key belongs to, as the `/api/v1` routes see it. */
export interface ApiPrincipal {
  userId: number;
  username: string;
  orderMode: OrderMode;
  /** The key's owner is the administrator (e.g. may switch the service-wide analyzer/live mode). */
  isAdmin: boolean;
}

const TOPIC = 'apikey';
/** Positive entries live briefly: a revocation elsewhere is seen within this bound even without Redis. */
const POSITIVE_TTL_MS = 15_000;
/** Unknown keys are remembered shortly, so key guessing costs no database lookup per request. */
const NEGATIVE_TTL_MS = 5_000;
/** Keys are 64 hex characters; anything far longer is refused without hashing it. */
const MAX_KEY_LENGTH = 256;

type Entry = { digest: string; principal: ApiPrincipal | null };

/**
 * API keys: 32 random bytes shown once, stored only as HMAC-SHA-256 under API_KEY_PEPPER.
 * Verification is a cache probe, and on a miss one HMAC and one indexed lookup — no argon2 on
 * the request path. The cache is keyed by the presented key itself (process memory sees it on
 * every request anyway), which saves the HMAC on hits; a reverse map finds the entry to drop when
 * a digest is invalidated. Regenerating or changing the order mode invalidates the cache here and, through
 * the invalidation bus, on every other instance.
 */
export class ApiKeysService {
  private readonly cache: LRUCache<string, Entry>;
  private readonly byDigest = new Map<string, string>();

  constructor(
    private readonly keys: ApiKeysRepository,
    private readonly users: UsersRepository,
    private readonly pepper: string,
    private readonly clock: Clock,
    private readonly bus: InvalidationBus,
  ) {
    // TTLs follow the injected clock, so tests move cache expiry with a fake clock.
    this.cache = new LRUCache<string, Entry>({
      max: 50_000,
      perf: { now: () => clock.now() },
      dispose: (entry) => this.byDigest.delete(entry.digest),
    });
    bus.subscribe(TOPIC, (digest) => {
      const key = this.byDigest.get(digest);
      if (key !== undefined) this.cache.delete(key);
    });
  }

  /** HMAC digest of a presented key (also what trackers store instead of raw keys). */
  digest(apikey: string): string {
    return hmacSha256Hex(this.pepper, apikey);
  }

  /**
   * Synchronous cache probe: the principal, `null` for a key known to be invalid, or undefined
   * when the cache cannot tell (then call {@link verify}). Lets the hot path skip a promise.
   */
  cached(apikey: string): ApiPrincipal | null | undefined {
    if (apikey.length === 0 || apikey.length > MAX_KEY_LENGTH) return null;
    return this.cache.get(apikey)?.principal;
  }

  async verify(apikey: string): Promise<ApiPrincipal | undefined> {
    const known = this.cached(apikey);
    if (known !== undefined) return known ?? undefined;
    const digest = this.digest(apikey);
    // A disabled account's key was revoked when it was disabled; the join refuses it anyway.
    const owner = await this.keys.findOwnerByDigest(digest);
    const principal: ApiPrincipal | null = owner
      ? {
          userId: owner.user_id,
          username: owner.username,
          orderMode: toOrderMode(owner.order_mode),
          isAdmin: fromDbBool(owner.is_admin),
        }
      : null;
    this.cache.set(apikey, { digest, principal }, { ttl: principal ? POSITIVE_TTL_MS : NEGATIVE_TTL_MS });
    this.byDigest.set(digest, apikey);
    return principal ?? undefined;
  }

  /**
   * A key that stands for the user inside this process for one in-process call — an agent's tool
   * call run as the user who consented (docs/rules/mcp.md#mcp-tools): 32 random bytes held only in
   * this cache, never stored or shown; `release` forgets it (it also lapses after a minute). The
   * same guard and rules as any key then apply. Undefined for an unknown user. `orderMode`
   * overrides the user's (the console's desk places as in automatic mode,
   * docs/rules/web.md#desk-calls).
   */
  async delegate(
    userId: number,
    opts: { orderMode?: OrderMode } = {},
  ): Promise<{ key: string; release(): void } | undefined> {
    const user = await this.users.findById(userId);
    if (!user) return undefined;
    const key = `dlg_${randomBytes(32).toString('base64url')}`;
    const principal: ApiPrincipal = {
      userId,
      username: user.username,
      orderMode: opts.orderMode ?? toOrderMode(user.order_mode),
      isAdmin: fromDbBool(user.is_admin),
    };
    this.cache.set(key, { digest: `delegated:${key.slice(4, 12)}`, principal }, { ttl: 60_000 });
    return { key, release: () => void this.cache.delete(key) };
  }

  /** Issues a new key for the user, revoking the old one at once; returns the key (shown once). */
  async regenerate(userId: number): Promise<{ apikey: string; created_at: string }> {
    const apikey = newApiKey();
    const digest = this.digest(apikey);
    const at = this.clock.now();
    const old = await this.keys.replace(userId, digest, at);
    if (old !== undefined) this.bus.publish(TOPIC, old);
    this.bus.publish(TOPIC, digest);
    return { apikey, created_at: new Date(at).toISOString() };
  }

  /** Drops the cached principal of the user's key here and on every instance (its owner changed). */
  async refresh(userId: number): Promise<void> {
    const key = await this.keys.findByUser(userId);
    if (key) this.bus.publish(TOPIC, key.key_digest);
  }

  /** Revokes the user's key, here and on every instance; false when there was none. */
  async revoke(userId: number): Promise<boolean> {
    const old = await this.keys.findByUser(userId);
    if (old === undefined) return false;
    await this.keys.deleteForUser(userId);
    this.bus.publish(TOPIC, old.key_digest);
    return true;
  }

  async status(
    userId: number,
  ): Promise<{ has_api_key: boolean; created_at: string | null; order_mode: OrderMode }> {
    const [key, user] = await Promise.all([this.keys.findByUser(userId), this.users.findById(userId)]);
    return {
      has_api_key: key !== undefined,
      created_at: key ? new Date(key.created_at).toISOString() : null,
      order_mode: toOrderMode(user?.order_mode),
    };
  }

  async setOrderMode(userId: number, mode: string): Promise<OrderMode> {
    if (!(ORDER_MODES as readonly string[]).includes(mode)) {
      throw badRequest('mode must be "auto" or "semi_auto"', { mode: ['must be "auto" or "semi_auto"'] });
    }
    await this.users.setOrderMode(userId, mode);
    const key = await this.keys.findByUser(userId);
    if (key) this.bus.publish(TOPIC, key.key_digest);
    return mode as OrderMode;
  }
}

function toOrderMode(v: string | undefined): OrderMode {
  return v === 'semi_auto' ? 'semi_auto' : 'auto';
}

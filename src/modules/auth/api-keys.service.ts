import { LRUCache } from 'lru-cache';
import type { Clock } from '../../platform/clock.js';
import { hmacSha256Hex, newApiKey } from '../../platform/crypto.js';
import type { InvalidationBus } from '../../platform/invalidation.js';
import { badRequest } from '../../platform/errors.js';
import type { ApiKeysRepository } from './api-keys.repository.js';
import type { UsersRepository } from './users.repository.js';

export type OrderMode = 'auto' | 'semi_auto';
export const ORDER_MODES: readonly OrderMode[] = ['auto', 'semi_auto'];

/** Who an API key belongs to, as the `/api/v1` routes see it. */
export interface ApiPrincipal {
  userId: number;
  username: string;
  orderMode: OrderMode;
}

const TOPIC = 'apikey';
/** Positive entries live briefly: a revocation elsewhere is seen within this bound even without Redis. */
const POSITIVE_TTL_MS = 15_000;
/** Unknown keys are remembered shortly, so key guessing costs no database lookup per request. */
const NEGATIVE_TTL_MS = 5_000;
/** Keys are 64 hex characters; anything far longer is refused without hashing it. */
const MAX_KEY_LENGTH = 256;

type Entry = { principal: ApiPrincipal | null };

/**
 * API keys: 32 random bytes shown once, stored only as HMAC-SHA-256 under API_KEY_PEPPER.
 * Verification is one HMAC, a cache probe and at most one indexed lookup — no argon2 on the
 * request path. Regenerating or changing the order mode invalidates the cache here and, through
 * the invalidation bus, on every other instance.
 */
export class ApiKeysService {
  private readonly cache: LRUCache<string, Entry>;

  constructor(
    private readonly keys: ApiKeysRepository,
    private readonly users: UsersRepository,
    private readonly pepper: string,
    private readonly clock: Clock,
    private readonly bus: InvalidationBus,
  ) {
    // TTLs follow the injected clock, so tests move cache expiry with a fake clock.
    this.cache = new LRUCache<string, Entry>({ max: 50_000, perf: { now: () => clock.now() } });
    bus.subscribe(TOPIC, (digest) => this.cache.delete(digest));
  }

  /** HMAC digest of a presented key (also what trackers store instead of raw keys). */
  digest(apikey: string): string {
    return hmacSha256Hex(this.pepper, apikey);
  }

  async verify(apikey: string): Promise<ApiPrincipal | undefined> {
    if (apikey.length === 0 || apikey.length > MAX_KEY_LENGTH) return undefined;
    const digest = this.digest(apikey);
    const hit = this.cache.get(digest);
    if (hit !== undefined) return hit.principal ?? undefined;
    const owner = await this.keys.findOwnerByDigest(digest);
    const principal: ApiPrincipal | null = owner
      ? { userId: owner.user_id, username: owner.username, orderMode: toOrderMode(owner.order_mode) }
      : null;
    this.cache.set(digest, { principal }, { ttl: principal ? POSITIVE_TTL_MS : NEGATIVE_TTL_MS });
    return principal ?? undefined;
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

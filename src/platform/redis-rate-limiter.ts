import { createHash, randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Clock } from './clock.js';
import type { RateDecision, RateLimiter } from './rate-limiter.js';
import type { RateRule } from './rate-rule.js';

/**
 * One hit against one key's log, atomically (a Lua script runs alone on the server, so hits from
 * every instance are serialised). The log is a sorted set of hit times (score = time in ms).
 *
 * KEYS[1]  the log
 * ARGV[1]  now, epoch ms from the caller's Clock
 * ARGV[2]  a suffix making this hit's member unique (two hits in the same millisecond both count)
 * ARGV[3…] limit, windowMs pairs, one per rule
 * Returns  {1, "0"} when allowed (and recorded), {0, "<retryAfterMs>"} when refused (not recorded).
 *
 * Numbers go to Redis through `%.17g`: Lua's default number-to-string conversion keeps only 14
 * significant digits, which would round millisecond timestamps with a fraction.
 */
const HIT_SCRIPT = `
local key = KEYS[1]
local now = tonumber(ARGV[1])
local function num(x) return string.format('%.17g', x) end
local maxWindow = 0
for i = 3, #ARGV, 2 do
  local window = tonumber(ARGV[i + 1])
  if window > maxWindow then maxWindow = window end
end
redis.call('ZREMRANGEBYSCORE', key, '-inf', num(now - maxWindow))
local retry = 0
for i = 3, #ARGV, 2 do
  local limit = tonumber(ARGV[i])
  local window = tonumber(ARGV[i + 1])
  local count = redis.call('ZCOUNT', key, '(' .. num(now - window), '+inf')
  if count >= limit then
    local blocking = redis.call('ZREVRANGE', key, num(limit - 1), num(limit - 1), 'WITHSCORES')
    local wait = tonumber(blocking[2]) + window - now
    if wait < 1 then wait = 1 end
    if wait > retry then retry = wait end
  end
end
if retry > 0 then return {0, num(retry)} end
redis.call('ZADD', key, ARGV[1], ARGV[1] .. ':' .. ARGV[2])
redis.call('PEXPIRE', key, num(math.ceil(maxWindow)))
return {1, '0'}
`;

const HIT_SHA = createHash('sha1').update(HIT_SCRIPT).digest('hex');

/** Keys per SCAN page (a hint to Redis) and so per UNLINK in {@link RedisRateLimiter.reset}. */
const SCAN_COUNT = 500;

export interface RedisRateLimiterOptions {
  /**
   * Namespace of this limiter's keys (`<prefix>:<key>`); default `algodesk:rl`. `reset()` deletes
   * everything under `<prefix>:`, so one limiter's prefix must not start another's.
   */
  prefix?: string;
}

/**
 * The sliding-log limiter of {@link MemoryRateLimiter}, shared by every instance through Redis:
 * the same decisions and `retryAfterMs`, with one sorted set per key holding the hit times of the
 * longest window, updated by one Lua script per hit so concurrent hits from any number of
 * instances never over-admit.
 *
 * Time comes from the injected Clock, not from Redis `TIME`, so tests drive it with a FakeClock
 * and every window is measured on the instance's clock. This assumes the instances' clocks agree
 * (NTP): an instance whose clock is ahead by d sees the others' hits d older (their windows end d
 * early for it); one that is behind records hits "in the future", which count in every window
 * until they pass. Either way a decision and its `retryAfterMs` are off by at most the skew.
 * Each key expires (PEXPIRE, on Redis' clock) one longest window after its latest allowed hit.
 *
 * Errors: when Redis fails (down, timeout, script error) `hit` rejects with the ioredis error;
 * the caller decides whether to fail open or closed. With {@link createRedis} a command fails
 * after its retries instead of hanging.
 *
 * The caller owns the connection: `close()` leaves it open. Works with an ioredis `keyPrefix`.
 * `reset()` SCANs one server, so it is not for Redis Cluster (hits themselves are single-key).
 */
export class RedisRateLimiter implements RateLimiter {
  private readonly prefix: string;
  /** Unique per limiter, so members from two instances in the same millisecond differ. */
  private readonly instanceId = randomBytes(6).toString('hex');
  private seq = 0;

  constructor(
    private readonly redis: Redis,
    private readonly clock: Clock,
    opts: RedisRateLimiterOptions = {},
  ) {
    this.prefix = opts.prefix ?? 'algodesk:rl';
  }

  async hit(key: string, rules: readonly RateRule[]): Promise<RateDecision> {
    // No rule, no limit (MemoryRateLimiter allows too); nothing to record against.
    if (rules.length === 0) return { allowed: true, retryAfterMs: 0 };
    const args: string[] = [];
    for (const rule of rules) {
      if (!Number.isInteger(rule.limit) || rule.limit < 1)
        throw new RangeError(`rate rule "${rule.text}": limit must be a positive integer`);
      if (!Number.isFinite(rule.windowMs) || rule.windowMs <= 0)
        throw new RangeError(`rate rule "${rule.text}": windowMs must be positive`);
      args.push(String(rule.limit), String(rule.windowMs));
    }
    const now = this.clock.now();
    if (!Number.isFinite(now)) throw new RangeError('clock.now() must be a finite number');
    this.seq = (this.seq + 1) % Number.MAX_SAFE_INTEGER;
    const member = `${this.instanceId}:${this.seq}`;
    const [allowed, retry] = await this.run(`${this.prefix}:${key}`, [String(now), member, ...args]);
    return allowed === 1
      ? { allowed: true, retryAfterMs: 0 }
      : { allowed: false, retryAfterMs: Number(retry) };
  }

  /** EVALSHA, loading the script with EVAL when the server does not have it (restart, flush). */
  private async run(key: string, args: string[]): Promise<[number, string]> {
    try {
      return (await this.redis.evalsha(HIT_SHA, 1, key, ...args)) as [number, string];
    } catch (err) {
      if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
      return (await this.redis.eval(HIT_SCRIPT, 1, key, ...args)) as [number, string];
    }
  }

  /** Deletes this limiter's keys: SCAN `<prefix>:*` page by page and UNLINK each page (never KEYS). */
  async reset(): Promise<void> {
    // ioredis adds `keyPrefix` to key arguments but not to SCAN patterns nor to the keys SCAN returns.
    const connPrefix = this.redis.options.keyPrefix ?? '';
    const pattern = `${globEscape(connPrefix + this.prefix)}:*`;
    let cursor = '0';
    do {
      const [next, keys] = await this.redis.scan(cursor, 'MATCH', pattern, 'COUNT', SCAN_COUNT);
      if (keys.length > 0) await this.redis.unlink(...keys.map((k) => k.slice(connPrefix.length)));
      cursor = next;
    } while (cursor !== '0');
  }

  /** The connection belongs to the caller, so there is nothing of ours to close. */
  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** Escapes Redis glob metacharacters so a prefix matches only itself. */
function globEscape(s: string): string {
  return s.replace(/[*?[\]\\]/g, '\\$&');
}

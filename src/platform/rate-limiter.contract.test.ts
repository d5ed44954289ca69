// The rate-limiter contract: the same scenarios against the in-memory and the Redis limiter,
// then the Redis limiter's own properties (atomicity across connections, expiry, failures).
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock, type Clock } from './clock.js';
import { MemoryRateLimiter, type RateLimiter } from './rate-limiter.js';
import { parseRateRules } from './rate-rule.js';
import { createRedis } from './redis.js';
import { RedisRateLimiter } from './redis-rate-limiter.js';

const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/0';

/** One short attempt to reach Redis: no retries, so an absent server answers in about a second. */
async function redisReachable(): Promise<boolean> {
  const probe = new Redis(redisUrl, {
    lazyConnect: true,
    connectTimeout: 1_000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  probe.on('error', () => undefined); // the failure is the answer, not an unhandled event
  try {
    await probe.connect();
    await probe.ping();
    return true;
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

// The Redis tests need a real server (TEST_REDIS_URL, default local); without one they are skipped
// rather than failed, so the unit suite runs anywhere. test/global-setup.ts prints the notice and,
// with TEST_REQUIRE_REDIS=1 (CI), fails the run instead.
const available = await redisReachable();

const newPrefix = () => `test:rl:${randomBytes(6).toString('hex')}`;

/** Connections shared by the Redis tests (two, for "two instances"), and the limiters to reset. */
let redisA: Redis;
let redisB: Redis;
const made: RateLimiter[] = [];

function setupConnections(): void {
  beforeAll(() => {
    redisA = createRedis(redisUrl, 'test-rl-a');
    redisB = createRedis(redisUrl, 'test-rl-b');
  });
  afterEach(async () => {
    for (const rl of made.splice(0)) await rl.reset();
  });
  afterAll(async () => {
    await redisA.quit();
    await redisB.quit();
  });
}

function redisLimiter(clock: Clock, prefix = newPrefix(), redis: Redis = redisA): RedisRateLimiter {
  const rl = new RedisRateLimiter(redis, clock, { prefix });
  made.push(rl);
  return rl;
}

/**
 * The contract: the same scenarios against both implementations, so the shared limiter decides
 * exactly as the in-process one (the first three mirror rate-limiter.test.ts).
 */
const implementations: Array<{ name: string; needsRedis: boolean; make: (clock: Clock) => RateLimiter }> = [
  { name: 'MemoryRateLimiter', needsRedis: false, make: (clock) => new MemoryRateLimiter(clock) },
  { name: 'RedisRateLimiter', needsRedis: true, make: (clock) => redisLimiter(clock) },
];

for (const impl of implementations) {
  describe.skipIf(impl.needsRedis && !available)(`rate limiter contract [${impl.name}]`, () => {
    if (impl.needsRedis) setupConnections();

    it('allows exactly N per window and refuses the N+1th with the wait until room', async () => {
      const clock = new FakeClock(1_000_000);
      const rl = impl.make(clock);
      const rules = parseRateRules('3 per second');
      for (let i = 0; i < 3; i++) {
        expect(await rl.hit('ip', rules)).toEqual({ allowed: true, retryAfterMs: 0 });
        clock.advance(100);
      }
      // hits at t=0,100,200; now t=300: the first leaves at t=1000.
      expect(await rl.hit('ip', rules)).toEqual({ allowed: false, retryAfterMs: 700 });
      clock.advance(699);
      expect(await rl.hit('ip', rules)).toEqual({ allowed: false, retryAfterMs: 1 });
      clock.advance(1);
      expect((await rl.hit('ip', rules)).allowed).toBe(true);
      // t=1000: hits at 100,200,1000; the one at 100 leaves at 1100.
      expect(await rl.hit('ip', rules)).toEqual({ allowed: false, retryAfterMs: 100 });
    });

    it('moves with time instead of resetting at fixed boundaries', async () => {
      const clock = new FakeClock(0);
      const rl = impl.make(clock);
      const rules = parseRateRules('2 per minute');
      clock.set(59_000);
      expect((await rl.hit('k', rules)).allowed).toBe(true);
      expect((await rl.hit('k', rules)).allowed).toBe(true);
      clock.set(61_000); // a fixed window would have reset at 60 s
      expect(await rl.hit('k', rules)).toEqual({ allowed: false, retryAfterMs: 58_000 });
      clock.set(118_999);
      expect(await rl.hit('k', rules)).toEqual({ allowed: false, retryAfterMs: 1 });
      clock.set(119_001);
      expect((await rl.hit('k', rules)).allowed).toBe(true);
    });

    it('applies every rule of a compound limit and keeps keys apart', async () => {
      const clock = new FakeClock(0);
      const rl = impl.make(clock);
      const rules = parseRateRules('5 per minute;6 per hour');
      for (let i = 0; i < 5; i++) expect((await rl.hit('a', rules)).allowed).toBe(true);
      expect(await rl.hit('a', rules)).toEqual({ allowed: false, retryAfterMs: 60_000 });
      expect((await rl.hit('b', rules)).allowed).toBe(true);
      clock.advance(60_000);
      expect((await rl.hit('a', rules)).allowed).toBe(true); // 6th in the hour
      clock.advance(60_000);
      const refused = await rl.hit('a', rules);
      expect(refused.allowed).toBe(false);
      expect(refused.retryAfterMs).toBe(3_600_000 - 120_000);
    });

    it('counts a hit in (now - windowMs, now]: exactly windowMs old, it has left', async () => {
      const clock = new FakeClock(0);
      const rl = impl.make(clock);
      const rules = parseRateRules('1 per second');
      expect((await rl.hit('k', rules)).allowed).toBe(true);
      clock.set(999);
      expect(await rl.hit('k', rules)).toEqual({ allowed: false, retryAfterMs: 1 });
      clock.set(1_000);
      expect(await rl.hit('k', rules)).toEqual({ allowed: true, retryAfterMs: 0 });
    });

    it('reports the longest wait when several rules are full at once', async () => {
      const clock = new FakeClock(0);
      const rl = impl.make(clock);
      const rules = parseRateRules('2 per second;3 per minute');
      expect((await rl.hit('k', rules)).allowed).toBe(true); // t=0
      clock.set(500);
      expect((await rl.hit('k', rules)).allowed).toBe(true); // t=500
      clock.set(1_000);
      expect((await rl.hit('k', rules)).allowed).toBe(true); // t=1000: 2 in the last second
      clock.set(1_200);
      // per second: hits 500,1000 → room at 1500 (300); per minute: hits 0,500,1000 → room at 60 000.
      expect(await rl.hit('k', rules)).toEqual({ allowed: false, retryAfterMs: 58_800 });
    });

    it('does not count refused hits, so a client that waits retryAfterMs gets through', async () => {
      const clock = new FakeClock(0);
      const rl = impl.make(clock);
      const rules = parseRateRules('2 per second');
      await rl.hit('k', rules);
      await rl.hit('k', rules);
      for (let i = 0; i < 9; i++) {
        clock.advance(100);
        expect((await rl.hit('k', rules)).allowed).toBe(false); // t=100…900, all refused
      }
      clock.set(1_000);
      expect(await rl.hit('k', rules)).toEqual({ allowed: true, retryAfterMs: 0 });
      expect(await rl.hit('k', rules)).toEqual({ allowed: true, retryAfterMs: 0 });
      expect(await rl.hit('k', rules)).toEqual({ allowed: false, retryAfterMs: 1_000 });
    });

    it('counts hits in the same millisecond separately', async () => {
      const clock = new FakeClock(5_000);
      const rl = impl.make(clock);
      const rules = parseRateRules('3 per second');
      for (let i = 0; i < 3; i++) expect((await rl.hit('k', rules)).allowed).toBe(true);
      expect(await rl.hit('k', rules)).toEqual({ allowed: false, retryAfterMs: 1_000 });
    });

    it('forgets every window on reset()', async () => {
      const clock = new FakeClock(0);
      const rl = impl.make(clock);
      const rules = parseRateRules('1 per hour');
      await rl.hit('a', rules);
      await rl.hit('b', rules);
      expect((await rl.hit('a', rules)).allowed).toBe(false);
      await rl.reset();
      expect((await rl.hit('a', rules)).allowed).toBe(true);
      expect((await rl.hit('b', rules)).allowed).toBe(true);
    });
  });
}

// Needs a real Redis (see `available` above).
describe.skipIf(!available)('RedisRateLimiter on Redis', () => {
  setupConnections();

  it('shares one window between two instances on two connections', async () => {
    const clock = new FakeClock(0);
    const prefix = newPrefix();
    const a = redisLimiter(clock, prefix, redisA);
    const b = redisLimiter(clock, prefix, redisB);
    const rules = parseRateRules('3 per second');
    expect((await a.hit('ip', rules)).allowed).toBe(true);
    clock.advance(100);
    expect((await a.hit('ip', rules)).allowed).toBe(true);
    clock.advance(100);
    expect((await b.hit('ip', rules)).allowed).toBe(true);
    clock.advance(100);
    // B counts A's two hits: the first (t=0) leaves at t=1000.
    expect(await b.hit('ip', rules)).toEqual({ allowed: false, retryAfterMs: 700 });
    expect(await a.hit('ip', rules)).toEqual({ allowed: false, retryAfterMs: 700 });
    clock.set(1_000);
    expect((await b.hit('ip', rules)).allowed).toBe(true);
    expect((await a.hit('ip', rules)).allowed).toBe(false);
  });

  it('admits exactly the limit out of 50 concurrent hits from two instances', async () => {
    const clock = new FakeClock(0);
    const prefix = newPrefix();
    const a = redisLimiter(clock, prefix, redisA);
    const b = redisLimiter(clock, prefix, redisB);
    const rules = parseRateRules('10 per minute');
    const decisions = await Promise.all(
      Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? a : b).hit('burst', rules)),
    );
    expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
    // All in one millisecond: every refusal waits the whole window.
    for (const d of decisions.filter((x) => !x.allowed)) expect(d.retryAfterMs).toBe(60_000);
    expect(await redisA.zcard(`${prefix}:burst`)).toBe(10);
  });

  it('stores same-millisecond hits as distinct members', async () => {
    const clock = new FakeClock(7_000);
    const prefix = newPrefix();
    const a = redisLimiter(clock, prefix, redisA);
    const b = redisLimiter(clock, prefix, redisB);
    const rules = parseRateRules('10 per second');
    await a.hit('k', rules);
    await a.hit('k', rules);
    await b.hit('k', rules);
    const entries = await redisA.zrange(`${prefix}:k`, 0, -1, 'WITHSCORES');
    expect(entries).toHaveLength(6);
    expect(new Set([entries[0], entries[2], entries[4]]).size).toBe(3);
    expect([entries[1], entries[3], entries[5]]).toEqual(['7000', '7000', '7000']);
  });

  it('keeps a log only of the longest window and expires the key after it', async () => {
    const clock = new FakeClock(0);
    const prefix = newPrefix();
    const rl = redisLimiter(clock, prefix);
    const rules = parseRateRules('5 per minute;25 per hour');
    await rl.hit('k', rules);
    const ttl = await redisA.pttl(`${prefix}:k`);
    expect(ttl).toBeGreaterThan(3_600_000 - 10_000); // the hour, not the minute
    expect(ttl).toBeLessThanOrEqual(3_600_000);
    clock.set(3_600_000); // the first hit (t=0) has left the hour: trimmed on the next hit
    await rl.hit('k', rules);
    expect(await redisA.zrange(`${prefix}:k`, 0, -1, 'WITHSCORES')).toHaveLength(2);
  });

  it('reset() deletes every key of its prefix, over several SCAN pages, and no other', async () => {
    const clock = new FakeClock(0);
    const prefix = newPrefix();
    const rl = redisLimiter(clock, prefix);
    const other = redisLimiter(clock, `${prefix}x`); // shares the text but not the `prefix:` namespace
    const rules = parseRateRules('1 per hour');
    await Promise.all(Array.from({ length: 1_200 }, (_, i) => rl.hit(`ip${i}`, rules)));
    await other.hit('ip0', rules);
    expect(await countKeys(`${prefix}:*`)).toBe(1_200);
    await rl.reset();
    expect(await countKeys(`${prefix}:*`)).toBe(0);
    expect(await redisA.exists(`${prefix}x:ip0`)).toBe(1);
    expect((await rl.hit('ip5', rules)).allowed).toBe(true);
  });

  it('works on a connection with an ioredis keyPrefix, reset() included', async () => {
    const keyPrefix = `${newPrefix()}:`;
    const conn = new Redis(redisUrl, { keyPrefix });
    try {
      const clock = new FakeClock(0);
      const rl = new RedisRateLimiter(conn, clock, { prefix: 'rl' });
      const rules = parseRateRules('1 per minute');
      expect((await rl.hit('k', rules)).allowed).toBe(true);
      expect((await rl.hit('k', rules)).allowed).toBe(false);
      expect(await redisA.exists(`${keyPrefix}rl:k`)).toBe(1);
      await rl.reset();
      expect(await redisA.exists(`${keyPrefix}rl:k`)).toBe(0);
    } finally {
      await conn.quit();
    }
  });

  it('loads the script with EVAL when the server does not have it (NOSCRIPT)', async () => {
    let evalshaCalls = 0;
    // A connection whose first EVALSHA answers NOSCRIPT, as after a restart or SCRIPT FLUSH
    // (flushing the shared test server itself would disturb other suites).
    const forgetful = new Proxy(redisA, {
      get(target, prop, receiver) {
        if (prop === 'evalsha' && evalshaCalls++ === 0)
          return () => Promise.reject(new Error('NOSCRIPT No matching script. Please use EVAL.'));
        const value = Reflect.get(target, prop, receiver) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const clock = new FakeClock(0);
    const rl = redisLimiter(clock, newPrefix(), forgetful);
    const rules = parseRateRules('1 per second');
    expect((await rl.hit('k', rules)).allowed).toBe(true);
    expect(await rl.hit('k', rules)).toEqual({ allowed: false, retryAfterMs: 1_000 });
    expect(evalshaCalls).toBe(2);
  });

  it('close() leaves the caller’s connection open', async () => {
    const rl = redisLimiter(new FakeClock(0));
    await rl.close();
    expect(redisA.status).toBe('ready');
    expect(await redisA.ping()).toBe('PONG');
  });
});

// No server needed: these fail before or instead of reaching Redis.
describe('RedisRateLimiter failures', () => {
  it('rejects hit() with the Redis error when the connection is down', async () => {
    const down = new Redis('redis://127.0.0.1:1', {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    down.on('error', () => undefined);
    try {
      const rl = new RedisRateLimiter(down, new FakeClock(0));
      // ioredis' own error, passed through unchanged.
      await expect(rl.hit('k', parseRateRules('1 per second'))).rejects.toThrow(/Stream isn't writeable/);
      await expect(rl.reset()).rejects.toThrow(/Stream isn't writeable/);
    } finally {
      down.disconnect();
    }
  });

  it('rejects rules no limiter can honour, and allows with no rules at all', async () => {
    const unused = new Redis({ lazyConnect: true });
    const rl = new RedisRateLimiter(unused, new FakeClock(0));
    await expect(rl.hit('k', [{ limit: 0, windowMs: 1_000, text: '0 per second' }])).rejects.toThrow(
      RangeError,
    );
    await expect(rl.hit('k', [{ limit: 1, windowMs: 0, text: '1 per nothing' }])).rejects.toThrow(RangeError);
    expect(await rl.hit('k', [])).toEqual({ allowed: true, retryAfterMs: 0 });
    expect(unused.status).toBe('wait'); // never connected
    unused.disconnect();
  });
});

async function countKeys(pattern: string): Promise<number> {
  let n = 0;
  let cursor = '0';
  do {
    const [next, keys] = await redisA.scan(cursor, 'MATCH', pattern, 'COUNT', 1_000);
    n += keys.length;
    cursor = next;
  } while (cursor !== '0');
  return n;
}

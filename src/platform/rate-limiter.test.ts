// The in-memory limiter's ring of hits against a plain sliding log, decision by decision (the
// shared scenarios are in rate-limiter.contract.test.ts).
import { describe, expect, it } from 'vitest';
import { FakeClock } from './clock.js';
import { MemoryRateLimiter, type RateDecision } from './rate-limiter.js';
import { parseRateRules, type RateRule } from './rate-rule.js';
import { seededRandom } from './seeded-random.js';

/** The rule as written: every counted hit kept in an array, filtered on each decision. */
function reference(rules: readonly RateRule[]) {
  const hits: number[] = [];
  return (now: number): RateDecision => {
    let retryAfterMs = 0;
    for (const rule of rules) {
      const inWindow = hits.filter((t) => t > now - rule.windowMs);
      if (inWindow.length >= rule.limit)
        retryAfterMs = Math.max(
          retryAfterMs,
          inWindow[inWindow.length - rule.limit]! + rule.windowMs - now,
          1,
        );
    }
    if (retryAfterMs > 0) return { allowed: false, retryAfterMs };
    hits.push(now);
    return { allowed: true, retryAfterMs: 0 };
  };
}

describe('the in-memory limiter', () => {
  it('decides as a plain sliding log over 20,000 hits of irregular timing, its ring wrapping and doubling', () => {
    const rules = parseRateRules('40 per second;300 per 10 seconds');
    const clock = new FakeClock(1_000_000);
    const rl = new MemoryRateLimiter(clock);
    const expected = reference(rules);
    const random = seededRandom(7);
    const decisions: [RateDecision, RateDecision][] = [];
    for (let i = 0; i < 20_000; i++) {
      // Bursts in the same millisecond, steady hits and pauses longer than both windows.
      const r = random();
      clock.advance(r < 0.3 ? 0 : r < 0.97 ? Math.floor(random() * 60) : 12_000);
      decisions.push([rl.hitNow('k', rules), expected(clock.now())]);
    }
    const differing = decisions.filter(
      ([a, b]) => a.allowed !== b.allowed || a.retryAfterMs !== b.retryAfterMs,
    );
    expect(differing).toEqual([]);
    const allowed = decisions.filter(([a]) => a.allowed).length;
    expect(allowed).toBeGreaterThan(1_000);
    expect(allowed).toBeLessThan(20_000);
  });
});

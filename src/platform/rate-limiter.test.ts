import { describe, expect, it } from 'vitest';
import { FakeClock } from './clock.js';
import { MemoryRateLimiter } from './rate-limiter.js';
import { parseRateRules } from './rate-rule.js';

describe('sliding-log rate limiter', () => {
  it('allows exactly N per window and refuses the N+1th with the wait until room', async () => {
    const clock = new FakeClock(1_000_000);
    const rl = new MemoryRateLimiter(clock);
    const rules = parseRateRules('3 per second');
    for (let i = 0; i < 3; i++) {
      expect((await rl.hit('ip', rules)).allowed).toBe(true);
      clock.advance(100);
    }
    // hits at t=0,100,200; now t=300: the first leaves at t=1000.
    expect(await rl.hit('ip', rules)).toEqual({ allowed: false, retryAfterMs: 700 });
    clock.advance(699);
    expect((await rl.hit('ip', rules)).allowed).toBe(false);
    clock.advance(1);
    expect((await rl.hit('ip', rules)).allowed).toBe(true);
  });

  it('moves with time instead of resetting at fixed boundaries', async () => {
    const clock = new FakeClock(0);
    const rl = new MemoryRateLimiter(clock);
    const rules = parseRateRules('2 per minute');
    clock.set(59_000);
    await rl.hit('k', rules);
    await rl.hit('k', rules);
    clock.set(61_000); // a fixed window would have reset at 60 s
    expect((await rl.hit('k', rules)).allowed).toBe(false);
    clock.set(119_001);
    expect((await rl.hit('k', rules)).allowed).toBe(true);
  });

  it('applies every rule of a compound limit and keeps keys apart', async () => {
    const clock = new FakeClock(0);
    const rl = new MemoryRateLimiter(clock);
    const rules = parseRateRules('5 per minute;6 per hour');
    for (let i = 0; i < 5; i++) expect((await rl.hit('a', rules)).allowed).toBe(true);
    expect((await rl.hit('a', rules)).allowed).toBe(false);
    expect((await rl.hit('b', rules)).allowed).toBe(true);
    clock.advance(60_000);
    expect((await rl.hit('a', rules)).allowed).toBe(true); // 6th in the hour
    clock.advance(60_000);
    const refused = await rl.hit('a', rules);
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfterMs).toBe(3_600_000 - 120_000);
  });
});

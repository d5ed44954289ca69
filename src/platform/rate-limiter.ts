import type { Clock } from './clock.js';
import type { RateRule } from './rate-rule.js';

export interface RateDecision {
  allowed: boolean;
  /** When refused: milliseconds until the oldest counted hit leaves its window. */
  retryAfterMs: number;
}

/**
 * One limiter for the whole service: a moving (sliding-log) window per key, where a request is
 * allowed only while every rule of its set has room. Refused requests are not counted, so a
 * client that backs off for `retryAfterMs` gets through.
 */
export interface RateLimiter {
  hit(key: string, rules: readonly RateRule[]): Promise<RateDecision>;
  /** Forgets every window (tests, and an operator clearing limits). */
  reset(): Promise<void>;
  close(): Promise<void>;
}

/** In-process sliding log: exact, bounded by the largest rule's limit per key. */
export class MemoryRateLimiter implements RateLimiter {
  private readonly logs = new Map<string, number[]>();
  private lastSweep = 0;

  constructor(private readonly clock: Clock) {}

  hit(key: string, rules: readonly RateRule[]): Promise<RateDecision> {
    const now = this.clock.now();
    this.sweep(now, rules);
    const maxWindow = Math.max(...rules.map((r) => r.windowMs));
    let log = this.logs.get(key);
    if (log === undefined) {
      log = [];
      this.logs.set(key, log);
    }
    // Drop hits older than the longest window; the log stays sorted by time.
    let drop = 0;
    while (drop < log.length && log[drop]! <= now - maxWindow) drop++;
    if (drop > 0) log.splice(0, drop);

    let retryAfterMs = 0;
    for (const rule of rules) {
      const from = now - rule.windowMs;
      let inWindow = 0;
      for (let i = log.length - 1; i >= 0 && log[i]! > from; i--) inWindow++;
      if (inWindow >= rule.limit) {
        // The (limit)-th most recent hit must leave the window before another fits.
        const blocking = log[log.length - rule.limit]!;
        retryAfterMs = Math.max(retryAfterMs, blocking + rule.windowMs - now, 1);
      }
    }
    if (retryAfterMs > 0) return Promise.resolve({ allowed: false, retryAfterMs });
    log.push(now);
    return Promise.resolve({ allowed: true, retryAfterMs: 0 });
  }

  /** Every minute at most, forget keys whose newest hit left the longest window. */
  private sweep(now: number, rules: readonly RateRule[]): void {
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    const horizon = Math.max(86_400_000, ...rules.map((r) => r.windowMs));
    for (const [key, log] of this.logs) {
      if (log.length === 0 || log[log.length - 1]! <= now - horizon) this.logs.delete(key);
    }
  }

  reset(): Promise<void> {
    this.logs.clear();
    return Promise.resolve();
  }

  close(): Promise<void> {
    return this.reset();
  }
}

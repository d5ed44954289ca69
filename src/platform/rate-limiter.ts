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
  /** {@link hit} without a promise, for a limiter whose windows live in this process. */
  hitNow?(key: string, rules: readonly RateRule[]): RateDecision;
  /** Forgets every window (tests, and an operator clearing limits). */
  reset(): Promise<void>;
  close(): Promise<void>;
}

const ALLOWED: RateDecision = Object.freeze({ allowed: true, retryAfterMs: 0 });

/** One key's hits, oldest first; entries before `head` are expired and await compaction. */
interface Log {
  t: number[];
  head: number;
}

/** First index in [lo, t.length) whose time is after `from` (times are sorted). */
function firstAfter(t: number[], lo: number, from: number): number {
  let hi = t.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (t[mid]! > from) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/**
 * In-process sliding log: exact. A hit costs O(log n) per rule (binary search in the sorted
 * log) and amortised O(1) trimming, so high limits stay cheap; memory is bounded by the
 * largest rule's limit per key.
 */
export class MemoryRateLimiter implements RateLimiter {
  private readonly logs = new Map<string, Log>();
  private lastSweep = 0;

  constructor(private readonly clock: Clock) {}

  hit(key: string, rules: readonly RateRule[]): Promise<RateDecision> {
    return Promise.resolve(this.hitNow(key, rules));
  }

  hitNow(key: string, rules: readonly RateRule[]): RateDecision {
    const now = this.clock.now();
    this.sweep(now, rules);
    let log = this.logs.get(key);
    if (log === undefined) {
      log = { t: [], head: 0 };
      this.logs.set(key, log);
    }
    const { t } = log;
    let maxWindow = 0;
    for (const r of rules) if (r.windowMs > maxWindow) maxWindow = r.windowMs;
    log.head = firstAfter(t, log.head, now - maxWindow);

    let retryAfterMs = 0;
    for (const rule of rules) {
      const inWindow = t.length - firstAfter(t, log.head, now - rule.windowMs);
      if (inWindow >= rule.limit) {
        // The (limit)-th most recent hit must leave the window before another fits.
        const blocking = t[t.length - rule.limit]!;
        retryAfterMs = Math.max(retryAfterMs, blocking + rule.windowMs - now, 1);
      }
    }
    if (retryAfterMs > 0) return { allowed: false, retryAfterMs };
    t.push(now);
    if (log.head > 1024 && log.head * 2 > t.length) {
      log.t = t.slice(log.head);
      log.head = 0;
    }
    return ALLOWED;
  }

  /** Every minute at most, forget keys whose newest hit left the longest window. */
  private sweep(now: number, rules: readonly RateRule[]): void {
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    const horizon = Math.max(86_400_000, ...rules.map((r) => r.windowMs));
    for (const [key, log] of this.logs) {
      const newest = log.t[log.t.length - 1];
      if (newest === undefined || newest <= now - horizon) this.logs.delete(key);
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

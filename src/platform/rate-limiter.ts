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

/**
 * One key's counted hits, oldest first: a ring of `size` times from `head` in a typed array whose
 * length is a power of two, doubled when full. Not a growing `number[]` trimmed by copying: at a
 * high limit (100,000 a second) that array was reallocated and copied again and again, and every
 * copy outlived a young-generation GC.
 */
interface Log {
  t: Float64Array;
  head: number;
  size: number;
}

/** The `i`-th oldest hit of a log. */
const at = (log: Log, i: number): number => log.t[(log.head + i) & (log.t.length - 1)]!;

/** First position in [lo, size) whose time is after `from` (times are sorted). */
function firstAfter(log: Log, lo: number, from: number): number {
  let hi = log.size;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (at(log, mid) > from) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** Appends a hit, doubling the ring (oldest first from index 0) when it is full. */
function append(log: Log, time: number): void {
  if (log.size === log.t.length) {
    const t = new Float64Array(log.t.length * 2);
    for (let i = 0; i < log.size; i++) t[i] = at(log, i);
    log.t = t;
    log.head = 0;
  }
  log.t[(log.head + log.size) & (log.t.length - 1)] = time;
  log.size++;
}

/**
 * In-process sliding log: exact. A hit costs O(log n) per rule (binary search in the sorted
 * log) and O(1) trimming, so high limits stay cheap; memory is bounded by twice the largest
 * rule's limit per key.
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
      log = { t: new Float64Array(8), head: 0, size: 0 };
      this.logs.set(key, log);
    }
    let maxWindow = 0;
    for (const r of rules) if (r.windowMs > maxWindow) maxWindow = r.windowMs;
    // The hits that left the longest window are dropped.
    const expired = firstAfter(log, 0, now - maxWindow);
    log.head = (log.head + expired) & (log.t.length - 1);
    log.size -= expired;

    let retryAfterMs = 0;
    for (const rule of rules) {
      const inWindow = log.size - firstAfter(log, 0, now - rule.windowMs);
      if (inWindow >= rule.limit) {
        // The (limit)-th most recent hit must leave the window before another fits.
        const blocking = at(log, log.size - rule.limit);
        retryAfterMs = Math.max(retryAfterMs, blocking + rule.windowMs - now, 1);
      }
    }
    if (retryAfterMs > 0) return { allowed: false, retryAfterMs };
    append(log, now);
    return ALLOWED;
  }

  /** Every minute at most, forget keys whose newest hit left the longest window. */
  private sweep(now: number, rules: readonly RateRule[]): void {
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    const horizon = Math.max(86_400_000, ...rules.map((r) => r.windowMs));
    for (const [key, log] of this.logs)
      if (log.size === 0 || at(log, log.size - 1) <= now - horizon) this.logs.delete(key);
  }

  reset(): Promise<void> {
    this.logs.clear();
    return Promise.resolve();
  }

  close(): Promise<void> {
    return this.reset();
  }
}

/**
 * Time is injected (ARCHITECTURE.md "Time is injected"): every window, expiry and timestamp reads
 * a Clock, so tests drive time with {@link FakeClock} instead of sleeping.
 */
export interface Clock {
  /** Current time in epoch milliseconds. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that only moves when told to. */
export class FakeClock implements Clock {
  constructor(private t = Date.UTC(2026, 0, 5, 4, 0, 0)) {}
  now(): number {
    return this.t;
  }
  /** Moves time forward by `ms` milliseconds. */
  advance(ms: number): void {
    this.t += ms;
  }
  set(t: number): void {
    this.t = t;
  }
}

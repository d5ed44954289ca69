/**
 * The timing the broker streams share about keeping one upstream connection
 * (docs/rules/market-data.md#feed-sources): the wait before each reconnect, the batching of one
 * event-loop turn's subscription changes into one flush, and a restartable repeating timer (a
 * heartbeat or ping). Used by ./stream-connection.ts (the Kite, Dhan and Angel streams' common
 * lifecycle), ./upstox-feed.ts and ./upstox-orders.ts; each keeps its own options, log lines and
 * protocol messages.
 */

export interface BackoffPolicy {
  /** First wait after a failure, ms. */
  initialMs: number;
  /** Longest wait, ms. */
  maxMs: number;
  /** Growth per failed attempt. */
  factor: number;
  /** Random extra of up to this fraction of the wait (0: none), so clients do not retry in step. */
  jitter: number;
}

/**
 * The wait before the next attempt after `attempt` failed ones in a row (0 for the first):
 * `initialMs × factor^attempt` capped at `maxMs`, plus the jitter, still capped.
 */
export function backoffDelay(attempt: number, policy: BackoffPolicy): number {
  const base = Math.min(policy.maxMs, policy.initialMs * policy.factor ** attempt);
  return policy.jitter > 0 ? Math.min(policy.maxMs, base * (1 + Math.random() * policy.jitter)) : base;
}

/**
 * Runs `flush` once at the end of the current event-loop turn however often it is requested in
 * it: the subscribes, unsubscribes and mode changes of one turn (the hub's re-mode is a subscribe
 * at the new mode and an unsubscribe at the old) reach the broker as one message per kind.
 */
export class TurnBatch {
  private queued: NodeJS.Immediate | undefined;

  constructor(private readonly flush: () => void) {}

  request(): void {
    this.queued ??= setImmediate(() => {
      this.queued = undefined;
      this.flush();
    });
  }

  /** Drops a flush requested in this turn and not yet run. */
  cancel(): void {
    if (this.queued) clearImmediate(this.queued);
    this.queued = undefined;
  }
}

/** A repeating timer that does not hold the process open; starting it again ends the previous run. */
export class RepeatTimer {
  private timer: NodeJS.Timeout | undefined;

  start(everyMs: number, run: () => void): void {
    this.stop();
    this.timer = setInterval(run, everyMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}

/**
 * What the broker tick streams (./kite-ticker.ts, ./upstox-feed.ts) share about keeping one
 * upstream connection (docs/rules/market-data.md#feed-sources): the wait before each reconnect,
 * and the batching of one event-loop turn's subscription changes into one flush. Kept apart so
 * both streams back off and batch the same way; each keeps its own options, log lines and
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

/**
 * One piece of run work per strategy at a time (docs/rules/strategies.md#one-piece-of-work-at-a-time): every signal, batch start, stop, stop follow-up and reconcile pass of a strategy runs
 * holding its lock, so no two of them can both decide that a leg needs an order.
 *
 * The lock is two layers: a queue per strategy in this process, and the strategy's lease in the
 * database (a conditional UPDATE, so one instance at a time). A lease names its holder (this
 * instance's `INSTANCE_ID`) and when it was taken; it lives {@link LEASE_TTL_MS} and is renewed
 * every {@link LEASE_RENEW_MS} while its work runs, so a holder that dies loses it within seconds
 * — and a restarted instance releases the leases its previous life held at once, at start-up,
 * instead of waiting for them to expire. Work queued behind work of the same strategy in this
 * process inherits the lease; the last piece of the queue releases it.
 */
import type { Logger } from 'pino';
import type { Clock } from '../../platform/clock.js';
import type { StrategyRunsRepository } from './strategy-runs.repository.js';

/** A lease's life without renewal: how long a dead holder on another instance blocks its strategy. */
export const LEASE_TTL_MS = 5_000;
/** How often a working holder renews its lease. */
export const LEASE_RENEW_MS = 1_500;
/** How long a delivery waits for the lock before it is refused (`rejected_engine_error`). */
export const LOCK_WAIT_MS = 10_000;
/** Retry period while another instance holds the lease. */
const POLL_MS = 20;

/** The lock was not taken: another piece of work of the strategy holds it. */
export const BUSY = Symbol('strategy lock busy');
export type Busy = typeof BUSY;

export interface LockOptions {
  /** How long to wait for the lock (default {@link LOCK_WAIT_MS}); 0 gives up at once when taken. */
  waitMs?: number;
}

/** The lease this process holds for a strategy, kept across its queued work. */
interface HeldLease {
  /** When it was taken (names it in the database, with the holder). */
  started: number;
  /** When the database last confirmed it (taken or renewed); 0 once a renewal found it lost. */
  confirmed: number;
  renew: NodeJS.Timeout;
  /** The latest renewal, awaited before the lease is released. */
  renewing: Promise<unknown>;
}

export class StrategyLocks {
  /** Per strategy, the end of the latest work queued in this process. */
  private readonly queues = new Map<number, Promise<void>>();
  /** Per strategy, how many pieces of work are queued here and not started yet. */
  private readonly waiting = new Map<number, number>();
  /** Per strategy, the lease held here (between pieces of work only while more are queued). */
  private readonly leases = new Map<number, HeldLease>();

  constructor(
    private readonly repo: StrategyRunsRepository,
    /** This instance's name (`INSTANCE_ID`). */
    readonly holder: string,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /**
   * Releases every lease this instance's previous life held (it died holding them: this life
   * holds none yet). Returns how many.
   */
  releaseOwn(): Promise<number> {
    return this.repo.releaseLeasesOf(this.holder);
  }

  /** Whether work of the strategy is queued or running in this process. */
  busyHere(strategyId: number): boolean {
    return this.queues.has(strategyId);
  }

  /** How many pieces of work of the strategy wait here for the lock (the running one not counted). */
  queued(strategyId: number): number {
    return this.waiting.get(strategyId) ?? 0;
  }

  /**
   * Runs `fn` holding the strategy's lock; {@link BUSY} when it could not be taken within the
   * wait (another instance's work, or with `waitMs: 0` any work already queued here).
   */
  async run<T>(strategyId: number, fn: () => Promise<T>, opts: LockOptions = {}): Promise<T | Busy> {
    const waitMs = opts.waitMs ?? LOCK_WAIT_MS;
    if (waitMs === 0 && this.busyHere(strategyId)) return BUSY;
    const deadline = Date.now() + waitMs;
    this.waiting.set(strategyId, (this.waiting.get(strategyId) ?? 0) + 1);
    return this.serial(strategyId, () => {
      const left = this.waiting.get(strategyId)! - 1;
      if (left > 0) this.waiting.set(strategyId, left);
      else this.waiting.delete(strategyId);
      return this.leased(strategyId, deadline, fn);
    });
  }

  /**
   * Runs `fn` holding the database lease, renewed meanwhile. The lease is handed to the next
   * piece of work queued here instead of being released and taken again
   * (docs/rules/strategies.md#leases): a burst of signals to one strategy costs two lease writes,
   * not two per signal. It is released once no work of the strategy is left queued here.
   */
  private async leased<T>(strategyId: number, deadline: number, fn: () => Promise<T>): Promise<T | Busy> {
    const lease = await this.acquire(strategyId, deadline);
    if (lease === BUSY) return BUSY;
    try {
      return await fn();
    } finally {
      if (!this.waiting.has(strategyId)) await this.release(strategyId, lease);
    }
  }

  /** The lease kept from the previous piece of work when still confirmed, else a new one. */
  private async acquire(strategyId: number, deadline: number): Promise<HeldLease | Busy> {
    const kept = this.leases.get(strategyId);
    if (kept) {
      const now = this.clock.now();
      // Confirmed within a renewal period: still ours (it lives LEASE_TTL_MS from then).
      if (now - kept.confirmed < LEASE_RENEW_MS) return kept;
      const held = await this.repo
        .renewLease(strategyId, this.holder, kept.started, now + LEASE_TTL_MS)
        .catch(() => false);
      if (held) {
        kept.confirmed = now;
        return kept;
      }
      this.drop(strategyId, kept);
    }
    let started: number;
    for (;;) {
      started = this.clock.now();
      if (await this.repo.takeLease(strategyId, this.holder, started, started + LEASE_TTL_MS)) break;
      if (Date.now() >= deadline) return BUSY;
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
    const lease: HeldLease = {
      started,
      confirmed: started,
      renewing: Promise.resolve(),
      renew: setInterval(() => {
        const now = this.clock.now();
        lease.renewing = this.repo
          .renewLease(strategyId, this.holder, started, now + LEASE_TTL_MS)
          .then((held) => {
            if (held) {
              lease.confirmed = now;
              return;
            }
            // Lost (this process stalled past the lease's life and another instance took it): the
            // work goes on; the compare-and-sets on the run's rows keep it from doubling an order.
            // The next piece of work takes the lease afresh.
            lease.confirmed = 0;
            this.logger.warn({ strategyId }, 'strategy lease lost while working');
          })
          .catch((err: unknown) => this.logger.warn({ err, strategyId }, 'strategy lease not renewed'));
      }, LEASE_RENEW_MS),
    };
    lease.renew.unref();
    this.leases.set(strategyId, lease);
    return lease;
  }

  /** Stops renewing a lease and forgets it (it is released, or found lost). */
  private drop(strategyId: number, lease: HeldLease): void {
    clearInterval(lease.renew);
    if (this.leases.get(strategyId) === lease) this.leases.delete(strategyId);
  }

  private async release(strategyId: number, lease: HeldLease): Promise<void> {
    this.drop(strategyId, lease);
    await lease.renewing;
    await this.repo
      .releaseLease(strategyId, this.holder, lease.started)
      .catch((err: unknown) =>
        this.logger.warn({ err, strategyId }, 'strategy lease not released; it expires on its own'),
      );
  }

  /** Runs `fn` after every earlier call for the same strategy has settled (in this process). */
  private serial<T>(strategyId: number, fn: () => Promise<T>): Promise<T> {
    const before = this.queues.get(strategyId) ?? Promise.resolve();
    const run = before.then(fn);
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    this.queues.set(strategyId, tail);
    void tail.then(() => {
      if (this.queues.get(strategyId) === tail) this.queues.delete(strategyId);
    });
    return run;
  }
}

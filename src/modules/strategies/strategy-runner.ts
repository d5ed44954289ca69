/**
 * What an accepted webhook delivery does; stopping is run-stop.ts. All of it runs holding the
 * strategy's lock ({@link StrategyRunner.locked}, docs/rules/strategies.md#one-piece-of-work-at-a-time).
 * This file holds the run's claim, its lock and what its orders became; a batch start's entries
 * are run-start.ts, sending one order (intent, pipeline, settle) is run-order.ts.
 *
 * Every order a run sends is first recorded as owned by (run, leg) with a reference of its own
 * (its tag) — an order that cannot be recorded is not sent — then sent through the order pipeline
 * in the run's own mode (`sandbox` → the sandbox even when the global mode is live; `live` → the
 * broker even in analyzer mode; never the Action Center) with that reference, then settled with
 * the answer and its event in one transaction. An acknowledgement that cannot be recorded writes
 * the critical `order_ack_unrecorded` event. An intent whose answer was never recorded (the
 * process died between sending and settling) is reconciled before the run's next decision, and
 * by the background pass: looked up by its reference at the sandbox or the broker, then settled
 * (`order_recovered`) or marked failed (`order_not_placed`, critical).
 *
 * A leg holds what its orders *filled*: an acknowledged order is `working` until the broker (or
 * the sandbox) reports it filled or dead (rejected, cancelled, expired), and only then moves the
 * leg's filled net quantity (`strategy_positions`). {@link StrategyRunner.refresh} asks about the
 * working orders before any decision that depends on the position.
 */
import type { StrategiesRepository } from './strategies.repository.js';
import type { Logger } from 'pino';
import type { Clock } from '../../platform/clock.js';
import type { LegRow, LegSeen, RunRow, StrategyOrderRow, StrategyRow } from './strategies.repository.js';
import type { EventWrite, StrategiesService } from './strategies.service.js';
import type { DerivativeContract } from '../market/derivative-leg.js';
import { BUSY, type LockOptions, type StrategyLocks } from './strategy-lock.js';
import type { RunMode } from './strategy.types.js';
import { reconcileIntents } from './intent-reconciler.js';
import { placeOrder, type PlaceArgs, type RunPipeline } from './run-order.js';
import { startRun } from './run-start.js';
import {
  ENGINE_BUSY,
  type EventArgs,
  type FoundOrder,
  type OrderFate,
  type Placed,
  type Refreshed,
  type RunnerOutcome,
  type StrategySeam,
} from './strategy-runner.types.js';
import { COOLING_OFF_MS } from '../../domain/limits.js';

export interface RunnerDeps {
  strategies: StrategiesService;
  /** The strategies module's repository (runs, orders, positions, events). */
  repo: StrategiesRepository;
  pipeline: RunPipeline;
  contract: DerivativeContract;
  /** The global switch: signal runs trade in the mode the service is in when they open. */
  analyze: () => boolean;
  /** The order's fate as the sandbox (run mode `sandbox`) or the user's broker (`live`) tells it. */
  orderFate: (userId: number, mode: RunMode, orderId: string) => Promise<OrderFate>;
  /** Asks the sandbox or the broker to cancel a working order (best effort: the fate tells). */
  cancel: (userId: number, mode: RunMode, orderId: string) => Promise<void>;
  /** The orders the sandbox or the user's broker holds with reference `tag` (throws when it cannot tell). */
  findByTag: (userId: number, mode: RunMode, tag: string) => Promise<FoundOrder[]>;
  /** The per-strategy lock every piece of run work holds. */
  locks: StrategyLocks;
  /** Called at each {@link StrategySeam} (tests kill the process there); none in production. */
  seam?: (name: StrategySeam) => Promise<void> | void;
  clock: Clock;
  logger: Logger;
}

export class StrategyRunner {
  constructor(readonly deps: RunnerDeps) {}

  get repo(): StrategiesRepository {
    return this.deps.repo;
  }

  /**
   * Runs `fn` holding the strategy's lock (strategy-lock.ts); {@link ENGINE_BUSY} when it could
   * not be taken in time.
   */
  async locked(
    strategyId: number,
    fn: () => Promise<RunnerOutcome>,
    opts: LockOptions = {},
  ): Promise<RunnerOutcome> {
    const out = await this.deps.locks.run(strategyId, fn, opts);
    return out === BUSY ? ENGINE_BUSY : out;
  }

  /**
   * Claims a run for the strategy (its `run_started` event, `opened`, written with the claim). A
   * refusal says why: another run is active (its id), or the strategy stopped less than 30 s ago.
   */
  async claim(
    s: StrategyRow,
    mode: RunMode,
    opened: Omit<EventWrite, 'strategyId' | 'runId' | 'kind'>,
  ): Promise<{ runId: number } | { refused: 'active' | 'cooling_off'; runId?: number }> {
    const r = await this.repo.claimRun(s.id, mode, this.deps.clock.now(), COOLING_OFF_MS, (runId) =>
      this.deps.strategies.eventRow({ ...opened, strategyId: s.id, runId, kind: 'run_started' }),
    );
    if (typeof r === 'number') return { runId: r };
    if (r === 'cooling_off') return { refused: 'cooling_off' };
    const fresh = await this.repo.find(s.id);
    return { refused: 'active', ...(fresh?.active_run_id ? { runId: fresh.active_run_id } : {}) };
  }

  /**
   * Batch `start`: claim, resolve legs, entries BUY before SELL. A BUY leg that cannot be
   * resolved or is refused withholds every SELL leg (critical `entries_withheld`): the hedges go
   * first so that a short option never stands without the long one it was paired with.
   */
  start(s: StrategyRow, legs: LegRow[], mode: RunMode): Promise<RunnerOutcome> {
    // Read afresh under the lock: the caller's row (a cache's, a read before the wait) may be old.
    return this.locked(s.id, async () => startRun(this, (await this.repo.find(s.id)) ?? s, legs, mode));
  }

  /**
   * Reconciles the run's unsettled intents ({@link reconcileIntents}), then asks about its
   * working orders (of one leg, or all) and records those that filled or died; each death writes
   * `order_dead` with it. An order whose fate cannot be read stays working.
   */
  async refresh(s: StrategyRow, run: RunRow, legId?: number, known?: StrategyOrderRow[]): Promise<Refreshed> {
    // One read of the run's open orders (or the caller's, read under the same lock). Unsettled
    // intents are rare (a stop mid-placement): only then are they reconciled and the working
    // orders read again, as reconciling may have placed some. Under the strategy's lock nothing
    // else changes them in between.
    const open = known ?? (await this.repo.openOrders(run.id));
    let unresolved: StrategyOrderRow[] = [];
    let wrote = false;
    let leg: LegSeen | undefined;
    let placed = open.filter((o) => o.status === 'placed' && (legId === undefined || o.leg_id === legId));
    if (open.some((o) => o.status === 'recorded')) {
      unresolved = await this.reconcileIntents(s, run);
      placed = await this.repo.workingOrders(run.id, legId);
      wrote = true;
    }
    const reconciled = wrote;
    const working: StrategyOrderRow[] = [];
    const died: StrategyOrderRow[] = [];
    for (const o of placed) {
      const fate =
        o.order_id === null
          ? undefined
          : await this.deps.orderFate(s.user_id, run.mode as RunMode, o.order_id).catch((err: unknown) => {
              this.deps.logger.warn({ err, runId: run.id }, 'strategy order status unavailable');
              return undefined;
            });
      if (!fate || fate.state === 'working') {
        working.push(o);
        continue;
      }
      const filled = fate.state === 'filled' ? o.quantity : Math.min(o.quantity, Math.max(0, fate.filled));
      const dead =
        fate.state === 'dead'
          ? this.eventRow(
              s,
              run.id,
              'order_dead',
              `${o.action} ${o.quantity} ${o.symbol} (${o.purpose}) ended unfilled after its acknowledgement` +
                (filled ? ` (${filled} filled)` : ''),
              o.leg_id,
              { orderid: o.order_id, filled },
            )
          : undefined;
      const moved = await this.repo.resolveOrder(o, fate.state, filled, this.deps.clock.now(), dead);
      // Resolved meanwhile elsewhere (another instance): the leg may have moved since the last
      // one this pass returned.
      if (moved === false) {
        leg = undefined;
        continue;
      }
      wrote = true;
      if (legId !== undefined) leg = moved;
      if (this.deps.seam) await this.deps.seam('order.resolved');
      if (dead) died.push({ ...o, status: 'dead', filled_quantity: filled });
    }
    return {
      working,
      died,
      unresolved: legId === undefined ? unresolved : unresolved.filter((o) => o.leg_id === legId),
      wrote,
      ...(leg !== undefined && !reconciled ? { leg } : {}),
    };
  }

  /** See {@link reconcileIntents} (intent-reconciler.ts). */
  reconcileIntents(s: StrategyRow, run: RunRow): Promise<StrategyOrderRow[]> {
    return reconcileIntents(this, s, run);
  }

  /**
   * The quantity a leg holds for a decision: what filled, plus what its working orders will add
   * when they fill (an order seen dead counts only its fills); with the exits it took, and whether
   * an intent of it is still unsettled (its outcome unknown: no decision can be made).
   */
  async exposure(
    s: StrategyRow,
    run: RunRow,
    legId: number,
    read?: { open?: StrategyOrderRow[] | undefined; seen?: LegSeen | undefined },
  ): Promise<{ held: number; seen: LegSeen; unsettled: boolean }> {
    const r = await this.refresh(s, run, legId, read?.open);
    // The leg as read with the open orders stands while nothing was written since; after its
    // fills, as the last of them left it.
    const seen = (!r.wrote ? read?.seen : r.leg) ?? (await this.repo.position(run.id, legId));
    return { held: seen.net + seen.working, seen, unsettled: r.unresolved.length > 0 };
  }

  /**
   * Sends one order the run owns (run-order.ts): its intent recorded first (an exit with the leg
   * as it was read, `seen`: see the repository's `recordOrder`), then the answer settled with its
   * event.
   */
  place(...args: PlaceArgs): Promise<Placed> {
    return placeOrder(this, ...args);
  }

  /** Asks for a working order to be cancelled; what happened is read back by {@link refresh}. */
  async cancel(s: StrategyRow, run: RunRow, o: StrategyOrderRow): Promise<void> {
    if (o.order_id === null) return;
    await this.deps.cancel(s.user_id, run.mode as RunMode, o.order_id).catch((err: unknown) => {
      this.deps.logger.warn({ err, runId: run.id }, 'strategy order cancel failed');
    });
  }

  /** Appends an event to the trail on its own (not part of a transition's transaction). */
  event(...args: EventArgs): Promise<void> {
    return this.repo.insertEvent(this.eventRow(...args));
  }

  /** The trail row of an event, written by the repository with its transition. */
  eventRow(...[s, runId, kind, message, legId = null, payload = null]: EventArgs) {
    return this.deps.strategies.eventRow({ strategyId: s.id, runId, kind, message, legId, payload });
  }
}

/**
 * What an accepted webhook delivery does; stopping is run-stop.ts. All of it runs holding the
 * strategy's lock ({@link StrategyRunner.locked}, docs/rules/strategies.md#one-piece-of-work-at-a-time).
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
import type { PipelineAnswer } from '../orders/order-pipeline.js';
import type { OrderInput } from '../orders/order-rules.js';
import type { LegRow, LegSeen, RunRow, StrategyOrderRow, StrategyRow } from './strategies.repository.js';
import type { EventWrite, StrategiesService } from './strategies.service.js';
import { resolveDerivativeLeg, type DerivativeContract } from '../market/derivative-leg.js';
import { BUSY, type LockOptions, type StrategyLocks } from './strategy-lock.js';
import type { RunMode } from './strategy.types.js';
import { reconcileIntents } from './intent-reconciler.js';
import {
  acknowledged,
  ENGINE_BUSY,
  newOrderTag,
  type EventArgs,
  type FoundOrder,
  type OrderFate,
  type Placed,
  type Refreshed,
  type RunnerOutcome,
  type StrategySeam,
} from './strategy-runner.types.js';
import { COOLING_OFF_MS, seconds } from '../../domain/limits.js';
import type { Action } from '../../domain/orders.js';

export interface RunnerDeps {
  strategies: StrategiesService;
  /** The strategies module's repository (runs, orders, positions, events). */
  repo: StrategiesRepository;
  pipeline: {
    run(
      userId: number,
      order: OrderInput,
      opts: { apiType: string; mode?: 'analyze' | 'live'; tag?: string },
    ): Promise<PipelineAnswer>;
  };
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
    return this.locked(s.id, async () => this.startLocked((await this.repo.find(s.id)) ?? s, legs, mode));
  }

  private async startLocked(s: StrategyRow, legs: LegRow[], mode: RunMode): Promise<RunnerOutcome> {
    const claimed = await this.claim(s, mode, {
      message: `Run started in ${mode} mode`,
      payload: { mode },
    });
    if ('refused' in claimed) {
      if (claimed.refused === 'cooling_off')
        return {
          result: 'rejected_cooling_off',
          message: `Strategy stopped less than ${seconds(COOLING_OFF_MS)} s ago; start refused`,
        };
      const active = claimed.runId === undefined ? undefined : await this.repo.run(claimed.runId);
      return {
        result: 'ok',
        message:
          active?.status === 'stop_pending'
            ? 'The previous run is still stopping; nothing started'
            : 'A run is already active; nothing started',
        ...(claimed.runId ? { runId: claimed.runId } : {}),
      };
    }
    const runId = claimed.runId;
    const resolved: { leg: LegRow; symbol: string; exchange: string; quantity: number }[] = [];
    let buyFailed = false;
    for (const leg of legs) {
      const r = await resolveDerivativeLeg(leg, this.deps.contract, mode === 'live');
      if (!r.ok) {
        await this.event(s, runId, 'entry_rejected', `Leg ${leg.id}: ${r.message}`, leg.id);
        if (leg.side === 'BUY') buyFailed = true;
        continue;
      }
      if (r.fallback) {
        await this.event(s, runId, 'leg_expiry_fallback', r.fallback, leg.id, { symbol: r.symbol });
      }
      resolved.push({ leg, symbol: r.symbol, exchange: r.exchange, quantity: r.quantity });
    }
    const order = (a: { leg: LegRow }) => (a.leg.side === 'BUY' ? 0 : 1);
    let placed = 0;
    const withheld: number[] = [];
    for (const r of resolved.sort((a, b) => order(a) - order(b) || a.leg.position - b.leg.position)) {
      const side = r.leg.side as Action;
      if (side === 'SELL' && buyFailed) {
        withheld.push(r.leg.id);
        continue;
      }
      const p = await this.place(s, runId, mode, r.leg, r.symbol, r.exchange, side, r.quantity, 'entry');
      if (p.ok) placed++;
      else if (side === 'BUY') buyFailed = true;
    }
    if (withheld.length) {
      await this.event(
        s,
        runId,
        'entries_withheld',
        `A BUY leg was refused, so ${withheld.length} SELL leg(s) were not sent; stop the run to exit what was bought`,
        null,
        { legs: withheld },
      );
    }
    return {
      result: 'ok',
      message:
        `Run started: ${placed} of ${legs.length} entries placed` +
        (withheld.length ? `; ${withheld.length} SELL leg(s) withheld because a BUY leg was refused` : ''),
      runId,
      started: true,
    };
  }

  /**
   * Reconciles the run's unsettled intents ({@link reconcileIntents}), then asks about its
   * working orders (of one leg, or all) and records those that filled or died; each death writes
   * `order_dead` with it. An order whose fate cannot be read stays working.
   */
  async refresh(s: StrategyRow, run: RunRow, legId?: number): Promise<Refreshed> {
    const unresolved = await this.reconcileIntents(s, run);
    const working: StrategyOrderRow[] = [];
    const died: StrategyOrderRow[] = [];
    for (const o of await this.repo.workingOrders(run.id, legId)) {
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
      if (!(await this.repo.resolveOrder(o, fate.state, filled, this.deps.clock.now(), dead))) continue;
      if (this.deps.seam) await this.deps.seam('order.resolved');
      if (dead) died.push({ ...o, status: 'dead', filled_quantity: filled });
    }
    return {
      working,
      died,
      unresolved: legId === undefined ? unresolved : unresolved.filter((o) => o.leg_id === legId),
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
  ): Promise<{ held: number; seen: LegSeen; unsettled: boolean }> {
    const r = await this.refresh(s, run, legId);
    const seen = await this.repo.position(run.id, legId);
    return { held: seen.net + seen.working, seen, unsettled: r.unresolved.length > 0 };
  }

  /**
   * Sends one order the run owns: its intent recorded first (an exit with the leg as it was
   * read, `seen`: see the repository's `recordOrder`), then the answer settled with its event.
   */
  async place(
    s: StrategyRow,
    runId: number,
    mode: RunMode,
    leg: Pick<LegRow, 'id'>,
    symbol: string,
    exchange: string,
    action: Action,
    quantity: number,
    purpose: 'entry' | 'exit',
    seen?: LegSeen,
  ): Promise<Placed> {
    const now = this.deps.clock.now();
    const tag = newOrderTag();
    const owned = { run_id: runId, leg_id: leg.id, symbol, exchange, action, quantity };
    let rowId: number;
    try {
      const recorded = await this.repo.recordOrder(
        {
          ...owned,
          strategy_id: s.id,
          purpose,
          status: 'recorded',
          order_id: null,
          message: null,
          tag,
          created_at: now,
          updated_at: now,
        },
        seen,
      );
      if (recorded === 'conflict')
        return { ok: false, conflict: true, message: 'The leg changed since it was read; not sent' };
      rowId = recorded;
    } catch (err) {
      this.deps.logger.error(
        { err, strategyId: s.id, runId },
        'strategy order could not be recorded; not sent',
      );
      await this.event(
        s,
        runId,
        purpose === 'entry' ? 'entry_rejected' : 'exit_rejected',
        `${action} ${quantity} ${symbol}: could not be recorded, not sent`,
        leg.id,
      ).catch(() => undefined);
      return { ok: false, message: 'The order could not be recorded, so it was not sent' };
    }
    if (this.deps.seam) await this.deps.seam('order.recorded');
    const answer = await this.deps.pipeline
      .run(
        s.user_id,
        {
          strategy: s.name,
          symbol,
          exchange,
          action,
          quantity,
          pricetype: 'MARKET',
          product: s.product as OrderInput['product'],
          price: '0',
          trigger_price: '0',
          disclosed_quantity: '0',
        },
        { apiType: 'strategy', mode: mode === 'sandbox' ? 'analyze' : 'live', tag },
      )
      .catch((err: unknown): PipelineAnswer => {
        this.deps.logger.error({ err, strategyId: s.id, runId }, 'strategy order failed in the pipeline');
        return { status: 500, body: { status: 'error', message: 'The order could not be placed' } };
      });
    if (this.deps.seam) await this.deps.seam('order.sent');
    const children = acknowledged(answer, quantity);
    const orderId = children[0]?.orderId;
    const ok = answer.status === 200 && children.length > 0;
    const message = answer.body.status === 'error' ? answer.body.message : ok ? 'placed' : 'rejected';
    const kind =
      purpose === 'entry' ? (ok ? 'entry_placed' : 'entry_rejected') : ok ? 'exit_placed' : 'exit_rejected';
    const ids = children.map((c) => c.orderId);
    const settled = this.eventRow(
      s,
      runId,
      kind,
      `${action} ${quantity} ${symbol} ${exchange}: ${ok ? `order ${ids.join(', ')}` : message}`,
      leg.id,
      { orderid: orderId ?? null, ...(ids.length > 1 ? { orderids: ids } : {}) },
    );
    try {
      await this.repo.settleOrder(
        { ...owned, id: rowId, strategy_id: s.id, purpose },
        children,
        ok ? null : message,
        this.deps.clock.now(),
        settled,
      );
    } catch (err) {
      this.deps.logger.error({ err, strategyId: s.id, runId }, 'strategy order acknowledgement not recorded');
      await this.event(
        s,
        runId,
        'order_ack_unrecorded',
        `${action} ${quantity} ${symbol} was ${ok ? 'acknowledged' : 'answered'} but could not be recorded`,
        leg.id,
        { orderid: orderId ?? null },
      ).catch(() => undefined);
    }
    if (this.deps.seam) await this.deps.seam('order.settled');
    return { ok, ...(orderId ? { orderId } : {}), message };
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

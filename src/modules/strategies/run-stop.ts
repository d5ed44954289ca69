/**
 * Stopping a batch run (docs/rules/strategies.md#stop). A stop first writes the durable intent
 * (`run_stop_requested`, run `stop_pending`), then drives the run toward flat:
 *
 * - working entries are cancelled (an exit is only sized once the entry's fill is known);
 * - every leg whose *filled* net quantity is not zero gets one exit for that quantity;
 * - the run becomes `stopped` (`run_stopped`) only when every leg's filled net is zero and no
 *   order of the run is working or unaccounted for (an acknowledgement that could not be
 *   recorded keeps the run managed: the operator was told by `order_ack_unrecorded`);
 * - an exit that is refused, or acknowledged and then rejected, writes the critical
 *   `run_stop_failed`; the run stays `stop_pending` and that leg is not retried on its own (a
 *   broker that refuses would be asked again and again): the operator's next stop retries it.
 *
 * The stop's answer is the acceptance (`stop_pending: true` with the exits it placed); the same
 * step runs again right after, off the request path, and every 10 s for every stop-pending run
 * (the reconcile), until the fills prove the run flat.
 *
 * One exit per leg, always: every step runs holding the strategy's lock (strategy-lock.ts), and
 * each exit is recorded by a compare-and-set on the leg as the step read it (the repository's
 * `recordOrder`), so concurrent stop deliveries, the follow-up, the background pass and other
 * instances can never send a second exit for the same holding.
 */
import type { Logger } from 'pino';
import type { Clock } from '../../platform/clock.js';
import type { RunRow, StrategyOrderRow, StrategyRow } from './strategies.repository.js';
import type { StrategyRunner } from './strategy-runner.js';
import type { ExitOutcome, RunnerOutcome } from './strategy-runner.types.js';
import { BUSY } from './strategy-lock.js';
import type { RunMode } from './strategy.types.js';
import { closingAction } from '../../domain/orders.js';

/** Where one {@link RunStopper.advance} step left the run. */
export interface StopProgress {
  /** Exits this step placed or had refused. */
  exits: ExitOutcome[];
  /** The run was found flat and is now stopped. */
  stopped: boolean;
  /** A close of one leg only: the leg had orders working or unconfirmed, so it was not exited. */
  busy?: boolean;
}

export class RunStopper {
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly runner: StrategyRunner,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  private get repo() {
    return this.runner.repo;
  }

  /** Batch `stop` (webhook or strategy page). A repeated stop retries exits that failed. */
  stop(s: StrategyRow): Promise<RunnerOutcome> {
    return this.runner.locked(s.id, async () => this.stopLocked((await this.repo.find(s.id)) ?? s));
  }

  private async stopLocked(s: StrategyRow): Promise<RunnerOutcome> {
    const runId = s.active_run_id;
    const run = runId === null ? undefined : await this.repo.run(runId);
    if (!run) return { result: 'ok', message: 'No active run; nothing to stop' };
    await this.repo.requestStop(
      run.id,
      this.clock.now(),
      this.runner.eventRow(s, run.id, 'run_stop_requested', 'Stop requested: exiting every open leg'),
    );
    const current = (await this.repo.run(run.id)) ?? run;
    const p = await this.advance(s, current, { retryFailed: true, finish: false });
    const refused = p.exits.filter((e) => e.status === 'rejected').length;
    if (refused === 0) this.confirmSoon(s, current);
    return {
      result: 'ok',
      message: refused
        ? 'Stop requested, but some exits were refused: operator action needed'
        : `Stop requested: ${p.exits.length} exit(s) placed; the run stops once its fills prove it flat`,
      runId: run.id,
      stopPending: true,
      exits: p.exits,
    };
  }

  /**
   * Closes one leg of the strategy's active run (docs/rules/strategies.md#close-leg): the same
   * step as a stop's ({@link advance}), limited to that leg: its working entries cancelled, its
   * filled net exited by one order. The run stays open and its other legs untouched; without an
   * active run nothing is done (`ok`, no `runId`).
   */
  closeLeg(s: StrategyRow, legId: number): Promise<RunnerOutcome> {
    return this.runner.locked(s.id, async () => {
      const fresh = (await this.repo.find(s.id)) ?? s;
      const run = fresh.active_run_id === null ? undefined : await this.repo.run(fresh.active_run_id);
      if (!run) return { result: 'ok', message: 'No active run; nothing to close', exits: [] };
      const p = await this.advance(fresh, run, { retryFailed: true, finish: false, legId });
      const refused = p.exits.filter((e) => e.status === 'rejected').length;
      const message = refused
        ? 'The exit of the leg was refused: operator action needed'
        : p.exits.length
          ? 'Exit placed; the other legs keep running'
          : p.busy
            ? 'The leg has orders still working or unconfirmed; nothing sent, try again'
            : 'The leg holds nothing; nothing to close';
      return { result: 'ok', message, runId: run.id, exits: p.exits };
    });
  }

  /**
   * One step of a stop-pending run toward flat (see the file comment). `retryFailed`: also exit
   * legs whose last exit since the stop failed (the operator's repeated stop); `finish`: mark the
   * run stopped when it is found flat; `legId`: only that leg (a close of one leg, which writes
   * no `run_stop_failed`: the run is not stopping).
   */
  async advance(
    s: StrategyRow,
    run: RunRow,
    opts: { retryFailed: boolean; finish: boolean; legId?: number },
  ): Promise<StopProgress> {
    const only = opts.legId;
    let seen = await this.runner.refresh(s, run, only);
    const entries = seen.working.filter((o) => o.purpose === 'entry');
    if (entries.length) {
      for (const o of entries) await this.runner.cancel(s, run, o);
      const again = await this.runner.refresh(s, run, only);
      seen = { ...again, died: [...seen.died, ...again.died] };
    }
    const orders = await this.repo.ordersOfRun(run.id);
    const busy = new Set<number>([
      ...seen.working.map((o) => o.leg_id),
      // Sent, but its answer was never recorded: what it holds is unknown.
      ...orders.filter((o) => o.status === 'recorded').map((o) => o.leg_id),
    ]);
    const since = run.stop_requested_at ?? run.started_at;
    const exits: ExitOutcome[] = [];
    for (const pos of await this.repo.positions(run.id)) {
      if (only !== undefined && pos.leg_id !== only) continue;
      const held = Number(pos.net);
      if (held === 0 || busy.has(pos.leg_id)) continue;
      if (!opts.retryFailed && lastExitFailed(orders, pos.leg_id, since)) continue;
      const action = closingAction(held);
      const quantity = Math.abs(held);
      const p = await this.runner.place(
        s,
        run.id,
        run.mode as RunMode,
        { id: pos.leg_id },
        pos.symbol,
        pos.exchange,
        action,
        quantity,
        'exit',
        { exits: Number(pos.exits), net: held, working: Number(pos.working) },
      );
      // The leg changed since it was read: whoever changed it owns its exit.
      if (p.conflict) {
        busy.add(pos.leg_id);
        continue;
      }
      exits.push({
        leg_id: pos.leg_id,
        symbol: pos.symbol,
        exchange: pos.exchange,
        action,
        quantity,
        status: p.ok ? 'placed' : 'rejected',
        ...(p.orderId ? { orderid: p.orderId } : {}),
        ...(p.ok ? {} : { message: p.message }),
      });
    }
    if (only !== undefined)
      return { exits, stopped: false, busy: busy.has(only) || seen.unresolved.length > 0 };
    const refused = exits.filter((e) => e.status === 'rejected');
    const deadExits = seen.died.filter((o) => o.purpose === 'exit');
    if (refused.length || deadExits.length) {
      await this.runner.event(
        s,
        run.id,
        'run_stop_failed',
        `Stop cannot complete: ${refused.length + deadExits.length} exit(s) refused or rejected; ` +
          'the run stays managed until a new stop succeeds',
        null,
        { refused, rejected_after_ack: deadExits.map((o) => ({ leg_id: o.leg_id, orderid: o.order_id })) },
      );
    }
    if (!opts.finish || exits.length > 0 || busy.size > 0) return { exits, stopped: false };
    if ((await this.repo.positions(run.id)).some((p) => Number(p.net) !== 0))
      return { exits, stopped: false };
    const stopped = this.runner.eventRow(
      s,
      run.id,
      'run_stopped',
      'Run stopped: its own fills prove every leg flat',
    );
    if (await this.repo.finishRun(s.id, run.id, this.clock.now(), stopped)) {
      this.runner.deps.strategies.invalidate(s.token_digest);
      return { exits, stopped: true };
    }
    return { exits, stopped: false };
  }

  /** Runs {@link advance} off the request path, holding the lock (tracked, so shutdown and tests can wait). */
  private confirmSoon(s: StrategyRow, run: RunRow): void {
    this.track(
      new Promise<void>((resolve) => setImmediate(resolve))
        .then(() =>
          this.runner.deps.locks.run(s.id, async () => {
            const fresh = await this.repo.run(run.id);
            if (fresh?.status === 'stop_pending')
              await this.advance(s, fresh, { retryFailed: false, finish: true });
          }),
        )
        .then(
          () => undefined,
          (err: unknown) =>
            this.logger.warn({ err, runId: run.id }, 'stop confirmation failed; reconcile retries'),
        ),
    );
  }

  /** Keeps `p` in the work {@link whenIdle} waits for. */
  private track(p: Promise<void>): void {
    const tracked: Promise<void> = p.finally(() => this.pending.delete(tracked));
    this.pending.add(tracked);
  }

  /** Starts {@link reconcile} off the caller's path (start-up), tracked like a confirmation. */
  reconcileSoon(): void {
    this.track(
      this.reconcile().catch((err: unknown) => this.logger.warn({ err }, 'strategy reconcile failed')),
    );
  }

  /** Resolves once every pending stop confirmation has run. */
  async whenIdle(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  /**
   * The background pass (at start-up, then periodically): every run holding an intent whose answer
   * was never recorded is reconciled, and every stop-pending run advanced. A strategy whose lock
   * is taken is skipped (its holder is working on it; the next pass comes back).
   */
  async reconcile(): Promise<void> {
    for (const run of await this.repo.runsNeedingAttention()) {
      const done = await this.runner.deps.locks
        .run(
          run.strategy_id,
          async () => {
            const s = await this.repo.find(run.strategy_id);
            const fresh = await this.repo.run(run.id);
            if (!s || !fresh) return;
            if (fresh.status === 'stop_pending')
              await this.advance(s, fresh, { retryFailed: false, finish: true });
            else await this.runner.refresh(s, fresh);
          },
          { waitMs: 0 },
        )
        .catch((err: unknown) => this.logger.warn({ err, runId: run.id }, 'strategy reconcile failed'));
      if (done === BUSY) this.logger.debug({ runId: run.id }, 'strategy busy; reconciled by the next pass');
    }
  }
}

/** Whether the leg's latest exit since `since` was refused or died (a stuck leg). */
function lastExitFailed(orders: readonly StrategyOrderRow[], legId: number, since: number): boolean {
  const exits = orders.filter((o) => o.leg_id === legId && o.purpose === 'exit' && o.created_at >= since);
  const last = exits[exits.length - 1];
  return last !== undefined && (last.status === 'rejected' || last.status === 'dead');
}

/**
 * What an accepted webhook delivery does (issue 7 parts 5-6).
 *
 * Every order a run sends is first recorded as owned by (run, leg) — an entry that cannot be
 * recorded is not sent — then sent through the order pipeline in the run's own mode (`sandbox`
 * → the sandbox even when the global mode is live; `live` → the broker even in analyzer mode; never
 * the Action Center), then settled with the answer. An acknowledgement that cannot be recorded
 * writes the critical `order_ack_unrecorded` event.
 *
 * A leg's position is what its placed orders in the run add up to (BUY +, SELL −), kept in
 * `strategy_positions` as each order is settled.
 */
import type { Logger } from 'pino';
import type { Clock } from '../../platform/clock.js';
import type { OrderInput, PipelineAnswer } from '../orders/order-pipeline.js';
import type { LegRow, RunRow, StrategyRow } from './strategies.repository.js';
import type { StrategiesService } from './strategies.service.js';
import { resolveDerivativeLeg, type DerivativeContract } from './leg-resolver.js';
import { COOLING_OFF_MS, type RunMode, type WebhookResult } from './strategy.types.js';

export interface RunnerOutcome {
  result: WebhookResult;
  message: string;
  runId?: number;
  stopPending?: boolean;
  exits?: ExitOutcome[];
}

export interface ExitOutcome {
  leg_id: number;
  symbol: string;
  exchange: string;
  action: 'BUY' | 'SELL';
  quantity: number;
  status: 'placed' | 'rejected';
  orderid?: string;
  message?: string;
}

/** Whether a placed order has filled: `filled`, still `working`, or `dead` (rejected/cancelled). */
export type FillState = 'filled' | 'working' | 'dead';

export interface RunnerDeps {
  strategies: StrategiesService;
  pipeline: {
    run(
      userId: number,
      order: OrderInput,
      opts: { apiType: string; mode?: 'analyze' | 'live' },
    ): Promise<PipelineAnswer>;
  };
  contract: DerivativeContract;
  /** The global switch: signal runs trade in the mode the service is in when they open. */
  analyze: () => boolean;
  fillState: (userId: number, mode: RunMode, orderId: string) => Promise<FillState>;
  clock: Clock;
  logger: Logger;
}

interface Placed {
  ok: boolean;
  orderId?: string;
  message: string;
}

export class StrategyRunner {
  private readonly confirming = new Set<Promise<void>>();

  constructor(private readonly deps: RunnerDeps) {}

  get repo() {
    return this.deps.strategies.repo;
  }

  /**
   * Claims a run for the strategy. A refusal says why: another run is active (its id), or the
   * strategy stopped less than 30 s ago.
   */
  async claim(
    s: StrategyRow,
    mode: RunMode,
  ): Promise<{ runId: number } | { refused: 'active' | 'cooling_off'; runId?: number }> {
    const r = await this.repo.claimRun(s.id, mode, this.deps.clock.now(), COOLING_OFF_MS);
    if (typeof r === 'number') return { runId: r };
    if (r === 'cooling_off') return { refused: 'cooling_off' };
    const fresh = await this.repo.find(s.id);
    return { refused: 'active', ...(fresh?.active_run_id ? { runId: fresh.active_run_id } : {}) };
  }

  /** Batch `start`: claim, resolve legs, entries BUY before SELL. */
  async start(s: StrategyRow, legs: LegRow[], mode: RunMode): Promise<RunnerOutcome> {
    const claimed = await this.claim(s, mode);
    if ('refused' in claimed) {
      return claimed.refused === 'cooling_off'
        ? {
            result: 'rejected_cooling_off',
            message: `Strategy stopped less than ${COOLING_OFF_MS / 1000} s ago; start refused`,
          }
        : {
            result: 'ok',
            message: 'A run is already active; nothing started',
            ...(claimed.runId ? { runId: claimed.runId } : {}),
          };
    }
    const runId = claimed.runId;
    await this.event(s, runId, 'run_started', `Run started in ${mode} mode`, null, { mode });
    const resolved: { leg: LegRow; symbol: string; exchange: string; quantity: number }[] = [];
    for (const leg of legs) {
      const r = await resolveDerivativeLeg(leg, this.deps.contract);
      if (!r.ok) {
        await this.event(s, runId, 'entry_rejected', `Leg ${leg.id}: ${r.message}`, leg.id);
        continue;
      }
      if (r.fallback) {
        await this.event(s, runId, 'leg_expiry_fallback', r.fallback, leg.id, { symbol: r.symbol });
      }
      resolved.push({ leg, symbol: r.symbol, exchange: r.exchange, quantity: r.quantity });
    }
    const order = (a: { leg: LegRow }) => (a.leg.side === 'BUY' ? 0 : 1);
    let placed = 0;
    for (const r of resolved.sort((a, b) => order(a) - order(b) || a.leg.position - b.leg.position)) {
      const p = await this.place(
        s,
        runId,
        mode,
        r.leg,
        r.symbol,
        r.exchange,
        r.leg.side as 'BUY' | 'SELL',
        r.quantity,
        'entry',
      );
      if (p.ok) placed++;
    }
    return { result: 'ok', message: `Run started: ${placed} of ${legs.length} entries placed`, runId };
  }

  /**
   * Batch `stop`: durable intent first, then an exit for every leg the run holds. The run is
   * stopped only once its own fills prove it flat; if an exit cannot be placed it stays managed
   * and `run_stop_failed` (critical) is written.
   */
  async stop(s: StrategyRow): Promise<RunnerOutcome> {
    const runId = s.active_run_id;
    const run = runId === null ? undefined : await this.repo.run(runId);
    if (!run) return { result: 'ok', message: 'No active run; nothing to stop' };
    const first = await this.repo.requestStop(run.id, this.deps.clock.now());
    if (first) await this.event(s, run.id, 'run_stop_requested', 'Stop requested: exiting every open leg');
    const inFlight = new Set(
      (await this.repo.ordersOfRun(run.id))
        .filter((o) => o.purpose === 'exit' && o.status === 'recorded')
        .map((o) => o.leg_id),
    );
    const exits: ExitOutcome[] = [];
    for (const pos of await this.repo.positions(run.id)) {
      const { leg_id: legId, net: held } = pos;
      const last = { symbol: pos.symbol, exchange: pos.exchange };
      if (held === 0 || inFlight.has(legId)) continue;
      const action = held > 0 ? 'SELL' : 'BUY';
      const leg = { id: legId } as LegRow;
      const p = await this.place(
        s,
        run.id,
        run.mode as RunMode,
        leg,
        last.symbol,
        last.exchange,
        action,
        Math.abs(held),
        'exit',
      );
      exits.push({
        leg_id: legId,
        symbol: last.symbol,
        exchange: last.exchange,
        action,
        quantity: Math.abs(held),
        status: p.ok ? 'placed' : 'rejected',
        ...(p.orderId ? { orderid: p.orderId } : {}),
        ...(p.ok ? {} : { message: p.message }),
      });
    }
    const failed = exits.filter((e) => e.status === 'rejected');
    if (failed.length) {
      await this.event(
        s,
        run.id,
        'run_stop_failed',
        `Stop cannot complete: ${failed.length} exit(s) refused; the run stays managed`,
        null,
        {
          exits: failed,
        },
      );
      return {
        result: 'ok',
        message: 'Stop requested, but some exits were refused: operator action needed',
        runId: run.id,
        stopPending: true,
        exits,
      };
    }
    // The answer is the acceptance (spec: stop requested, `stop_pending` true); the run becomes
    // stopped only when its own fills prove it flat — checked right after this answer, and again
    // by the periodic reconcile while exits are still working.
    this.confirmSoon(s, run);
    return {
      result: 'ok',
      message: `Stop requested: ${exits.length} exit(s) placed; the run stops once its fills prove it flat`,
      runId: run.id,
      stopPending: true,
      exits,
    };
  }

  /** Runs {@link confirmFlat} off the request path (tracked, so shutdown and tests can wait). */
  private confirmSoon(s: StrategyRow, run: RunRow): void {
    const p: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.confirmFlat(s, run))
      .then(
        () => undefined,
        (err: unknown) =>
          this.deps.logger.warn({ err, runId: run.id }, 'stop confirmation failed; reconcile retries'),
      )
      .finally(() => this.confirming.delete(p));
    this.confirming.add(p);
  }

  /** Resolves once every pending stop confirmation has run. */
  async whenIdle(): Promise<void> {
    while (this.confirming.size > 0) await Promise.allSettled([...this.confirming]);
  }

  /** Stopped once every order the run placed has filled and the legs net to zero. */
  async confirmFlat(s: StrategyRow, run: RunRow): Promise<boolean> {
    if ((await this.repo.positions(run.id)).some((p) => p.net !== 0)) return false;
    for (const o of await this.repo.ordersOfRun(run.id)) {
      if (o.status !== 'placed' || o.order_id === null) continue;
      const state = await this.deps
        .fillState(s.user_id, run.mode as RunMode, o.order_id)
        .catch(() => 'working' as const);
      if (state !== 'filled') return false;
    }
    if (await this.repo.finishRun(s.id, run.id, this.deps.clock.now())) {
      await this.event(s, run.id, 'run_stopped', 'Run stopped: its own fills prove every leg flat');
      this.deps.strategies.invalidate(s.token_digest);
    }
    return true;
  }

  /** Re-checks every stop-pending run (the periodic job). */
  async reconcile(): Promise<void> {
    for (const run of await this.repo.runsWithStatus('stop_pending')) {
      const s = await this.repo.find(run.strategy_id);
      if (s)
        await this.confirmFlat(s, run).catch((err: unknown) =>
          this.deps.logger.warn({ err, runId: run.id }, 'stop reconcile failed'),
        );
    }
  }

  /** Sends one order the run owns (recorded first) and settles it with the answer. */
  async place(
    s: StrategyRow,
    runId: number,
    mode: RunMode,
    leg: Pick<LegRow, 'id'>,
    symbol: string,
    exchange: string,
    action: 'BUY' | 'SELL',
    quantity: number,
    purpose: 'entry' | 'exit',
  ): Promise<Placed> {
    const now = this.deps.clock.now();
    const owned = { run_id: runId, leg_id: leg.id, symbol, exchange, action, quantity };
    let rowId: number;
    try {
      rowId = await this.repo.recordOrder({
        ...owned,
        strategy_id: s.id,
        purpose,
        status: 'recorded',
        order_id: null,
        message: null,
        created_at: now,
        updated_at: now,
      });
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
        { apiType: 'strategy', mode: mode === 'sandbox' ? 'analyze' : 'live' },
      )
      .catch((err: unknown): PipelineAnswer => {
        this.deps.logger.error({ err, strategyId: s.id, runId }, 'strategy order failed in the pipeline');
        return { status: 500, body: { status: 'error', message: 'The order could not be placed' } };
      });
    const ok = answer.status === 200;
    const orderId = typeof answer.body.orderid === 'string' ? answer.body.orderid : undefined;
    const message =
      typeof answer.body.message === 'string' ? answer.body.message : ok ? 'placed' : 'rejected';
    try {
      await this.repo.settleOrder(
        { ...owned, id: rowId },
        ok ? 'placed' : 'rejected',
        orderId ?? null,
        ok ? null : message,
        this.deps.clock.now(),
      );
    } catch (err) {
      this.deps.logger.error({ err, strategyId: s.id, runId }, 'strategy order acknowledgement not recorded');
      await this.event(
        s,
        runId,
        'order_ack_unrecorded',
        `${action} ${quantity} ${symbol} was ${ok ? 'acknowledged' : 'answered'} but could not be recorded`,
        leg.id,
        {
          orderid: orderId ?? null,
        },
      ).catch(() => undefined);
    }
    const kind =
      purpose === 'entry' ? (ok ? 'entry_placed' : 'entry_rejected') : ok ? 'exit_placed' : 'exit_rejected';
    await this.event(
      s,
      runId,
      kind,
      `${action} ${quantity} ${symbol} ${exchange}: ${ok ? `order ${orderId ?? ''}` : message}`,
      leg.id,
      {
        orderid: orderId ?? null,
      },
    );
    return { ok, ...(orderId ? { orderId } : {}), message };
  }

  event(
    s: StrategyRow,
    runId: number | null,
    kind: Parameters<StrategiesService['event']>[0]['kind'],
    message: string,
    legId: number | null = null,
    payload: Record<string, unknown> | null = null,
  ): Promise<void> {
    return this.deps.strategies.event({ strategyId: s.id, runId, kind, message, legId, payload });
  }
}

/**
 * What an accepted webhook delivery does (issue 7 parts 5-6); stopping is run-stop.ts.
 *
 * Every order a run sends is first recorded as owned by (run, leg) — an entry that cannot be
 * recorded is not sent — then sent through the order pipeline in the run's own mode (`sandbox`
 * → the sandbox even when the global mode is live; `live` → the broker even in analyzer mode; never
 * the Action Center), then settled with the answer. An acknowledgement that cannot be recorded
 * writes the critical `order_ack_unrecorded` event.
 *
 * A leg holds what its orders *filled*: an acknowledged order is `working` until the broker (or
 * the sandbox) reports it filled or dead (rejected, cancelled, expired), and only then moves the
 * leg's filled net quantity (`strategy_positions`). {@link StrategyRunner.refresh} asks about the
 * working orders before any decision that depends on the position.
 */
import type { Logger } from 'pino';
import type { Clock } from '../../platform/clock.js';
import type { PipelineAnswer } from '../orders/order-pipeline.js';
import type { OrderInput } from '../orders/order-rules.js';
import type { LegRow, RunRow, StrategyOrderRow, StrategyRow } from './strategies.repository.js';
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

/**
 * What became of a placed order: still `working`, `filled` whole, or `dead` (rejected, cancelled
 * or expired after the acknowledgement) having filled `filled` of its quantity.
 */
export interface OrderFate {
  state: 'filled' | 'working' | 'dead';
  filled: number;
}

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
  /** The order's fate as the sandbox (run mode `sandbox`) or the user's broker (`live`) tells it. */
  orderFate: (userId: number, mode: RunMode, orderId: string) => Promise<OrderFate>;
  /** Asks the sandbox or the broker to cancel a working order (best effort: the fate tells). */
  cancel: (userId: number, mode: RunMode, orderId: string) => Promise<void>;
  clock: Clock;
  logger: Logger;
}

export interface Placed {
  ok: boolean;
  orderId?: string;
  message: string;
}

/** What {@link StrategyRunner.refresh} found: orders still working, and those seen dying now. */
export interface Refreshed {
  working: StrategyOrderRow[];
  died: StrategyOrderRow[];
}

/**
 * The child orders an answer acknowledges, with their quantities: one for a plain order, several
 * when the pipeline split it at the freeze quantity (also those placed before a split failed
 * part-way), none for a refusal.
 */
export function acknowledged(a: PipelineAnswer, quantity: number): { orderId: string; quantity: number }[] {
  const ids = Array.isArray(a.body.orderids)
    ? (a.body.orderids as unknown[]).filter((x): x is string => typeof x === 'string')
    : a.status === 200 && typeof a.body.orderid === 'string'
      ? [a.body.orderid]
      : [];
  const sizes = a.quantities ?? (ids.length === 1 ? [quantity] : []);
  return ids.flatMap((orderId, i) => (sizes[i] === undefined ? [] : [{ orderId, quantity: sizes[i] }]));
}

export class StrategyRunner {
  constructor(readonly deps: RunnerDeps) {}

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

  /**
   * Batch `start`: claim, resolve legs, entries BUY before SELL. A BUY leg that cannot be
   * resolved or is refused withholds every SELL leg (critical `entries_withheld`): the hedges go
   * first so that a short option never stands without the long one it was paired with.
   */
  async start(s: StrategyRow, legs: LegRow[], mode: RunMode): Promise<RunnerOutcome> {
    const claimed = await this.claim(s, mode);
    if ('refused' in claimed) {
      if (claimed.refused === 'cooling_off')
        return {
          result: 'rejected_cooling_off',
          message: `Strategy stopped less than ${COOLING_OFF_MS / 1000} s ago; start refused`,
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
    await this.event(s, runId, 'run_started', `Run started in ${mode} mode`, null, { mode });
    const resolved: { leg: LegRow; symbol: string; exchange: string; quantity: number }[] = [];
    let buyFailed = false;
    for (const leg of legs) {
      const r = await resolveDerivativeLeg(leg, this.deps.contract);
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
      const side = r.leg.side as 'BUY' | 'SELL';
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
    };
  }

  /**
   * Asks about the run's working orders (of one leg, or all) and records those that filled or
   * died; each death writes `order_dead`. An order whose fate cannot be read stays working.
   */
  async refresh(s: StrategyRow, run: RunRow, legId?: number): Promise<Refreshed> {
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
      if (!(await this.repo.resolveOrder(o, fate.state, filled, this.deps.clock.now()))) continue;
      if (fate.state === 'dead') {
        died.push({ ...o, status: 'dead', filled_quantity: filled });
        await this.event(
          s,
          run.id,
          'order_dead',
          `${o.action} ${o.quantity} ${o.symbol} (${o.purpose}) ended unfilled after its acknowledgement` +
            (filled ? ` (${filled} filled)` : ''),
          o.leg_id,
          { orderid: o.order_id, filled },
        );
      }
    }
    return { working, died };
  }

  /**
   * The quantity a leg holds for a decision: what filled, plus what its working orders will add
   * when they fill (an order seen dead counts only its fills).
   */
  async exposure(s: StrategyRow, run: RunRow, legId: number): Promise<number> {
    await this.refresh(s, run, legId);
    const p = await this.repo.position(run.id, legId);
    return p.net + p.working;
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
    const children = acknowledged(answer, quantity);
    const orderId = children[0]?.orderId;
    const ok = answer.status === 200 && children.length > 0;
    const message =
      typeof answer.body.message === 'string' ? answer.body.message : ok ? 'placed' : 'rejected';
    try {
      await this.repo.settleOrder(
        { ...owned, id: rowId, strategy_id: s.id, purpose },
        children,
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
        { orderid: orderId ?? null },
      ).catch(() => undefined);
    }
    const kind =
      purpose === 'entry' ? (ok ? 'entry_placed' : 'entry_rejected') : ok ? 'exit_placed' : 'exit_rejected';
    const ids = children.map((c) => c.orderId);
    await this.event(
      s,
      runId,
      kind,
      `${action} ${quantity} ${symbol} ${exchange}: ${ok ? `order ${ids.join(', ')}` : message}`,
      leg.id,
      { orderid: orderId ?? null, ...(ids.length > 1 ? { orderids: ids } : {}) },
    );
    return { ok, ...(orderId ? { orderId } : {}), message };
  }

  /** Asks for a working order to be cancelled; what happened is read back by {@link refresh}. */
  async cancel(s: StrategyRow, run: RunRow, o: StrategyOrderRow): Promise<void> {
    if (o.order_id === null) return;
    await this.deps.cancel(s.user_id, run.mode as RunMode, o.order_id).catch((err: unknown) => {
      this.deps.logger.warn({ err, runId: run.id }, 'strategy order cancel failed');
    });
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

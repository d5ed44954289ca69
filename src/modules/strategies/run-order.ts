/**
 * One order a strategy run sends (docs/rules/strategies.md#intents): its intent recorded as owned
 * by (run, leg) with a reference of its own (an order that cannot be recorded is not sent), then
 * sent through the order pipeline in the run's mode with that reference, then the answer settled
 * with its event in one transaction (`order_ack_unrecorded`, critical, when that write fails).
 * Apart from strategy-runner.ts (the run's claim, its lock, what its orders became) and from the
 * callers that decide to order (run-start.ts, signal-handler.ts, run-stop.ts): this file is the
 * order's three writes and the seams between them, whoever asks.
 */
import type { Logger } from 'pino';
import type { Clock } from '../../platform/clock.js';
import type { Action } from '../../domain/orders.js';
import type { PipelineAnswer } from '../orders/order-pipeline.js';
import type { OrderInput } from '../orders/order-rules.js';
import type {
  LegRow,
  LegSeen,
  NewEvent,
  StrategiesRepository,
  StrategyRow,
} from './strategies.repository.js';
import {
  acknowledged,
  newOrderTag,
  type EventArgs,
  type Placed,
  type StrategySeam,
} from './strategy-runner.types.js';
import type { RunMode } from './strategy.types.js';

/** The order pipeline as a run uses it: its own mode and reference, never the Action Center. */
export interface RunPipeline {
  run(
    userId: number,
    order: OrderInput,
    opts: { apiType: string; mode?: 'analyze' | 'live'; tag?: string },
  ): Promise<PipelineAnswer>;
}

/** What sending an order needs of the runner. */
export interface OrderContext {
  repo: Pick<StrategiesRepository, 'recordOrder' | 'settleOrder'>;
  deps: {
    pipeline: RunPipeline;
    seam?: (name: StrategySeam) => Promise<void> | void;
    clock: Clock;
    logger: Logger;
  };
  event(...args: EventArgs): Promise<void>;
  eventRow(...args: EventArgs): NewEvent;
}

/**
 * An order of a run: the strategy, the run and its mode, the leg, what to send and why (an exit
 * with the leg as it was read, `seen`: see the repository's `recordOrder`).
 */
export type PlaceArgs = [
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
];

/**
 * Sends one order the run owns: its intent recorded first, then the answer settled with its
 * event (`StrategyRunner.place`).
 */
export async function placeOrder(
  runner: OrderContext,
  ...[s, runId, mode, leg, symbol, exchange, action, quantity, purpose, seen]: PlaceArgs
): Promise<Placed> {
  const { deps, repo } = runner;
  const now = deps.clock.now();
  const tag = newOrderTag();
  const owned = { run_id: runId, leg_id: leg.id, symbol, exchange, action, quantity };
  let rowId: number;
  try {
    const recorded = await repo.recordOrder(
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
    deps.logger.error({ err, strategyId: s.id, runId }, 'strategy order could not be recorded; not sent');
    await runner
      .event(
        s,
        runId,
        purpose === 'entry' ? 'entry_rejected' : 'exit_rejected',
        `${action} ${quantity} ${symbol}: could not be recorded, not sent`,
        leg.id,
      )
      .catch(() => undefined);
    return { ok: false, message: 'The order could not be recorded, so it was not sent' };
  }
  if (deps.seam) await deps.seam('order.recorded');
  const answer = await deps.pipeline
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
      deps.logger.error({ err, strategyId: s.id, runId }, 'strategy order failed in the pipeline');
      return { status: 500, body: { status: 'error', message: 'The order could not be placed' } };
    });
  if (deps.seam) await deps.seam('order.sent');
  const children = acknowledged(answer, quantity);
  const orderId = children[0]?.orderId;
  const ok = answer.status === 200 && children.length > 0;
  const message = answer.body.status === 'error' ? answer.body.message : ok ? 'placed' : 'rejected';
  const kind =
    purpose === 'entry' ? (ok ? 'entry_placed' : 'entry_rejected') : ok ? 'exit_placed' : 'exit_rejected';
  const ids = children.map((c) => c.orderId);
  const settled = runner.eventRow(
    s,
    runId,
    kind,
    `${action} ${quantity} ${symbol} ${exchange}: ${ok ? `order ${ids.join(', ')}` : message}`,
    leg.id,
    { orderid: orderId ?? null, ...(ids.length > 1 ? { orderids: ids } : {}) },
  );
  try {
    await repo.settleOrder(
      { ...owned, id: rowId, strategy_id: s.id, purpose },
      children,
      ok ? null : message,
      deps.clock.now(),
      settled,
    );
  } catch (err) {
    deps.logger.error({ err, strategyId: s.id, runId }, 'strategy order acknowledgement not recorded');
    await runner
      .event(
        s,
        runId,
        'order_ack_unrecorded',
        `${action} ${quantity} ${symbol} was ${ok ? 'acknowledged' : 'answered'} but could not be recorded`,
        leg.id,
        { orderid: orderId ?? null },
      )
      .catch(() => undefined);
  }
  if (deps.seam) await deps.seam('order.settled');
  return { ok, ...(orderId ? { orderId } : {}), message };
}

/**
 * What the strategy runner and the run stopper answer and exchange: outcomes, order fates, the
 * orders found by their reference, the seams between a strategy order's writes, and how an
 * order's reference and acknowledged children are made.
 */
import { randomUUID } from 'node:crypto';
import type { PipelineAnswer } from '../orders/order-pipeline.js';
import type { EventWrite } from './strategies.service.js';
import type { LegSeen, StrategyOrderRow, StrategyRow } from './strategies.repository.js';
import type { Child } from './strategy-orders.repository.js';
import type { WebhookResult } from './strategy.types.js';
import type { Action } from '../../domain/orders.js';

export interface RunnerOutcome {
  result: WebhookResult;
  message: string;
  runId?: number;
  stopPending?: boolean;
  exits?: ExitOutcome[];
  /** A batch start that opened the run `runId` (not one answering that a run is already active). */
  started?: boolean;
}

export interface ExitOutcome {
  leg_id: number;
  symbol: string;
  exchange: string;
  action: Action;
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

/**
 * An order found by its reference after a restart: acknowledged (it has an order id; its fate is
 * read later), or `refused` at placement (the sandbox keeps refused orders with their reason).
 */
export interface FoundOrder {
  orderId: string;
  quantity: number;
  refused: boolean;
  message?: string;
}

/**
 * The points between a strategy order's writes, where a crash leaves the run and the account
 * apart until a reconcile: after the intent is recorded, after the pipeline answered, after the
 * answer is settled, after a fill is recorded. Tests kill a process at one of them.
 */
export type StrategySeam = 'order.recorded' | 'order.sent' | 'order.settled' | 'order.resolved';

/**
 * A reference no other order carries: the broker order tag (Kite allows 20 alphanumerics), 72
 * random bits in base 36. The bits are 18 of a version-4 UUID's hex digits that carry no version or
 * variant bits: Node hands UUIDs out of a pool it fills in batches, where `randomBytes(9)` asked
 * the system's generator once per order (2 % of the event loop under a stream of signals).
 */
export function newOrderTag(): string {
  const u = randomUUID();
  return `ad${BigInt(`0x${u.slice(0, 8)}${u.slice(9, 13)}${u.slice(24, 30)}`)
    .toString(36)
    .padStart(14, '0')}`;
}

/** An event of a run (or of the strategy, `runId` null): kind, message, leg and payload. */
export type EventArgs = [
  s: StrategyRow,
  runId: number | null,
  kind: EventWrite['kind'],
  message: string,
  legId?: number | null,
  payload?: Record<string, unknown> | null,
];

/** The answer to a delivery that found the strategy's lock taken for longer than it may wait. */
export const ENGINE_BUSY: RunnerOutcome = {
  result: 'rejected_engine_error',
  message: 'Another delivery of this strategy is still being handled; try again',
};

export interface Placed {
  ok: boolean;
  orderId?: string;
  message: string;
  /** An exit not sent because the leg changed since it was read (another pass exits it). */
  conflict?: boolean;
}

/**
 * What {@link StrategyRunner.refresh} found: orders still working, those seen dying now, and
 * intents whose outcome is still unknown (the sandbox or the broker could not be asked).
 */
export interface Refreshed {
  working: StrategyOrderRow[];
  died: StrategyOrderRow[];
  unresolved: StrategyOrderRow[];
  /** Whether it wrote anything (an order resolved, an intent reconciled): a leg read before may have moved. */
  wrote: boolean;
  /**
   * The asked-about leg as the last of its writes left it, when its orders' fills were all it
   * wrote (each resolution returns the leg); undefined otherwise (the leg must be read).
   */
  leg?: LegSeen;
}

/**
 * The child orders an answer acknowledges, with their quantities: one for a plain order, several
 * when the pipeline split it at the freeze quantity (also those placed before a split failed
 * part-way), none for a refusal.
 */
export function acknowledged(a: PipelineAnswer, quantity: number): Child[] {
  const ids = a.body.orderids ?? (a.body.status === 'success' ? [a.body.orderid] : []);
  const sizes = a.quantities ?? (ids.length === 1 ? [quantity] : []);
  return ids.flatMap((orderId, i) =>
    sizes[i] === undefined ? [] : [{ orderId, quantity: sizes[i], filled: a.complete?.[i] === true }],
  );
}

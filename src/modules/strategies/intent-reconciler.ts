/**
 * Intents a crash left unsettled (strategy-runner.ts): an order recorded before it was sent whose
 * answer was never recorded is looked up by its reference at the sandbox or the broker, then
 * settled with what was found (`order_recovered`), or marked failed when nothing was
 * (`order_not_placed`); when the broker cannot be asked it stays, said once (`order_unconfirmed`).
 */
import type { Logger } from 'pino';
import type { Clock } from '../../platform/clock.js';
import type {
  NewEvent,
  RunRow,
  StrategiesRepository,
  StrategyOrderRow,
  StrategyRow,
} from './strategies.repository.js';
import type { EventArgs, FoundOrder } from './strategy-runner.types.js';
import type { RunMode } from './strategy.types.js';

/** What a reconcile needs of the runner. */
export interface IntentContext {
  repo: Pick<StrategiesRepository, 'recordedOrders' | 'failIntent' | 'settleOrder' | 'markUnconfirmed'>;
  deps: {
    findByTag: (userId: number, mode: RunMode, tag: string) => Promise<FoundOrder[]>;
    clock: Clock;
    logger: Logger;
  };
  eventRow(...args: EventArgs): NewEvent;
}

/**
 * Settles every intent of the run whose answer was never recorded (a crash between sending and
 * settling; the caller holds the strategy's lock, so no such order is in flight): the orders
 * found at the sandbox or the broker by the intent's reference become its outcome
 * (`order_recovered`); none found means it was never placed (`failed`, `order_not_placed`).
 * Returns the intents still unsettled (the sandbox or the broker could not be asked).
 */
export async function reconcileIntents(
  runner: IntentContext,
  s: StrategyRow,
  run: RunRow,
): Promise<StrategyOrderRow[]> {
  const left: StrategyOrderRow[] = [];
  for (const o of await runner.repo.recordedOrders(run.id)) {
    const what = `${o.action} ${o.quantity} ${o.symbol} ${o.exchange} (${o.purpose})`;
    let reason = '';
    const found =
      o.tag === null
        ? []
        : await runner.deps.findByTag(s.user_id, run.mode as RunMode, o.tag).catch((err: unknown) => {
            runner.deps.logger.warn({ err, runId: run.id }, 'strategy order intent could not be looked up');
            reason = err instanceof Error ? err.message : String(err);
            return undefined;
          });
    const now = runner.deps.clock.now();
    if (!found) {
      left.push(o);
      // Said once per intent: the operator knows why the leg is held until a later pass.
      await runner.repo.markUnconfirmed(
        o,
        now,
        runner.eventRow(
          s,
          run.id,
          'order_unconfirmed',
          `${what} was sent before the service stopped, and its outcome could not be looked up ` +
            `(${reason.slice(0, 200)}); the leg is held until a later pass can`,
          o.leg_id,
          { tag: o.tag },
        ),
      );
      continue;
    }
    if (found.length === 0) {
      // An intent written before orders carried a reference cannot be looked up: said so.
      const message =
        o.tag === null
          ? 'Recorded without a reference, so it cannot be looked up: check the account'
          : 'No order with its reference exists: it was never placed';
      await runner.repo.failIntent(
        o,
        message,
        now,
        runner.eventRow(
          s,
          run.id,
          'order_not_placed',
          o.tag === null
            ? `${what} was being sent when the service stopped; it carries no reference to look it up by: check the account`
            : `${what} was about to be sent when the service stopped; it was never placed`,
          o.leg_id,
          { tag: o.tag },
        ),
      );
      continue;
    }
    const acked = found.filter((f) => !f.refused);
    const ids = acked.map((f) => f.orderId);
    const refusal = found.find((f) => f.refused)?.message ?? 'refused';
    await runner.repo.settleOrder(
      o,
      acked.map((f) => ({ orderId: f.orderId, quantity: f.quantity })),
      acked.length ? null : refusal,
      now,
      runner.eventRow(
        s,
        run.id,
        'order_recovered',
        `${what} was sent before the service stopped; found ${
          acked.length ? `as order ${ids.join(', ')}` : `refused (${refusal})`
        } and recorded now`,
        o.leg_id,
        { tag: o.tag, orderids: ids },
      ),
    );
  }
  return left;
}

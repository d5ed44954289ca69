/**
 * The order pipeline's events (spec "Events → Order events") with their record: an event's log
 * row is committed before the answer that depends on it (docs/rules/orders.md#record-of-an-order), then the event is published carrying the row's id.
 */
import type { Logger } from 'pino';
import type { Clock } from '../../platform/clock.js';
import type { OrderEvent, OrderEventBus, OrderEventName } from './order-events.js';
import type { OrderLogWriter } from './order-log.writer.js';

export interface OrderRecorderDeps {
  events: OrderEventBus;
  log: Pick<OrderLogWriter, 'record' | 'recordAtCommit'>;
  clock: Clock;
  logger: Logger;
}

export class OrderRecorder {
  constructor(private readonly deps: OrderRecorderDeps) {}

  /** Commits the event's log row, then publishes the event; resolves once the row is committed. */
  async emit(e: OrderEvent): Promise<void> {
    this.deps.events.publish(await this.record(e));
  }

  /**
   * The event with its committed log row. A row that cannot be written (the database failing)
   * must not change an answer the broker or the sandbox already gave: it is logged, and the event
   * goes out without a row, to be written by the log writer's buffer.
   */
  async record(e: OrderEvent): Promise<OrderEvent> {
    try {
      return await this.deps.log.record(e);
    } catch (err) {
      this.deps.logger.error({ err, apiType: e.apiType, orderId: e.orderId }, 'order log row not committed');
      return e;
    }
  }

  event(
    name: OrderEventName,
    mode: 'analyze' | 'live',
    userId: number,
    apiType: string,
    broker: string | null,
    orderId: string | null,
    statusCode: number,
    request: Record<string, unknown>,
    response: Record<string, unknown>,
  ): OrderEvent {
    return {
      name,
      mode,
      userId,
      apiType,
      broker,
      orderId,
      statusCode,
      request,
      response,
      at: this.deps.clock.now(),
    };
  }
}

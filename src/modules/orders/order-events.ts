/**
 * Order events (spec "Events → Order events"): `order.placed`, `order.failed` and the
 * analyzer-error event, delivered to their consumers (log writer, live socket, chat alerts) by a
 * shared pool of 10 workers with a pending queue of 1000. Publishing never blocks the request:
 * it only enqueues. Over capacity the event is dropped with a warning and counted (the system
 * snapshot reads `dropped`).
 */
import type { Logger } from 'pino';
import { EVENT_QUEUE_LIMIT, EVENT_WORKERS } from '../../domain/limits.js';

export type OrderEventName = 'order.placed' | 'order.failed' | 'analyzer.error';

/** One order event. `request` never holds the API key (the publisher strips it). */
export interface OrderEvent {
  name: OrderEventName;
  /** `analyze` in analyzer mode, `live` otherwise, `semi_auto` for a queued order. */
  mode: 'analyze' | 'live' | 'semi_auto';
  userId: number | null;
  /** The API call that produced it (`placeorder`, `splitorder`, `cancelorder`, …). */
  apiType: string;
  broker: string | null;
  orderId: string | null;
  /** HTTP status answered to the client. */
  statusCode: number;
  request: Record<string, unknown>;
  response: Record<string, unknown>;
  at: number;
  /** The id of the event's committed log row, when the pipeline wrote it before answering. */
  logId?: number;
  /** Published again from its stored row after a restart (its fan-out never ran). */
  redelivered?: boolean;
}

export type OrderEventConsumer = (event: OrderEvent) => Promise<void> | void;

export interface ConsumerOptions {
  /**
   * Finishes work the consumer buffered (a batching writer's flush). `whenIdle()` waits for it,
   * so "idle" still means every event delivered has been fully handled.
   */
  flush?: () => Promise<void>;
  /**
   * Runs after every other consumer of each event, whenever it subscribed (the log writer: it
   * marks a row delivered once the fan-out ran).
   */
  last?: boolean;
}

export interface DispatcherOptions {
  workers?: number;
  queueLimit?: number;
  logger: Logger;
}

/** The shared dispatch pool. */
export class OrderEventBus {
  private readonly consumers: {
    name: string;
    fn: OrderEventConsumer;
    flush?: () => Promise<void>;
    last: boolean;
  }[] = [];
  private readonly queue: OrderEvent[] = [];
  private active = 0;
  private idleWaiters: (() => void)[] = [];
  readonly workers: number;
  readonly queueLimit: number;
  /** Events dropped because the queue was full (since start). */
  dropped = 0;
  /** Events delivered to every consumer (since start). */
  delivered = 0;
  /**
   * Told at once of every event handed to `publish`, also one the full queue drops, before any
   * consumer runs (the metrics module's counters). Listeners are synchronous, cheap, never throw.
   */
  readonly publishListeners: ((event: OrderEvent) => void)[] = [];

  constructor(private readonly opts: DispatcherOptions) {
    this.workers = opts.workers ?? EVENT_WORKERS;
    this.queueLimit = opts.queueLimit ?? EVENT_QUEUE_LIMIT;
  }

  /** Adds a consumer; a consumer's failure is logged and never reaches the others. */
  subscribe(name: string, fn: OrderEventConsumer, opts: ConsumerOptions = {}): void {
    const c = { name, fn, ...(opts.flush ? { flush: opts.flush } : {}), last: opts.last === true };
    const firstLast = this.consumers.findIndex((x) => x.last);
    if (c.last || firstLast < 0) this.consumers.push(c);
    else this.consumers.splice(firstLast, 0, c);
  }

  /** Events waiting for a worker. */
  get pending(): number {
    return this.queue.length;
  }

  /** Events being delivered now. */
  get running(): number {
    return this.active;
  }

  /**
   * Hands an event to the pool and returns at once: a free worker takes it on the next turn of
   * the event loop; otherwise it waits in the queue; a full queue drops it (warning + counter).
   * Returns false when dropped.
   */
  publish(event: OrderEvent): boolean {
    for (const listener of this.publishListeners) listener(event);
    if (this.active < this.workers) {
      this.active++;
      setImmediate(() => void this.work(event));
      return true;
    }
    if (this.queue.length >= this.queueLimit) {
      this.dropped++;
      this.opts.logger.warn(
        { event: event.name, dropped: this.dropped, queueLimit: this.queueLimit },
        'order event dropped: dispatch queue full',
      );
      return false;
    }
    this.queue.push(event);
    return true;
  }

  /**
   * Resolves when nothing is running or queued and the consumers' buffered work is flushed
   * (tests, shutdown).
   */
  async whenIdle(): Promise<void> {
    if (this.active > 0 || this.queue.length > 0)
      await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    for (const c of this.consumers) if (c.flush) await c.flush();
  }

  private async work(first: OrderEvent): Promise<void> {
    let event: OrderEvent | undefined = first;
    while (event) {
      for (const c of this.consumers) {
        try {
          await c.fn(event);
        } catch (err) {
          this.opts.logger.error({ err, consumer: c.name, event: event.name }, 'order event consumer failed');
        }
      }
      this.delivered++;
      event = this.queue.shift();
    }
    this.active--;
    if (this.active === 0 && this.queue.length === 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const w of waiters) w();
    }
  }
}

/**
 * A consumer that must not hold a dispatch worker while it waits on the network (chat alerts):
 * each event starts it without waiting, at most `limit` at a time; beyond that the event is
 * skipped for this consumer with a warning (the order itself is unaffected).
 */
export function detached(
  fn: OrderEventConsumer,
  limit: number,
  logger: Logger,
  name: string,
): OrderEventConsumer {
  let inFlight = 0;
  return (event) => {
    if (inFlight >= limit) {
      logger.warn({ consumer: name, inFlight }, 'order event consumer busy: event skipped');
      return;
    }
    inFlight++;
    void Promise.resolve()
      .then(() => fn(event))
      .catch((err: unknown) => logger.error({ err, consumer: name }, 'order event consumer failed'))
      .finally(() => {
        inFlight--;
      });
  };
}

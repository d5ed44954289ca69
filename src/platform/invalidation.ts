import { randomUUID } from 'node:crypto';
import { noAnswerWithin, withDeadline } from './deadline.js';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

type Handler = (key: string) => void;

/**
 * Cache invalidation across instances (ARCHITECTURE.md "Scale-out"). `publish` runs this
 * process's handlers at once; with Redis it also reaches every other instance through pub/sub.
 * Caches that use it keep short TTLs, so a lost message only delays, never prevents, a change.
 */
export interface InvalidationBus {
  /**
   * Whether `publish` reaches other instances (Redis); on the in-process bus it reaches only this
   * process's handlers, so a message meant for other instances need not be built at all.
   */
  readonly reachesOthers: boolean;
  publish(topic: string, key: string): void;
  subscribe(topic: string, handler: Handler): void;
  close(): Promise<void>;
  /**
   * Resolves when the bus's shared transport answers (a Redis PING), rejects with the reason
   * when it does not; absent on a bus with nothing to reach (in-process).
   */
  ping?(timeoutMs: number): Promise<void>;
}

/** Single-process bus. */
export class LocalInvalidationBus implements InvalidationBus {
  readonly reachesOthers: boolean;
  protected readonly handlers = new Map<string, Handler[]>();

  /**
   * @param opts.shared the bus stands for one several instances share (a test that runs several
   * in one process): its publishers then build what other instances would need.
   */
  constructor(opts: { shared?: boolean } = {}) {
    this.reachesOthers = opts.shared ?? false;
  }

  publish(topic: string, key: string): void {
    this.deliver(topic, key);
  }

  subscribe(topic: string, handler: Handler): void {
    this.handlers.set(topic, [...(this.handlers.get(topic) ?? []), handler]);
  }

  protected deliver(topic: string, key: string): void {
    for (const h of this.handlers.get(topic) ?? []) h(key);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** Bus that also fans out over Redis pub/sub on one channel. */
export class RedisInvalidationBus extends LocalInvalidationBus {
  private readonly origin = randomUUID();
  private readonly channel: string;

  constructor(
    private readonly pub: Redis,
    private readonly sub: Redis,
    private readonly log: Logger,
    prefix = 'algodesk',
  ) {
    super({ shared: true });
    this.channel = `${prefix}:invalidate`;
    sub.on('message', (channel: string, raw: string) => {
      if (channel !== this.channel) return;
      try {
        const msg = JSON.parse(raw) as { o: string; t: string; k: string };
        if (msg.o !== this.origin) this.deliver(msg.t, msg.k);
      } catch {
        this.log.warn('ignored a malformed invalidation message');
      }
    });
  }

  /** Subscribes to the channel; resolves once Redis confirms. */
  async start(): Promise<void> {
    await this.sub.subscribe(this.channel);
  }

  override publish(topic: string, key: string): void {
    super.publish(topic, key);
    this.pub
      .publish(this.channel, JSON.stringify({ o: this.origin, t: topic, k: key }))
      .catch((err: unknown) => {
        this.log.warn(
          { err },
          'could not publish a cache invalidation; other instances catch up at TTL expiry',
        );
      });
  }

  override async close(): Promise<void> {
    await this.sub.unsubscribe(this.channel).catch(() => undefined);
  }

  /** A PING on the publishing connection, bounded; a connection not ready fails at once. */
  async ping(timeoutMs: number): Promise<void> {
    if (this.pub.status !== 'ready') throw new Error(`connection ${this.pub.status}`);
    await withDeadline(this.pub.ping(), timeoutMs, noAnswerWithin(timeoutMs));
  }
}

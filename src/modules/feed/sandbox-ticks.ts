/**
 * Analyzer mode's demo prices as a tick stream (docs/rules/market-data.md#feed-sources): the
 * sandbox's simulated or scripted price source, asked for each subscribed instrument every
 * `everyMs`, and a tick emitted whenever the quote is newer than the last one sent. With no broker
 * connected every screen and every feed client sees prices move. Not for the broker price source:
 * that one is a REST quote per call, and brokers bound those (a broker's own stream is its own
 * {@link TickSource}).
 */
import type { Logger } from 'pino';
import type { PriceSource } from '../sandbox/prices/price-source.js';
import {
  feedKey,
  type FeedInstrument,
  type FeedMode,
  type Tick,
  type TickListener,
  type TickSource,
} from './feed.types.js';

export interface SandboxTicksOptions {
  /** The sandbox's price source now (it may be switched at runtime). */
  prices: () => PriceSource;
  everyMs: number;
  /** Instruments at once (the simulated source computes each one per poll). */
  maxSubscriptions: number;
  logger: Logger;
}

export class SandboxTickSource implements TickSource {
  readonly maxSubscriptions: number;
  readonly demo = true;
  private readonly subs = new Map<string, { instrument: FeedInstrument; mode: FeedMode; sent: number }>();
  private readonly listeners = new Set<TickListener>();
  private timer: NodeJS.Timeout | undefined;
  private polling = false;

  constructor(private readonly opts: SandboxTicksOptions) {
    this.maxSubscriptions = opts.maxSubscriptions;
  }

  get name(): string {
    return this.opts.prices().kind ?? 'sandbox';
  }

  subscribe(instrument: FeedInstrument, mode: FeedMode): void {
    const key = feedKey(instrument.exchange, instrument.symbol);
    // A new subscription, or one at another mode, gets the current price at once (as a broker's
    // stream sends a snapshot on subscribe), after the subscribe's ack, which is sent in this turn.
    this.subs.set(key, { instrument, mode, sent: 0 });
    setImmediate(() => void this.pollOne(key));
  }

  unsubscribe(instrument: FeedInstrument, mode: FeedMode): void {
    const key = feedKey(instrument.exchange, instrument.symbol);
    if (this.subs.get(key)?.mode === mode) this.subs.delete(key);
  }

  onTick(listener: TickListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  start(): void {
    this.timer ??= setInterval(() => void this.poll(), this.opts.everyMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      for (const key of [...this.subs.keys()]) await this.pollOne(key);
    } finally {
      this.polling = false;
    }
  }

  private async pollOne(key: string): Promise<void> {
    const sub = this.subs.get(key);
    if (!sub) return;
    // `peek`, not `quote`: reading the sandbox's prices must not move its engine (a quote it hears
    // may fill a resting order).
    const source = this.opts.prices();
    const q = await (source.peek ? source.peek(sub.instrument) : source.quote(sub.instrument)).catch(
      (err: unknown) => {
        this.opts.logger.debug({ err, key }, 'feed: sandbox quote failed');
        return undefined;
      },
    );
    const now = this.subs.get(key);
    if (!q || !now || q.timestamp <= now.sent) return;
    now.sent = q.timestamp;
    const level = (price: number | undefined) => (price ? [{ price, quantity: null, orders: null }] : []);
    const tick: Tick = {
      ltp: q.ltp,
      ltt: q.timestamp,
      timestamp: q.timestamp,
      high: q.high,
      low: q.low,
      ...(q.close !== undefined ? { close: q.close } : {}),
      depth: { buy: level(q.bid), sell: level(q.ask) },
    };
    for (const l of this.listeners) l(key, now.mode, tick);
  }
}

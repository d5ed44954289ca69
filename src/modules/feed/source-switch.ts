/**
 * The feed's upstream as the install's state chooses it (docs/rules/market-data.md#feed-sources):
 * the live broker's tick stream under the newest broker session, or analyzer mode's demo prices.
 * The hub subscribes here once per instrument; this layer keeps those subscriptions and moves them
 * to a new upstream when the choice changes (a broker login, the overnight token renewed, the
 * session ending) or when the watchdog restarts a stalled one, so no subscriber re-subscribes and
 * no restart is needed.
 */
import type { Logger } from 'pino';
import {
  feedKey,
  type BrokerOrderUpdate,
  type FeedInstrument,
  type FeedMode,
  type TickListener,
  type TickSource,
} from './feed.types.js';

/** What the install wants as its upstream now: `key` changes when it must be rebuilt. */
export interface SourceChoice {
  key: string;
  make(): TickSource;
}

export interface SourceSwitchOptions {
  choose(): SourceChoice;
  /** How often the choice is looked at again (a login or a renewed token is seen within it). */
  checkEveryMs: number;
  logger: Logger;
  /** Told of every instrument subscribed and released, and of every tick (the watchdog). */
  observer?: {
    subscribed(key: string, exchange: string): void;
    released(key: string): void;
    ticked(key: string): void;
  };
}

export class SourceSwitch implements TickSource {
  private current: { key: string; source: TickSource; unlisten: () => void } | undefined;
  private readonly subs = new Map<string, { instrument: FeedInstrument; mode: FeedMode }>();
  private readonly listeners = new Set<TickListener>();
  private readonly orderListeners = new Set<(u: BrokerOrderUpdate) => void>();
  private timer: NodeJS.Timeout | undefined;
  private readonly changeListeners = new Set<(name: string) => void>();

  constructor(private readonly opts: SourceSwitchOptions) {}

  get name(): string {
    return this.upstream().name;
  }

  get maxSubscriptions(): number {
    return this.upstream().maxSubscriptions;
  }

  /** The upstream in use (chosen on first need). */
  upstream(): TickSource {
    if (!this.current) this.reselect();
    return this.current!.source;
  }

  subscribe(instrument: FeedInstrument, mode: FeedMode): void {
    const key = feedKey(instrument.exchange, instrument.symbol);
    this.subs.set(key, { instrument, mode });
    this.opts.observer?.subscribed(key, instrument.exchange);
    this.upstream().subscribe(instrument, mode);
  }

  unsubscribe(instrument: FeedInstrument, mode: FeedMode): void {
    const key = feedKey(instrument.exchange, instrument.symbol);
    if (this.subs.get(key)?.mode === mode) {
      this.subs.delete(key);
      this.opts.observer?.released(key);
    }
    this.current?.source.unsubscribe(instrument, mode);
  }

  onTick(listener: TickListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Hears the order updates of whichever upstream is in use (a broker stream that carries them). */
  onOrder(listener: (update: BrokerOrderUpdate) => void): () => void {
    this.orderListeners.add(listener);
    return () => this.orderListeners.delete(listener);
  }

  /** Told the new upstream's name whenever the upstream is replaced. */
  onChange(listener: (name: string) => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  start(): void {
    this.upstream();
    this.timer ??= setInterval(() => this.reselect(), this.opts.checkEveryMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    const c = this.current;
    this.current = undefined;
    if (c) {
      c.unlisten();
      await c.source.stop();
    }
  }

  /** Replaces the upstream when the choice changed (or always, with `force`: a stalled one). */
  reselect(force = false): void {
    let choice: SourceChoice;
    try {
      choice = this.opts.choose();
    } catch (err) {
      this.opts.logger.error({ err }, 'feed: choosing the upstream failed');
      return;
    }
    if (!force && this.current?.key === choice.key) return;
    const next = choice.make();
    const unlisten = next.onTick((key, mode, tick) => {
      this.opts.observer?.ticked(key);
      for (const l of this.listeners) l(key, mode, tick);
    });
    const unlistenOrders = next.onOrder?.((u) => {
      for (const l of this.orderListeners) l(u);
    });
    for (const { instrument, mode } of this.subs.values()) next.subscribe(instrument, mode);
    next.start();
    const old = this.current;
    this.current = {
      key: choice.key,
      source: next,
      unlisten: () => {
        unlisten();
        unlistenOrders?.();
      },
    };
    if (old) {
      old.unlisten();
      void old.source
        .stop()
        .catch((err: unknown) => this.opts.logger.warn({ err }, 'feed: stopping the old upstream failed'));
      this.opts.logger.info(
        {
          from: old.source.name,
          to: next.name,
          instruments: this.subs.size,
          restarted: old.key === choice.key,
        },
        'feed upstream replaced',
      );
    }
    for (const l of this.changeListeners) l(next.name);
  }
}

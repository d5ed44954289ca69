/**
 * One upstream for all the instances of an install (docs/rules/market-data.md#one-upstream). The
 * instance holding the lease (upstream-lease.ts) runs the real upstream (its {@link SourceSwitch})
 * for what every instance wants, at the highest mode any wants, and publishes each tick on the bus;
 * the others announce what their sockets want and hand on the ticks the bus brings. A new holder
 * asks every instance to announce again, so a failover re-subscribes everything; wants not
 * announced again within {@link WANT_TTL_MS} (an instance that died) are dropped. On one instance
 * (no Redis) this instance always holds and nothing goes on the bus.
 */
import type { Logger } from 'pino';
import type { InvalidationBus } from '../../platform/invalidation.js';
import {
  feedKey,
  type FeedInstrument,
  type FeedMode,
  type Tick,
  type TickListener,
  type TickSource,
} from './feed.types.js';
import type { SourceSwitch } from './source-switch.js';

const TOPIC_WANT = 'feed:want';
const TOPIC_TICK = 'feed:tick';
const TOPIC_ANNOUNCE = 'feed:announce';
/** How often the holder asks every instance to announce its wants again. */
export const ANNOUNCE_EVERY_MS = 15_000;
/** A want not announced again for this long is dropped (its instance is gone). */
export const WANT_TTL_MS = 45_000;

interface Want {
  instrument: FeedInstrument;
  mode: FeedMode;
}

export interface ClusterSourceOptions {
  local: SourceSwitch;
  bus: InvalidationBus;
  /** This process's name on the bus (never two processes alike). */
  origin: string;
  now(): number;
  logger: Logger;
}

export class ClusterSource implements TickSource {
  /** Holding the upstream: always on one instance; with Redis, while the lease is ours. */
  private holding: boolean;
  private readonly mine = new Map<string, Want>();
  /** The other instances' wants (kept while holding), with when each was last announced. */
  private readonly remote = new Map<string, Map<string, Want & { at: number }>>();
  /** What the upstream is subscribed to now (while holding). */
  private readonly up = new Map<string, Want>();
  private readonly listeners = new Set<TickListener>();
  private remoteBroker: string | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly opts: ClusterSourceOptions) {
    this.holding = !opts.bus.reachesOthers;
  }

  get shared(): boolean {
    return this.opts.bus.reachesOthers;
  }

  get holds(): boolean {
    return this.holding;
  }

  get name(): string {
    return this.holding ? this.opts.local.name : (this.remoteBroker ?? this.opts.local.name);
  }

  get maxSubscriptions(): number {
    return this.opts.local.maxSubscriptions;
  }

  get demo(): boolean {
    return this.opts.local.upstream().demo === true;
  }

  subscribe(instrument: FeedInstrument, mode: FeedMode): void {
    const key = feedKey(instrument.exchange, instrument.symbol);
    this.mine.set(key, { instrument, mode });
    if (this.holding) this.sync(key);
    else this.announce('+', instrument, mode);
  }

  unsubscribe(instrument: FeedInstrument, mode: FeedMode): void {
    const key = feedKey(instrument.exchange, instrument.symbol);
    if (this.mine.get(key)?.mode !== mode) return;
    this.mine.delete(key);
    if (this.holding) this.sync(key);
    else this.announce('-', instrument, mode);
  }

  onTick(listener: TickListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  start(): void {
    const { local, bus } = this.opts;
    local.onTick((key, mode, tick) => {
      if (!this.holding) return;
      this.emit(key, mode, tick);
      if (bus.reachesOthers)
        bus.publish(
          TOPIC_TICK,
          JSON.stringify({ o: this.opts.origin, b: local.name, k: key, m: mode, t: tick }),
        );
    });
    local.start();
    if (!bus.reachesOthers) return;
    bus.subscribe(TOPIC_TICK, (raw) => this.remoteTick(raw));
    bus.subscribe(TOPIC_WANT, (raw) => this.remoteWant(raw));
    bus.subscribe(TOPIC_ANNOUNCE, (origin) => {
      if (origin !== this.opts.origin)
        for (const w of this.mine.values()) this.announce('+', w.instrument, w.mode);
    });
    this.timer = setInterval(() => {
      if (!this.holding) return;
      this.sweep();
      bus.publish(TOPIC_ANNOUNCE, this.opts.origin);
    }, ANNOUNCE_EVERY_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.opts.local.stop();
  }

  /** The lease is ours: run the upstream for every instance's wants. */
  gain(): void {
    this.holding = true;
    this.remote.clear();
    for (const key of this.mine.keys()) this.sync(key);
    this.opts.bus.publish(TOPIC_ANNOUNCE, this.opts.origin);
  }

  /** The lease is gone: stop the upstream's subscriptions and tell the next holder what we want. */
  lose(): void {
    this.holding = false;
    for (const w of this.up.values()) this.opts.local.unsubscribe(w.instrument, w.mode);
    this.up.clear();
    this.remote.clear();
    for (const w of this.mine.values()) this.announce('+', w.instrument, w.mode);
  }

  private emit(key: string, mode: FeedMode, tick: Tick): void {
    for (const l of this.listeners) l(key, mode, tick);
  }

  private announce(op: '+' | '-', instrument: FeedInstrument, mode: FeedMode): void {
    if (this.opts.bus.reachesOthers)
      this.opts.bus.publish(TOPIC_WANT, JSON.stringify({ o: this.opts.origin, op, i: instrument, m: mode }));
  }

  /** Brings the upstream's subscription of `key` to the highest mode any instance wants, or none. */
  private sync(key: string): void {
    let want: Want | undefined = this.mine.get(key);
    for (const wants of this.remote.values()) {
      const w = wants.get(key);
      if (w && (!want || w.mode > want.mode)) want = w;
    }
    const cur = this.up.get(key);
    const { local } = this.opts;
    if (!want) {
      if (cur) local.unsubscribe(cur.instrument, cur.mode);
      this.up.delete(key);
      return;
    }
    if (cur?.mode === want.mode) return;
    local.subscribe(want.instrument, want.mode);
    if (cur) local.unsubscribe(cur.instrument, cur.mode);
    this.up.set(key, { instrument: want.instrument, mode: want.mode });
  }

  private remoteWant(raw: string): void {
    if (!this.holding) return;
    let msg: { o: string; op: '+' | '-'; i: FeedInstrument; m: FeedMode };
    try {
      msg = JSON.parse(raw) as typeof msg;
    } catch {
      return;
    }
    if (msg.o === this.opts.origin) return;
    const key = feedKey(msg.i.exchange, msg.i.symbol);
    const wants = this.remote.get(msg.o) ?? new Map<string, Want & { at: number }>();
    this.remote.set(msg.o, wants);
    if (msg.op === '+') wants.set(key, { instrument: msg.i, mode: msg.m, at: this.opts.now() });
    else if (wants.get(key)?.mode === msg.m) wants.delete(key);
    this.sync(key);
  }

  private remoteTick(raw: string): void {
    if (this.holding) return;
    let msg: { o: string; b: string; k: string; m: FeedMode; t: Tick };
    try {
      msg = JSON.parse(raw) as typeof msg;
    } catch {
      return;
    }
    if (msg.o === this.opts.origin || !this.mine.has(msg.k)) return;
    this.remoteBroker = msg.b;
    this.emit(msg.k, msg.m, msg.t);
  }

  /** Drops the wants of instances that stopped announcing them (they are gone). */
  private sweep(): void {
    const before = this.opts.now() - WANT_TTL_MS;
    for (const [origin, wants] of this.remote)
      for (const [key, w] of wants)
        if (w.at < before) {
          wants.delete(key);
          if (wants.size === 0) this.remote.delete(origin);
          this.sync(key);
        }
  }
}

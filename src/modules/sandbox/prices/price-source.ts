/**
 * Where the sandbox gets prices (docs/rules/sandbox.md#price-source): an interface with three
 * implementations, the connected broker's quote API (broker-price-source.ts), simulated demo
 * prices (simulated-price-source.ts) and a deterministic scripted feed (this file) for tests and
 * demos. The engine fills nothing without a quote from here.
 */
import type { PriceSourceName } from '../../../config-sandbox.js';
import type { Quote } from '../core/types.js';

/** An instrument the engine wants prices for (master-contract fields the quote APIs need). */
export interface PricedInstrument {
  symbol: string;
  exchange: string;
  brsymbol: string;
  brexchange: string;
  token: string;
  /** Tick size in rupees (the master contract's); the simulated source moves in it. */
  tickSize?: number;
}

/** Receives each price update: quotes keyed by `EXCHANGE:SYMBOL` (see `quoteKey`). */
export type QuoteListener = (quotes: ReadonlyMap<string, Quote>) => void;

export interface PriceSource {
  /** The newest quote seen for a key, without I/O (undefined when none). */
  latest(key: string): Quote | undefined;
  /**
   * A quote for one instrument now: the newest one when it is fresh, else fetched (broker). May
   * resolve undefined: no price is known.
   */
  quote(instrument: PricedInstrument): Promise<Quote | undefined>;
  /**
   * The quote `quote` would give, without telling anyone (no listener hears it, no fetch): what
   * another reader (the live feed's demo ticks) may ask without moving the engine. Absent: `quote`
   * is already silent.
   */
  peek?(instrument: PricedInstrument): Promise<Quote | undefined>;
  /** Replaces the set of instruments updates are wanted for (resting orders, open positions). */
  watch(instruments: Iterable<PricedInstrument>): void;
  /** Registers the engine's listener. Updates arrive one batch at a time. */
  onQuotes(listener: QuoteListener): () => void;
  start(): void;
  stop(): Promise<void>;
  /** Set by a source whose prices are not market data (simulated): fills at them are logged as such. */
  readonly demo?: boolean;
  /** Which of the configured sources this is (the `/analyzer` page names it). */
  readonly kind?: PriceSourceName;
  /** The newest quote's time (epoch ms) of any instrument, undefined before the first. */
  lastQuoteAt?(): number | undefined;
  /** Why no price is known for the instrument, when the source can say better than "no quote". */
  noPriceReason?(instrument: PricedInstrument): string | undefined;
  /** Told after an order on the instrument was placed (the simulated source may learn a price). */
  orderPlaced?(instrument: PricedInstrument): void;
  /** Told the watched set whenever it changes (a polled source: the live feed subscribes it). */
  onWatch?(listener: (instruments: readonly PricedInstrument[]) => void): () => void;
  /** Quotes that arrived by a stream (a polled source: the live feed's broker ticks). */
  receive?(quotes: ReadonlyMap<string, Quote>): void;
}

/** Shared listener bookkeeping of the sources. */
export class QuoteFanout {
  private readonly listeners = new Set<QuoteListener>();
  readonly latestByKey = new Map<string, Quote>();
  /** The newest quote time recorded (epoch ms). */
  newest: number | undefined;

  /** Records a quote as its key's newest unless a newer one is known. */
  record(key: string, q: Quote): void {
    const prev = this.latestByKey.get(key);
    // An older quote arriving late never replaces a newer one.
    if (!prev || prev.timestamp <= q.timestamp) this.latestByKey.set(key, q);
    if (this.newest === undefined || q.timestamp > this.newest) this.newest = q.timestamp;
  }

  add(listener: QuoteListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Records the quotes as the newest and hands them to every listener. */
  emit(quotes: ReadonlyMap<string, Quote>): void {
    for (const [k, q] of quotes) this.record(k, q);
    if (quotes.size > 0) for (const l of this.listeners) l(quotes);
  }
}

/**
 * A source that polls the watched instruments on a timer (`SANDBOX_QUOTE_POLL_MS`): one poll at a
 * time (asked for while one runs, it joins that one), the newest quotes kept and handed to the
 * listeners. Subclasses say how one poll gets its quotes.
 */
export abstract class PolledPriceSource implements PriceSource {
  protected readonly fanout = new QuoteFanout();
  private watched: PricedInstrument[] = [];
  private readonly watchListeners = new Set<(instruments: readonly PricedInstrument[]) => void>();
  private timer: NodeJS.Timeout | undefined;
  private inflight: Promise<void> | undefined;

  constructor(private readonly pollMs: number) {}

  abstract quote(instrument: PricedInstrument): Promise<Quote | undefined>;

  /** One poll's work for `batch` (never empty), emitting through `fanout`; undefined: nothing to do. */
  protected abstract fetch(batch: PricedInstrument[]): Promise<void> | undefined;

  /** Called once when the timer starts (a source may say what it is). */
  protected started(): void {}

  latest(key: string): Quote | undefined {
    return this.fanout.latestByKey.get(key);
  }

  lastQuoteAt(): number | undefined {
    return this.fanout.newest;
  }

  watch(instruments: Iterable<PricedInstrument>): void {
    this.watched = [...instruments];
    for (const l of this.watchListeners) l(this.watched);
  }

  /** Told the watched set whenever the engine replaces it (the live feed subscribes it). */
  onWatch(listener: (instruments: readonly PricedInstrument[]) => void): () => void {
    this.watchListeners.add(listener);
    listener(this.watched);
    return () => this.watchListeners.delete(listener);
  }

  /**
   * Quotes that arrived by a stream (the live feed's broker ticks): recorded and handed to the
   * engine at once, so a resting order fills on the tick that crosses it; the poll stays the
   * fallback for what the stream leaves silent.
   */
  receive(quotes: ReadonlyMap<string, Quote>): void {
    this.fanout.emit(quotes);
  }

  onQuotes(listener: QuoteListener): () => void {
    return this.fanout.add(listener);
  }

  start(): void {
    if (this.timer) return;
    this.started();
    this.timer = setInterval(() => void this.poll(), this.pollMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.inflight;
  }

  /** One poll of every watched instrument (the timer's work; the engine's tick and tests call it too). */
  poll(): Promise<void> {
    if (this.inflight) return this.inflight;
    const run = this.watched.length === 0 ? undefined : this.fetch(this.watched);
    if (!run) return Promise.resolve();
    this.inflight = run.finally(() => {
      this.inflight = undefined;
    });
    return this.inflight;
  }
}

/** One scripted tick: quotes (keyed `EXCHANGE:SYMBOL`) that become current at `at` (epoch ms). */
export interface ScriptedTick {
  at: number;
  quotes: Record<string, Quote>;
}

/**
 * A deterministic feed: quotes are pushed by a test (or played from a script against the clock
 * by `advanceTo`). `quote()` never does I/O: it answers the newest pushed quote.
 */
export class ScriptedFeed implements PriceSource {
  readonly kind = 'scripted' as const;
  private readonly fanout = new QuoteFanout();
  private readonly script: ScriptedTick[];
  private next = 0;
  private running = false;

  constructor(script: readonly ScriptedTick[] = []) {
    this.script = [...script].sort((a, b) => a.at - b.at);
  }

  latest(key: string): Quote | undefined {
    return this.fanout.latestByKey.get(key);
  }

  lastQuoteAt(): number | undefined {
    return this.fanout.newest;
  }

  quote(instrument: PricedInstrument): Promise<Quote | undefined> {
    return Promise.resolve(this.latest(`${instrument.exchange}:${instrument.symbol}`));
  }

  watch(): void {
    // Every pushed quote is delivered; there is nothing to subscribe to.
  }

  onQuotes(listener: QuoteListener): () => void {
    return this.fanout.add(listener);
  }

  /** Delivers quotes now (recorded even while stopped; listeners hear them only while started). */
  push(quotes: Record<string, Quote> | ReadonlyMap<string, Quote>): void {
    const map = quotes instanceof Map ? quotes : new Map(Object.entries(quotes));
    if (this.running) this.fanout.emit(map);
    else
      for (const [k, q] of map) {
        this.fanout.latestByKey.set(k, q);
        this.fanout.newest = Math.max(this.fanout.newest ?? q.timestamp, q.timestamp);
      }
  }

  /** Plays every scripted tick due at or before `now`, one update per tick, in time order. */
  advanceTo(now: number): number {
    let played = 0;
    while (this.next < this.script.length && this.script[this.next]!.at <= now) {
      this.push(this.script[this.next]!.quotes);
      this.next++;
      played++;
    }
    return played;
  }

  start(): void {
    this.running = true;
  }

  stop(): Promise<void> {
    this.running = false;
    return Promise.resolve();
  }
}

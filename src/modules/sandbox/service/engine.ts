/**
 * The sandbox execution engine (docs/rules/sandbox.md#matching-engine): started and stopped by the
 * analyzer-mode switch. It keeps every working order in memory, grouped by instrument, and on each
 * price update runs one matching pass over the orders of the instruments that moved — no per-order
 * sleeps or queries — then writes the fills, each in its own transaction. The database stays the
 * truth: a start reloads the book, and a periodic resync (and the bus) picks up orders placed by
 * other instances; compare-and-set transitions keep two engines from filling one order twice.
 */
import type { SandboxRepository } from '../store/sandbox.repository.js';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock } from '../../../platform/clock.js';
import type { InvalidationBus } from '../../../platform/invalidation.js';
import { matchGroups, type PassResult } from '../core/rules.js';
import type { PricedInstrument, PriceSource } from '../prices/price-source.js';
import { RESTING, type OrderRow } from '../store/sandbox.repository.js';
import { toResting } from '../core/records.js';
import type { SandboxService } from './sandbox.service.js';
import { quoteKey, type OrderStatus, type Quote, type RestingOrder } from '../core/types.js';

/** Bus topic: an order changed on some instance (key = order id). */
export const SANDBOX_ORDER_TOPIC = 'sandbox-order';

export interface EngineDeps {
  service: SandboxService;
  /** The account rows the engine reads to know what to watch and match. */
  repo: SandboxRepository;
  prices: () => PriceSource;
  clock: Clock;
  logger: Logger;
  bus: InvalidationBus;
  maxQuoteAgeMs: number;
  /** Looks up the quote-API fields of an instrument (master contract). */
  instrument: (symbol: string, exchange: string) => Promise<PricedInstrument | undefined>;
  /** Day-boundary work run on every tick (square-off, rollover, scheduled reset). */
  onTick: () => Promise<void>;
  /**
   * Told the instruments of every batch of quotes after its fills (the GTT triggers:
   * docs/rules/sandbox.md#gtt-orders); absent: nothing else reacts to quotes.
   */
  onQuotes?: (keys: readonly string[]) => Promise<void>;
  /** Instruments to keep priced besides the book's and the open positions' (active GTTs'). */
  extraInstruments?: () => Promise<{ symbol: string; exchange: string }[]>;
  /**
   * Whether an exchange is in session now (docs/rules/sandbox.md#sessions-and-holidays): outside
   * it no working order fills, whatever the quotes say. Absent: always.
   */
  inSession?: (exchange: string, now: number) => boolean;
  /** How often `tick` runs (default 5 s) and the book is resynced (default 30 s). */
  tickMs?: number;
  resyncMs?: number;
}

export class SandboxEngine {
  /** Working orders by quote key, then by id (ascending id = placement order = priority). */
  private readonly byKey = new Map<string, Map<number, RestingOrder>>();
  private readonly keyOf = new Map<number, string>();
  private readonly userOf = new Map<number, number>();
  /** Tags this instance's bus messages, so it skips its own (it has applied them already). */
  private readonly instanceId = randomUUID();
  private readonly watched = new Map<string, PricedInstrument>();
  private running = false;
  private queue: Promise<void> = Promise.resolve();
  private timers: NodeJS.Timeout[] = [];
  private unlisten: (() => void) | undefined;
  /** Keys whose held quotes were logged, so a bad feed logs once per key until it recovers. */
  private readonly heldLogged = new Set<string>();

  constructor(private readonly deps: EngineDeps) {
    deps.service.onOrderChange((o) => {
      this.apply(o);
      deps.bus.publish(SANDBOX_ORDER_TOPIC, `${this.instanceId}:${o.id}`);
    });
    deps.bus.subscribe(SANDBOX_ORDER_TOPIC, (msg) => {
      const [from, id] = msg.split(':');
      if (this.running && from !== this.instanceId) void this.enqueue(() => this.reloadOrder(Number(id)));
    });
  }

  get isRunning(): boolean {
    return this.running;
  }

  /** Number of working orders in the book. */
  get size(): number {
    return this.keyOf.size;
  }

  /** Starts matching: loads the book, listens to the price source, runs the catch-up tick. */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    const source = this.deps.prices();
    this.unlisten = source.onQuotes((q) => this.enqueue(() => this.process(q)));
    source.start();
    await this.enqueue(() => this.resync());
    await this.tick();
    const every = (ms: number, fn: () => Promise<void>) => {
      const t = setInterval(() => void this.enqueue(fn), ms);
      t.unref();
      this.timers.push(t);
    };
    every(this.deps.tickMs ?? 5_000, () => this.deps.onTick());
    every(this.deps.resyncMs ?? 30_000, () => this.resync());
    this.deps.logger.info({ orders: this.size }, 'sandbox engine started');
  }

  /** Stops matching (orders stay in the database, untouched) and waits for work in flight. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    this.unlisten?.();
    this.unlisten = undefined;
    await this.deps.prices().stop();
    await this.whenIdle();
    this.byKey.clear();
    this.keyOf.clear();
    this.userOf.clear();
    this.watched.clear();
    this.deps.logger.info('sandbox engine stopped');
  }

  /** Runs the day-boundary jobs now (the timer does this every few seconds). */
  tick(): Promise<void> {
    return this.enqueue(() => this.deps.onTick());
  }

  /** Resolves when every queued update and job has been processed. */
  async whenIdle(): Promise<void> {
    let q: Promise<void>;
    do {
      q = this.queue;
      await q;
    } while (q !== this.queue);
  }

  /** Work runs one piece at a time, in arrival order (fills of one update before the next update). */
  private enqueue(fn: () => Promise<void>): Promise<void> {
    const next = this.queue.then(fn).catch((err: unknown) => {
      this.deps.logger.error({ err }, 'sandbox engine step failed');
    });
    this.queue = next;
    return next;
  }

  /**
   * The matching pass for one update over the working orders of the instruments in it (pure,
   * synchronous: see `matchPass`). Exposed for the bench.
   */
  pass(quotes: ReadonlyMap<string, Quote>): PassResult {
    const groups: (readonly [Quote, Iterable<RestingOrder>])[] = [];
    const now = this.deps.clock.now();
    const inSession = this.deps.inSession;
    for (const [key, quote] of quotes) {
      const book = this.byKey.get(key);
      if (!book || book.size === 0) continue;
      if (inSession && !inSession(key.slice(0, key.indexOf(':')), now)) continue;
      groups.push([quote, book.values()]);
    }
    return matchGroups(groups, { now, maxQuoteAgeMs: this.deps.maxQuoteAgeMs });
  }

  private async process(quotes: ReadonlyMap<string, Quote>): Promise<void> {
    if (!this.running) return;
    const result = this.pass(quotes);
    for (const f of result.fills) {
      try {
        const userId = this.userOf.get(Number(f.orderId));
        if (userId !== undefined)
          await this.deps.service.fillResting(userId, Number(f.orderId), f.price, f.triggered);
      } catch (err) {
        this.deps.logger.error(
          { err, orderId: f.orderId },
          'sandbox fill failed; retried on the next update',
        );
      }
    }
    for (const id of result.triggered) await this.deps.service.markTriggered(Number(id));
    const heldKeys = new Set<string>();
    for (const h of result.held) {
      const key = this.keyOf.get(Number(h.orderId));
      if (key === undefined || heldKeys.has(key)) continue;
      heldKeys.add(key);
      if (!this.heldLogged.has(key)) {
        this.heldLogged.add(key);
        this.deps.logger.warn(
          { instrument: key, reason: h.reason },
          'sandbox quote not used for fills; waiting for the next one',
        );
      }
    }
    for (const key of quotes.keys()) if (!heldKeys.has(key)) this.heldLogged.delete(key);
    if (this.deps.onQuotes)
      await this.deps
        .onQuotes([...quotes.keys()])
        .catch((err: unknown) =>
          this.deps.logger.error({ err }, 'sandbox quote listener failed; the next tick runs it again'),
        );
  }

  /** Keeps an instrument priced by the source (a GTT's), as the book's instruments are. */
  watch(symbol: string, exchange: string): void {
    const key = quoteKey(exchange, symbol);
    if (this.running && !this.watched.has(key)) void this.enqueue(() => this.watchKey(key, symbol, exchange));
  }

  /** Puts an order into, or takes it out of, the book according to its status. */
  private apply(o: OrderRow): void {
    const prevKey = this.keyOf.get(o.id);
    if (prevKey !== undefined) {
      this.byKey.get(prevKey)?.delete(o.id);
      this.keyOf.delete(o.id);
      this.userOf.delete(o.id);
    }
    if (!this.running || !RESTING.includes(o.status as OrderStatus)) return;
    const key = quoteKey(o.exchange, o.symbol);
    let book = this.byKey.get(key);
    if (!book) {
      book = new Map();
      this.byKey.set(key, book);
    }
    book.set(o.id, toResting(o));
    this.keyOf.set(o.id, key);
    this.userOf.set(o.id, o.user_id);
    if (!this.watched.has(key)) void this.enqueue(() => this.watchKey(key, o.symbol, o.exchange));
  }

  private async watchKey(key: string, symbol: string, exchange: string): Promise<void> {
    const instrument = await this.deps.instrument(symbol, exchange).catch(() => undefined);
    if (!instrument || this.watched.has(key)) return;
    this.watched.set(key, instrument);
    this.deps.prices().watch(this.watched.values());
  }

  private async reloadOrder(id: number): Promise<void> {
    const o = await this.deps.repo.getOrder(id);
    if (o) this.apply(o);
    else {
      const key = this.keyOf.get(id);
      if (key !== undefined) this.byKey.get(key)?.delete(id);
      this.keyOf.delete(id);
      this.userOf.delete(id);
    }
  }

  /** Rebuilds the book from the database (start, and periodically against missed bus messages). */
  private async resync(): Promise<void> {
    if (!this.running) return;
    const rows = await this.deps.repo.restingOrders();
    this.byKey.clear();
    this.keyOf.clear();
    this.userOf.clear();
    for (const o of rows) this.apply(o);
    // Open positions are marked to market too: watch their instruments.
    for (const p of await this.deps.repo.allPositions(true)) {
      const key = quoteKey(p.exchange, p.symbol);
      if (!this.watched.has(key)) await this.watchKey(key, p.symbol, p.exchange);
    }
    for (const i of (await this.deps.extraInstruments?.()) ?? []) {
      const key = quoteKey(i.exchange, i.symbol);
      if (!this.watched.has(key)) await this.watchKey(key, i.symbol, i.exchange);
    }
  }
}

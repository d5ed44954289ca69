/**
 * Demo prices for analyzer mode (docs/rules/sandbox.md#simulated-prices), so a paper MARKET order
 * fills on an install with no broker: each instrument's price is a seeded random walk of the IST
 * day, from its reference price (the instrument file's price, else the first LIMIT or SL price
 * placed on it), in whole ticks, kept within ±{@link SIMULATED_BAND_PERCENT}% of
 * the reference. The walk is a function of the instrument, the IST date, the seed and the clock,
 * so every instance, every restart and every test sees the same prices at the same instant.
 *
 * These are not market prices: the source says so (`demo`), and the sandbox logs each fill it
 * prices. The sandbox serves analyzer mode only, so live orders never see them.
 */
import type { Logger } from 'pino';
import type { Clock } from '../../../platform/clock.js';
import { seededRandom, seedOf } from '../../../platform/seeded-random.js';
import { istMidnight } from '../../market/timings.service.js';
import { istDay } from '../core/ist-day.js';
import { MONEY_PER_RUPEE, moneyToRupees, tryRupeesToMoney, type Money } from '../core/money.js';
import { PolledPriceSource, type PricedInstrument } from './price-source.js';
import { quoteKey, type Quote } from '../core/types.js';

/** The walk stays within this many percent of the day's reference price, either way. */
export const SIMULATED_BAND_PERCENT = 5;
/** One step of the walk per second of the clock. */
export const SIMULATED_STEP_MS = 1_000;
/** The tick of an instrument whose master-contract row states none (₹0.05, the equity tick). */
const DEFAULT_TICK: Money = 500;
/** A lookup that found no reference is asked again after this long (another instance's LIMIT). */
const MISS_RETRY_MS = 10_000;

/** One instrument's walk on one day: where it is, and the day's high and low, in ticks from the reference. */
export class RandomWalk {
  private readonly next: () => number;
  /** The band in ticks: the offset never leaves [-band, band]. */
  readonly band: number;
  step = 0;
  offset = 0;
  high = 0;
  low = 0;

  /**
   * @param reference the day's reference price (on the tick grid), where step 0 stands
   * @param tick the instrument's tick (> 0)
   * @param seed the walk's seed: the same seed walks the same path
   */
  constructor(
    readonly reference: Money,
    readonly tick: Money,
    seed: number,
  ) {
    this.next = seededRandom(seed);
    this.band = Math.floor((reference * SIMULATED_BAND_PERCENT) / (100 * tick));
  }

  /** Walks forward to `step` (never back): each step moves 0, 1 or 2 ticks either way. */
  advanceTo(step: number): void {
    while (this.step < step) {
      this.step++;
      const r = this.next();
      const move = r < 0.05 ? -2 : r < 0.35 ? -1 : r < 0.65 ? 0 : r < 0.95 ? 1 : 2;
      this.offset = Math.min(this.band, Math.max(-this.band, this.offset + move));
      if (this.offset > this.high) this.high = this.offset;
      if (this.offset < this.low) this.low = this.offset;
    }
  }

  /** The price `offset` ticks from the reference. */
  price(offset = this.offset): Money {
    return this.reference + offset * this.tick;
  }
}

/** The instrument's tick in money units ({@link DEFAULT_TICK} when the row states none). */
export function tickOf(instrument: Pick<PricedInstrument, 'tickSize'>): Money {
  const t = instrument.tickSize === undefined ? undefined : tryRupeesToMoney(instrument.tickSize);
  return t !== undefined && t > 0 ? t : DEFAULT_TICK;
}

/** `price` on the tick grid (the nearest tick, at least one tick). */
export function onTickGrid(price: Money, tick: Money): Money {
  return Math.max(tick, Math.round(price / tick) * tick);
}

/** The quote of a walk at its current step: bid and ask one tick either side of the LTP. */
export function walkQuote(walk: RandomWalk, timestamp: number): Quote {
  const ltp = walk.price();
  const bid = ltp - walk.tick;
  return {
    ltp: moneyToRupees(ltp),
    ...(bid > 0 ? { bid: moneyToRupees(bid) } : {}),
    ask: moneyToRupees(ltp + walk.tick),
    high: moneyToRupees(walk.price(walk.high)),
    low: moneyToRupees(walk.price(walk.low)),
    timestamp,
  };
}

/**
 * The reference lookup of docs/rules/sandbox.md#simulated-prices: the price the instrument file
 * states (`fromFile`, rupees; none when not positive), else the first LIMIT or SL price placed on
 * the instrument (`fromOrders`, money).
 */
export function referenceLookup(
  fromFile: (instrument: PricedInstrument) => Promise<number | undefined>,
  fromOrders: (instrument: PricedInstrument) => Promise<Money | undefined>,
): (instrument: PricedInstrument) => Promise<Money | undefined> {
  return async (instrument) => {
    const rupees = await fromFile(instrument);
    const units = rupees === undefined ? NaN : Math.round(rupees * MONEY_PER_RUPEE);
    return Number.isSafeInteger(units) && units > 0 ? units : fromOrders(instrument);
  };
}

export interface SimulatedPriceSourceOptions {
  clock: Clock;
  logger: Logger;
  /** How often the watched instruments get a new quote (`SANDBOX_QUOTE_POLL_MS`). */
  pollMs: number;
  /**
   * The instrument's reference price, where its walk starts each day: the instrument file's,
   * else the first LIMIT or SL price the sandbox has for it ({@link referenceLookup}); undefined
   * when there is none yet.
   */
  reference: (instrument: PricedInstrument) => Promise<Money | undefined>;
  /** Mixed into every walk's seed (default 0): another seed, other paths. */
  seed?: number;
  /**
   * The exchange's session on an IST date (docs/rules/sandbox.md#sessions-and-holidays): the walk
   * moves only inside it — before the open it stands at the day's reference, after the close at
   * the close's price, on a closed day at the reference. `null`: closed that day; undefined (or
   * no function, `SANDBOX_SESSIONS=ignore`): the walk runs all day.
   */
  session?: (exchange: string, date: string) => { startMs: number; endMs: number } | null | undefined;
}

/** The simulated price source (see the file's comment). */
export class SimulatedPriceSource extends PolledPriceSource {
  readonly demo = true;
  readonly kind = 'simulated' as const;
  private readonly references = new Map<string, Money>();
  /** When a reference lookup last found nothing, by key. */
  private readonly misses = new Map<string, number>();
  private readonly walks = new Map<string, { date: string; walk: RandomWalk }>();

  constructor(private readonly opts: SimulatedPriceSourceOptions) {
    super(opts.pollMs);
  }

  /** The instrument's quote at the clock's time; undefined while it has no reference price. */
  /** The walk's quote now, heard by no listener. */
  peek(instrument: PricedInstrument): Promise<Quote | undefined> {
    return this.quoteAt(instrument, this.opts.clock.now());
  }

  async quote(instrument: PricedInstrument): Promise<Quote | undefined> {
    const q = await this.quoteAt(instrument, this.opts.clock.now());
    if (q) this.fanout.emit(new Map([[quoteKey(instrument.exchange, instrument.symbol), q]]));
    return q;
  }

  protected override started(): void {
    this.opts.logger.info('sandbox prices are simulated: demo prices, not market data');
  }

  /** One quote for every watched instrument at the clock's time. */
  protected fetch(batch: PricedInstrument[]): Promise<void> {
    const now = this.opts.clock.now();
    return (async () => {
      const quotes = new Map<string, Quote>();
      for (const i of batch) {
        const q = await this.quoteAt(i, now);
        if (q) quotes.set(quoteKey(i.exchange, i.symbol), q);
      }
      this.fanout.emit(quotes);
    })().catch((err: unknown) => this.opts.logger.warn({ err }, 'simulated prices: poll failed'));
  }

  noPriceReason(instrument: PricedInstrument): string {
    const key = quoteKey(instrument.exchange, instrument.symbol);
    return (
      `No price for ${key}: the simulated price source has no reference price for it yet ` +
      `(the instrument file states none). Place a LIMIT order for it first (its price becomes ` +
      `the reference), or play prices from a file with SANDBOX_PRICE_SOURCE=scripted`
    );
  }

  orderPlaced(instrument: PricedInstrument): void {
    // The order's price may be the reference now: look again on the next quote.
    this.misses.delete(quoteKey(instrument.exchange, instrument.symbol));
  }

  /**
   * Forgets every reference found (a new instrument file went live: its prices may differ); each
   * is looked up again on its next quote, and a walk whose reference changed starts afresh.
   */
  forgetReferences(): void {
    this.references.clear();
    this.misses.clear();
  }

  /** The quote of the instrument's walk at `now` (the step it is in), without telling anyone. */
  async quoteAt(instrument: PricedInstrument, now: number): Promise<Quote | undefined> {
    const key = quoteKey(instrument.exchange, instrument.symbol);
    const reference = await this.referenceOf(key, instrument, now);
    if (reference === undefined) return undefined;
    const date = istDay(now);
    const session = this.opts.session?.(instrument.exchange, date);
    // The walk's clock: from midnight, or only inside the day's session.
    const start = session ? session.startMs : istMidnight(date);
    const until = session === null ? start : session ? Math.min(Math.max(now, start), session.endMs) : now;
    const step = Math.floor((until - start) / SIMULATED_STEP_MS);
    let day = this.walks.get(key);
    if (!day || day.date !== date || day.walk.step > step || day.walk.reference !== reference) {
      const seed = seedOf(`${this.opts.seed ?? 0}|${key}|${date}`);
      day = { date, walk: new RandomWalk(reference, tickOf(instrument), seed) };
      this.walks.set(key, day);
    }
    day.walk.advanceTo(step);
    // Before the open the quote is the reference, as of now (a walk's time never lies ahead).
    return walkQuote(day.walk, Math.min(now, start + step * SIMULATED_STEP_MS));
  }

  private async referenceOf(
    key: string,
    instrument: PricedInstrument,
    now: number,
  ): Promise<Money | undefined> {
    const known = this.references.get(key);
    if (known !== undefined) return known;
    const missed = this.misses.get(key);
    if (missed !== undefined && now - missed < MISS_RETRY_MS) return undefined;
    const found = await this.opts.reference(instrument);
    if (found === undefined || !(found > 0)) {
      this.misses.set(key, now);
      return undefined;
    }
    const reference = onTickGrid(found, tickOf(instrument));
    this.references.set(key, reference);
    this.misses.delete(key);
    this.opts.logger.info(
      { instrument: key, reference: moneyToRupees(reference) },
      'simulated prices: reference price set',
    );
    return reference;
  }
}

import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { Clock } from '../../platform/clock.js';
import type { InvalidationBus } from '../../platform/invalidation.js';
import { InstrumentIndex, type InstrumentEntry, type SearchResult } from './instrument-index.js';
import type { InstrumentsRepository } from './instruments.repository.js';
import type { LiveContractRepository } from './live-contract.repository.js';
import type { FnoFilters, SearchTerm } from './search-rules.js';

/** Bus topic published when a new contract generation goes live (key: the generation). */
export const CONTRACT_TOPIC = 'master-contract';

/** How often an instance checks that its index is still the live generation. */
const POLL_MS = 30_000;

/** IST calendar date (`YYYY-MM-DD`) of an instant. */
export const istDate = (t: number): string => new Date(t + 5.5 * 3_600_000).toISOString().slice(0, 10);

/**
 * The live master contract for readers: the in-memory index when it is loaded and current,
 * otherwise the database (docs/rules/market.md#index-or-database). The index is built
 * asynchronously (the service answers before it is ready) and rebuilt whenever a new generation
 * goes live on any instance.
 */
export class ContractsService {
  private index: InstrumentIndex | null = null;
  private loading: Promise<void> | null = null;
  private again = false;
  private closed = false;
  private started = false;
  private poll: NodeJS.Timeout | undefined;
  private liveBrokerName: string | null = null;
  private readonly liveBrokerListeners: ((broker: string | null) => void)[] = [];

  constructor(
    /** The generations: which one is live, and its rows for the index. */
    private readonly repo: InstrumentsRepository,
    /** The database's answers while there is no index. */
    private readonly fallback: LiveContractRepository,
    private readonly bus: InvalidationBus,
    private readonly clock: Clock,
    private readonly logger: Logger,
    /** `INSTRUMENT_INDEX=false` keeps only the database path (small machines). */
    private readonly indexEnabled: boolean,
  ) {
    bus.subscribe(CONTRACT_TOPIC, () => {
      void this.refreshLiveBroker();
      // The contract changed: stop answering from the old index now, rebuild in the background
      // (only in a started service: the CLI imports without ever holding an index).
      this.index = null;
      if (this.started) this.reload();
    });
  }

  /** Starts loading the index after `prepare` (start-up clean-up); does not wait for either. */
  start(prepare?: () => Promise<void>): void {
    this.started = true;
    void this.refreshLiveBroker();
    this.poll ??= setInterval(() => void this.check(), POLL_MS);
    this.poll.unref();
    if (!prepare) return this.reload();
    this.loading = prepare()
      .catch((err: unknown) => this.logger.warn({ err }, 'master-contract start-up clean-up failed'))
      .finally(() => {
        this.loading = null;
        this.reload();
      });
  }

  /** Resolves once the current (re)load has finished (tests, CLI). */
  async whenIdle(): Promise<void> {
    while (this.loading) await this.loading;
  }

  stop(): void {
    this.closed = true;
    clearInterval(this.poll);
  }

  /**
   * Catches a contract changed without a message reaching this instance (an import by the CLI
   * while no Redis is configured, a lost pub/sub message): the index is dropped when it is not
   * the live generation.
   */
  async check(): Promise<void> {
    await this.refreshLiveBroker();
    if (!this.indexEnabled || this.closed || this.loading) return;
    const live = await this.repo.liveGeneration().catch(() => undefined);
    if (live === undefined || (this.index?.generation ?? null) === live) return;
    this.index = null;
    this.reload();
  }

  /** The broker whose instrument file is live, as last read (null: none, or not read yet). */
  get liveBrokerNow(): string | null {
    return this.liveBrokerName;
  }

  /** Reads which broker's file is live (start-up, each contract change, the periodic check). */
  async refreshLiveBroker(): Promise<void> {
    const broker = await this.repo.liveBroker().catch(() => undefined);
    if (broker === undefined || broker === this.liveBrokerName) return;
    this.liveBrokerName = broker;
    for (const fn of this.liveBrokerListeners) fn(broker);
  }

  /** Calls `fn` when another broker's file goes live. */
  onLiveBroker(fn: (broker: string | null) => void): void {
    this.liveBrokerListeners.push(fn);
  }

  /** Whether searches are answered from memory. */
  get indexReady(): boolean {
    return this.index !== null;
  }

  get indexSize(): number {
    return this.index?.size ?? 0;
  }

  /** Tells every instance (this one included) that a generation went live. */
  announce(generation: number): void {
    this.bus.publish(CONTRACT_TOPIC, String(generation));
  }

  private reload(): void {
    if (!this.indexEnabled || this.closed) return;
    if (this.loading) {
      this.again = true;
      return;
    }
    this.loading = this.build()
      .catch((err: unknown) =>
        this.logger.error({ err }, 'instrument index build failed; searching the database'),
      )
      .finally(() => {
        this.loading = null;
        if (this.again) {
          this.again = false;
          this.reload();
        }
      });
  }

  private async build(): Promise<void> {
    const started = performance.now();
    const generation = await this.repo.liveGeneration();
    if (generation === null) {
      this.index = null;
      return;
    }
    const rows: InstrumentEntry[] = [];
    for await (const page of this.repo.loadGeneration(generation)) {
      for (const r of page) rows.push(r);
      if (this.again || this.closed) return; // superseded: the next build reads the newer one
      // A turn of the event loop between pages: SQLite's pages resolve at once, so without it the
      // whole load runs as one chain of microtasks and the server starts listening (or answers a
      // request) only once the index is built (1.7 s later with 200,000 instruments).
      await nextTurn();
    }
    const index = new InstrumentIndex(rows, generation);
    if ((await this.repo.liveGeneration()) !== generation) return;
    this.index = index;
    this.logger.info(
      { generation, instruments: index.size, ms: Math.round(performance.now() - started) },
      'instrument index ready',
    );
  }

  search(
    terms: SearchTerm[],
    exchanges: readonly string[],
    limit: number,
    withTotal = false,
  ): Promise<SearchResult> | SearchResult {
    return this.index
      ? this.index.search(terms, exchanges, limit)
      : this.fallback.search(terms, exchanges, limit, withTotal);
  }

  searchFno(terms: SearchTerm[], f: FnoFilters, limit: number): Promise<SearchResult> | SearchResult {
    return this.index ? this.index.searchFno(terms, f, limit) : this.fallback.searchFno(terms, f, limit);
  }

  /**
   * Future expiries (ISO, ascending) of derivatives matching the filters
   * (docs/rules/market.md#expiry-list).
   */
  async expiries(f: {
    exchanges: string[];
    underlying: string | null;
    instrumentTypes: string[];
  }): Promise<string[]> {
    const from = istDate(this.clock.now());
    return this.index ? this.index.expiries({ ...f, from }) : this.fallback.expiries({ ...f, from });
  }

  async underlyings(f: { exchanges: string[]; includeFutures: boolean }): Promise<string[]> {
    return this.index ? this.index.underlyings(f) : this.fallback.underlyings(f);
  }

  /** The instrument an order names (canonical symbol and exchange). */
  async get(symbol: string, exchange: string): Promise<InstrumentEntry | undefined> {
    return this.index ? this.index.get(symbol, exchange) : this.fallback.get(symbol, exchange);
  }

  /**
   * The price the live contract's instrument file states for the instrument (rupees), undefined
   * when none: read from the database, as the index does not hold it (the simulated prices ask
   * once per instrument, docs/rules/sandbox.md#simulated-prices).
   */
  referencePrice(symbol: string, exchange: string): Promise<number | undefined> {
    return this.fallback.referencePrice(symbol, exchange);
  }

  async getByToken(token: string, exchange?: string): Promise<InstrumentEntry[]> {
    return this.index ? this.index.getByToken(token, exchange) : this.fallback.getByToken(token, exchange);
  }

  /**
   * The instrument as `broker` names it: the live contract's when `broker` is absent or its file is
   * the live one, else `broker`'s own newest instrument file (docs/rules/brokers.md#broker-apps).
   */
  async getFor(symbol: string, exchange: string, broker?: string): Promise<InstrumentEntry | undefined> {
    if (broker === undefined || (await this.isLive(broker))) return this.get(symbol, exchange);
    return this.fallback.getOfBroker(broker, symbol, exchange);
  }

  /** {@link getByToken} in `broker`'s instrument file, as {@link getFor} chooses it. */
  async getByTokenFor(token: string, exchange?: string, broker?: string): Promise<InstrumentEntry[]> {
    if (broker === undefined || (await this.isLive(broker))) return this.getByToken(token, exchange);
    return this.fallback.getByTokenOfBroker(broker, token, exchange);
  }

  /** The instrument by the broker's own symbol and exchange code, in the file {@link getFor} chooses. */
  async getByBrSymbolFor(
    brsymbol: string,
    brexchange: string,
    broker?: string,
  ): Promise<InstrumentEntry | undefined> {
    if (broker === undefined || (await this.isLive(broker)))
      return this.index
        ? this.index.getByBrSymbol(brsymbol, brexchange)
        : this.fallback.getByBrSymbol(brsymbol, brexchange);
    return this.fallback.getByBrSymbol(brsymbol, brexchange, broker);
  }

  /**
   * Whether `broker`'s file is the live one: from the value kept with the index (refreshed on every
   * contract change, as the index is), read from the database only before the first reading.
   */
  private async isLive(broker: string): Promise<boolean> {
    const live = this.liveBrokerName ?? (await this.repo.liveBroker());
    return live === null || live === broker;
  }

  /** Whether the contract holds any row on the exchange (a signal leg passes when it holds none). */
  async hasExchange(exchange: string): Promise<boolean> {
    return this.index ? this.index.hasExchange(exchange) : this.fallback.hasExchange(exchange);
  }
}

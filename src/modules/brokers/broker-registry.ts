/**
 * The live brokers by name. The placeorder pipeline and the live book
 * routes ask for `BROKER_NAME`; an unknown name is `undefined`, which they answer with 404
 * "Broker-specific module not found" (OpenAlgo's wording). Adapters are built on first use and
 * kept in the registry instance — not in module state — so each app (and each test) has its
 * own pools; `closeAll()` at shutdown closes them.
 */
import { AngelAdapter } from './angel/angel.adapter.js';
import type { BrokerAdapter } from './broker-adapter.js';
import { DhanAdapter } from './dhan/dhan.adapter.js';
import { UpstoxAdapter } from './upstox/upstox.adapter.js';
import type { BrokerAdapterOptions } from './http/order-transport.js';
import { ZerodhaAdapter } from './zerodha/zerodha.adapter.js';

export type { BrokerAdapterOptions } from './http/order-transport.js';

/** Builds one broker's adapter. */
export type BrokerFactory = (opts: BrokerAdapterOptions) => BrokerAdapter;

/** The brokers algodesk trades through, by OpenAlgo's broker id. */
export const LIVE_BROKERS: ReadonlyMap<string, BrokerFactory> = new Map<string, BrokerFactory>([
  ['angel', (opts) => new AngelAdapter(opts)],
  ['dhan', (opts) => new DhanAdapter(opts)],
  ['upstox', (opts) => new UpstoxAdapter(opts)],
  ['zerodha', (opts) => new ZerodhaAdapter(opts)],
]);

/** One adapter per broker name, built from the app's broker credentials. */
export class BrokerRegistry {
  private readonly adapters = new Map<string, BrokerAdapter>();

  constructor(
    /** The broker app's credentials and connection settings (`BROKER_API_KEY`, …). */
    private readonly options: BrokerAdapterOptions,
    private readonly factories: ReadonlyMap<string, BrokerFactory> = LIVE_BROKERS,
  ) {}

  /** The adapter of `name` (built once, then the same instance); undefined for an unknown name. */
  load(name: string): BrokerAdapter | undefined {
    const cached = this.adapters.get(name);
    if (cached) return cached;
    const factory = this.factories.get(name);
    if (!factory) return undefined;
    const adapter = factory(this.options);
    this.adapters.set(name, adapter);
    return adapter;
  }

  /** Every broker name `load` knows, sorted. */
  names(): string[] {
    return [...this.factories.keys()].sort();
  }

  /** Closes every adapter built so far; a later `load` builds a fresh one. */
  async closeAll(): Promise<void> {
    const adapters = [...this.adapters.values()];
    this.adapters.clear();
    await Promise.allSettled(adapters.map((a) => a.close()));
  }
}

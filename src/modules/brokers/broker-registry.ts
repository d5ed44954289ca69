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
import { FyersAdapter } from './fyers/fyers.adapter.js';
import { NorenAdapter } from './noren/noren.adapter.js';
import { FLATTRADE, SHOONYA } from './noren/noren.mapping.js';
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
  ['flattrade', (opts) => new NorenAdapter(FLATTRADE, opts)],
  ['fyers', (opts) => new FyersAdapter(opts)],
  ['shoonya', (opts) => new NorenAdapter(SHOONYA, opts)],
  ['upstox', (opts) => new UpstoxAdapter(opts)],
  ['zerodha', (opts) => new ZerodhaAdapter(opts)],
]);

/** The credentials of one broker app (docs/rules/brokers.md#broker-apps). */
export interface AppCredentials {
  id: number;
  broker: string;
  apiKey: string;
  apiSecret: string;
  redirectUrl: string;
  /** Changes with the credentials: the adapter built on older ones is closed and rebuilt. */
  version: number;
}

/**
 * One adapter per broker name, built from the bootstrap app's credentials (`load`), and one per
 * broker app added in the console (`forApp`).
 */
export class BrokerRegistry {
  private readonly adapters = new Map<string, BrokerAdapter>();
  private readonly appAdapters = new Map<number, { version: number; adapter: BrokerAdapter }>();

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

  /**
   * The adapter of a broker app: `load(broker)` for the bootstrap app (id 0), else one built on
   * the app's credentials (the shared connection settings besides), rebuilt when they change.
   */
  forApp(app: AppCredentials): BrokerAdapter | undefined {
    if (app.id === 0) return this.load(app.broker);
    const cached = this.appAdapters.get(app.id);
    if (cached && cached.version === app.version) return cached.adapter;
    const factory = this.factories.get(app.broker);
    if (!factory) return undefined;
    if (cached) void cached.adapter.close().catch(() => undefined);
    const adapter = factory({
      ...this.options,
      apiKey: app.apiKey,
      apiSecret: app.apiSecret,
      redirectUrl: app.redirectUrl,
    });
    this.appAdapters.set(app.id, { version: app.version, adapter });
    return adapter;
  }

  /** Every broker name `load` knows, sorted. */
  names(): string[] {
    return [...this.factories.keys()].sort();
  }

  /** Closes every adapter built so far; a later `load` builds a fresh one. */
  async closeAll(): Promise<void> {
    const adapters = [...this.adapters.values(), ...[...this.appAdapters.values()].map((a) => a.adapter)];
    this.adapters.clear();
    this.appAdapters.clear();
    await Promise.allSettled(adapters.map((a) => a.close()));
  }
}

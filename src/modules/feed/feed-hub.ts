/**
 * One upstream per install (docs/rules/market-data.md#one-upstream): however many sockets ask for
 * an instrument, the source is subscribed to it once, at the highest mode any of them wants, and
 * unsubscribed when the last one leaves. A tick is serialized once per (mode, depth) and handed
 * to every subscription of the instrument at or below the tick's mode: a Depth tick reaches the
 * LTP and Quote subscribers too. The newest tick of each instrument is kept (a new subscriber
 * gets it at once; the quote APIs may answer from it).
 */
import {
  feedKey,
  MODE_NAMES,
  type FeedInstrument,
  type FeedMode,
  type Tick,
  type TickSource,
} from './feed.types.js';
import { marketDataMessage, type SymbolRef } from './protocol.js';

/** A subscriber of the hub (one socket). */
export interface FeedClient {
  /** Hands over one serialized message for (instrument, mode) `slot`; the client does back-pressure. */
  deliver(slot: string, message: string): void;
}

export interface FeedHubDeps {
  source: TickSource;
  /** The instrument a client names, from the master contract (undefined: unknown). */
  lookup(symbol: string, exchange: string): FeedInstrument | undefined | Promise<FeedInstrument | undefined>;
  /** Subscriptions (instrument, mode) one socket may hold (FEED_MAX_SUBSCRIPTIONS_PER_SOCKET). */
  maxPerSocket: number;
}

/** One entry of a subscribe ack, as OpenAlgo words it. */
export type SubscribeEntry =
  | { symbol: string; exchange: string; status: 'success'; mode: string; depth: number; broker: string }
  | { symbol: string; exchange: string; status: 'error'; message: string; broker: string };

/** One entry of an unsubscribe ack. */
export type UnsubscribeEntry = {
  symbol: string;
  exchange: string;
  status: 'success' | 'error';
  message?: string;
  broker: string;
};

interface Upstream {
  instrument: FeedInstrument;
  /** Subscriptions by mode (index 1..3). */
  counts: [number, number, number, number];
  /** The mode the source is subscribed at (the highest with a count). */
  mode: FeedMode;
}

/** A client's subscriptions: instrument key → mode → depth. */
type ClientSubs = Map<string, Map<FeedMode, number>>;

export class FeedHub {
  private readonly upstream = new Map<string, Upstream>();
  /** Instrument key → its subscribers and what each asked for. */
  private readonly byKey = new Map<string, Map<FeedClient, Map<FeedMode, number>>>();
  private readonly clients = new Map<FeedClient, ClientSubs>();
  private readonly newest = new Map<string, { tick: Tick; mode: FeedMode; receivedAt: number }>();
  /** Told every tick before it is fanned out (the sandbox's prices, the quote cache's readers). */
  private readonly tickListeners = new Set<(key: string, mode: FeedMode, tick: Tick) => void>();
  private unlisten: (() => void) | undefined;

  constructor(private readonly deps: FeedHubDeps) {}

  get broker(): string {
    return this.deps.source.name;
  }

  start(): void {
    this.unlisten ??= this.deps.source.onTick((key, mode, tick) => this.onTick(key, mode, tick));
    this.deps.source.start();
  }

  async stop(): Promise<void> {
    this.unlisten?.();
    this.unlisten = undefined;
    await this.deps.source.stop();
  }

  /** The newest tick of an instrument (any mode) and when it arrived here (`Date.now()`). */
  latest(exchange: string, symbol: string): { tick: Tick; mode: FeedMode; receivedAt: number } | undefined {
    return this.newest.get(feedKey(exchange, symbol));
  }

  /** Hears every tick of every subscribed instrument, raw. */
  listen(listener: (key: string, mode: FeedMode, tick: Tick) => void): () => void {
    this.tickListeners.add(listener);
    return () => this.tickListeners.delete(listener);
  }

  /**
   * Tells the subscribers of `keys` (instrument keys) that their upstream is `stale` or `live`
   * again: `{type: "feed_status", status, broker, symbols: [{symbol, exchange}]}`, once per socket.
   */
  notifyStatus(keys: readonly string[], status: 'stale' | 'live'): void {
    const bySocket = new Map<FeedClient, { symbol: string; exchange: string }[]>();
    for (const key of keys)
      for (const client of this.byKey.get(key)?.keys() ?? []) {
        const [exchange, symbol] = splitKey(key);
        const list = bySocket.get(client) ?? [];
        list.push({ symbol, exchange });
        bySocket.set(client, list);
      }
    for (const [client, symbols] of bySocket)
      client.deliver(
        'feed_status',
        JSON.stringify({ type: 'feed_status', status, broker: this.broker, symbols }),
      );
  }

  /** Who holds `exchange:symbol` now, and in which modes (diagnostics, tests). */
  holders(key: string): { client: FeedClient; modes: FeedMode[] }[] {
    return [...(this.byKey.get(key) ?? [])].map(([client, modes]) => ({ client, modes: [...modes.keys()] }));
  }

  /** Instruments the source is subscribed to now. */
  get upstreamCount(): number {
    return this.upstream.size;
  }

  /**
   * Subscribes `client` to each symbol in `mode`: one ack entry per symbol, in order, and `replay`,
   * which hands the client the newest tick of each new subscription (call it after the ack).
   */
  async subscribe(
    client: FeedClient,
    symbols: SymbolRef[],
    mode: FeedMode,
    depth: number,
  ): Promise<{ entries: SubscribeEntry[]; replay: () => void }> {
    const replays: (() => void)[] = [];
    const broker = this.broker;
    const out: SubscribeEntry[] = [];
    for (const ref of symbols) {
      const fail = (message: string) => out.push({ ...ref, status: 'error', message, broker });
      const instrument = await this.deps.lookup(ref.symbol, ref.exchange);
      if (!instrument) {
        fail(`Symbol ${ref.symbol} not found on exchange ${ref.exchange}`);
        continue;
      }
      const key = feedKey(instrument.exchange, instrument.symbol);
      const subs = this.clients.get(client) ?? new Map<string, Map<FeedMode, number>>();
      const modes = subs.get(key);
      if (!modes?.has(mode)) {
        if (this.count(subs) >= this.deps.maxPerSocket) {
          fail(
            `This connection holds the most subscriptions allowed (${this.deps.maxPerSocket}); unsubscribe some first`,
          );
          continue;
        }
        if (!this.upstream.has(key) && this.upstream.size >= this.deps.source.maxSubscriptions) {
          fail(
            `The ${broker} feed takes at most ${this.deps.source.maxSubscriptions} instruments at once; ` +
              'none is free now',
          );
          continue;
        }
        this.addUpstream(key, instrument, mode);
      }
      this.clients.set(client, subs);
      subs.set(key, (modes ?? new Map()).set(mode, depth));
      const holders = this.byKey.get(key) ?? new Map<FeedClient, Map<FeedMode, number>>();
      holders.set(client, subs.get(key)!);
      this.byKey.set(key, holders);
      out.push({
        symbol: instrument.symbol,
        exchange: instrument.exchange,
        status: 'success',
        mode: MODE_NAMES[mode],
        depth,
        broker,
      });
      replays.push(() => {
        const seen = this.newest.get(key);
        if (seen && seen.mode >= mode && this.clients.get(client)?.get(key)?.has(mode))
          client.deliver(
            `${key}|${mode}`,
            marketDataMessage(instrument.symbol, instrument.exchange, mode, depth, seen.tick, broker),
          );
      });
    }
    return { entries: out, replay: () => replays.forEach((r) => r()) };
  }

  /** Ends the client's subscriptions named (each with its mode). */
  unsubscribe(client: FeedClient, entries: (SymbolRef & { mode: FeedMode })[]): UnsubscribeEntry[] {
    const broker = this.broker;
    return entries.map((e) => {
      const key = feedKey(e.exchange, e.symbol);
      if (!this.drop(client, key, e.mode))
        return {
          symbol: e.symbol,
          exchange: e.exchange,
          status: 'error',
          message: `Not subscribed to ${key} in ${MODE_NAMES[e.mode]} mode`,
          broker,
        };
      return { symbol: e.symbol, exchange: e.exchange, status: 'success', broker };
    });
  }

  /** Ends every subscription of the client (unsubscribe_all, or the socket closed). */
  unsubscribeAll(client: FeedClient): UnsubscribeEntry[] {
    const subs = this.clients.get(client);
    if (!subs) return [];
    const out: UnsubscribeEntry[] = [];
    for (const [key, modes] of [...subs])
      for (const mode of [...modes.keys()]) {
        this.drop(client, key, mode);
        const [exchange, symbol] = splitKey(key);
        out.push({ symbol, exchange, status: 'success', broker: this.broker });
      }
    this.clients.delete(client);
    return out;
  }

  private count(subs: ClientSubs): number {
    let n = 0;
    for (const m of subs.values()) n += m.size;
    return n;
  }

  private addUpstream(key: string, instrument: FeedInstrument, mode: FeedMode): void {
    const up = this.upstream.get(key);
    if (!up) {
      const counts: Upstream['counts'] = [0, 0, 0, 0];
      counts[mode] = 1;
      this.upstream.set(key, { instrument, counts, mode });
      this.deps.source.subscribe(instrument, mode);
      return;
    }
    up.counts[mode]++;
    if (mode > up.mode) {
      // Subscribe at the higher mode first, so no tick is missed in between.
      this.deps.source.subscribe(instrument, mode);
      this.deps.source.unsubscribe(instrument, up.mode);
      up.mode = mode;
    }
  }

  private drop(client: FeedClient, key: string, mode: FeedMode): boolean {
    const modes = this.clients.get(client)?.get(key);
    if (!modes?.delete(mode)) return false;
    if (modes.size === 0) {
      this.clients.get(client)!.delete(key);
      const holders = this.byKey.get(key);
      holders?.delete(client);
      if (holders?.size === 0) this.byKey.delete(key);
    }
    const up = this.upstream.get(key);
    if (!up) return true;
    up.counts[mode]--;
    const top = ([3, 2, 1] as const).find((m) => up.counts[m] > 0);
    if (top === undefined) {
      this.deps.source.unsubscribe(up.instrument, up.mode);
      this.upstream.delete(key);
      this.newest.delete(key);
    } else if (top < up.mode) {
      this.deps.source.subscribe(up.instrument, top);
      this.deps.source.unsubscribe(up.instrument, up.mode);
      up.mode = top;
    }
    return true;
  }

  private onTick(key: string, mode: FeedMode, tick: Tick): void {
    const prev = this.newest.get(key);
    if (!prev || prev.tick.timestamp <= tick.timestamp || mode > prev.mode)
      this.newest.set(key, { tick, mode, receivedAt: Date.now() });
    for (const l of this.tickListeners) l(key, mode, tick);
    const holders = this.byKey.get(key);
    if (!holders) return;
    const [exchange, symbol] = splitKey(key);
    const built = new Map<string, string>();
    for (const [client, modes] of holders)
      for (const [m, depth] of modes) {
        if (m > mode) continue;
        const shape = m === 3 ? `3|${depth}` : String(m);
        let msg = built.get(shape);
        if (msg === undefined)
          built.set(shape, (msg = marketDataMessage(symbol, exchange, m, depth, tick, this.broker)));
        client.deliver(`${key}|${m}`, msg);
      }
  }
}

/** `EXCHANGE:SYMBOL` → [exchange, symbol] (symbols hold no colon; exchanges neither). */
function splitKey(key: string): [string, string] {
  const i = key.indexOf(':');
  return [key.slice(0, i), key.slice(i + 1)];
}

/**
 * What the feed does for the rest of the service beside its sockets: the sandbox rides it
 * (docs/rules/market-data.md#live-cache) — the instruments its engine watches are subscribed like
 * a client's and a broker stream's ticks price it at once, so a resting order fills on the tick
 * that crosses it — and a broker stream's order postbacks become the session user's order updates
 * (docs/rules/market-data.md#order-updates), with the master contract's symbol.
 */
import type { Logger } from 'pino';
import type { InstrumentEntry } from '../market/instrument-index.js';
import type { PriceSource } from '../sandbox/prices/price-source.js';
import type { ClusterSource } from './cluster-source.js';
import type { FeedClient, FeedHub } from './feed-hub.js';
import { feedKey, type FeedInstrument } from './feed.types.js';
import { tickToQuote } from './live-quotes.js';
import type { OrderUpdates } from './order-updates.js';
import type { SymbolRef } from './protocol.js';
import type { SourceSwitch } from './source-switch.js';

/**
 * Links the sandbox's engine to the feed; returns the start (after the hub's): from then on the
 * engine's watched instruments are followed.
 */
export function linkSandbox(deps: {
  hub: FeedHub;
  cluster: ClusterSource;
  /** The sandbox's price source now. */
  prices: () => PriceSource;
  /** Told when the sandbox's price source is replaced. */
  onPriceSource: (listener: (source: PriceSource) => void) => void;
  logger: Logger;
}): () => void {
  const { hub, cluster, logger } = deps;
  const engine: FeedClient = { deliver: () => undefined };
  let engineKeys = new Map<string, SymbolRef>();
  const follow = (instruments: readonly FeedInstrument[]) => {
    const next = new Map(
      instruments.map((i) => [feedKey(i.exchange, i.symbol), { symbol: i.symbol, exchange: i.exchange }]),
    );
    const gone = [...engineKeys].filter(([k]) => !next.has(k)).map(([, r]) => ({ ...r, mode: 3 as const }));
    const added = [...next].filter(([k]) => !engineKeys.has(k)).map(([, r]) => r);
    engineKeys = next;
    if (gone.length > 0) hub.unsubscribe(engine, gone);
    if (added.length > 0)
      void hub
        .subscribe(engine, added, 3, 5)
        .catch((err: unknown) => logger.warn({ err }, 'feed: engine subscribe failed'));
  };
  hub.listen((key, _mode, tick) => {
    // The demo sources are the sandbox's own prices: nothing to feed back.
    if (cluster.demo) return;
    const prices = deps.prices();
    if (prices.kind === 'broker' && prices.receive) prices.receive(new Map([[key, tickToQuote(tick)]]));
  });
  // The engine watches on whichever source is in use: follow the new one when it is replaced.
  return () => {
    deps.prices().onWatch?.(follow);
    deps.onPriceSource((source) => source.onWatch?.(follow));
  };
}

/** Publishes a broker stream's order postbacks as order updates of the newest session's user. */
export function linkBrokerOrders(deps: {
  upstream: SourceSwitch;
  orders: OrderUpdates;
  /** The user of the session the stream runs under. */
  sessionUser: () => number | undefined;
  byToken: (token: string) => Promise<InstrumentEntry[]> | InstrumentEntry[];
  logger: Logger;
}): void {
  deps.upstream.onOrder((u) => {
    const userId = deps.sessionUser();
    if (userId === undefined) return;
    void Promise.resolve(u.token ? deps.byToken(u.token) : [])
      .then((found) => {
        const i = found.find((e) => e.brexchange === u.brexchange) ?? found[0];
        const { token: _token, brsymbol, brexchange, ...fields } = u;
        deps.orders.publish({
          type: 'order_update',
          user_id: userId,
          mode: 'live',
          broker: deps.upstream.name,
          ...fields,
          symbol: i?.symbol ?? brsymbol,
          exchange: i?.exchange ?? brexchange,
        });
      })
      .catch((err: unknown) => deps.logger.warn({ err }, 'feed: an order update could not be mapped'));
  });
}

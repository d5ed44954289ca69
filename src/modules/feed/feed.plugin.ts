/**
 * The live feed as a plugin (docs/rules/market-data.md#feed-protocol): OpenAlgo's WebSocket
 * protocol on its own port (`WEBSOCKET_HOST`:`WEBSOCKET_PORT`, started by `serve` after the HTTP
 * port), the hub that holds one upstream subscription per instrument, the tick source, and
 * `GET /api/websocket/config` that tells the console and clients where to connect.
 */
import type { AppDeps } from '../../app-deps.js';
import { modulePlugin, routeLimits, sessionScope } from '../../platform/http/module-plugin.js';
import { FeedHub, type FeedClient } from './feed-hub.js';
import { tickToQuote } from './live-quotes.js';
import type { SymbolRef } from './protocol.js';
import { FeedServer } from './feed-server.js';
import { feedConfigRoutes } from './feed.routes.js';
import { SandboxTickSource } from './sandbox-ticks.js';
import { SourceSwitch, type SourceChoice } from './source-switch.js';
import { FeedWatchdog } from './feed-watchdog.js';
import { istDate } from '../market/contracts.service.js';
import { KiteTickerSource } from './sources/kite-ticker.js';
import { UpstoxFeedSource } from './sources/upstox-feed.js';
import { createHash, randomBytes } from 'node:crypto';
import { createRedis } from '../../platform/redis.js';
import { ClusterSource } from './cluster-source.js';
import { UpstreamLease } from './upstream-lease.js';
import { OrderUpdates, sandboxOrderUpdate } from './order-updates.js';
import { feedKey, type FeedInstrument } from './feed.types.js';

export interface FeedServices {
  hub: FeedHub;
  server: FeedServer;
  /** The upstream in use, replaced when the install's choice changes or it stalls. */
  upstream: SourceSwitch;
  /** This instance's share of the install's one upstream (holding it, or fed by its holder). */
  cluster: ClusterSource;
  watchdog: FeedWatchdog;
  /** Listens on `WEBSOCKET_HOST`:`WEBSOCKET_PORT` when the port is not 0; a taken port is logged, not fatal. */
  listenOwnPort(): Promise<void>;
}

declare module 'fastify' {
  interface FastifyInstance {
    feed: FeedServices;
  }
}

/** Connection bounds of one feed socket. */
const CONNECTION_LIMITS = {
  authTimeoutMs: 15_000,
  messagesPerSecond: 50,
  highWaterBytes: 1 << 20,
  slowCloseMs: 30_000,
};

export const feedPlugin = modulePlugin<AppDeps>(
  'feed',
  ['auth', 'security', 'market-admin', 'market', 'brokers', 'sandbox'],
  async (app, deps) => {
    const { config, logger: rootLogger, clock } = deps;
    const logger = rootLogger.child({ module: 'feed' });
    /** This process's name on the bus and on the upstream lease (never two processes alike). */
    const origin = `${config.instanceId}:${process.pid}:${randomBytes(4).toString('hex')}`;
    const orderUpdates = new OrderUpdates(deps.bus, origin);
    app.sandbox.service.onOrderChange((row) => orderUpdates.publish(sandboxOrderUpdate(row)));
    const demo = (): SourceChoice => ({
      key: 'sandbox',
      make: () =>
        new SandboxTickSource({
          prices: () => app.sandbox.prices(),
          everyMs: config.feed.pollMs,
          maxSubscriptions: 5000,
          logger,
        }),
    });
    /**
     * The live broker's own stream under the newest broker session (a new token: a new key, so the
     * upstream is rebuilt), else analyzer mode's demo prices.
     */
    const choose = (): SourceChoice => {
      const primary = app.brokers.sessions.primarySession();
      const apiKey = config.broker.apiKey;
      if (!primary || primary.broker !== config.broker.name) return demo();
      const accessToken = primary.session.accessToken;
      const key = `${primary.broker}:${createHash('sha256').update(accessToken).digest('hex').slice(0, 16)}`;
      if (primary.broker === 'zerodha' && apiKey)
        return {
          key,
          make: () =>
            new KiteTickerSource({
              apiKey,
              accessToken,
              ...(config.feed.brokerStreamUrl ? { url: config.feed.brokerStreamUrl } : {}),
              logger,
            }),
        };
      if (primary.broker === 'upstox')
        return {
          key,
          make: () =>
            new UpstoxFeedSource({
              accessToken: () => app.brokers.sessions.primarySession()?.session.accessToken,
              ...(config.broker.baseUrl ? { apiBaseUrl: config.broker.baseUrl } : {}),
              logger,
            }),
        };
      return demo();
    };
    const watchdog = new FeedWatchdog({
      staleMs: config.feed.staleMs,
      inSession: (exchange, now) => {
        const s = app.marketAdmin.sessionOn(exchange, istDate(now));
        return !!s?.open && s.start_ms !== null && s.end_ms !== null && now >= s.start_ms && now < s.end_ms;
      },
      now: () => clock.now(),
      onStall: (keys) => {
        hub.notifyStatus(keys, 'stale');
        upstream.reselect(true);
      },
      onRecover: (keys) => hub.notifyStatus(keys, 'live'),
      logger,
    });
    const upstream = new SourceSwitch({
      choose,
      checkEveryMs: 5000,
      logger,
      observer: {
        subscribed: (key, exchange) => {
          if (!upstream.upstream().demo) watchdog.watch(key, exchange);
        },
        released: (key) => watchdog.unwatch(key),
        ticked: (key) => watchdog.tick(key),
      },
    });
    upstream.onChange(() => {
      if (upstream.upstream().demo) watchdog.clear();
    });
    // Live-mode order updates from the broker's stream (Kite's postbacks): the newest session's user's.
    upstream.onOrder((u) => {
      const userId = app.brokers.sessions.primaryUserId();
      if (userId === undefined) return;
      void Promise.resolve(u.token ? app.market.contracts.getByToken(u.token) : [])
        .then((found) => {
          const i = found.find((e) => e.brexchange === u.brexchange) ?? found[0];
          const { token: _token, brsymbol, brexchange, ...fields } = u;
          orderUpdates.publish({
            type: 'order_update',
            user_id: userId,
            mode: 'live',
            broker: upstream.name,
            ...fields,
            symbol: i?.symbol ?? brsymbol,
            exchange: i?.exchange ?? brexchange,
          });
        })
        .catch((err: unknown) => logger.warn({ err }, 'feed: an order update could not be mapped'));
    });
    // One upstream for the install: with Redis, the instance holding the lease runs it for all.
    const cluster = new ClusterSource({
      local: upstream,
      bus: deps.bus,
      origin,
      now: () => Date.now(),
      logger,
    });
    // The runtime's commands connection; a connection of its own only for an app built without one.
    const ownRedis =
      cluster.shared && !deps.redis && config.redisUrl
        ? createRedis(config.redisUrl, 'feed', logger)
        : undefined;
    const leaseRedis = cluster.shared ? (deps.redis ?? ownRedis) : undefined;
    const lease = leaseRedis
      ? new UpstreamLease({
          redis: leaseRedis,
          key: `${config.redisPrefix}:feed:upstream`,
          holder: origin,
          onGain: () => cluster.gain(),
          onLose: () => cluster.lose(),
          logger,
        })
      : undefined;
    const hub = new FeedHub({
      source: cluster,
      lookup: async (symbol, exchange): Promise<FeedInstrument | undefined> =>
        app.market.contracts.get(symbol, exchange),
      maxPerSocket: config.feed.maxSubscriptionsPerSocket,
    });
    const { apiKeys, invalidKeyListeners } = app.auth;
    const server = new FeedServer({
      hub,
      authenticate: async (apiKey) => {
        const known = apiKeys.cached(apiKey);
        const p = known === undefined ? await apiKeys.verify(apiKey) : known;
        return p ? { userId: p.userId } : undefined;
      },
      onInvalidKey: (ip, apiKey) => {
        const digest = apiKeys.digest(apiKey.slice(0, 256));
        for (const l of invalidKeyListeners) l(ip, digest);
      },
      supportedBrokers: () => [hub.broker],
      orders: orderUpdates,
      // Real time, not the app's clock: rate windows and slow-reader bounds measure the wire.
      now: () => Date.now(),
      limits: CONNECTION_LIMITS,
      isBanned: (ip) => (config.disableBanCheck ? false : app.security.bans.isBanned(ip)),
      limiter: deps.rateLimiter,
      connectRate: config.feed.connectRate,
      maxConnections: config.feed.maxConnections,
      trustProxyHeaders: config.trustProxyHeaders,
      logger,
    });
    app.decorate('feed', {
      hub,
      server,
      upstream,
      cluster,
      watchdog,
      async listenOwnPort() {
        if (config.feed.port === 0) return;
        try {
          const at = await server.listen(config.feed.host, config.feed.port);
          logger.info(
            { host: at.address, port: at.port },
            'live feed listening (OpenAlgo WebSocket protocol)',
          );
        } catch (err) {
          logger.error(
            { err: (err as Error).message, port: config.feed.port },
            `the live feed could not listen on ${config.feed.host}:${config.feed.port} (is another program, ` +
              'OpenAlgo or another algodesk, using it?): set WEBSOCKET_PORT to a free port, or 0 for none',
          );
        }
      },
    });
    const limits = routeLimits(deps);
    await sessionScope(app, (web) => {
      feedConfigRoutes(web, { config, guard: app.auth.guard, rateLimit: limits.admin });
    });
    const watch = setInterval(() => watchdog.check(), Math.min(5000, config.feed.staleMs / 2));
    watch.unref();
    // The sandbox rides the feed (docs/rules/market-data.md#live-cache): the instruments its engine
    // watches (working orders, open positions) are subscribed like a client's, and a broker
    // stream's ticks price it at once, so a resting order fills on the tick that crosses it.
    const engine: FeedClient = { deliver: () => undefined };
    let engineKeys = new Map<string, SymbolRef>();
    const followEngine = (instruments: readonly FeedInstrument[]) => {
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
      if (cluster.demo) return;
      const prices = app.sandbox.prices();
      if (prices.kind === 'broker' && prices.receive) prices.receive(new Map([[key, tickToQuote(tick)]]));
    });
    app.addHook('onReady', async () => {
      hub.start();
      lease?.start();
      app.sandbox.prices().onWatch?.(followEngine);
    });
    app.addHook('onClose', async () => {
      clearInterval(watch);
      await server.close();
      await lease?.stop();
      ownRedis?.disconnect();
      await hub.stop();
    });
  },
);

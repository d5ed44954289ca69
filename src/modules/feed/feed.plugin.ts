/**
 * The live feed as a plugin (docs/rules/market-data.md#feed-protocol): OpenAlgo's WebSocket
 * protocol on its own port (`WEBSOCKET_HOST`:`WEBSOCKET_PORT`, started by `serve` after the HTTP
 * port), the hub that holds one upstream subscription per instrument, the tick source, and
 * `GET /api/websocket/config` that tells the console and clients where to connect.
 */
import type { AppDeps } from '../../app-deps.js';
import { modulePlugin, routeLimits, sessionScope } from '../../platform/http/module-plugin.js';
import { FeedHub } from './feed-hub.js';
import { FeedServer } from './feed-server.js';
import { feedConfigRoutes } from './feed.routes.js';
import { SourceSwitch } from './source-switch.js';
import { upstreamChooser } from './upstream-choice.js';
import { linkBrokerOrders, linkSandbox } from './feed-links.js';
import { FeedWatchdog } from './feed-watchdog.js';
import { istDate } from '../market/contracts.service.js';
import { randomBytes } from 'node:crypto';
import { createRedis } from '../../platform/redis.js';
import { ClusterSource } from './cluster-source.js';
import { UpstreamLease } from './upstream-lease.js';
import { OrderUpdates, sandboxOrderUpdate } from './order-updates.js';
import type { FeedInstrument } from './feed.types.js';

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
      choose: upstreamChooser({
        config,
        sessions: app.brokers.sessions,
        apiKey: (appId) => app.brokers.apps.get(appId)?.apiKey,
        preferredBroker: () => app.brokers.preferredBroker(),
        prices: () => app.sandbox.prices(),
        logger,
      }),
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
    linkBrokerOrders({
      upstream,
      orders: orderUpdates,
      sessionUser: () => app.brokers.sessions.primaryUserId(),
      byToken: (token) => app.market.contracts.getByToken(token),
      logger,
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
    const followEngine = linkSandbox({
      hub,
      cluster,
      prices: () => app.sandbox.prices(),
      onPriceSource: (l) => app.sandbox.onPriceSource(l),
      logger,
    });
    app.addHook('onReady', async () => {
      hub.start();
      lease?.start();
      followEngine();
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

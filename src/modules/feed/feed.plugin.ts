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
import { SandboxTickSource } from './sandbox-ticks.js';
import type { FeedInstrument } from './feed.types.js';

export interface FeedServices {
  hub: FeedHub;
  server: FeedServer;
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
  ['auth', 'security', 'market', 'sandbox'],
  async (app, deps) => {
    const { config, logger: rootLogger } = deps;
    const logger = rootLogger.child({ module: 'feed' });
    const source = new SandboxTickSource({
      prices: () => app.sandbox.prices(),
      everyMs: config.feed.pollMs,
      maxSubscriptions: 5000,
      logger,
    });
    const hub = new FeedHub({
      source,
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
    app.addHook('onReady', async () => hub.start());
    app.addHook('onClose', async () => {
      await server.close();
      await hub.stop();
    });
  },
);

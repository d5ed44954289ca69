/**
 * Market data on `/api/v1` as a plugin: OpenAlgo's quotes, multiquotes, depth, history and the
 * options routes (optionchain, syntheticfuture, optiongreeks, multioptiongreeks), read
 * from the user's broker session (the brokers module's market-data clients) or, in analyzer mode
 * without one, from the sandbox's price source (quotes and top-of-book depth only).
 */
import type { AppDeps } from '../../app-deps.js';
import { modulePlugin, routeLimits } from '../../platform/http/module-plugin.js';
import { BrokerDataSource } from './broker-data-source.js';
import { marketDataRoutes, optionsRoutes, tickerRoutes } from './market-data.routes.js';
import { MarketDataService } from './market-data.service.js';
import { OptionsService } from './options.service.js';
import { liveMarketQuote } from '../feed/live-quotes.js';

export const marketDataPlugin = modulePlugin<AppDeps>(
  'market-data',
  ['auth', 'market', 'brokers', 'sandbox', 'feed'],
  async (app, deps) => {
    const source = new BrokerDataSource({
      sessions: app.brokers.sessions,
      analyze: () => app.sandbox.mode.analyze,
      apiKey: (appId) => app.brokers.apps.get(appId)?.apiKey,
      baseUrl: deps.config.broker.baseUrl,
      timeoutMs: deps.config.broker.timeoutMs,
      logger: deps.logger.child({ module: 'market-data' }),
    });
    const data = new MarketDataService({
      instrument: (symbol, exchange) => app.market.contracts.get(symbol, exchange),
      source,
      prices: () => app.sandbox.prices(),
      live: (i) => liveMarketQuote(app.feed.hub, i.exchange, i.symbol),
    });
    const limits = routeLimits(deps);
    marketDataRoutes(app, { data, apiKeyGuard: app.auth.apiKeyGuard, rateLimit: limits.api });
    tickerRoutes(app, { data, apiKeyGuard: app.auth.apiKeyGuard, rateLimit: limits.api });
    const options = new OptionsService({ contracts: app.market.contracts, source, clock: deps.clock });
    optionsRoutes(app, {
      options,
      apiKeyGuard: app.auth.apiKeyGuard,
      rateLimit: limits.api,
      greeksRateLimit: limits.limit('greeks', deps.config.greeksRateLimit),
    });
    app.addHook('onClose', async () => source.close());
  },
);

/**
 * Market watch lists as a plugin (docs/rules/watchlists.md): a user's named lists of instruments
 * for the console's market watch, checked against the live master contract through the market
 * module's lookup. Session routes only; no timers.
 */
import type { AppDeps } from '../../app-deps.js';
import { modulePlugin, routeLimits, sessionScope } from '../../platform/http/module-plugin.js';
import { WatchlistsRepository } from './watchlists.repository.js';
import { watchlistRoutes } from './watchlists.routes.js';
import { WatchlistsService } from './watchlists.service.js';

export const watchlistsPlugin = modulePlugin<AppDeps>('watchlists', ['auth', 'market'], async (app, deps) => {
  const { auth, market } = app;
  const watchlists = new WatchlistsService(
    new WatchlistsRepository(deps.database.db),
    (symbol, exchange) => market.contracts.get(symbol, exchange),
    deps.clock,
  );
  const limits = routeLimits(deps);
  await sessionScope(app, (web) =>
    watchlistRoutes(web, { watchlists, guard: auth.guard, rateLimit: limits.admin }),
  );
});

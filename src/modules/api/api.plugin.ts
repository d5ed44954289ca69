/**
 * The `/api/v1` basics as a plugin: `ping` (proves an API key and names the user's connected
 * broker). The other `/api/v1` calls are registered by the modules that answer them (orders,
 * market, strategies); all of them pass the auth module's API-key guard.
 */
import type { AppDeps } from '../../app-deps.js';
import { modulePlugin, routeLimits } from '../../platform/http/module-plugin.js';
import { pingRoutes } from './ping.routes.js';

export const apiPlugin = modulePlugin<AppDeps>('api', ['auth', 'brokers'], (app, deps) => {
  const { brokers } = app;
  pingRoutes(app, {
    apiKeyGuard: app.auth.apiKeyGuard,
    rateLimit: routeLimits(deps).api,
    activeBroker: {
      cached: (userId) => {
        const s = brokers.sessions.cachedLive(userId);
        return s === undefined ? undefined : (s?.broker ?? null);
      },
      read: async (userId) => (await brokers.sessions.get(userId))?.broker ?? null,
    },
  });
});

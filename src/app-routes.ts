/**
 * The routes of the app, registered by buildApp (app.ts): the browser (session) scope with the
 * cookie plugin, the `/api/v1` scope (API key in the body), and the strategy webhook in a scope
 * of its own (raw body parser).
 */
import cookie from '@fastify/cookie';
import type { AppDeps, Services } from './app.js';
import type { LiveSocketHub } from './modules/orders/live-socket.js';
import { createApiKeyGuard } from './modules/api/api-key.guard.js';
import { pingRoutes } from './modules/api/ping.routes.js';
import { apiKeyRoutes } from './modules/auth/api-keys.routes.js';
import { authRoutes } from './modules/auth/auth.routes.js';
import { passwordResetRoutes } from './modules/auth/password-reset.routes.js';
import { createSessionGuard } from './modules/auth/session.guard.js';
import { securityRoutes } from './modules/security/security.routes.js';
import { trafficRoutes } from './modules/monitoring/traffic.routes.js';
import { marketAdminRoutes } from './modules/market/market-admin.module.js';
import { marketApiRoutes, marketSessionRoutes } from './modules/market/market.module.js';
import { sandboxApiRoutes, sandboxSessionRoutes } from './modules/sandbox/sandbox.routes.js';
import { analyzeModeRoutes } from './modules/settings/analyze-mode.routes.js';
import { alertRoutes } from './modules/alerts/alerts.routes.js';
import {
  strategyEventsApiRoute,
  strategyRoutes,
  strategyWebhookRoutes,
} from './modules/strategies/strategies.module.js';
import { mailRoutes } from './modules/mail/mail.module.js';
import { liveSocketRoutes } from './modules/orders/live-socket.routes.js';
import { brokerLoginRoutes } from './modules/orders/broker-login.routes.js';
import { orderRoutes } from './modules/orders/orders.routes.js';
import { orderSessionRoutes } from './modules/orders/orders-session.routes.js';
import { createRateLimitHooks, rateLimitsFrom } from './platform/http/rate-limit.js';
import type { App } from './platform/http/types.js';

export async function registerRoutes(
  app: App,
  deps: AppDeps,
  services: Services,
  liveSocket: LiveSocketHub,
): Promise<void> {
  const { config, logger } = deps;
  const guard = createSessionGuard(services.sessions, services.users);
  const limit = createRateLimitHooks(deps.rateLimiter, logger);
  const limits = rateLimitsFrom(config);
  const adminLimit = limit('admin', limits.admin);
  const apiLimit = limit('api', limits.api);
  const apiKeyGuard = createApiKeyGuard(services.apiKeys, config.serviceName, services.invalidKeyListeners);

  // Browser (session) routes live in a scope of their own with the cookie plugin, so its
  // per-response hook never runs on the API; cookies are parsed only by the session guard.
  await app.register(async (scope) => {
    const web = scope as unknown as App;
    await web.register(cookie, { hook: false });
    authRoutes(web, {
      config,
      login: services.login,
      sessions: services.sessions,
      users: services.users,
      totp: services.totp,
      guard,
    });
    passwordResetRoutes(web, {
      reset: services.passwordReset,
      rateLimit: limit('reset', config.resetRateLimit),
    });
    apiKeyRoutes(web, { apiKeys: services.apiKeys, guard });
    securityRoutes(web, { services, guard, rateLimit: adminLimit, clock: deps.clock });
    trafficRoutes(web, { traffic: services.traffic, guard, rateLimit: adminLimit });
    marketSessionRoutes(web, { market: services.market, config, guard, rateLimit: adminLimit, logger });
    mailRoutes(web, {
      mail: services.mail,
      guard,
      rateLimit: adminLimit,
      probeRateLimit: limit('smtp-probe', limits.heavy),
    });
    analyzeModeRoutes(web, { mode: services.sandbox.mode, guard, rateLimit: adminLimit });
    sandboxSessionRoutes(web, { service: services.sandbox.service, guard, rateLimit: adminLimit });
    alertRoutes(web, {
      settings: services.alerts.settings,
      delivery: services.alerts.delivery,
      guard,
      rateLimit: adminLimit,
      testRateLimit: limit('alert-test', limits.heavy),
    });
    brokerLoginRoutes(web, {
      brokerName: config.broker.name,
      adapter: (name) => services.brokers.load(name),
      sessions: services.orders.brokerSessions,
      appKey: config.appKey,
      clock: deps.clock,
      guard,
      rateLimit: adminLimit,
    });
    await liveSocketRoutes(web, {
      hub: liveSocket,
      sessions: services.sessions,
      rateLimit: adminLimit,
      allowedOrigins: [new URL(config.hostServer).origin],
    });
    strategyRoutes(web, {
      strategies: services.strategies.strategies,
      runner: services.strategies.runner,
      stopper: services.strategies.stopper,
      guard,
      rateLimit: adminLimit,
    });
    orderSessionRoutes(web, {
      actionCenter: services.orders.actionCenter,
      latency: services.orders.latency,
      repo: services.orders.repo,
      guard,
      rateLimit: adminLimit,
    });
    await web.register(async (s) =>
      marketAdminRoutes(s as unknown as App, {
        services: services.marketAdmin,
        guard,
        rateLimit: adminLimit,
        uploadRateLimit: limit('freeze-upload', limits.heavy),
      }),
    );
  });
  // The `/api/v1` surface: API key in the body, no cookies.
  await app.register(async (scope) => {
    const api = scope as unknown as App;
    pingRoutes(api, {
      apiKeyGuard,
      rateLimit: apiLimit,
      activeBroker: async (userId) => (await services.orders.brokerSessions.get(userId))?.broker ?? null,
    });
    marketApiRoutes(api, { market: services.market, apiKeyGuard, rateLimit: apiLimit });
    orderRoutes(api, {
      pipeline: services.orders.pipeline,
      actionCenter: services.orders.actionCenter,
      mode: services.sandbox.mode,
      apiKeyGuard,
      orderRateLimit: limit('order', limits.order),
      apiRateLimit: apiLimit,
    });
    strategyEventsApiRoute(api, {
      strategies: services.strategies.strategies,
      apiKeyGuard,
      rateLimit: apiLimit,
    });
    sandboxApiRoutes(api, {
      service: services.sandbox.service,
      books: services.sandbox.books,
      analyze: () => services.sandbox.mode.analyze,
      apiKeyGuard,
      rateLimit: apiLimit,
      live: services.orders.live,
    });
  });

  await strategyWebhookRoutes(app, {
    webhook: services.strategies.webhook,
    limiter: deps.rateLimiter,
    rules: config.webhookRateLimit,
    logger,
  });
}

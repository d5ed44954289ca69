/**
 * The live brokers as a plugin: the adapters by name (Zerodha, Upstox), each user's broker
 * session (sealed at rest, one per user), the broker login flow (OAuth redirect and callback),
 * and the quote client analyzer mode prices with. Other modules reach a broker only through here.
 */
import type { AppDeps } from '../../app-deps.js';
import { modulePlugin, routeLimits, sessionScope } from '../../platform/http/module-plugin.js';
import { brokerLoginRoutes } from './broker-login.routes.js';
import { brokerStatusRoutes } from './broker-status.routes.js';
import { BrokerRegistry } from './broker-registry.js';
import { BrokerSessionsRepository } from './broker-sessions.repository.js';
import { BrokerSessionsService } from './broker-sessions.service.js';
import type { QuoteClient } from './quotes/quote-client.js';

export interface BrokerServices {
  /** The adapters by broker name. */
  registry: BrokerRegistry;
  /** Each user's live broker session. */
  sessions: BrokerSessionsService;
  /**
   * The quote client of the configured broker (`BROKER_NAME`) under the newest broker session,
   * undefined while there is none: what prices the sandbox.
   */
  quoteClient(): QuoteClient | undefined;
}

declare module 'fastify' {
  interface FastifyInstance {
    brokers: BrokerServices;
  }
}

export function buildBrokerServices(deps: AppDeps): BrokerServices {
  const { config, clock } = deps;
  const registry = new BrokerRegistry({
    apiKey: config.broker.apiKey ?? '',
    apiSecret: config.broker.apiSecret ?? '',
    redirectUrl: config.broker.redirectUrl ?? '',
    ...(config.broker.baseUrl ? { baseUrl: config.broker.baseUrl } : {}),
    ...(config.broker.loginUrl ? { loginBaseUrl: config.broker.loginUrl } : {}),
    timeoutMs: config.broker.timeoutMs,
    logger: deps.logger,
    clock,
  });
  const sessions = new BrokerSessionsService(
    new BrokerSessionsRepository(deps.database.db),
    config.appKey,
    clock,
    deps.bus,
  );
  sessions.useRefresher((broker, session) => registry.load(broker)?.refreshSession?.(session));
  const brokerName = config.broker.name;
  let quoteClient: QuoteClient | undefined;
  return {
    registry,
    sessions,
    quoteClient() {
      const primary = sessions.primarySession();
      if (!brokerName || !primary || primary.broker !== brokerName) return undefined;
      quoteClient ??= registry.load(brokerName)?.quoteClient(() => sessions.primarySession()?.session);
      return quoteClient;
    },
  };
}

export const brokersPlugin = modulePlugin<AppDeps>('brokers', ['auth'], async (app, deps) => {
  const brokers = buildBrokerServices(deps);
  app.decorate('brokers', brokers);
  // A deleted account's broker session goes with it (docs/rules/auth.md#account-management).
  app.auth.accounts.onAccountGone(async (userId, why) => {
    if (why === 'deleted') await brokers.sessions.clear(userId);
  });
  const limits = routeLimits(deps);
  await sessionScope(app, (web) => {
    brokerLoginRoutes(web, {
      brokerName: deps.config.broker.name,
      adapter: (name) => brokers.registry.load(name),
      sessions: brokers.sessions,
      appKey: deps.config.appKey,
      clock: deps.clock,
      guard: app.auth.guard,
      rateLimit: limits.admin,
      consoleBuilt: () => app.webShell !== undefined,
    });
    const configured = deps.config.broker.name ? brokers.registry.load(deps.config.broker.name) : undefined;
    brokerStatusRoutes(web, {
      brokerName: deps.config.broker.name,
      loginAvailable: Boolean(configured && (deps.config.broker.apiKey || configured.needsAppKey === false)),
      loginFields: configured?.loginFields,
      sessions: brokers.sessions,
      guard: app.auth.guard,
      rateLimit: limits.admin,
    });
  });
  app.addHook('onReady', async () => brokers.sessions.refreshPrimary());
  app.addHook('onClose', async () => brokers.registry.closeAll());
});

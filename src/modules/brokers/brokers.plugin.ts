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
import type { BrokerAdapter } from './broker-adapter.js';
import { BrokerAppsRepository } from './broker-apps.repository.js';
import { BrokerAppsService, type BrokerApp } from './broker-apps.service.js';
import { brokerAppsRoutes } from './broker-apps.routes.js';

export interface BrokerServices {
  /** The adapters by broker name. */
  registry: BrokerRegistry;
  /** Each user's live broker session. */
  sessions: BrokerSessionsService;
  /** The broker apps: the bootstrap one (`BROKER_*`) and those added in the console. */
  apps: BrokerAppsService;
  /**
   * The broker the install prices the sandbox and streams ticks with (`BROKER_NAME`, else the
   * broker whose instrument file is live): the newest session of that broker is the primary one.
   */
  preferredBroker(): string | undefined;
  /** Tells which broker's instrument file is live (the market module, once built). */
  useContractBroker(fn: () => string | undefined): void;
  /** The adapter a session's calls go through: its broker on its app's credentials. */
  adapterFor(session: { broker: string; appId: number }): BrokerAdapter | undefined;
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
  const apps = new BrokerAppsService(
    new BrokerAppsRepository(deps.database.db),
    config.appKey,
    clock,
    deps.bus,
    config.broker.name
      ? {
          broker: config.broker.name,
          apiKey: config.broker.apiKey ?? '',
          apiSecret: config.broker.apiSecret ?? '',
          redirectUrl: config.broker.redirectUrl ?? '',
        }
      : undefined,
  );
  // A session of the bootstrap app (0) runs on the `BROKER_*` credentials whatever its broker (a
  // session set from the command line for another broker); an app's session on that app's.
  const adapterFor = (s: { broker: string; appId: number }): BrokerAdapter | undefined => {
    if (s.appId === 0) return registry.load(s.broker);
    const app = apps.get(s.appId);
    return app && app.broker === s.broker ? registry.forApp(app) : undefined;
  };
  sessions.useRefresher((session) => adapterFor(session)?.refreshSession?.(session.session));
  // The broker the install prices and streams with: BROKER_NAME's, else the live contract's.
  let contractBroker: () => string | undefined = () => undefined;
  const preferredBroker = () => config.broker.name ?? contractBroker();
  sessions.preferBroker(preferredBroker);
  let quoteClient: { key: string; client: QuoteClient | undefined } | undefined;
  return {
    registry,
    sessions,
    apps,
    adapterFor,
    preferredBroker,
    useContractBroker(fn) {
      contractBroker = fn;
    },
    quoteClient() {
      const primary = sessions.primarySession();
      const brokerName = preferredBroker();
      if (!brokerName || !primary || primary.broker !== brokerName) return undefined;
      const key = `${primary.appId}:${apps.get(primary.appId)?.version ?? -1}`;
      if (quoteClient?.key !== key)
        quoteClient = {
          key,
          client: adapterFor(primary)?.quoteClient(() => sessions.primarySession()?.session),
        };
      return quoteClient.client;
    },
  };
}

export const brokersPlugin = modulePlugin<AppDeps>('brokers', ['auth'], async (app, deps) => {
  const brokers = buildBrokerServices(deps);
  app.decorate('brokers', brokers);
  // A deleted account's broker session goes with it (docs/rules/auth.md#account-management).
  app.auth.accounts.onAccountGone(async (userId, why) => {
    if (why !== 'deleted') return;
    await brokers.sessions.clear(userId);
    await brokers.apps.forgetUser(userId);
  });
  const limits = routeLimits(deps);
  /** The user's app and its adapter (undefined: no app at all, or its broker unknown). */
  const appOf = async (userId: number): Promise<{ app: BrokerApp; adapter: BrokerAdapter } | undefined> => {
    const chosen = await brokers.apps.appOf(userId);
    const adapter = chosen ? brokers.registry.forApp(chosen) : undefined;
    return chosen && adapter ? { app: chosen, adapter } : undefined;
  };
  await sessionScope(app, (web) => {
    brokerLoginRoutes(web, {
      appOf,
      sessions: brokers.sessions,
      appKey: deps.config.appKey,
      clock: deps.clock,
      guard: app.auth.guard,
      rateLimit: limits.admin,
      consoleBuilt: () => app.webShell !== undefined,
      secureCookies: deps.config.secureCookies,
    });
    brokerStatusRoutes(web, {
      appOf,
      apps: brokers.apps,
      sessions: brokers.sessions,
      guard: app.auth.guard,
      rateLimit: limits.admin,
    });
    brokerAppsRoutes(web, {
      apps: brokers.apps,
      sessions: brokers.sessions,
      guard: app.auth.guard,
      rateLimit: limits.admin,
    });
  });
  app.addHook('onReady', async () => {
    await brokers.apps.load();
    await brokers.sessions.refreshPrimary();
  });
  app.addHook('onClose', async () => brokers.registry.closeAll());
});

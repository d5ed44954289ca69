/**
 * The app: a Fastify instance with the platform's HTTP plumbing, then the modules, each a plugin
 * that declares what it needs (platform/http/module-plugin.ts). The list below is the start order
 * (each module's `onReady` runs in it) and, read backwards, the stop order (`onClose`).
 */
import { randomBytes } from 'node:crypto';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { AppDeps } from './app-deps.js';
import { alertsPlugin } from './modules/alerts/alerts.plugin.js';
import { apiPlugin } from './modules/api/api.plugin.js';
import { authPlugin } from './modules/auth/auth.plugin.js';
import { brokersPlugin } from './modules/brokers/brokers.plugin.js';
import { healthPlugin } from './modules/health/health.plugin.js';
import { mailPlugin } from './modules/mail/mail.plugin.js';
import { marketAdminPlugin } from './modules/market/market-admin.plugin.js';
import { marketPlugin } from './modules/market/market.plugin.js';
import { marketDataPlugin } from './modules/market-data/market-data.plugin.js';
import { feedPlugin } from './modules/feed/feed.plugin.js';
import { metricsPlugin } from './modules/metrics/metrics.plugin.js';
import { observabilityPlugin } from './modules/observability/observability.plugin.js';
import { ordersPlugin } from './modules/orders/orders.plugin.js';
import { passwordResetPlugin } from './modules/password-reset/password-reset.plugin.js';
import { sandboxPlugin } from './modules/sandbox/sandbox.plugin.js';
import { securityPlugin } from './modules/security/security.plugin.js';
import { strategiesPlugin } from './modules/strategies/strategies.plugin.js';
import { webhooksPlugin } from './modules/webhooks/webhooks.plugin.js';
import { scannerPlugin } from './modules/scanner/scanner.plugin.js';
import { flowPlugin } from './modules/flow/flow.plugin.js';
import { mcpPlugin } from './modules/mcp/mcp.plugin.js';
import { deskPlugin } from './modules/desk/desk.plugin.js';
import { watchlistsPlugin } from './modules/watchlists/watchlists.plugin.js';
import { systemPlugin } from './modules/system/system.plugin.js';
import { tunnelPlugin } from './modules/tunnel/tunnel.plugin.js';
import { webPlugin } from './modules/web/web.plugin.js';
import { sqliteWriterPlugin } from './platform/db/sqlite-writer.plugin.js';
import { registerBodyParsing } from './platform/http/body.plugin.js';
import { registerErrorHandling } from './platform/http/errors.plugin.js';
import { lazyChildLogger } from './platform/http/lazy-request-logger.js';
import { openapiPlugin } from './platform/http/openapi.plugin.js';
import { requestPipelinePlugin } from './platform/http/request-pipeline.js';
import type { App } from './platform/http/types.js';
import { registerValidation } from './platform/http/validation.plugin.js';

export type { AppDeps } from './app-deps.js';

/** The modules, in dependency order. */
const MODULES = [
  authPlugin,
  observabilityPlugin,
  securityPlugin,
  mailPlugin,
  passwordResetPlugin,
  marketAdminPlugin,
  marketPlugin,
  tunnelPlugin,
  brokersPlugin,
  sandboxPlugin,
  feedPlugin,
  ordersPlugin,
  alertsPlugin,
  webhooksPlugin,
  strategiesPlugin,
  scannerPlugin,
  flowPlugin,
  mcpPlugin,
  deskPlugin,
  watchlistsPlugin,
  apiPlugin,
  marketDataPlugin,
  healthPlugin,
  systemPlugin,
  webPlugin,
  // Last: it observes the request pipeline, orders, security, market and sandbox.
  metricsPlugin,
];

/** What the modules decorate the app with: the services tests and the CLI use directly. */
const SERVICE_NAMES = [
  'auth',
  'observability',
  'security',
  'mail',
  'passwordReset',
  'marketAdmin',
  'market',
  'tunnel',
  'brokers',
  'sandbox',
  'feed',
  'orders',
  'alerts',
  'webhooks',
  'strategies',
  'scanner',
  'flow',
  'mcp',
  'system',
] as const satisfies readonly (keyof FastifyInstance)[];
export type Services = Pick<FastifyInstance, (typeof SERVICE_NAMES)[number]>;

/** How long shutdown waits for requests in flight before stopping the services (main.ts allows 15 s). */
const DRAIN_MS = 10_000;

/** Default body limit for every route; larger uploads declare their own. */
export const BODY_LIMIT = 1024 * 1024;

/**
 * Builds the app and registers every module (their services are built; their timers start at
 * `ready()`, which `listen` and `inject` call). Does not listen.
 */
export async function buildApp(deps: AppDeps): Promise<{ app: App; services: Services }> {
  const idPrefix = randomBytes(4).toString('hex');
  let seq = 0;
  const app = Fastify({
    loggerInstance: deps.logger,
    // Fastify's two lines per request are replaced by one access line (the request pipeline's).
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'reqId' }),
    bodyLimit: BODY_LIMIT,
    genReqId: () => `${idPrefix}-${(++seq).toString(36)}`,
    childLoggerFactory: lazyChildLogger,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    routerOptions: { maxParamLength: 200 },
  }).withTypeProvider() as unknown as App;

  registerErrorHandling(app);
  registerValidation(app, deps.schemaCompilers);
  registerBodyParsing(app);
  await app.register(sqliteWriterPlugin, deps);
  await app.register(requestPipelinePlugin, deps);
  // Before the modules: the API reference collects each route as it is registered.
  await app.register(openapiPlugin);
  for (const plugin of MODULES) await app.register(plugin, deps);

  // Registered after every module, so it runs before their `onClose` hooks (they run in reverse):
  // the requests still being answered finish (bounded) before the services under them stop, so
  // their traffic rows, audits and order logs are written, not lost after the final flush.
  app.addHook('onClose', async () => {
    if (!(await app.requests.inFlight.drained(DRAIN_MS)))
      deps.logger.warn(
        { requests: app.requests.inFlight.count },
        'shutdown: requests still in flight after the drain bound',
      );
  });
  const services = Object.fromEntries(SERVICE_NAMES.map((name) => [name, app[name]])) as Services;
  return { app, services };
}

import { randomBytes } from 'node:crypto';
import Fastify, { LogController } from 'fastify';
import { registerRequestHooks } from './app-request-hooks.js';
import { createLiveSocketHub } from './modules/orders/live-socket.js';
import { registerBodyParsing } from './platform/http/body.plugin.js';
import { registerErrorHandling } from './platform/http/errors.plugin.js';
import { registerValidation } from './platform/http/validation.plugin.js';
import type { App } from './platform/http/types.js';
import { maskUrl } from './platform/logger.js';
import { registerRoutes } from './app-routes.js';
import { registerObservabilityRoutes } from './modules/observability/observability.module.js';
import { registerTunnel, watchWebhookRoutes } from './modules/tunnel/tunnel.module.js';
import { buildServices, startServices, stopServices, type AppDeps, type Services } from './app-services.js';
import type { ErrorCode } from './platform/errors.js';

export type { AppDeps, Services } from './app-services.js';
export { buildServices } from './app-services.js';

const SESSION_COOKIE_PATTERN = /(?:^|;\s*)algodesk_session=([^;]+)/;
/** How long shutdown waits for requests in flight before stopping the services (main.ts allows 15 s). */
const DRAIN_MS = 10_000;

/** Default body limit for every route; larger uploads declare their own. */
export const BODY_LIMIT = 1024 * 1024;

/** Builds the HTTP app: platform plugins first, then each module's routes. Does not listen. */
export async function buildApp(deps: AppDeps): Promise<{ app: App; services: Services }> {
  const { config, logger } = deps;
  const services = buildServices(deps);
  // Order events to each user's open browser sockets, on every instance (Redis fan-out).
  const liveSocket = createLiveSocketHub({
    bus: deps.bus,
    logger: logger.child({ module: 'live-socket' }),
    clock: deps.clock,
  });
  services.orders.events.subscribe('live-socket', liveSocket.consumer());
  const idPrefix = randomBytes(4).toString('hex');
  let seq = 0;

  const app = Fastify({
    loggerInstance: logger,
    // Fastify's two lines per request are replaced by one access line (onResponse below).
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'reqId' }),
    bodyLimit: BODY_LIMIT,
    genReqId: () => `${idPrefix}-${(++seq).toString(36)}`,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    routerOptions: { maxParamLength: 200 },
  }).withTypeProvider() as unknown as App;

  registerErrorHandling(app);
  registerValidation(app, deps.schemaCompilers);
  registerBodyParsing(app);

  // Ban check, traffic log, in-flight count and the access line of every request.
  const inFlight = registerRequestHooks(app, config, services);

  app.setNotFoundHandler(async (req, reply) => {
    // Unauthenticated 404s feed the 404 tracker (a logged-in browser's broken link does not).
    const token = SESSION_COOKIE_PATTERN.exec(req.headers.cookie ?? '')?.[1];
    if ((await services.sessions.resolve(token)) === undefined)
      services.trackers.record404(req.clientIp, req.url);
    return reply.code(404).send({
      status: 'error',
      message: `No route for ${req.method} ${maskUrl(req.url)}`,
      code: 'not_found' satisfies ErrorCode,
    });
  });

  watchWebhookRoutes(app, services.tunnel);
  await registerRoutes(app, deps, services, liveSocket);
  await registerTunnel(app, services.tunnel, { ...deps, sessions: services.sessions, users: services.users });
  await registerObservabilityRoutes(app, deps, services);

  // Expired sessions, bans past their retention and closed tracker windows are deleted here;
  // the request path only ever reads them.
  const sweep = setInterval(() => {
    Promise.all([
      services.sessions.purgeExpired(),
      services.passwordReset.purgeExpired(),
      services.bans.purgeExpired(),
      services.trackers.purge(),
    ]).catch((err: unknown) => logger.warn({ err }, 'periodic cleanup failed'));
  }, 10 * 60_000);
  sweep.unref();
  await startServices(services);
  app.addHook('onClose', async () => {
    // Fastify runs this before its own hook that waits for the server's connections: the
    // requests still being answered finish (bounded) before the services under them stop, so
    // their traffic rows, audits and order logs are written, not lost after the final flush.
    if (!(await inFlight.drained(DRAIN_MS)))
      deps.logger.warn(
        { requests: inFlight.count },
        'shutdown: requests still in flight after the drain bound',
      );
    clearInterval(sweep);
    await stopServices(services);
  });

  return { app, services };
}

/**
 * The public tunnel as a plugin: the manager, its start when the server listens and its stop
 * when the app closes, the start-up warnings, and `GET /api/config/host`. Registered before the
 * modules with webhook routes: it records every webhook route registered after it (the start-up
 * check warns when one is exposed in a way it should not be).
 *
 * The tunnel starts from Fastify's `onListen` hook, after the port is bound, without holding up
 * start-up (the manager bounds it and never throws). So only a process that actually serves opens
 * a tunnel: a CLI command or a file-watching parent never listens. It stops in `onClose`, which
 * `serve`'s SIGINT/SIGTERM shutdown reaches through `app.close()`; serve's other exits (an
 * uncaught exception, the shutdown bound, a second signal) call `stopWithin()` themselves.
 */
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { AppDeps } from '../../app-deps.js';
import type { ResolvedConfig } from '../../config.js';
import { modulePlugin, routeLimits, sessionScope } from '../../platform/http/module-plugin.js';
import type { App } from '../../platform/http/types.js';
import { NgrokDriver } from './ngrok.driver.js';
import { tunnelRoutes } from './tunnel.routes.js';
import { Tunnel } from './tunnel.service.js';
import { scrubCredential } from './tunnel-target.js';
import type { TunnelDriver, TunnelManager } from './tunnel.types.js';
import { tunnelWarnings, type WebhookRoute } from './tunnel-warnings.js';

export interface TunnelServices {
  manager: Tunnel;
  /** The tunnel's public URL while it is up, else null: webhook URLs show `publicUrl() ?? HOST_SERVER`. */
  publicUrl(): string | null;
  /** Webhook routes the app registered (filled by {@link watchWebhookRoutes}). */
  webhookRoutes: WebhookRoute[];
  /** The newest start, for tests and start-up ordering (resolves, never rejects). */
  started: Promise<string | null>;
}

export interface TunnelBuildDeps {
  config: ResolvedConfig;
  logger: Logger;
  /** The provider; default ngrok. Tests pass a FakeTunnelDriver. */
  driver?: TunnelDriver;
  startTimeoutMs?: number;
}

export function buildTunnelServices(deps: TunnelBuildDeps): TunnelServices {
  const webhookRoutes: WebhookRoute[] = [];
  const manager = new Tunnel({
    allow: deps.config.tunnelAllow,
    hostServer: deps.config.hostServer,
    driver:
      deps.driver ??
      new NgrokDriver({
        authtoken: deps.config.ngrokAuthtoken,
        onLost: (message) =>
          deps.logger.warn(
            { module: 'tunnel', reason: scrubCredential(message) },
            'public tunnel connection lost; ngrok is reconnecting',
          ),
      }),
    logger: deps.logger,
    ...(deps.startTimeoutMs !== undefined ? { startTimeoutMs: deps.startTimeoutMs } : {}),
    warnings: () =>
      tunnelWarnings({
        logLevel: deps.config.logLevel,
        trustProxyHeaders: deps.config.trustProxyHeaders,
        webhookRoutes,
      }),
  });
  return {
    manager,
    publicUrl: () => manager.publicUrl(),
    webhookRoutes,
    started: Promise.resolve(null),
  };
}

/** Records every webhook route registered after this call (call it before the routes). */
export function watchWebhookRoutes(app: App, tunnel: TunnelServices): void {
  app.addHook('onRoute', (route) => {
    if (!/\/webhook(\/|$)/.test(route.url) || route.config?.webhookRefusal) return;
    for (const method of [route.method].flat())
      if (method !== 'HEAD') tunnel.webhookRoutes.push({ method, url: route.url });
  });
}

declare module 'fastify' {
  interface FastifyInstance {
    tunnel: TunnelServices;
  }
}

export const tunnelPlugin = modulePlugin<AppDeps>('tunnel', ['auth'], async (app, deps) => {
  const tunnel = buildTunnelServices({
    config: deps.config,
    logger: deps.logger,
    ...(deps.tunnelDriver ? { driver: deps.tunnelDriver } : {}),
    ...(deps.tunnelStartTimeoutMs !== undefined ? { startTimeoutMs: deps.tunnelStartTimeoutMs } : {}),
  });
  app.decorate('tunnel', tunnel);
  watchWebhookRoutes(app, tunnel);
  const limits = routeLimits(deps);
  await sessionScope(app, (web) =>
    tunnelRoutes(web, {
      tunnel: tunnel.manager,
      hostServer: deps.config.hostServer,
      guard: app.auth.guard,
      rateLimit: limits.admin,
    }),
  );
  app.addHook('onListen', (done) => {
    const address = app.server.address() as AddressInfo | null;
    if (address) tunnel.started = tunnel.manager.start(address);
    done();
  });
  app.addHook('onClose', async () => {
    // Stop first: it also cuts short a start still in progress. Bounded: a provider that does
    // not answer never holds up the shutdown.
    await tunnel.manager.stopWithin();
    await tunnel.started;
  });
});

export type { TunnelManager };

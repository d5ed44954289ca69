/**
 * `GET /api/config/host` (any session): the base URL webhook senders must use, for the UI and
 * the strategy pages (docs/rules/tunnel.md#public-base-url). Read-only; nothing secret in it:
 * `HOST_SERVER` is shown as the system snapshot shows it, without user, password, query or
 * fragment.
 */
import { ErrorBody } from '../../platform/http/error-body.js';
import type { SessionGuard } from '../auth/session.guard.js';
import type { RateLimitHook } from '../../platform/http/rate-limit.js';
import type { App } from '../../platform/http/types.js';
import { safeUrl } from '../../platform/safe-url.js';
import { isLocalHost } from './tunnel-target.js';
import type { TunnelManager } from './tunnel.types.js';
import { HostConfigResponse } from './tunnel.schema.js';

export interface TunnelRouteDeps {
  tunnel: Pick<TunnelManager, 'publicUrl'>;
  hostServer: string;
  guard: SessionGuard;
  rateLimit: RateLimitHook;
}

export function tunnelRoutes(app: App, deps: TunnelRouteDeps): void {
  const isLocalhost = isLocalHost(deps.hostServer);
  // Any session user reads this: a HOST_SERVER with `user:password@` must not hand them out.
  const hostServer = safeUrl(deps.hostServer) ?? '';
  app.get(
    '/api/config/host',
    {
      onRequest: deps.rateLimit,
      preHandler: deps.guard(),
      schema: {
        summary: 'The base URL webhook senders must use',
        tags: ['tunnel'],
        response: { 200: HostConfigResponse, 401: ErrorBody, 429: ErrorBody },
      },
    },
    async () => ({
      host_server: hostServer,
      public_url: deps.tunnel.publicUrl(),
      is_localhost: isLocalhost,
    }),
  );
}

/**
 * `GET /api/config/host` (any session): the base URL webhook senders must use, for the UI and
 * the strategy pages (issue 10 part 4). Read-only; nothing secret in it.
 */
import { ErrorBody } from '../auth/auth.schema.js';
import type { SessionGuard } from '../auth/session.guard.js';
import type { RateLimitHook } from '../../platform/http/rate-limit.js';
import type { App } from '../../platform/http/types.js';
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
  app.get(
    '/api/config/host',
    {
      onRequest: deps.rateLimit,
      preHandler: deps.guard(),
      schema: { response: { 200: HostConfigResponse, 401: ErrorBody, 429: ErrorBody } },
    },
    async () => ({
      host_server: deps.hostServer,
      public_url: deps.tunnel.publicUrl(),
      is_localhost: isLocalhost,
    }),
  );
}

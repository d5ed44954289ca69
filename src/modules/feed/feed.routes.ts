/**
 * `GET /api/websocket/config` (session): where a client connects to the live feed, as OpenAlgo
 * answers it — `WEBSOCKET_URL` when set, else `ws://<host>:<WEBSOCKET_PORT>` with the host the
 * browser used (the feed's own listen address may be 0.0.0.0) — upgraded to `wss` when the page
 * itself is served over HTTPS.
 */
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Config } from '../../config.js';
import { notFound } from '../../platform/errors.js';
import { errorBodies } from '../../platform/http/error-body.js';
import type { RateLimitHook } from '../../platform/http/rate-limit.js';
import type { App } from '../../platform/http/types.js';
import type { SessionGuard } from '../auth/session.guard.js';

const WebsocketConfig = Type.Object({
  status: Type.Literal('success'),
  websocket_url: Type.String({ description: 'The URL to connect to (wss when the page is HTTPS)' }),
  is_secure: Type.Boolean({ description: 'Whether the page asking is served over HTTPS' }),
  original_url: Type.String({ description: 'WEBSOCKET_URL, or the feed port on the host asked' }),
});

/** The host name the browser used, without its port (IPv6 keeps its brackets). */
function requestHostName(req: FastifyRequest): string {
  const host = req.headers.host ?? '127.0.0.1';
  return host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.replace(/:\d+$/, '');
}

export function feedConfigRoutes(
  app: App,
  deps: { config: Config; guard: SessionGuard; rateLimit: RateLimitHook },
): void {
  const { feed } = deps.config;
  app.get(
    '/api/websocket/config',
    {
      onRequest: deps.rateLimit,
      preHandler: deps.guard(),
      schema: {
        summary: 'Where to connect to the live market-data feed (WebSocket)',
        tags: ['market'],
        response: { 200: WebsocketConfig, ...errorBodies(401, 404, 429) },
      },
    },
    async (req) => {
      const secure = deps.config.secureCookies || req.protocol === 'https';
      if (!feed.url && feed.port === 0)
        throw notFound(
          'The live feed has no port of its own (WEBSOCKET_PORT=0) and WEBSOCKET_URL is not set',
        );
      const original = feed.url ?? `ws://${requestHostName(req)}:${feed.port}`;
      return {
        status: 'success' as const,
        websocket_url: secure ? original.replace(/^ws:/, 'wss:') : original,
        is_secure: secure,
        original_url: original,
      };
    },
  );
}

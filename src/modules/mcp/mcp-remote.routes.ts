/**
 * Remote agents over HTTP (docs/rules/mcp.md#mcp-oauth, #mcp-consent, #mcp-remote): every route
 * of the remote side, registered here in the API document's order, and the MCP endpoint `/mcp`
 * itself (Streamable HTTP, stateless: each request its own server, so any instance answers any
 * request): the bearer token checked, the token's rate, the tool call as the consenting user.
 * The OAuth 2.1 server's routes are apart: its metadata (oauth-metadata.routes.ts), the client's
 * registration, token and revocation endpoints (oauth-client.routes.ts), and the consent page
 * (oauth-consent.routes.ts).
 */
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyReply } from 'fastify';
import type { Logger } from 'pino';
import type { RateLimitHook } from '../../platform/http/rate-limit.js';
import type { App } from '../../platform/http/types.js';
import type { RateLimiter } from '../../platform/rate-limiter.js';
import type { SessionsService } from '../auth/sessions.service.js';
import type { TotpService } from '../auth/totp.service.js';
import type { UsersService } from '../auth/users.service.js';
import type { McpCalls } from './mcp-calls.js';
import { buildMcpServer } from './mcp-server.js';
import type { McpSettingsService } from './mcp-settings.service.js';
import { toolByName } from './mcp-tools.js';
import { oauthRegistrationRoute, oauthTokenRoutes } from './oauth-client.routes.js';
import { oauthConsentRoutes } from './oauth-consent.routes.js';
import { oauthMetadataRoutes, protectedResourceMetadataUrl } from './oauth-metadata.routes.js';
import { AGENT_TAGS as tags, Json, OAuthErrorBody } from './oauth.schema.js';
import type { OAuthService } from './oauth.service.js';

export interface McpRemoteDeps {
  oauth: OAuthService;
  settings: McpSettingsService;
  calls: McpCalls;
  sessions: SessionsService;
  users: UsersService;
  totp: TotpService;
  limiter: RateLimiter;
  /** The public base URL (the tunnel's while it is up, else HOST_SERVER). */
  base: () => string;
  /** Registration and the token endpoint (per client address). */
  rateLimit: RateLimitHook;
  logger: Logger;
  version: string;
}

export function mcpRemoteRoutes(app: App, deps: McpRemoteDeps): void {
  oauthMetadataRoutes(app, deps);
  oauthRegistrationRoute(app, deps);
  oauthConsentRoutes(app, deps);
  oauthTokenRoutes(app, deps);

  const prmUrl = () => protectedResourceMetadataUrl(deps.base);
  const unauthorized = (reply: FastifyReply, description: string) =>
    reply
      .code(401)
      .header('www-authenticate', `Bearer error="invalid_token", resource_metadata="${prmUrl()}"`)
      .send({ error: 'invalid_token', error_description: description });

  app.route({
    method: ['POST', 'GET', 'DELETE'],
    url: '/mcp',
    schema: {
      summary: 'The MCP endpoint (Streamable HTTP; an OAuth access token as bearer)',
      tags,
      response: { 401: OAuthErrorBody, 405: Json, 429: Json },
    },
    handler: async (req, reply) => {
      const auth = req.headers.authorization;
      const raw =
        typeof auth === 'string' && /^Bearer\s+/i.test(auth) ? auth.replace(/^Bearer\s+/i, '').trim() : '';
      if (raw === '') return unauthorized(reply, 'An access token is required');
      const p = await deps.oauth.verifyAccess(raw);
      if (typeof p === 'string') return unauthorized(reply, p);
      if (req.method !== 'POST')
        return reply
          .code(405)
          .header('allow', 'POST')
          .send({ status: 'error', message: 'This server is stateless: POST only' });
      const settings = await deps.settings.get();
      const decision = await deps.limiter
        .hit(`mcp-token:${p.digest}`, [
          {
            limit: settings.token_rate_per_minute,
            windowMs: 60_000,
            text: `${settings.token_rate_per_minute} per minute`,
          },
        ])
        .catch(() => ({ allowed: true, retryAfterMs: 0 }));
      if (!decision.allowed)
        return reply
          .code(429)
          .header('retry-after', String(Math.max(1, Math.ceil(decision.retryAfterMs / 1000))))
          .send({ status: 'error', message: 'Too many tool calls for this token; slow down' });
      const server = buildMcpServer({
        version: deps.version,
        scopes: p.scopes,
        call: async (tool, args) => {
          const now = await deps.settings.get();
          if (!now.writes_enabled && toolByName(tool)?.scope === 'write:orders')
            return {
              status: 403,
              body: { status: 'error', message: 'The administrator has turned agents’ orders off' },
            };
          return deps.calls.callAs(p.userId, tool, args, {
            transport: 'http',
            ip: req.clientIp,
            clientId: p.clientId,
          });
        },
      });
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      reply.hijack();
      reply.raw.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req.raw, reply.raw, req.body);
    },
  });
}

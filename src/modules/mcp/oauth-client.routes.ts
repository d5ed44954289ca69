/**
 * The OAuth endpoints an agent's client calls itself (docs/rules/mcp.md#mcp-oauth): dynamic
 * registration (RFC 7591), the token endpoint (a code with PKCE, or a refresh token, for tokens)
 * and revocation (RFC 7009), answering OAuth's errors as `{error, error_description}`. Apart from
 * the consent page (oauth-consent.routes.ts), which a person's browser calls with a session: these
 * are called by programs, rate-limited per client address, and carry no session.
 */
import type { FastifyReply } from 'fastify';
import type { RateLimitHook } from '../../platform/http/rate-limit.js';
import type { App } from '../../platform/http/types.js';
import type { OAuthService } from './oauth.service.js';
import { OAuthError } from './oauth.types.js';
import { AGENT_TAGS as tags, Json, OAuthErrorBody } from './oauth.schema.js';

export interface OAuthClientDeps {
  oauth: OAuthService;
  /** Registration and the token endpoint (per client address). */
  rateLimit: RateLimitHook;
}

/** An {@link OAuthError} as OAuth's error answer; anything else is the app's to answer. */
const oauthError = (reply: FastifyReply, err: unknown) => {
  if (err instanceof OAuthError)
    return reply
      .code(err.status)
      .header('cache-control', 'no-store')
      .send({ error: err.error, error_description: err.description });
  throw err;
};

/** `POST /oauth/register` (registered apart from the token routes to keep the API document's order). */
export function oauthRegistrationRoute(app: App, deps: OAuthClientDeps): void {
  app.post(
    '/oauth/register',
    {
      onRequest: deps.rateLimit,
      schema: {
        summary: 'Register an MCP client (RFC 7591; public clients with PKCE)',
        tags,
        body: Json,
        response: { 201: Json, 400: OAuthErrorBody, 403: OAuthErrorBody },
      },
    },
    async (req, reply) => {
      try {
        return reply
          .code(201)
          .header('cache-control', 'no-store')
          .send(await deps.oauth.register(req.body as Record<string, unknown>));
      } catch (err) {
        return oauthError(reply, err);
      }
    },
  );
}

/** `POST /oauth/token` and `POST /oauth/revoke`. */
export function oauthTokenRoutes(app: App, deps: OAuthClientDeps): void {
  app.post(
    '/oauth/token',
    {
      onRequest: deps.rateLimit,
      schema: {
        summary: 'Exchange a code (PKCE) or a refresh token (rotated) for tokens',
        tags,
        body: Json,
        response: { 200: Json, 400: OAuthErrorBody, 401: OAuthErrorBody, 403: OAuthErrorBody },
      },
    },
    async (req, reply) => {
      try {
        const f = req.body as Record<string, unknown>;
        const str = Object.fromEntries(
          Object.entries(f).map(([k, v]) => [k, typeof v === 'string' ? v : undefined]),
        );
        const answer = await deps.oauth.token(str);
        return reply.header('cache-control', 'no-store').send({ ...answer });
      } catch (err) {
        return oauthError(reply, err);
      }
    },
  );

  app.post(
    '/oauth/revoke',
    {
      onRequest: deps.rateLimit,
      schema: {
        summary: 'Revoke a token (RFC 7009; always 200)',
        tags,
        body: Json,
        response: { 200: Json, 400: OAuthErrorBody },
      },
    },
    async (req) => {
      const t = (req.body as { token?: unknown }).token;
      await deps.oauth.revoke(typeof t === 'string' ? t : undefined);
      return {};
    },
  );
}

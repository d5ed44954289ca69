/**
 * Remote agents over HTTP (docs/rules/mcp.md#mcp-oauth, #mcp-consent, #mcp-remote): the OAuth
 * 2.1 metadata (RFC 8414) and protected-resource metadata (RFC 9728), dynamic registration
 * (RFC 7591), the consent page `/oauth/authorize` (server-rendered: no script needed), the token
 * and revocation endpoints, and the MCP endpoint `/mcp` (Streamable HTTP, stateless: each request
 * its own server, so any instance answers any request).
 */
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { Type } from 'typebox';
import { safeEqual } from '../../platform/crypto.js';
import { isAppError } from '../../platform/errors.js';
import type { RateLimitHook } from '../../platform/http/rate-limit.js';
import type { App } from '../../platform/http/types.js';
import type { RateLimiter } from '../../platform/rate-limiter.js';
import type { SessionsService } from '../auth/sessions.service.js';
import type { TotpService } from '../auth/totp.service.js';
import type { UsersService } from '../auth/users.service.js';
import { sessionTokenOf } from '../auth/session.guard.js';
import type { McpCalls } from './mcp-calls.js';
import { buildMcpServer } from './mcp-server.js';
import type { McpSettingsService } from './mcp-settings.service.js';
import { toolByName } from './mcp-tools.js';
import type { OAuthService } from './oauth.service.js';
import { OAuthError, type AuthorizeRequest } from './oauth.types.js';
import { AUTH_PARAMS, consentPage, errorPage, PAGE_HEADERS } from './consent-page.js';

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

const redirectWith = (uri: string, params: Record<string, string | undefined>) => {
  const u = new URL(uri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) u.searchParams.set(k, v);
  return u.toString();
};

export function mcpRemoteRoutes(app: App, deps: McpRemoteDeps): void {
  const tags = ['agents'];
  const resource = () => `${deps.base().replace(/\/+$/, '')}/mcp`;
  const prmUrl = () => `${deps.base().replace(/\/+$/, '')}/.well-known/oauth-protected-resource/mcp`;
  const Json = Type.Record(Type.String(), Type.Unknown());

  app.get(
    '/.well-known/oauth-authorization-server',
    {
      schema: {
        summary: 'OAuth 2.1 authorization server metadata (RFC 8414)',
        tags,
        response: { 200: Json },
      },
    },
    async () => {
      const base = deps.base().replace(/\/+$/, '');
      const settings = await deps.settings.get();
      return {
        issuer: base,
        authorization_endpoint: `${base}/oauth/authorize`,
        token_endpoint: `${base}/oauth/token`,
        registration_endpoint: `${base}/oauth/register`,
        revocation_endpoint: `${base}/oauth/revoke`,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['none'],
        revocation_endpoint_auth_methods_supported: ['none'],
        scopes_supported: settings.allowed_scopes,
      };
    },
  );
  const prm = async () => ({
    resource: resource(),
    authorization_servers: [deps.base().replace(/\/+$/, '')],
    scopes_supported: (await deps.settings.get()).allowed_scopes,
    bearer_methods_supported: ['header'],
    resource_name: 'algodesk',
  });
  for (const url of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp'])
    app.get(
      url,
      {
        schema: { summary: 'Protected-resource metadata of /mcp (RFC 9728)', tags, response: { 200: Json } },
      },
      prm,
    );

  const oauthError = (reply: FastifyReply, err: unknown) => {
    if (err instanceof OAuthError)
      return reply
        .code(err.status)
        .header('cache-control', 'no-store')
        .send({ error: err.error, error_description: err.description });
    throw err;
  };
  const OAuthErrorBody = Type.Object({ error: Type.String(), error_description: Type.String() });

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

  /** The signed-in user of a page request, or undefined. */
  const sessionOf = async (req: FastifyRequest) => {
    const row = await deps.sessions.resolve(sessionTokenOf(req.headers.cookie));
    if (!row) return undefined;
    const user = await deps.users.findById(row.user_id);
    return user ? { row, user } : undefined;
  };
  const fields = (o: Record<string, unknown>) =>
    Object.fromEntries(
      AUTH_PARAMS.map((k) => [k, typeof o[k] === 'string' ? (o[k] as string).slice(0, 2000) : undefined]),
    ) as Record<string, string | undefined>;
  const needsTotp = async (userId: number, r: AuthorizeRequest) =>
    r.scopes.includes('write:orders') && deps.totp.isRequired((await deps.users.findById(userId))!, 'mcp');
  const refuse = (
    reply: FastifyReply,
    refusal: { error: string; description: string; redirect?: { uri: string; state?: string } },
  ) =>
    refusal.redirect
      ? reply.redirect(
          redirectWith(refusal.redirect.uri, {
            error: refusal.error,
            error_description: refusal.description,
            state: refusal.redirect.state,
          }),
          303,
        )
      : reply.code(400).headers(PAGE_HEADERS).send(errorPage(refusal.description));

  app.get(
    '/oauth/authorize',
    {
      schema: {
        summary: 'The consent page: sign in first, then allow or deny the client',
        tags,
        querystring: Type.Object(
          Object.fromEntries(AUTH_PARAMS.map((k) => [k, Type.Optional(Type.String({ maxLength: 2000 }))])),
        ),
        response: { 400: Type.String() },
      },
    },
    async (req, reply) => {
      const params = fields(req.query as Record<string, unknown>);
      const s = await sessionOf(req);
      if (!s) return reply.redirect(`/login?next=${encodeURIComponent(req.url)}`, 303);
      const r = await deps.oauth.checkAuthorize(params);
      if ('error' in r) return refuse(reply, r);
      return reply.headers(PAGE_HEADERS).send(
        consentPage({
          r,
          username: s.user.username,
          params,
          csrf: s.row.csrf_token,
          needsTotp: await needsTotp(s.user.id, r),
        }),
      );
    },
  );

  app.post(
    '/oauth/authorize',
    {
      schema: {
        summary: 'Allow or deny from the consent page (form; session and its CSRF token)',
        tags,
        body: Json,
        response: { 400: Type.String(), 401: Type.String(), 403: Type.String() },
      },
    },
    async (req, reply) => {
      const body = req.body as Record<string, unknown>;
      const params = fields(body);
      const s = await sessionOf(req);
      if (!s)
        return reply
          .code(401)
          .headers(PAGE_HEADERS)
          .send(errorPage('Your session has ended: sign in and start again'));
      if (typeof body.csrf_token !== 'string' || !safeEqual(body.csrf_token, s.row.csrf_token))
        return reply
          .code(403)
          .headers(PAGE_HEADERS)
          .send(errorPage('The form expired: start the authorization again'));
      const r = await deps.oauth.checkAuthorize(params);
      if ('error' in r) return refuse(reply, r);
      if (body.decision !== 'approve')
        return reply.redirect(
          redirectWith(r.redirectUri, {
            error: 'access_denied',
            error_description: 'The user denied the request',
            state: r.state,
          }),
          303,
        );
      const ref = { userId: s.user.id, sessionId: s.row.id };
      const render = (error: string) =>
        needsTotp(s.user.id, r).then((needs) =>
          reply
            .code(400)
            .headers(PAGE_HEADERS)
            .send(
              consentPage({
                r,
                username: s.user.username,
                params,
                csrf: s.row.csrf_token,
                needsTotp: needs,
                error,
              }),
            ),
        );
      try {
        if (typeof body.totp_code === 'string' && body.totp_code !== '')
          await deps.totp.verifyConsentCode(ref, body.totp_code);
        await deps.totp.requireFreshTotp(ref, 'mcp', r.scopes);
      } catch (err) {
        if (isAppError(err)) return render(err.message);
        throw err;
      }
      const code = await deps.oauth.issueCode(s.user.id, r);
      return reply.redirect(redirectWith(r.redirectUri, { code, state: r.state }), 303);
    },
  );

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

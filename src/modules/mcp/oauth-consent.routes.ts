/**
 * The consent page `/oauth/authorize` (docs/rules/mcp.md#mcp-consent): the signed-in user's
 * session found from the cookie, the request checked, the page rendered (consent-page.ts), and
 * the Allow or Deny form judged (CSRF token, a fresh two-factor code for `write:orders`) into a
 * redirect to the client with a code or an error. Apart from the client's own endpoints
 * (oauth-client.routes.ts): these are a person's browser with a session, answered as pages and
 * redirects rather than OAuth's JSON.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { safeEqual } from '../../platform/crypto.js';
import { isAppError } from '../../platform/errors.js';
import type { App } from '../../platform/http/types.js';
import type { SessionsService } from '../auth/sessions.service.js';
import type { TotpService } from '../auth/totp.service.js';
import type { UsersService } from '../auth/users.service.js';
import { sessionTokenOf } from '../auth/session.guard.js';
import type { OAuthService } from './oauth.service.js';
import type { AuthorizeRequest } from './oauth.types.js';
import { AUTH_PARAMS, consentPage, errorPage, PAGE_HEADERS } from './consent-page.js';
import { AGENT_TAGS as tags, Json } from './oauth.schema.js';

export interface OAuthConsentDeps {
  oauth: OAuthService;
  sessions: SessionsService;
  users: UsersService;
  totp: TotpService;
}

const redirectWith = (uri: string, params: Record<string, string | undefined>) => {
  const u = new URL(uri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) u.searchParams.set(k, v);
  return u.toString();
};

export function oauthConsentRoutes(app: App, deps: OAuthConsentDeps): void {
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
}

import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ResolvedConfig } from '../../config.js';
import type { App } from '../../platform/http/types.js';
import { CsrfResponse, LoginBody, SessionResponse, StatusSuccess } from './auth.schema.js';
import { ErrorBody } from '../../platform/http/error-body.js';
import type { LoginService } from './login.service.js';
import { setSessionCookie as setSession } from './session-cookie.js';
import { readSessionCookie, SESSION_COOKIE, type SessionGuard } from './session.guard.js';
import type { SessionsService } from './sessions.service.js';
import { totpRoutes } from './totp.routes.js';
import { LoginResponse, TotpLoginBody } from './totp.schema.js';
import type { TotpService } from './totp.service.js';
import { toPublicUser, type UsersService } from './users.service.js';
import { PENDING_TOTP_LOGIN_MS } from '../../domain/limits.js';

export interface AuthRoutesDeps {
  config: ResolvedConfig;
  login: LoginService;
  sessions: SessionsService;
  users: UsersService;
  guard: SessionGuard;
  /** Two-factor service; when absent, the login service's own one (built from APP_KEY). */
  totp?: TotpService;
}

/** Cookie of a pending two-factor login: a random token whose SHA-256 is the row's id. */
export const PENDING_TOTP_COOKIE = 'algodesk_totp_pending';
const PENDING_TOTP_PATH = '/auth/login';

const readCookie = (req: FastifyRequest, name: string): string | undefined => {
  const header = req.headers.cookie;
  return header ? req.server.parseCookie(header)[name] : undefined;
};

/**
 * `/auth/login` (+ `/auth/login/totp`), `/auth/logout`, `/auth/session`, `/auth/csrf-token`
 * (JSON), and the `/auth/2fa/*` routes.
 */
export function authRoutes(app: App, deps: AuthRoutesDeps): void {
  const { config, login, sessions, users, guard } = deps;
  const totp = deps.totp ?? login.totp(config.appKey);
  const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 429: ErrorBody };

  const setSessionCookie = (reply: FastifyReply, token: string) => setSession(reply, config, token);

  const setPendingCookie = (reply: FastifyReply, token: string) =>
    reply.setCookie(PENDING_TOTP_COOKIE, token, {
      path: PENDING_TOTP_PATH,
      httpOnly: true,
      sameSite: 'strict',
      secure: config.secureCookies,
      maxAge: Math.floor(PENDING_TOTP_LOGIN_MS / 1000),
    });
  const clearPendingCookie = (reply: FastifyReply) =>
    reply.clearCookie(PENDING_TOTP_COOKIE, { path: PENDING_TOTP_PATH });

  app.post(
    '/auth/login',
    {
      schema: {
        summary: 'Log in with user name and password',
        tags: ['auth'],
        body: LoginBody,
        response: { 200: LoginResponse, ...errors },
      },
    },
    async (req, reply) => {
      const outcome = await login.login(req.body.username, req.body.password, {
        ip: req.clientIp,
        userAgent: req.headers['user-agent'],
        previousToken: readSessionCookie(req),
        previousPendingToken: readCookie(req, PENDING_TOTP_COOKIE),
      });
      if (outcome.kind === 'pending_totp') {
        // The old session (if any) is gone; the browser holds only the pending marker.
        reply.clearCookie(SESSION_COOKIE, { path: '/' });
        setPendingCookie(reply, outcome.pending.token);
        return { status: 'pending_totp' as const };
      }
      setSessionCookie(reply, outcome.session.token);
      return { status: 'success' as const };
    },
  );

  // Spec, "Login with TOTP": completes a pending login with a six-digit code within 5 minutes.
  app.post(
    '/auth/login/totp',
    {
      schema: {
        summary: 'Complete a login with the authenticator code',
        tags: ['auth'],
        body: TotpLoginBody,
        response: { 200: StatusSuccess, ...errors },
      },
    },
    async (req, reply) => {
      const created = await login.completeTotp(readCookie(req, PENDING_TOTP_COOKIE), req.body.totp_code, {
        ip: req.clientIp,
        userAgent: req.headers['user-agent'],
        previousToken: readSessionCookie(req),
      });
      clearPendingCookie(reply);
      setSessionCookie(reply, created.token);
      return { status: 'success' as const };
    },
  );

  app.post(
    '/auth/logout',
    {
      preHandler: guard(),
      schema: {
        summary: 'Log out (end this session)',
        tags: ['auth'],
        response: { 200: StatusSuccess, ...errors },
      },
    },
    async (req, reply) => {
      await sessions.revokeById(req.session!.sessionId);
      reply.clearCookie(SESSION_COOKIE, { path: '/' });
      return { status: 'success' as const };
    },
  );

  app.get(
    '/auth/session',
    {
      preHandler: guard(),
      schema: {
        summary: 'The logged-in user',
        tags: ['auth'],
        response: { 200: SessionResponse, ...errors },
      },
    },
    async (req) => {
      const user = await users.findById(req.session!.userId);
      return { status: 'success' as const, user: toPublicUser(user!) };
    },
  );

  app.get(
    '/auth/csrf-token',
    {
      preHandler: guard(),
      schema: {
        summary: "The session's CSRF token",
        tags: ['auth'],
        response: { 200: CsrfResponse, ...errors },
      },
    },
    async (req, reply) => {
      reply.header('cache-control', 'no-store');
      return { csrf_token: req.session!.csrfToken };
    },
  );

  totpRoutes(app, { totp, guard });
}

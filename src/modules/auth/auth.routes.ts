import type { FastifyReply } from 'fastify';
import type { Config } from '../../config.js';
import type { App } from '../../platform/http/types.js';
import { CsrfResponse, ErrorBody, LoginBody, SessionResponse, StatusSuccess } from './auth.schema.js';
import type { LoginService } from './login.service.js';
import { readSessionCookie, SESSION_COOKIE, type SessionGuard } from './session.guard.js';
import type { SessionsService } from './sessions.service.js';
import { toPublicUser, type UsersService } from './users.service.js';

export interface AuthRoutesDeps {
  config: Config;
  login: LoginService;
  sessions: SessionsService;
  users: UsersService;
  guard: SessionGuard;
}

/** `/auth/login`, `/auth/logout`, `/auth/session`, `/auth/csrf-token` (JSON). */
export function authRoutes(app: App, deps: AuthRoutesDeps): void {
  const { config, login, sessions, users, guard } = deps;
  const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 429: ErrorBody };

  const setSessionCookie = (reply: FastifyReply, token: string) =>
    reply.setCookie(SESSION_COOKIE, token, {
      path: '/',
      httpOnly: true,
      sameSite: 'lax',
      secure: config.secureCookies,
      maxAge: Math.floor(config.sessionMaxMs / 1000),
    });

  app.post(
    '/auth/login',
    { schema: { body: LoginBody, response: { 200: StatusSuccess, ...errors } } },
    async (req, reply) => {
      const created = await login.login(req.body.username, req.body.password, {
        ip: req.clientIp,
        userAgent: req.headers['user-agent'],
        previousToken: readSessionCookie(req),
      });
      setSessionCookie(reply, created.token);
      return { status: 'success' as const };
    },
  );

  app.post(
    '/auth/logout',
    { preHandler: guard(), schema: { response: { 200: StatusSuccess, ...errors } } },
    async (req, reply) => {
      await sessions.revokeById(req.session!.sessionId);
      reply.clearCookie(SESSION_COOKIE, { path: '/' });
      return { status: 'success' as const };
    },
  );

  app.get(
    '/auth/session',
    { preHandler: guard(), schema: { response: { 200: SessionResponse, ...errors } } },
    async (req) => {
      const user = await users.findById(req.session!.userId);
      return { status: 'success' as const, user: toPublicUser(user!) };
    },
  );

  app.get(
    '/auth/csrf-token',
    { preHandler: guard(), schema: { response: { 200: CsrfResponse, ...errors } } },
    async (req, reply) => {
      reply.header('cache-control', 'no-store');
      return { csrf_token: req.session!.csrfToken };
    },
  );
}

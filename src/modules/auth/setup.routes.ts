/**
 * The first-run setup (docs/rules/auth.md#first-run-setup): `GET /auth/setup` says whether the
 * install still needs its administrator; `POST /auth/setup` creates it (the CLI's rules) while no
 * user exists, then opens a session as `/auth/login` does. Both work without a session; the POST
 * counts against the login rate limit of the client address.
 */
import type { onRequestHookHandler } from 'fastify';
import { Type } from 'typebox';
import type { ResolvedConfig } from '../../config.js';
import type { ErrorCode } from '../../platform/errors.js';
import { ErrorBody } from '../../platform/http/error-body.js';
import { documentHook } from '../../platform/http/hook-doc.js';
import type { RateLimitHook } from '../../platform/http/rate-limit.js';
import type { App } from '../../platform/http/types.js';
import { PublicUserSchema } from './auth.schema.js';
import { setSessionCookie } from './session-cookie.js';
import { readSessionCookie } from './session.guard.js';
import type { SessionsService } from './sessions.service.js';
import { MAX_PASSWORD_LENGTH, toPublicUser, type UsersService } from './users.service.js';

/** The administrator's details; the password and name rules are the service's (the CLI's). */
export const SetupBody = Type.Object(
  {
    /** Case-insensitive user name: letters, digits, `_ . @ -`, at most 64. */
    username: Type.String({ minLength: 1, maxLength: 64 }),
    /** Plain password (at least 8 characters); never logged, stored only as an argon2id hash. */
    password: Type.String({ minLength: 1, maxLength: MAX_PASSWORD_LENGTH }),
    /** Optional address for password-reset mail. */
    email: Type.Optional(Type.Union([Type.String({ maxLength: 254 }), Type.Null()])),
  },
  { additionalProperties: false },
);

export const SetupStatusResponse = Type.Object({
  status: Type.Literal('success'),
  /** True while no user exists: the console shows `/setup` instead of `/login`. */
  needs_setup: Type.Boolean(),
});

export const SetupResponse = Type.Object({ status: Type.Literal('success'), user: PublicUserSchema });

/**
 * The setup takes JSON only (docs/rules/auth.md#first-run-setup): other routes accept form
 * bodies for OpenAlgo's clients, but a page on another site can post a form (or `text/plain`
 * that looks like JSON) without the browser asking this server first, and could claim a fresh
 * install with its own password through the operator's browser. A cross-site `fetch` with
 * `application/json` needs a CORS preflight, which this server never grants.
 */
const requireJson = documentHook<onRequestHookHandler>(
  function requireJson(req, reply, done) {
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type === 'application/json') return done();
    void reply.code(415).send({
      status: 'error',
      message: 'Send the setup as application/json',
      code: 'unsupported_media_type' satisfies ErrorCode,
    });
  },
  {
    answers: [
      { status: 415, code: 'unsupported_media_type', when: 'the body is not sent as `application/json`' },
    ],
  },
);

export function setupRoutes(
  app: App,
  deps: {
    config: ResolvedConfig;
    users: UsersService;
    sessions: SessionsService;
    /** The login surface's limit (the same window as `/auth/login`). */
    rateLimit: RateLimitHook;
  },
): void {
  const { config, users, sessions } = deps;

  app.get(
    '/auth/setup',
    {
      schema: {
        summary: 'Whether the first-run setup is needed (no user exists yet)',
        tags: ['auth'],
        response: { 200: SetupStatusResponse, 429: ErrorBody },
      },
    },
    async (_req, reply) => {
      reply.header('cache-control', 'no-store');
      return { status: 'success' as const, needs_setup: (await users.count()) === 0 };
    },
  );

  app.post(
    '/auth/setup',
    {
      onRequest: [deps.rateLimit, requireJson],
      schema: {
        summary: 'Create the administrator on first run, then sign in',
        tags: ['auth'],
        body: SetupBody,
        response: { 200: SetupResponse, 400: ErrorBody, 409: ErrorBody, 415: ErrorBody, 429: ErrorBody },
      },
    },
    async (req, reply) => {
      const row = await users.createFirst(req.body);
      const previous = readSessionCookie(req);
      if (previous) await sessions.end(previous);
      const session = await sessions.create(row.id, req.clientIp, req.headers['user-agent']);
      setSessionCookie(reply, config, session.token);
      req.log.warn({ username: row.username, ip: req.clientIp }, 'administrator created by first-run setup');
      return { status: 'success' as const, user: toPublicUser(row) };
    },
  );
}

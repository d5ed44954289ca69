/**
 * The broker login: `GET /broker/login` sends the logged-in user's
 * browser to the broker's login page; the broker redirects back to `BROKER_REDIRECT_URL` —
 * `/zerodha/callback?request_token=…`, `/upstox/callback?code=…`, `/fyers/callback?auth_code=…` or
 * `/flattrade/callback?code=…`, as OpenAlgo registers them —
 * where the code is exchanged for an access token, stored sealed as the user's broker session.
 * `state` binds the round trip to the user: `userId.expiry.HMAC(APP_KEY)`, checked on any
 * instance without shared state, valid 10 minutes, required (a callback without it is refused;
 * for a broker whose redirect drops it, the login-state cookie {@link BROKER_STATE_COOKIE} carries it). `GET /broker/session` shows the session
 * (never the token); `DELETE /broker/session` forgets it. A browser's navigation to a callback (the
 * broker's redirect) is sent on to the console's `/broker` page with the outcome
 * (docs/rules/web.md#account-pages); scripts keep the JSON answer.
 */
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Clock } from '../../platform/clock.js';
import { hmacSha256Hex, safeEqual } from '../../platform/crypto.js';
import { badRequest, notFound } from '../../platform/errors.js';
import type { App } from '../../platform/http/types.js';
import type { RateLimitHook } from '../../platform/http/rate-limit.js';
import { ErrorBody } from '../../platform/http/error-body.js';
import type { SessionGuard } from '../auth/session.guard.js';
import { wantsPage } from '../web/web-pages.js';
import type { BrokerAdapter, LoginResult } from './broker-adapter.js';
import type { BrokerApp } from './broker-apps.service.js';
import type { BrokerSessionsService } from './broker-sessions.service.js';

const STATE_TTL_MS = 10 * 60_000;

export interface BrokerLoginDeps {
  /** The user's broker app (their choice, else the bootstrap one) and its adapter. */
  appOf: (userId: number) => Promise<{ app: BrokerApp; adapter: BrokerAdapter } | undefined>;
  sessions: BrokerSessionsService;
  appKey: string;
  clock: Clock;
  guard: SessionGuard;
  rateLimit: RateLimitHook;
  /** Whether the console is built: then a browser's callback lands on its `/broker` page. */
  consoleBuilt?: () => boolean;
  /** `SECURE_COOKIES`: the login-state cookie is Secure too. */
  secureCookies?: boolean;
}

/**
 * The login's state, also kept in a short-lived cookie for the brokers whose redirect does not
 * echo `state` (Flattrade documents none): HttpOnly, SameSite=Lax (sent on the broker's top-level
 * redirect back), 10 minutes.
 */
export const BROKER_STATE_COOKIE = 'algodesk_broker_login';

/** The login-state cookie's value (cookies are parsed on demand in this scope). */
function loginStateCookie(req: FastifyRequest): string | undefined {
  const header = req.headers.cookie;
  return header ? req.server.parseCookie(header)[BROKER_STATE_COOKIE] : undefined;
}

/** Where a browser lands after a broker login (docs/rules/web.md#account-pages). */
export function brokerPageAfterLogin(outcome: { ok: true } | { ok: false; message: string }): string {
  const q = outcome.ok
    ? new URLSearchParams({ login: 'success' })
    : new URLSearchParams({ login: 'failed', message: outcome.message.slice(0, 300) });
  return `/broker?${q.toString()}`;
}

export function brokerLoginRoutes(app: App, deps: BrokerLoginDeps): void {
  const sign = (userId: number, expiry: number) =>
    hmacSha256Hex(deps.appKey, `broker-login:${userId}:${expiry}`).slice(0, 32);
  const adapter = async (userId: number) => {
    const found = await deps.appOf(userId);
    if (!found) throw notFound('Broker-specific module not found');
    return { name: found.app.broker, appId: found.app.id, adapter: found.adapter };
  };
  const user = { onRequest: deps.rateLimit, preHandler: deps.guard() };
  const errors = {
    400: ErrorBody,
    401: ErrorBody,
    403: ErrorBody,
    404: ErrorBody,
    429: ErrorBody,
    502: ErrorBody,
    504: ErrorBody,
  };

  const redirect = Type.Null({ description: "Found: the browser is sent to the broker's login page" });
  app.get(
    '/broker/login',
    {
      ...user,
      schema: {
        summary: "Go to the broker's login page",
        tags: ['brokers'],
        response: { 302: redirect, ...errors },
      },
    },
    async (req, reply) => {
      const userId = req.session!.userId;
      const { adapter: a } = await adapter(userId);
      const expiry = deps.clock.now() + STATE_TTL_MS;
      const state = `${userId}.${expiry}.${sign(userId, expiry)}`;
      reply.setCookie(BROKER_STATE_COOKIE, state, {
        path: '/',
        httpOnly: true,
        sameSite: 'lax',
        secure: deps.secureCookies ?? false,
        maxAge: STATE_TTL_MS / 1000,
      });
      return reply.redirect(a.loginUrl(state), 302);
    },
  );

  const callback = async (
    broker: string,
    userId: number,
    code: string | undefined,
    state: string | undefined,
  ) => {
    const { name, appId, adapter: a } = await adapter(userId);
    if (name !== broker)
      throw badRequest(
        `This is ${broker}'s login callback, but your broker app is ${name}'s: start the login again`,
      );
    if (!code) throw badRequest('The broker did not send a login code');
    // Both brokers echo the state we sent (Kite through `redirect_params`, Upstox as `state`).
    // Without it a crafted callback link could bind someone else's broker account to this user
    // (login CSRF), so a missing state is refused like a forged one.
    const [uid, exp, mac] = (state ?? '').split('.');
    const expiry = Number(exp);
    if (
      Number(uid) !== userId ||
      !mac ||
      !Number.isFinite(expiry) ||
      expiry < deps.clock.now() ||
      !safeEqual(mac, sign(userId, expiry))
    )
      throw badRequest('The login state is missing, invalid or expired; start the broker login again');
    await store(userId, name, appId, () => a.exchangeCode(code));
    return { status: 'success' as const, message: `Logged in to ${name}`, broker: name };
  };
  /** Runs a login and stores its session; a refusal is a 400 (502/504 and 429 kept) with the broker's words. */
  const store = async (userId: number, name: string, appId: number, login: () => Promise<LoginResult>) => {
    try {
      const r = await login();
      await deps.sessions.set(userId, name, r.session, r.expiresAt, appId);
    } catch (err) {
      const e = err as { httpStatus?: number; message?: string };
      const status =
        e.httpStatus === 502 || e.httpStatus === 504 || e.httpStatus === 429 ? e.httpStatus : 400;
      throw Object.assign(badRequest(`Broker login failed: ${e.message ?? 'unknown error'}`), {
        statusCode: status,
      });
    }
  };
  const Ok = Type.Object({ status: Type.Literal('success'), message: Type.String(), broker: Type.String() });
  const toPage = Type.Null({
    description: "Found: a browser's navigation is sent to the console's /broker page",
  });
  /** The callback's answer: JSON for scripts, the `/broker` page (with the outcome) for a browser. */
  const answer = async (
    req: { headers: { accept?: string | undefined } },
    reply: { redirect(url: string, code: number): unknown },
    run: () => ReturnType<typeof callback>,
  ) => {
    if (!(deps.consoleBuilt?.() ?? false) || !wantsPage(req.headers.accept)) return run();
    try {
      await run();
      return reply.redirect(brokerPageAfterLogin({ ok: true }), 302) as never;
    } catch (err) {
      const message = err instanceof Error ? err.message : 'Broker login failed';
      return reply.redirect(brokerPageAfterLogin({ ok: false, message }), 302) as never;
    }
  };
  app.get(
    '/zerodha/callback',
    {
      ...user,
      schema: {
        summary: 'Zerodha login callback (stores the broker session)',
        tags: ['brokers'],
        querystring: Type.Object({
          request_token: Type.Optional(Type.String({ maxLength: 128 })),
          state: Type.Optional(Type.String({ maxLength: 128 })),
          status: Type.Optional(Type.String({ maxLength: 32 })),
        }),
        response: { 200: Ok, 302: toPage, ...errors },
      },
    },
    (req, reply) =>
      answer(req, reply, () =>
        callback('zerodha', req.session!.userId, req.query.request_token, req.query.state),
      ),
  );
  app.get(
    '/upstox/callback',
    {
      ...user,
      schema: {
        summary: 'Upstox login callback (stores the broker session)',
        tags: ['brokers'],
        querystring: Type.Object({
          code: Type.Optional(Type.String({ maxLength: 512 })),
          state: Type.Optional(Type.String({ maxLength: 128 })),
        }),
        response: { 200: Ok, 302: toPage, ...errors },
      },
    },
    (req, reply) =>
      answer(req, reply, () => callback('upstox', req.session!.userId, req.query.code, req.query.state)),
  );

  app.post(
    '/broker/login/form',
    {
      ...user,
      schema: {
        summary:
          'Log in to a broker that logs in with a form (Angel One: client code, PIN, TOTP; Dhan: a pasted token)',
        description:
          "The fields are the broker's `login_fields` of `GET /broker/api/status`; secret values are never logged or echoed.",
        tags: ['brokers'],
        body: Type.Record(Type.String({ pattern: '^[a-z_]{1,32}$' }), Type.String({ maxLength: 4096 }), {
          maxProperties: 8,
        }),
        response: { 200: Ok, ...errors },
      },
    },
    async (req) => {
      const { name, appId, adapter: a } = await adapter(req.session!.userId);
      const fields = a.loginFields;
      if (!fields || !a.loginWith)
        throw badRequest(`${name} logs in through its own page: use GET /broker/login`);
      const values: Record<string, string> = {};
      for (const f of fields) {
        const v = (req.body[f.name] ?? '').trim();
        if (v === '') throw badRequest(`${f.label} is required`);
        if (!new RegExp(`^(?:${f.pattern})$`).test(v))
          throw badRequest(`${f.label} is not in the expected form`);
        values[f.name] = v;
      }
      const unknown = Object.keys(req.body).filter((k) => !fields.some((f) => f.name === k));
      if (unknown.length > 0) throw badRequest(`Unknown login field: ${unknown[0]}`);
      await store(req.session!.userId, name, appId, () => a.loginWith!(values));
      return { status: 'success' as const, message: `Logged in to ${name}`, broker: name };
    },
  );

  app.get(
    '/flattrade/callback',
    {
      ...user,
      schema: {
        summary: 'Flattrade login callback (stores the broker session)',
        description:
          'Flattrade echoes no state: the login-state cookie set by GET /broker/login stands in for it.',
        tags: ['brokers'],
        querystring: Type.Object({
          code: Type.Optional(Type.String({ maxLength: 512 })),
          request_code: Type.Optional(Type.String({ maxLength: 512 })),
          client: Type.Optional(Type.String({ maxLength: 64 })),
          state: Type.Optional(Type.String({ maxLength: 128 })),
        }),
        response: { 200: Ok, 302: toPage, ...errors },
      },
    },
    (req, reply) =>
      answer(req, reply, () =>
        callback(
          'flattrade',
          req.session!.userId,
          req.query.request_code ?? req.query.code,
          req.query.state ?? loginStateCookie(req),
        ),
      ),
  );
  app.get(
    '/fyers/callback',
    {
      ...user,
      schema: {
        summary: 'Fyers login callback (stores the broker session)',
        tags: ['brokers'],
        querystring: Type.Object({
          auth_code: Type.Optional(Type.String({ maxLength: 2048 })),
          state: Type.Optional(Type.String({ maxLength: 128 })),
          s: Type.Optional(Type.String({ maxLength: 16 })),
          code: Type.Optional(Type.String({ maxLength: 16 })),
        }),
        response: { 200: Ok, 302: toPage, ...errors },
      },
    },
    (req, reply) =>
      answer(req, reply, () => callback('fyers', req.session!.userId, req.query.auth_code, req.query.state)),
  );

  const SessionView = Type.Object({
    status: Type.Literal('success'),
    data: Type.Union([
      Type.Null(),
      Type.Object({ broker: Type.String(), expires_at: Type.Union([Type.Integer(), Type.Null()]) }),
    ]),
  });
  const Removed = Type.Object({ status: Type.Literal('success'), message: Type.String() });
  app.get(
    '/broker/session',
    {
      ...user,
      schema: {
        summary: "The user's broker session (never the token)",
        tags: ['brokers'],
        response: { 200: SessionView, ...errors },
      },
    },
    async (req) => ({
      status: 'success' as const,
      data: await deps.sessions.status(req.session!.userId),
    }),
  );
  app.delete(
    '/broker/session',
    {
      ...user,
      schema: {
        summary: 'Forget the broker session',
        tags: ['brokers'],
        response: { 200: Removed, ...errors },
      },
    },
    async (req) => {
      await deps.sessions.clear(req.session!.userId);
      return { status: 'success' as const, message: 'Broker session removed' };
    },
  );
}

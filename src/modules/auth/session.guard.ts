import type { FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { safeEqual } from '../../platform/crypto.js';
import { fromDbBool } from '../../platform/db/database.js';
import { csrfFailed, forbidden, sessionRequired } from '../../platform/errors.js';
import {
  documentHook,
  STATE_CHANGING_METHODS,
  type Credential,
  type ErrorAnswer,
  type HookDoc,
} from '../../platform/http/hook-doc.js';
import type { SessionsService } from './sessions.service.js';
import type { UsersService } from './users.service.js';

export const SESSION_COOKIE = 'algodesk_session';
export const CSRF_HEADER = 'x-csrf-token';
const STATE_CHANGING = new Set(STATE_CHANGING_METHODS);

const SESSION_COOKIE_PATTERN = new RegExp(`(?:^|;\\s*)${SESSION_COOKIE}=([^;]+)`);

/**
 * The session cookie's value read from a Cookie header without the cookie plugin (outside the
 * session scopes: the not-found handler).
 */
export function sessionTokenOf(cookieHeader: string | undefined): string | undefined {
  return SESSION_COOKIE_PATTERN.exec(cookieHeader ?? '')?.[1];
}

/** The session cookie's value, parsed on demand (cookies are not parsed for every request). */
export function readSessionCookie(req: FastifyRequest): string | undefined {
  const header = req.headers.cookie;
  return header ? req.server.parseCookie(header)[SESSION_COOKIE] : undefined;
}

/** The authenticated browser session of a request. */
export interface SessionContext {
  sessionId: string;
  userId: number;
  username: string;
  isAdmin: boolean;
  csrfToken: string;
  totpVerifiedAt: number | null;
}

export interface GuardOptions {
  /** Only administrators pass. */
  admin?: boolean;
  /** Skip the CSRF check for this state-changing route (only for routes without a session effect). */
  csrf?: boolean;
}

/**
 * Pre-handlers for session routes: a live session on every request (401 JSON otherwise), the
 * administrator flag where required (403), and the per-session CSRF token in `X-CSRF-Token`
 * on every state-changing method (403).
 */
export function createSessionGuard(sessions: SessionsService, users: UsersService) {
  return (opts: GuardOptions = {}): preHandlerAsyncHookHandler =>
    documentHook(async function sessionGuard(req: FastifyRequest, _reply: FastifyReply) {
      const token = readSessionCookie(req);
      const row = await sessions.resolve(token);
      if (row === undefined) throw sessionRequired();
      const user = await users.findById(row.user_id);
      // A disabled account's sessions were revoked when it was disabled; refused here all the same.
      if (user === undefined || user.disabled_at !== null) throw sessionRequired();
      req.session = {
        sessionId: row.id,
        userId: user.id,
        username: user.username,
        isAdmin: fromDbBool(user.is_admin),
        csrfToken: row.csrf_token,
        totpVerifiedAt: row.totp_verified_at,
      };
      if (opts.admin && !req.session.isAdmin) throw forbidden('Administrator access required');
      if (opts.csrf !== false && STATE_CHANGING.has(req.method)) {
        const sent = req.headers[CSRF_HEADER];
        if (typeof sent !== 'string' || !safeEqual(sent, row.csrf_token)) {
          throw csrfFailed('Missing or invalid CSRF token (send it in X-CSRF-Token)');
        }
      }
    }, sessionGuardDoc(opts));
}

/** The session cookie as the API reference documents it (platform/http/hook-doc.ts). */
export const SESSION_CREDENTIAL: Credential = {
  in: 'cookie',
  name: SESSION_COOKIE,
  scheme: 'session',
  description: 'The browser session: set (HttpOnly) by `POST /auth/login`, cleared by `POST /auth/logout`.',
};

/** What the guard reads and may answer, for the API reference. */
function sessionGuardDoc(opts: GuardOptions): HookDoc {
  const credentials: Credential[] = [SESSION_CREDENTIAL];
  const answers: ErrorAnswer[] = [
    { status: 401, code: 'session_required', when: `no live session (the \`${SESSION_COOKIE}\` cookie)` },
  ];
  if (opts.admin) answers.push({ status: 403, code: 'forbidden', when: 'the user is not an administrator' });
  if (opts.csrf !== false) {
    credentials.push({
      in: 'header',
      name: CSRF_HEADER,
      scheme: 'csrf',
      description:
        "The session's CSRF token (`GET /auth/csrf-token`), sent on every state-changing session request.",
      methods: STATE_CHANGING_METHODS,
    });
    answers.push({
      status: 403,
      code: 'csrf_failed',
      when: `the \`${CSRF_HEADER}\` header is missing or is not the session's CSRF token`,
      methods: STATE_CHANGING_METHODS,
    });
  }
  return { credentials, answers };
}

export type SessionGuard = ReturnType<typeof createSessionGuard>;

import type { FastifyReply } from 'fastify';
import type { ResolvedConfig } from '../../config.js';
import { SESSION_COOKIE } from './session.guard.js';

/**
 * Sets the browser session cookie: HttpOnly (no script reads it), SameSite=Lax, Secure when the
 * install says so, living as long as the session's absolute bound. Login, the two-factor step and
 * the first-run setup all open sessions through this one place.
 */
export function setSessionCookie(
  reply: FastifyReply,
  config: Pick<ResolvedConfig, 'secureCookies' | 'sessionMaxMs'>,
  token: string,
): void {
  reply.setCookie(SESSION_COOKIE, token, {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure: config.secureCookies,
    maxAge: Math.floor(config.sessionMaxMs / 1000),
  });
}

/**
 * Password-reset routes (docs/rules/auth.md#password-reset-paths), no session needed, both under
 * `RESET_RATE_LIMIT`:
 * - `POST /auth/reset-password` (JSON or form): the steps of {@link PasswordResetService}. A form
 *   posted by a browser (`Accept: text/html`, the link's page) gets an HTML page back; anything
 *   else gets JSON.
 * - `GET /auth/reset-password-email/:token`: the mailed link. Shows the new-password form while
 *   the token is good (JSON `{valid, expires_at}` for `Accept: application/json`); does not spend
 *   it. The URL is masked in logs and the traffic log (platform/logger.ts `maskUrl`).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isAppError, resetLinkNotFound } from '../../platform/errors.js';
import type { RateLimitHook } from '../../platform/http/rate-limit.js';
import type { App } from '../../platform/http/types.js';
import { ErrorBody } from '../../platform/http/error-body.js';
import { RESET_PAGE_HEADERS, resetFormPage, resetResultPage } from './password-reset.page.js';
import {
  ResetLinkParams,
  ResetLinkResponse,
  ResetPasswordBody,
  ResetPasswordResponse,
} from './password-reset.schema.js';
import { INVALID_RESET_TOKEN, RESET_LINK_PATH, type PasswordResetService } from './password-reset.service.js';
import { MIN_PASSWORD_LENGTH } from '../auth/users.service.js';

export interface PasswordResetRouteDeps {
  reset: PasswordResetService;
  rateLimit: RateLimitHook;
}

const wantsHtml = (req: FastifyRequest) => {
  const accept = req.headers.accept ?? '';
  return accept.includes('text/html') && !accept.startsWith('application/json');
};

const isForm = (req: FastifyRequest) =>
  (req.headers['content-type'] ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded');

const sendPage = (reply: FastifyReply, status: number, html: string) =>
  reply.code(status).headers(RESET_PAGE_HEADERS).send(html);

export function passwordResetRoutes(app: App, deps: PasswordResetRouteDeps): void {
  const { reset } = deps;
  const errors = { 400: ErrorBody, 404: ErrorBody, 429: ErrorBody };

  app.post(
    '/auth/reset-password',
    {
      onRequest: deps.rateLimit,
      schema: {
        summary: 'Reset a forgotten password, one step at a time',
        tags: ['auth'],
        body: ResetPasswordBody,
        response: { 200: ResetPasswordResponse, ...errors },
      },
    },
    async (req, reply) => {
      reply.header('cache-control', 'no-store');
      if (!(isForm(req) && wantsHtml(req))) return reset.step(req.body, { ip: req.clientIp });
      try {
        const done = await reset.step(req.body, { ip: req.clientIp });
        return sendPage(reply, 200, resetResultPage(true, done.message));
      } catch (err) {
        if (!isAppError(err) || err.statusCode >= 500) throw err;
        return sendPage(reply, err.statusCode, resetResultPage(false, err.message));
      }
    },
  );

  app.get(
    `${RESET_LINK_PATH}:token`,
    {
      onRequest: deps.rateLimit,
      schema: {
        summary: 'Open a password-reset link (the form, or its validity as JSON)',
        tags: ['auth'],
        params: ResetLinkParams,
        response: { 200: ResetLinkResponse, ...errors },
      },
    },
    async (req, reply) => {
      const row = await reset.peekLink(req.params.token);
      if (wantsHtml(req)) {
        return row === undefined
          ? sendPage(reply, 404, resetResultPage(false, INVALID_RESET_TOKEN))
          : sendPage(reply, 200, resetFormPage(req.params.token, MIN_PASSWORD_LENGTH));
      }
      reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer');
      if (row === undefined) throw resetLinkNotFound(INVALID_RESET_TOKEN);
      return {
        status: 'success' as const,
        valid: true as const,
        expires_at: new Date(row.expires_at).toISOString(),
      };
    },
  );
}

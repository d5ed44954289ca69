/**
 * Mail routes (docs/rules/mail.md#smtp-settings-form, #password-never-shown; spec
 * "Authentication": mail settings changes need a session plus the CSRF token):
 * - `POST /auth/smtp-config` (administrator, CSRF; JSON or form) saves the mail settings;
 * - `GET /auth/profile-data` (any session) shows them without the password;
 * - `POST /auth/test-smtp` `{recipient}` (administrator, CSRF) sends a test message;
 * - `POST /auth/debug-smtp` (administrator, CSRF) runs the staged diagnostics.
 * Form bodies (`application/x-www-form-urlencoded`) are parsed for every route by
 * platform/http/body.plugin.ts, so no form plugin is registered here. The two routes that open
 * connections to a host the administrator names take the stricter rate limit.
 */
import { ErrorBody } from '../../platform/http/error-body.js';
import type { SessionGuard } from '../auth/session.guard.js';
import type { RateLimitHook } from '../../platform/http/rate-limit.js';
import type { App } from '../../platform/http/types.js';
import type { MailService } from './mail.service.js';
import {
  DebugSmtpResponse,
  ProfileDataResponse,
  SmtpConfigBody,
  SmtpConfigResponse,
  TestSmtpBody,
  TestSmtpResponse,
} from './mail.schema.js';

export interface MailRouteDeps {
  mail: MailService;
  guard: SessionGuard;
  /** Settings writes and reads (the admin surface limit). */
  rateLimit: RateLimitHook;
  /** Test message and diagnostics: outbound connections (10 per minute in app.ts). */
  probeRateLimit: RateLimitHook;
}

export function mailRoutes(app: App, deps: MailRouteDeps): void {
  const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 409: ErrorBody, 429: ErrorBody };
  const admin = deps.guard({ admin: true });

  app.post(
    '/auth/smtp-config',
    {
      onRequest: deps.rateLimit,
      preHandler: admin,
      schema: {
        summary: 'Save the mail settings',
        tags: ['mail'],
        body: SmtpConfigBody,
        response: { 200: SmtpConfigResponse, ...errors },
      },
    },
    async (req) => {
      const smtp = await deps.mail.settings.update(req.body);
      req.log.info({ userId: req.session?.userId }, 'mail settings saved');
      return { status: 'success' as const, message: 'Mail settings saved', smtp };
    },
  );

  app.get(
    '/auth/profile-data',
    {
      onRequest: deps.rateLimit,
      preHandler: deps.guard(),
      schema: {
        summary: 'The profile and, for the administrator, the mail settings (never the password)',
        tags: ['mail'],
        response: { 200: ProfileDataResponse, ...errors },
      },
    },
    async (req, reply) => {
      const session = req.session!;
      reply.header('cache-control', 'no-store');
      return {
        status: 'success' as const,
        data: {
          username: session.username,
          is_admin: session.isAdmin,
          smtp: session.isAdmin ? await deps.mail.settings.view() : null,
        },
      };
    },
  );

  app.post(
    '/auth/test-smtp',
    {
      onRequest: deps.probeRateLimit,
      preHandler: admin,
      schema: {
        summary: 'Send a test message',
        tags: ['mail'],
        body: TestSmtpBody,
        response: { 200: TestSmtpResponse, ...errors, 502: ErrorBody },
      },
    },
    async (req) => {
      const to = req.body.recipient.trim();
      await deps.mail.sendTest(to);
      return { status: 'success' as const, message: `Test message sent to ${to}` };
    },
  );

  app.post(
    '/auth/debug-smtp',
    {
      onRequest: deps.probeRateLimit,
      preHandler: admin,
      schema: {
        summary: 'Run the SMTP diagnostics, step by step',
        tags: ['mail'],
        response: { 200: DebugSmtpResponse, ...errors },
      },
    },
    () => deps.mail.diagnose(),
  );
}

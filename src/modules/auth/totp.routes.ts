import type { App } from '../../platform/http/types.js';
import { ErrorBody } from '../../platform/http/error-body.js';
import type { SessionGuard } from './session.guard.js';
import { TotpConfigureBody, TotpSetupResponse, TotpStatusResponse } from './totp.schema.js';
import type { TotpService } from './totp.service.js';

export interface TotpRoutesDeps {
  totp: TotpService;
  guard: SessionGuard;
}

/**
 * `/auth/2fa/*` session routes (spec, "Session routes: two-factor"). Registered by `authRoutes`.
 * Bodies with codes are never logged (the logger redacts `totp_code`; no route logs a body).
 */
export function totpRoutes(app: App, deps: TotpRoutesDeps): void {
  const { totp, guard } = deps;
  const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 409: ErrorBody, 429: ErrorBody };

  app.get(
    '/auth/2fa/status',
    {
      preHandler: guard(),
      schema: {
        summary: 'Two-factor status',
        tags: ['auth'],
        response: { 200: TotpStatusResponse, ...errors },
      },
    },
    async (req) => totp.status(req.session!.userId, req.session!.totpVerifiedAt),
  );

  // docs/rules/auth.md#enrollment-secret-shown-once: the response shows the secret; it must not be
  // cached (or logged).
  app.post(
    '/auth/2fa/setup',
    {
      preHandler: guard(),
      schema: {
        summary: 'Begin two-factor enrollment (the secret is shown once)',
        tags: ['auth'],
        response: { 200: TotpSetupResponse, ...errors },
      },
    },
    async (req, reply) => {
      reply.header('cache-control', 'no-store');
      reply.header('pragma', 'no-cache');
      return totp.beginEnrollment(req.session!.userId);
    },
  );

  app.post(
    '/auth/2fa/configure',
    {
      preHandler: guard(),
      schema: {
        summary: 'Turn two-factor and its purposes on or off (needs a current code)',
        tags: ['auth'],
        body: TotpConfigureBody,
        response: { 200: TotpStatusResponse, ...errors },
      },
    },
    async (req) => totp.configure(req.session!, req.body),
  );
}

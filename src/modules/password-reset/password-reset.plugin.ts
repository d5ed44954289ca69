/**
 * Password reset as a plugin: a forgotten password is reset by the authenticator's code or by a
 * mailed one-time link (its own rate limit, `RESET_RATE_LIMIT`). Needs auth (users, two-factor
 * codes) and mail; spent and expired reset tokens are swept here.
 */
import type { AppDeps } from '../../app-deps.js';
import { modulePlugin, repeatWhileUp, routeLimits, sessionScope } from '../../platform/http/module-plugin.js';
import { safeUrl } from '../../platform/safe-url.js';
import { PasswordResetRepository } from './password-reset.repository.js';
import { passwordResetRoutes } from './password-reset.routes.js';
import { PasswordResetService } from './password-reset.service.js';

/** How often spent and expired reset tokens are deleted. */
const SWEEP_MS = 10 * 60_000;

declare module 'fastify' {
  interface FastifyInstance {
    passwordReset: PasswordResetService;
  }
}

export const passwordResetPlugin = modulePlugin<AppDeps>(
  'password-reset',
  ['auth', 'mail'],
  async (app, deps) => {
    const { config } = deps;
    const reset = new PasswordResetService({
      repo: new PasswordResetRepository(deps.database.db),
      totp: app.auth.totp,
      mail: app.mail,
      clock: deps.clock,
      // The mailed link never carries credentials a HOST_SERVER may hold (a proxy login).
      hostServer: safeUrl(config.hostServer) ?? config.hostServer,
      logger: deps.logger,
      serviceName: config.serviceName,
    });
    app.decorate('passwordReset', reset);
    const limits = routeLimits(deps);
    await sessionScope(app, (web) =>
      passwordResetRoutes(web, { reset, rateLimit: limits.limit('reset', config.resetRateLimit) }),
    );
    repeatWhileUp(app, SWEEP_MS, () => reset.purgeExpired(), deps.logger, 'reset-token cleanup');
  },
);

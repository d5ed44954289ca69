/**
 * Outgoing mail as a plugin: the SMTP settings on the settings row, sending with nodemailer,
 * staged diagnostics, and the administrator's mail routes. The password-reset module sends
 * through `app.mail.send` / `sendLater`; shutdown waits for the mail still being sent.
 */
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { DB } from '../../db/schema.js';
import type { AppDeps } from '../../app-deps.js';
import type { Clock } from '../../platform/clock.js';
import { modulePlugin, routeLimits, sessionScope } from '../../platform/http/module-plugin.js';
import { mailRoutes } from './mail.routes.js';
import { MailSettingsRepository } from './mail-settings.repository.js';
import { MailSettingsService } from './mail-settings.service.js';
import { MailService } from './mail.service.js';
import type { MailConnectOptions } from './mail-transport.js';

export { MailError } from './mail-errors.js';
export type { MailMessage, MailResult } from './mail.service.js';
export type { MailConnectOptions } from './mail-transport.js';

/** The mail services: `send`, `sendLater`, `isConfigured`, plus `settings` and `diagnose` for the routes. */
export type MailServices = MailService;

export interface MailDeps {
  db: Kysely<DB>;
  /** `config.appKey`: the SMTP password is sealed under a key derived from it. */
  appKey: string;
  clock: Clock;
  logger: Logger;
  /** TLS trust and timeouts; tests pass their CA (and a port forward for the port-465 case). */
  connect?: MailConnectOptions;
}

export function buildMailServices(deps: MailDeps): MailServices {
  const settings = new MailSettingsService(new MailSettingsRepository(deps.db), deps.appKey, deps.clock);
  return new MailService(settings, deps.logger, deps.connect ?? {});
}

declare module 'fastify' {
  interface FastifyInstance {
    mail: MailServices;
  }
}

export const mailPlugin = modulePlugin<AppDeps>('mail', ['auth'], async (app, deps) => {
  const mail = buildMailServices({
    db: deps.database.db,
    appKey: deps.config.appKey,
    clock: deps.clock,
    logger: deps.logger,
    ...(deps.mailConnect ? { connect: deps.mailConnect } : {}),
  });
  app.decorate('mail', mail);
  const limits = routeLimits(deps);
  await sessionScope(app, (web) =>
    mailRoutes(web, {
      mail,
      guard: app.auth.guard,
      rateLimit: limits.admin,
      probeRateLimit: limits.limit('smtp-probe', limits.rules.heavy),
    }),
  );
  app.addHook('onClose', async () => mail.whenIdle());
});

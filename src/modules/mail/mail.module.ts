/**
 * Outgoing mail (issue 8 parts 3 and 4): the settings on the settings row, sending with
 * nodemailer, staged diagnostics. Built once in `buildServices` (app.ts) and shared: the
 * password-reset flow sends through `services.mail.send` / `sendLater`.
 */
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { DB } from '../../db/schema.js';
import type { Clock } from '../../platform/clock.js';
import { MailSettingsRepository } from './mail-settings.repository.js';
import { MailSettingsService } from './mail-settings.service.js';
import { MailService } from './mail.service.js';
import type { MailConnectOptions } from './mail-transport.js';

export { mailRoutes, type MailRouteDeps } from './mail.routes.js';
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

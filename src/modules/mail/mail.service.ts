/**
 * Outgoing mail. Other modules send through {@link MailService.send} (the caller needs the
 * result) or {@link MailService.sendLater} (off the request path: failures are logged, sanitised,
 * docs/rules/mail.md#no-credentials-in-mail-errors). The settings are read from the settings row
 * for every message, so a change made on one instance applies on all of them without a cache to
 * invalidate; mail is rare enough that one indexed read per message costs nothing. One transport
 * per message, closed after it: nothing stays connected between messages.
 */
import { createTransport } from 'nodemailer';
import type { Logger } from 'pino';
import { badRequest, mailNotConfigured, validationFailed } from '../../platform/errors.js';
import { MailError, redact, sanitizeMailError, secretForms } from './mail-errors.js';
import { isEmailAddress, type MailSettings, type MailSettingsService } from './mail-settings.service.js';
import { smtpTransportOptions, type MailConnectOptions } from './mail-transport.js';
import { runSmtpDiagnostics } from './smtp-diagnostics.js';
import type { DebugSmtpResponse } from './mail.schema.js';

/** One message to one recipient. */
export interface MailMessage {
  /** One e-mail address (no display name, no list). */
  to: string;
  subject: string;
  text: string;
  html?: string;
}

/** What a successful send reports (no addresses: they are personal data). */
export interface MailResult {
  messageId: string;
  /** The server's final reply, e.g. `250 2.0.0 Ok: queued as …` (redacted). */
  response: string;
}

const MAX_SUBJECT = 998; // RFC 5322 line length

export class MailService {
  private readonly pending = new Set<Promise<unknown>>();

  constructor(
    /** The settings (form, view, decrypted load); routes reach them here. */
    readonly settings: MailSettingsService,
    private readonly logger: Logger,
    private readonly connect: MailConnectOptions = {},
  ) {}

  /** True when a server and a sender address are saved. */
  async isConfigured(): Promise<boolean> {
    return (await this.settings.view()).smtp_configured;
  }

  /**
   * Sends one message now. Rejects with a 400 for a bad message, `mail_not_configured` (409)
   * when no server is saved, or a {@link MailError} (502) whose message never holds a credential.
   */
  async send(msg: MailMessage): Promise<MailResult> {
    if (!isEmailAddress(msg.to))
      throw badRequest('Recipient is not a valid e-mail address', { to: ['Invalid.'] });
    if (msg.subject.length > MAX_SUBJECT) throw badRequest('Subject is too long');
    const settings = await this.requireSettings();
    const secrets = secretForms(settings.username, settings.password);
    const transport = createTransport(smtpTransportOptions(settings, this.connect));
    try {
      const info = await transport.sendMail({
        from: settings.fromEmail,
        to: msg.to,
        subject: msg.subject,
        text: msg.text,
        ...(msg.html === undefined ? {} : { html: msg.html }),
      });
      const response = redact(String(info.response ?? ''), secrets);
      this.logger.info({ mail: { messageId: info.messageId } }, 'mail sent');
      return { messageId: info.messageId, response };
    } catch (err) {
      throw sanitizeMailError(err, secrets);
    } finally {
      transport.close();
    }
  }

  /**
   * Sends in the background: the caller does not wait and cannot fail. A failure is logged
   * (sanitised, at `warn`) with the message's purpose, never with the password.
   */
  sendLater(msg: MailMessage, purpose = 'mail'): void {
    const p = this.send(msg).then(
      () => undefined,
      (err: unknown) => {
        const safe =
          err instanceof MailError ? err.toLog() : { message: (err as Error)?.message ?? 'unknown' };
        this.logger.warn({ mail: { purpose, error: safe } }, 'mail not sent');
      },
    );
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p));
  }

  /** Resolves once every background send has finished (shutdown, tests). */
  async whenIdle(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  /** `POST /auth/test-smtp`: one short message to `recipient`. */
  async sendTest(recipient: string): Promise<MailResult> {
    const to = recipient.trim();
    if (!isEmailAddress(to)) {
      throw validationFailed('Invalid request: recipient: Must be an e-mail address.', {
        recipient: ['Must be an e-mail address (name@example.com).'],
      });
    }
    return this.send({
      to,
      subject: 'algodesk test message',
      text:
        'This is a test message from algodesk.\n\n' +
        'If you can read it, the mail settings work: password-reset links can be delivered.\n',
    });
  }

  /** `POST /auth/debug-smtp`: the staged diagnostics of smtp-diagnostics.ts on the saved settings. */
  async diagnose(): Promise<DebugSmtpResponse> {
    const settings = await this.requireSettings();
    const report = await runSmtpDiagnostics(settings, this.connect);
    this.logger.info(
      { mail: { diagnostics: report.stages.map((s) => `${s.stage}:${s.result}:${s.ms}`).join(' ') } },
      'smtp diagnostics',
    );
    return report;
  }

  private async requireSettings(): Promise<MailSettings> {
    const s = await this.settings.load();
    if (s === undefined) {
      throw mailNotConfigured('Mail is not configured: save the SMTP settings first');
    }
    return s;
  }
}

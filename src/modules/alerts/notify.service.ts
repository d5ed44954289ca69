/**
 * OpenAlgo's notify calls (docs/rules/alerts.md#notify-api): a message the caller writes, sent
 * to the API key's own user through the channels saved in that user's alert settings.
 * - `username` may only name the key's own user: one user never reaches another's chat, and the
 *   refusal is the same whether or not the named user exists.
 * - A channel without its credentials is refused (409) before anything is sent.
 * - The answer waits for the send (an answer is a promise): success only when the chat server
 *   accepted the message; its refusal is a 502 with its reason, credentials scrubbed.
 * Logs carry the channel, status, host and recipient count, never a token, key or number.
 */
import type { Logger } from 'pino';
import { badRequest, conflict, forbidden } from '../../platform/errors.js';
import { normaliseUsername } from '../auth/users.service.js';
import { scrub } from './alert-http.js';
import type { AlertSettingsService } from './alert-settings.service.js';
import type { AlertDelivery } from './alerts.consumer.js';
import { whatsAppNumber, type WhatsAppResult } from './whatsapp.sender.js';

/** Most recipients of one WhatsApp call (OpenAlgo's limit for `phones`). */
export const WHATSAPP_MAX_RECIPIENTS = 5;

/** Who is asking: the API key's principal. */
export interface NotifyCaller {
  userId: number;
  username: string;
  /** The request's API key, scrubbed from anything a chat server answers. */
  apikey: string;
}

export interface TelegramNotifyInput {
  username?: string;
  message: string;
  priority?: number;
}

export interface WhatsAppNotifyInput {
  self?: boolean;
  username?: string;
  phone?: string;
  phones?: string[];
  message: string;
  image_path?: string;
  document_path?: string;
}

/** OpenAlgo's answer and the HTTP status to send it with. */
export interface NotifyAnswer<B> {
  status: 200 | 502;
  body: B;
}

export interface TelegramNotifyBody {
  status: 'success' | 'error';
  message: string;
}

/** OpenAlgo's per-recipient report: the numbers that took the message, and those that did not. */
export interface WhatsAppReport {
  sent: string[];
  failed: Array<{ to: string; error: string }>;
}

export interface WhatsAppNotifyBody {
  status: 'success' | 'error';
  message: string;
  data: WhatsAppReport;
}

const SETTINGS_PLACE = 'Profile → Order alerts';

/** A number as logs may show it: its last 4 digits. */
const masked = (n: string) => `…${n.slice(-4)}`;

export class NotifyService {
  private readonly log: Logger;

  constructor(
    private readonly settings: Pick<AlertSettingsService, 'channels'>,
    private readonly delivery: AlertDelivery,
    logger: Logger,
  ) {
    this.log = logger.child({ module: 'alerts' });
  }

  /** `POST /api/v1/telegram/notify`: the message to the user's saved Telegram chat. */
  async telegram(
    caller: NotifyCaller,
    input: TelegramNotifyInput,
  ): Promise<NotifyAnswer<TelegramNotifyBody>> {
    ownUserOnly(caller, input.username);
    notBlank(input.message);
    const { telegram } = await this.settings.channels(caller.userId);
    if (!telegram)
      throw conflict(
        `Telegram is not set up for ${caller.username}: save a bot token and chat id under ${SETTINGS_PLACE}`,
      );
    const r = await this.delivery.telegram.send(telegram, input.message);
    const fields = {
      userId: caller.userId,
      channel: r.channel,
      status: r.status,
      host: r.host,
      attempts: r.attempts,
    };
    if (r.ok) {
      this.log.info(fields, 'notify sent');
      return { status: 200, body: { status: 'success', message: 'Notification sent successfully' } };
    }
    const error = scrub(r.error ?? 'unknown error', [caller.apikey, telegram.botToken]);
    this.log.warn({ ...fields, error }, 'notify not delivered');
    return {
      status: 502,
      body: { status: 'error', message: `Telegram did not deliver the notification: ${error}` },
    };
  }

  /**
   * `POST /api/v1/whatsapp/notify`: the message to the user's own number (`self`, or `username`
   * naming the key's own user), one `phone` or up to five `phones`, sent in parallel.
   */
  async whatsapp(
    caller: NotifyCaller,
    input: WhatsAppNotifyInput,
  ): Promise<NotifyAnswer<WhatsAppNotifyBody>> {
    if (input.image_path !== undefined || input.document_path !== undefined)
      throw badRequest('Attachments (image_path, document_path) are not supported; send text in message', {
        [input.image_path !== undefined ? 'image_path' : 'document_path']: [
          'Attachments are not supported; send text in message.',
        ],
      });
    const chosen = (['self', 'username', 'phone', 'phones'] as const).filter((k) =>
      k === 'self' ? input.self === true : input[k] !== undefined,
    );
    if (chosen.length !== 1)
      throw badRequest(
        chosen.length === 0
          ? "Specify one recipient: 'self', 'username', 'phone' or 'phones'"
          : `Specify only one recipient, not ${chosen.join(' and ')}`,
      );
    ownUserOnly(caller, input.username);
    notBlank(input.message);
    const numbers = recipients(input);
    const channels = await this.settings.channels(caller.userId);
    if (!channels.whatsapp)
      throw conflict(
        `WhatsApp is not set up for ${caller.username}: save a WhatsApp Cloud API access token and phone-number id under ${SETTINGS_PLACE}`,
      );
    const to = numbers ?? (channels.whatsappOwnNumber ? [channels.whatsappOwnNumber] : undefined);
    if (!to)
      throw conflict(
        `No own WhatsApp number is saved for ${caller.username}: save it under ${SETTINGS_PLACE}, or give phone or phones`,
      );
    const target = channels.whatsapp;
    const results = await Promise.all(to.map((n) => this.delivery.whatsapp.send(target, n, input.message)));
    const report = toReport(results, [caller.apikey, target.accessToken]);
    this.log[report.sent.length > 0 ? 'info' : 'warn'](
      {
        userId: caller.userId,
        channel: 'whatsapp',
        host: this.delivery.whatsapp.host,
        results: results.map((r) => ({ to: masked(r.to), ok: r.ok, status: r.status, attempts: r.attempts })),
      },
      report.sent.length > 0 ? 'notify sent' : 'notify not delivered',
    );
    const message = `Delivered to ${report.sent.length}, failed ${report.failed.length}`;
    // A send that reached nobody is not a success: its first reason is the message.
    if (report.sent.length === 0)
      return {
        status: 502,
        body: {
          status: 'error',
          message: `WhatsApp did not deliver the notification: ${report.failed[0]?.error ?? 'unknown error'}`,
          data: report,
        },
      };
    return { status: 200, body: { status: 'success', message, data: report } };
  }
}

/** 403 unless `username` is absent or names the caller (usernames compare as they log in). */
function ownUserOnly(caller: NotifyCaller, username: string | undefined): void {
  if (username !== undefined && normaliseUsername(username) !== caller.username)
    throw forbidden(
      "username must be the API key's own user: a notification goes only to your own chat or number",
    );
}

/** 400 for a message of nothing but spaces (the schema already refuses an empty one). */
function notBlank(message: string): void {
  if (message.trim() === '')
    throw badRequest('message must not be blank', { message: ['Must not be blank.'] });
}

/** The numbers given in `phone`/`phones`, as E.164 digits without repeats; undefined for `self`/`username`. */
function recipients(input: WhatsAppNotifyInput): string[] | undefined {
  const given = input.phones ?? (input.phone !== undefined ? [input.phone] : undefined);
  if (given === undefined) return undefined;
  const fields: Record<string, string[]> = {};
  const out: string[] = [];
  given.forEach((raw, i) => {
    const n = whatsAppNumber(raw);
    if (n === undefined)
      fields[input.phones ? `phones.${i}` : 'phone'] = [
        'Must be an international number with its country code, e.g. 919876543210.',
      ];
    else if (!out.includes(n)) out.push(n);
  });
  if (Object.keys(fields).length > 0) throw badRequest('Malformed phone number', fields);
  if (out.length > WHATSAPP_MAX_RECIPIENTS)
    throw badRequest(`At most ${WHATSAPP_MAX_RECIPIENTS} recipients`, {
      phones: [`Must have at most ${WHATSAPP_MAX_RECIPIENTS} numbers.`],
    });
  return out;
}

function toReport(results: WhatsAppResult[], secrets: string[]): WhatsAppReport {
  return {
    sent: results.filter((r) => r.ok).map((r) => r.to),
    failed: results
      .filter((r) => !r.ok)
      .map((r) => ({ to: r.to, error: scrub(r.error ?? 'unknown error', secrets) })),
  };
}

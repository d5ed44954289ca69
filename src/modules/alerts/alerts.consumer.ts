/**
 * The chat-alert consumer of order events (docs/rules/alerts.md#alert-events): looks up the
 * event's user's settings (cached), applies `notify_on`, formats the text and sends it to each
 * enabled channel at once. It never throws and is bounded in time (each attempt times out, at
 * most one retry after ≤ 2 s), so a dead chat server costs a dispatch worker seconds, never the
 * order path. Failures are logged with the channel, status and host only: never the token or
 * webhook URL (docs/rules/alerts.md#alert-delivery-failures).
 */
import type { Logger } from 'pino';
import type { OrderEvent } from '../orders/order-events.js';
import { AlertHttp, type AlertHttpOptions, type ChannelResult } from './alert-http.js';
import { alertKind, formatAlert, type AlertKind } from './alert-format.js';
import type { AlertSettingsService, AlertTargets, NotifyOn } from './alert-settings.service.js';
import { SlackSender } from './slack.sender.js';
import { TelegramSender } from './telegram.sender.js';
import { WhatsAppSender } from './whatsapp.sender.js';

export interface AlertDeliveryOptions extends AlertHttpOptions {
  /** Telegram Bot API origin (default https://api.telegram.org; config `TELEGRAM_API_BASE_URL`). */
  telegramBaseUrl?: string;
  /**
   * WhatsApp Cloud API origin and version (default https://graph.facebook.com/v24.0; config
   * `WHATSAPP_API_BASE_URL`).
   */
  whatsappBaseUrl?: string;
}

/**
 * The channel senders over one HTTP client: Telegram and Slack for the consumer and the test
 * route, Telegram and WhatsApp for the notify API (docs/rules/alerts.md#notify-api).
 */
export class AlertDelivery {
  readonly telegram: TelegramSender;
  readonly slack: SlackSender;
  readonly whatsapp: WhatsAppSender;

  constructor(opts: AlertDeliveryOptions = {}) {
    const http = new AlertHttp(opts);
    this.telegram = new TelegramSender(http, opts.telegramBaseUrl ? { baseUrl: opts.telegramBaseUrl } : {});
    this.slack = new SlackSender(http);
    this.whatsapp = new WhatsAppSender(http, opts.whatsappBaseUrl ? { baseUrl: opts.whatsappBaseUrl } : {});
  }

  /** Sends `text` to every channel in `targets` in parallel; never rejects. */
  send(targets: AlertTargets, text: string): Promise<ChannelResult[]> {
    const sends: Promise<ChannelResult>[] = [];
    if (targets.telegram) sends.push(this.telegram.send(targets.telegram, text));
    if (targets.slack) sends.push(this.slack.send(targets.slack, text));
    return Promise.all(sends);
  }
}

/** Whether a user who chose `notifyOn` wants an alert of `kind`. */
export function wantsAlert(notifyOn: NotifyOn, kind: AlertKind): boolean {
  return notifyOn === 'all' || (notifyOn === 'failures' ? kind === 'failed' : kind === 'placed');
}

export interface AlertConsumerDeps {
  settings: Pick<AlertSettingsService, 'targets'>;
  delivery: AlertDelivery;
  logger: Logger;
}

/** The consumer to subscribe on the order event bus (`events.subscribe('chat-alerts', …)`). */
export function alertConsumer(deps: AlertConsumerDeps): (e: OrderEvent) => Promise<void> {
  const log = deps.logger.child({ module: 'alerts' });
  return async (e) => {
    if (e.userId === null) return;
    try {
      const targets = await deps.settings.targets(e.userId);
      if (!targets || !wantsAlert(targets.notifyOn, alertKind(e))) return;
      const results = await deps.delivery.send(targets, formatAlert(e));
      for (const r of results) {
        const fields = {
          channel: r.channel,
          status: r.status,
          host: r.host,
          attempts: r.attempts,
          event: e.name,
          userId: e.userId,
          orderId: e.orderId,
        };
        if (r.ok) log.debug(fields, 'chat alert sent');
        else log.warn({ ...fields, error: r.error }, 'chat alert not delivered');
      }
    } catch (err) {
      // A settings lookup that fails (database down) costs the alert, never the other consumers.
      log.error(
        { error: err instanceof Error ? err.message : String(err), event: e.name, userId: e.userId },
        'chat alert skipped: settings lookup failed',
      );
    }
  };
}

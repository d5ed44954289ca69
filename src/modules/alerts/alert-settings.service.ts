/**
 * Each user's chat-alert settings: Telegram (bot token + chat id) and a Slack-compatible incoming
 * webhook, plus which events to send (docs/rules/alerts.md#alert-events). The token and the
 * webhook URL are credentials (docs/rules/alerts.md#alert-credentials): sealed with SecretBox
 * before they are written, opened only in memory for a send, never shown again (the view says
 * whether they are set and gives a harmless hint).
 * The consumer's per-user lookup is cached and dropped here and on every other instance through
 * the invalidation bus when the settings change; a short TTL covers a lost message.
 */
import type { Logger } from 'pino';
import type { Clock } from '../../platform/clock.js';
import { SecretBox } from '../../platform/crypto.js';
import { fromDbBool, toDbBool } from '../../platform/db/database.js';
import { badRequest } from '../../platform/errors.js';
import type { InvalidationBus } from '../../platform/invalidation.js';
import type { AlertSettingsRepository, AlertSettingsRow } from './alert-settings.repository.js';
import type { SlackTarget } from './slack.sender.js';
import type { TelegramTarget } from './telegram.sender.js';

/** Invalidation topic; the key is the user id. */
export const ALERT_SETTINGS_TOPIC = 'alert-settings';

/** Which events alert: every one, failures only (`order.failed`, `analyzer.error`), placements only. */
export const NOTIFY_ON = ['all', 'failures', 'placed'] as const;
export type NotifyOn = (typeof NOTIFY_ON)[number];

/** Telegram bot token as BotFather issues it: `<bot id>:<secret>`. */
export const TELEGRAM_TOKEN_PATTERN = /^\d{5,12}:[A-Za-z0-9_-]{30,60}$/;
/** A numeric chat id (negative for groups) or a public `@channelusername`. */
export const TELEGRAM_CHAT_ID_PATTERN = /^-?\d{1,20}$|^@[A-Za-z0-9_]{5,32}$/;

const CACHE_TTL_MS = 60_000;
const CACHE_MAX = 10_000;
const WEBHOOK_MAX_LENGTH = 2048;

/** Decrypted settings of one user, in memory only: what the consumer sends with. */
export interface AlertTargets {
  notifyOn: NotifyOn;
  /** Present when Telegram is enabled and configured. */
  telegram?: TelegramTarget;
  /** Present when Slack is enabled and configured. */
  slack?: SlackTarget;
}

/** What the settings page shows: never the token or the webhook URL. */
export interface AlertSettingsView {
  telegram_enabled: boolean;
  telegram_bot_token_set: boolean;
  /** Last 4 characters of the chat id (`…4321`), null when none is set. */
  telegram_chat_id_hint: string | null;
  slack_enabled: boolean;
  slack_webhook_url_set: boolean;
  /** Host of the webhook URL only (its path is the credential), null when none is set. */
  slack_webhook_host: string | null;
  notify_on: NotifyOn;
  /** ISO-8601 UTC, null before the first save. */
  updated_at: string | null;
}

/** A change: absent fields stay as they are; `null` or `""` clears a credential. */
export interface AlertSettingsPatch {
  telegram_enabled?: boolean;
  telegram_bot_token?: string | null;
  telegram_chat_id?: string | null;
  slack_enabled?: boolean;
  slack_webhook_url?: string | null;
  notify_on?: string;
}

/** True for `localhost`, 127.0.0.0/8 and ::1: the only hosts a plain-http webhook may name. */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h);
}

/** Why `raw` is not an acceptable webhook URL, undefined when it is. Never echoes the input. */
export function webhookUrlProblem(raw: string): string | undefined {
  if (raw.length > WEBHOOK_MAX_LENGTH) return `Must be at most ${WEBHOOK_MAX_LENGTH} characters.`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'Must be an absolute https:// URL.';
  }
  if (url.username || url.password) return 'Must not contain a user name or password.';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return undefined;
  return 'Must be an https:// URL (http:// is accepted only for a loopback host).';
}

const clean = (v: string | null | undefined): string | null | undefined =>
  v === undefined ? undefined : v === null ? null : v.trim() === '' ? null : v.trim();

export class AlertSettingsService {
  private readonly tokenBox: SecretBox;
  private readonly webhookBox: SecretBox;
  private readonly cache = new Map<number, { targets: AlertTargets | null; expires: number }>();

  constructor(
    private readonly repo: AlertSettingsRepository,
    appKey: string,
    private readonly clock: Clock,
    private readonly bus: InvalidationBus,
    private readonly logger?: Logger,
  ) {
    this.tokenBox = new SecretBox(appKey, 'telegram-token');
    this.webhookBox = new SecretBox(appKey, 'slack-webhook');
    bus.subscribe(ALERT_SETTINGS_TOPIC, (key) => this.cache.delete(Number(key)));
  }

  /** The settings for display (defaults when the user never saved any). */
  async view(userId: number): Promise<AlertSettingsView> {
    const row = await this.repo.get(userId);
    const chatId = row?.telegram_chat_id ?? null;
    const webhook = row?.slack_webhook_url_encrypted ? this.open(this.webhookBox, row, 'slack') : undefined;
    return {
      telegram_enabled: fromDbBool(row?.telegram_enabled),
      telegram_bot_token_set: Boolean(row?.telegram_bot_token_encrypted),
      telegram_chat_id_hint: chatId === null ? null : `…${chatId.length > 4 ? chatId.slice(-4) : ''}`,
      slack_enabled: fromDbBool(row?.slack_enabled),
      slack_webhook_url_set: Boolean(row?.slack_webhook_url_encrypted),
      slack_webhook_host: webhook ? new URL(webhook).host : null,
      notify_on: asNotifyOn(row?.notify_on),
      updated_at: row ? new Date(row.updated_at).toISOString() : null,
    };
  }

  /**
   * Validates and saves a change; 400 naming each bad field (never echoing a credential).
   * Enabling a channel requires its credentials, given now or saved before.
   */
  async update(userId: number, patch: AlertSettingsPatch): Promise<AlertSettingsView> {
    const fields: Record<string, string[]> = {};
    const fail = (field: string, msg: string) => (fields[field] ??= []).push(msg);
    const token = clean(patch.telegram_bot_token);
    const chatId = clean(patch.telegram_chat_id);
    const webhook = clean(patch.slack_webhook_url);
    if (token && !TELEGRAM_TOKEN_PATTERN.test(token))
      fail('telegram_bot_token', 'Must be a bot token as BotFather issues it (<digits>:<30-60 characters>).');
    if (chatId && !TELEGRAM_CHAT_ID_PATTERN.test(chatId))
      fail('telegram_chat_id', 'Must be a numeric chat id (e.g. -1001234567890) or @channelusername.');
    const webhookProblem = webhook ? webhookUrlProblem(webhook) : undefined;
    if (webhookProblem) fail('slack_webhook_url', webhookProblem);
    if (patch.notify_on !== undefined && !(NOTIFY_ON as readonly string[]).includes(patch.notify_on))
      fail('notify_on', `Must be one of: ${NOTIFY_ON.join(', ')}.`);

    const old = await this.repo.get(userId);
    const next = {
      user_id: userId,
      telegram_enabled: toDbBool(patch.telegram_enabled ?? fromDbBool(old?.telegram_enabled)),
      telegram_bot_token_encrypted:
        token === undefined
          ? (old?.telegram_bot_token_encrypted ?? null)
          : token && this.tokenBox.seal(token),
      telegram_chat_id: chatId === undefined ? (old?.telegram_chat_id ?? null) : chatId,
      slack_enabled: toDbBool(patch.slack_enabled ?? fromDbBool(old?.slack_enabled)),
      slack_webhook_url_encrypted:
        webhook === undefined
          ? (old?.slack_webhook_url_encrypted ?? null)
          : webhook && this.webhookBox.seal(webhook),
      notify_on: patch.notify_on ?? asNotifyOn(old?.notify_on),
      updated_at: this.clock.now(),
    };
    if (next.telegram_enabled) {
      if (!next.telegram_bot_token_encrypted && !fields.telegram_bot_token)
        fail('telegram_bot_token', 'Required to enable Telegram alerts.');
      if (!next.telegram_chat_id && !fields.telegram_chat_id)
        fail('telegram_chat_id', 'Required to enable Telegram alerts.');
    }
    if (next.slack_enabled && !next.slack_webhook_url_encrypted && !fields.slack_webhook_url)
      fail('slack_webhook_url', 'Required to enable Slack alerts.');
    if (Object.keys(fields).length > 0) {
      const summary = Object.entries(fields)
        .map(([f, m]) => `${f}: ${m.join(' ')}`)
        .join('; ');
      throw badRequest(`Invalid alert settings: ${summary}`, fields);
    }

    await this.repo.save(next);
    this.cache.delete(userId);
    this.bus.publish(ALERT_SETTINGS_TOPIC, String(userId));
    return this.view(userId);
  }

  /**
   * The user's enabled channels with their credentials opened, undefined when none is enabled.
   * Cached per user (see the file comment); a credential that no longer opens (APP_KEY changed)
   * drops its channel with a warning rather than failing the lookup.
   */
  async targets(userId: number): Promise<AlertTargets | undefined> {
    const now = this.clock.now();
    const hit = this.cache.get(userId);
    if (hit && hit.expires > now) return hit.targets ?? undefined;
    const row = await this.repo.get(userId);
    const targets = row ? this.toTargets(row) : null;
    if (this.cache.size >= CACHE_MAX) this.cache.delete(this.cache.keys().next().value as number);
    this.cache.set(userId, { targets, expires: now + CACHE_TTL_MS });
    return targets ?? undefined;
  }

  private toTargets(row: AlertSettingsRow): AlertTargets | null {
    const t: AlertTargets = { notifyOn: asNotifyOn(row.notify_on) };
    if (fromDbBool(row.telegram_enabled) && row.telegram_bot_token_encrypted && row.telegram_chat_id) {
      const botToken = this.open(this.tokenBox, row, 'telegram');
      if (botToken) t.telegram = { botToken, chatId: row.telegram_chat_id };
    }
    if (fromDbBool(row.slack_enabled) && row.slack_webhook_url_encrypted) {
      const webhookUrl = this.open(this.webhookBox, row, 'slack');
      if (webhookUrl) t.slack = { webhookUrl };
    }
    return t.telegram || t.slack ? t : null;
  }

  private open(box: SecretBox, row: AlertSettingsRow, channel: 'telegram' | 'slack'): string | undefined {
    const sealed =
      channel === 'telegram' ? row.telegram_bot_token_encrypted : row.slack_webhook_url_encrypted;
    try {
      return sealed ? box.open(sealed) : undefined;
    } catch {
      this.logger?.warn(
        { userId: row.user_id, channel },
        'stored alert credential cannot be decrypted (APP_KEY changed?); channel skipped',
      );
      return undefined;
    }
  }
}

function asNotifyOn(v: string | undefined): NotifyOn {
  return (NOTIFY_ON as readonly string[]).includes(v ?? '') ? (v as NotifyOn) : 'all';
}

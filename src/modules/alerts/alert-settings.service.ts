/**
 * Each user's chat-alert settings: Telegram (bot token + chat id) and a Slack-compatible incoming
 * webhook, plus which events to send (docs/rules/alerts.md#alert-events), and the WhatsApp Cloud
 * API sender (access token, phone-number id, own number) used by the notify API
 * (docs/rules/alerts.md#notify-api). The tokens and the webhook URL are credentials
 * (docs/rules/alerts.md#alert-credentials): sealed with SecretBox before they are written, opened
 * only in memory for a send, never shown again (the view says whether they are set and gives a
 * harmless hint).
 * The per-user lookup (the consumer's targets, the notify API's channels) is cached and dropped
 * here and on every other instance through the invalidation bus when the settings change; a short
 * TTL covers a lost message.
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
import {
  WHATSAPP_PHONE_NUMBER_ID_PATTERN,
  WHATSAPP_TOKEN_PATTERN,
  whatsAppNumber,
  type WhatsAppTarget,
} from './whatsapp.sender.js';

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

/**
 * Every channel a user has credentials for, opened, whether or not it is switched on for order
 * alerts: what the notify API sends with (docs/rules/alerts.md#notify-api).
 */
export interface NotifyChannels {
  /** Present when a bot token and a chat id are saved (and the token opens). */
  telegram?: TelegramTarget;
  /** Present when an access token and a phone-number id are saved (and the token opens). */
  whatsapp?: WhatsAppTarget;
  /** The user's own WhatsApp number (E.164 digits), for `self`. */
  whatsappOwnNumber?: string;
}

/** What the settings page shows: never a token or the webhook URL. */
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
  whatsapp_access_token_set: boolean;
  /** The business phone-number id (an address, not a secret), null when none is set. */
  whatsapp_phone_number_id: string | null;
  /** The user's own number (E.164 digits), null when none is set. */
  whatsapp_own_number: string | null;
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
  whatsapp_access_token?: string | null;
  whatsapp_phone_number_id?: string | null;
  whatsapp_own_number?: string | null;
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

/** A row with every credential opened: what the cache keeps, and both lookups read. */
interface OpenedSettings {
  notifyOn: NotifyOn;
  telegramEnabled: boolean;
  slackEnabled: boolean;
  telegram?: TelegramTarget;
  slack?: SlackTarget;
  whatsapp?: WhatsAppTarget;
  whatsappOwnNumber?: string;
}

type SealedChannel = 'telegram' | 'slack' | 'whatsapp';

export class AlertSettingsService {
  private readonly tokenBox: SecretBox;
  private readonly webhookBox: SecretBox;
  private readonly whatsappBox: SecretBox;
  private readonly cache = new Map<number, { opened: OpenedSettings | null; expires: number }>();

  constructor(
    private readonly repo: AlertSettingsRepository,
    appKey: string,
    private readonly clock: Clock,
    private readonly bus: InvalidationBus,
    private readonly logger?: Logger,
  ) {
    this.tokenBox = new SecretBox(appKey, 'telegram-token');
    this.webhookBox = new SecretBox(appKey, 'slack-webhook');
    this.whatsappBox = new SecretBox(appKey, 'whatsapp-token');
    bus.subscribe(ALERT_SETTINGS_TOPIC, (key) => this.cache.delete(Number(key)));
  }

  /** The settings for display (defaults when the user never saved any). */
  async view(userId: number): Promise<AlertSettingsView> {
    const row = await this.repo.get(userId);
    const chatId = row?.telegram_chat_id ?? null;
    const webhook = row?.slack_webhook_url_encrypted
      ? this.openSealed(this.webhookBox, row, 'slack')
      : undefined;
    return {
      telegram_enabled: fromDbBool(row?.telegram_enabled),
      telegram_bot_token_set: Boolean(row?.telegram_bot_token_encrypted),
      telegram_chat_id_hint: chatId === null ? null : `…${chatId.length > 4 ? chatId.slice(-4) : ''}`,
      slack_enabled: fromDbBool(row?.slack_enabled),
      slack_webhook_url_set: Boolean(row?.slack_webhook_url_encrypted),
      slack_webhook_host: webhook ? new URL(webhook).host : null,
      notify_on: asNotifyOn(row?.notify_on),
      whatsapp_access_token_set: Boolean(row?.whatsapp_access_token_encrypted),
      whatsapp_phone_number_id: row?.whatsapp_phone_number_id ?? null,
      whatsapp_own_number: row?.whatsapp_own_number ?? null,
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
    const waToken = clean(patch.whatsapp_access_token);
    const waPhoneId = clean(patch.whatsapp_phone_number_id);
    const waOwnRaw = clean(patch.whatsapp_own_number);
    const waOwn = waOwnRaw ? whatsAppNumber(waOwnRaw) : waOwnRaw;
    if (token && !TELEGRAM_TOKEN_PATTERN.test(token))
      fail('telegram_bot_token', 'Must be a bot token as BotFather issues it (<digits>:<30-60 characters>).');
    if (chatId && !TELEGRAM_CHAT_ID_PATTERN.test(chatId))
      fail('telegram_chat_id', 'Must be a numeric chat id (e.g. -1001234567890) or @channelusername.');
    const webhookProblem = webhook ? webhookUrlProblem(webhook) : undefined;
    if (webhookProblem) fail('slack_webhook_url', webhookProblem);
    if (patch.notify_on !== undefined && !(NOTIFY_ON as readonly string[]).includes(patch.notify_on))
      fail('notify_on', `Must be one of: ${NOTIFY_ON.join(', ')}.`);
    if (waToken && !WHATSAPP_TOKEN_PATTERN.test(waToken))
      fail(
        'whatsapp_access_token',
        'Must be a WhatsApp Cloud API access token (20-1024 characters, no spaces).',
      );
    if (waPhoneId && !WHATSAPP_PHONE_NUMBER_ID_PATTERN.test(waPhoneId))
      fail('whatsapp_phone_number_id', 'Must be the phone-number id Meta shows in API setup (digits only).');
    if (waOwnRaw && !waOwn)
      fail(
        'whatsapp_own_number',
        'Must be an international number with its country code, e.g. 919876543210 or +91 98765 43210.',
      );

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
      whatsapp_access_token_encrypted:
        waToken === undefined
          ? (old?.whatsapp_access_token_encrypted ?? null)
          : waToken && this.whatsappBox.seal(waToken),
      whatsapp_phone_number_id: waPhoneId === undefined ? (old?.whatsapp_phone_number_id ?? null) : waPhoneId,
      whatsapp_own_number: waOwn === undefined ? (old?.whatsapp_own_number ?? null) : waOwn,
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
    const o = await this.opened(userId);
    if (!o) return undefined;
    const t: AlertTargets = { notifyOn: o.notifyOn };
    if (o.telegramEnabled && o.telegram) t.telegram = o.telegram;
    if (o.slackEnabled && o.slack) t.slack = o.slack;
    return t.telegram || t.slack ? t : undefined;
  }

  /**
   * Every channel the user has credentials for, opened (see {@link NotifyChannels}); the order
   * alert switches do not apply. Cached with {@link targets}.
   */
  async channels(userId: number): Promise<NotifyChannels> {
    const o = await this.opened(userId);
    if (!o) return {};
    return {
      ...(o.telegram ? { telegram: o.telegram } : {}),
      ...(o.whatsapp ? { whatsapp: o.whatsapp } : {}),
      ...(o.whatsappOwnNumber ? { whatsappOwnNumber: o.whatsappOwnNumber } : {}),
    };
  }

  private async opened(userId: number): Promise<OpenedSettings | null> {
    const now = this.clock.now();
    const hit = this.cache.get(userId);
    if (hit && hit.expires > now) return hit.opened;
    const row = await this.repo.get(userId);
    const opened = row ? this.open(row) : null;
    if (this.cache.size >= CACHE_MAX) this.cache.delete(this.cache.keys().next().value as number);
    this.cache.set(userId, { opened, expires: now + CACHE_TTL_MS });
    return opened;
  }

  private open(row: AlertSettingsRow): OpenedSettings {
    const o: OpenedSettings = {
      notifyOn: asNotifyOn(row.notify_on),
      telegramEnabled: fromDbBool(row.telegram_enabled),
      slackEnabled: fromDbBool(row.slack_enabled),
    };
    if (row.telegram_bot_token_encrypted && row.telegram_chat_id) {
      const botToken = this.openSealed(this.tokenBox, row, 'telegram');
      if (botToken) o.telegram = { botToken, chatId: row.telegram_chat_id };
    }
    if (row.slack_webhook_url_encrypted) {
      const webhookUrl = this.openSealed(this.webhookBox, row, 'slack');
      if (webhookUrl) o.slack = { webhookUrl };
    }
    if (row.whatsapp_access_token_encrypted && row.whatsapp_phone_number_id) {
      const accessToken = this.openSealed(this.whatsappBox, row, 'whatsapp');
      if (accessToken) o.whatsapp = { accessToken, phoneNumberId: row.whatsapp_phone_number_id };
    }
    if (row.whatsapp_own_number) o.whatsappOwnNumber = row.whatsapp_own_number;
    return o;
  }

  private openSealed(box: SecretBox, row: AlertSettingsRow, channel: SealedChannel): string | undefined {
    const sealed =
      channel === 'telegram'
        ? row.telegram_bot_token_encrypted
        : channel === 'slack'
          ? row.slack_webhook_url_encrypted
          : row.whatsapp_access_token_encrypted;
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

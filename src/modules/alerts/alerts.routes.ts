/**
 * Chat-alert settings of the logged-in user (docs/rules/alerts.md#alert-credentials), the
 * WhatsApp sender of the notify API (docs/rules/alerts.md#notify-api) included:
 * `GET /settings/alerts` (session), `POST /settings/alerts` (session + CSRF) and
 * `POST /settings/alerts/test` (session + CSRF): a test message to each enabled channel, with
 * each channel's outcome. No answer ever carries a token or the webhook URL.
 */
import { Type } from 'typebox';
import { badRequest } from '../../platform/errors.js';
import type { RateLimitHook } from '../../platform/http/rate-limit.js';
import type { App } from '../../platform/http/types.js';
import { ErrorBody } from '../../platform/http/error-body.js';
import type { SessionGuard } from '../auth/session.guard.js';
import type { AlertSettingsService } from './alert-settings.service.js';
import type { AlertDelivery } from './alerts.consumer.js';

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);
const NotifyOnSchema = Type.Union([Type.Literal('all'), Type.Literal('failures'), Type.Literal('placed')]);

/** The settings as shown: whether each credential is set, never the credential. */
export const AlertSettingsViewSchema = Type.Object({
  telegram_enabled: Type.Boolean(),
  telegram_bot_token_set: Type.Boolean(),
  /** `…4321`: the chat id's last 4 characters. */
  telegram_chat_id_hint: Nullable(Type.String()),
  slack_enabled: Type.Boolean(),
  slack_webhook_url_set: Type.Boolean(),
  /** The webhook's host only; its path is the credential. */
  slack_webhook_host: Nullable(Type.String()),
  notify_on: NotifyOnSchema,
  whatsapp_access_token_set: Type.Boolean(),
  /** The WhatsApp Business phone-number id (an address, not a secret). */
  whatsapp_phone_number_id: Nullable(Type.String()),
  /** The user's own number for `self` (E.164 digits). */
  whatsapp_own_number: Nullable(Type.String()),
  updated_at: Nullable(Type.String()),
});

const SettingsResponse = Type.Object({
  status: Type.Literal('success'),
  settings: AlertSettingsViewSchema,
  message: Type.Optional(Type.String()),
});

/** A change; absent fields keep their value, `null` or `""` clears a credential. */
export const AlertSettingsBody = Type.Object(
  {
    telegram_enabled: Type.Optional(Type.Boolean()),
    /** BotFather token `<digits>:<30-60 characters>`; sealed at rest, never shown again. */
    telegram_bot_token: Type.Optional(Nullable(Type.String({ maxLength: 128 }))),
    /** Numeric chat id or `@channelusername`. */
    telegram_chat_id: Type.Optional(Nullable(Type.String({ maxLength: 64 }))),
    slack_enabled: Type.Optional(Type.Boolean()),
    /** https URL (http only for loopback); sealed at rest, never shown again. */
    slack_webhook_url: Type.Optional(Nullable(Type.String({ maxLength: 2048 }))),
    notify_on: Type.Optional(NotifyOnSchema),
    /** WhatsApp Cloud API access token (printable, no spaces); sealed at rest, never shown again. */
    whatsapp_access_token: Type.Optional(Nullable(Type.String({ maxLength: 1024 }))),
    /** The business phone number's id from Meta's API setup (digits). */
    whatsapp_phone_number_id: Type.Optional(Nullable(Type.String({ maxLength: 32 }))),
    /** The user's own number with its country code, for the notify API's `self`. */
    whatsapp_own_number: Type.Optional(Nullable(Type.String({ maxLength: 32 }))),
  },
  { additionalProperties: false },
);

const TestResponse = Type.Object({
  /** `success` only when every enabled channel accepted the message. */
  status: Type.Union([Type.Literal('success'), Type.Literal('error')]),
  message: Type.String(),
  results: Type.Array(
    Type.Object({
      channel: Type.Union([Type.Literal('telegram'), Type.Literal('slack')]),
      ok: Type.Boolean(),
      status: Type.Union([Type.Integer(), Type.Null()]),
      error: Type.Optional(Type.String()),
    }),
  ),
});

export interface AlertRouteDeps {
  settings: AlertSettingsService;
  delivery: AlertDelivery;
  guard: SessionGuard;
  rateLimit: RateLimitHook;
  /** The test route sends real messages: a tighter limit (e.g. the `heavy` 10 per minute). */
  testRateLimit?: RateLimitHook;
}

export function alertRoutes(app: App, deps: AlertRouteDeps): void {
  const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 429: ErrorBody };
  const user = { onRequest: deps.rateLimit, preHandler: deps.guard() };

  app.get(
    '/settings/alerts',
    {
      ...user,
      schema: {
        summary: 'Chat alert settings (never the credentials)',
        tags: ['alerts'],
        response: { 200: SettingsResponse, ...errors },
      },
    },
    async (req) => ({
      status: 'success' as const,
      settings: await deps.settings.view(req.session!.userId),
    }),
  );

  app.post(
    '/settings/alerts',
    {
      ...user,
      schema: {
        summary: 'Update the chat alert settings',
        tags: ['alerts'],
        body: AlertSettingsBody,
        response: { 200: SettingsResponse, ...errors },
      },
    },
    async (req) => ({
      status: 'success' as const,
      settings: await deps.settings.update(req.session!.userId, req.body),
      message: 'Alert settings saved',
    }),
  );

  app.post(
    '/settings/alerts/test',
    {
      onRequest: deps.testRateLimit ?? deps.rateLimit,
      preHandler: deps.guard(),
      schema: {
        summary: 'Send a test alert to each enabled channel',
        tags: ['alerts'],
        response: { 200: TestResponse, ...errors },
      },
    },
    async (req) => {
      const targets = await deps.settings.targets(req.session!.userId);
      if (!targets) throw badRequest('No alert channel is enabled; enable Telegram or Slack first');
      const results = await deps.delivery.send(
        targets,
        `🔔 Test alert from algodesk for ${req.session!.username}: order alerts will arrive here.`,
      );
      const failed = results.filter((r) => !r.ok);
      req.log.info(
        {
          userId: req.session!.userId,
          results: results.map((r) => ({ channel: r.channel, ok: r.ok, status: r.status, host: r.host })),
        },
        'chat alert test',
      );
      return {
        status: failed.length === 0 ? ('success' as const) : ('error' as const),
        message:
          failed.length === 0
            ? `Test alert delivered to ${results.map((r) => r.channel).join(' and ')}`
            : `Test alert failed on ${failed.map((r) => `${r.channel} (${r.error ?? 'unknown error'})`).join('; ')}`,
        results: results.map((r) => ({
          channel: r.channel,
          ok: r.ok,
          status: r.status,
          ...(r.error ? { error: r.error } : {}),
        })),
      };
    },
  );
}

/**
 * OpenAlgo's notify calls (docs/rules/alerts.md#notify-api): `POST /api/v1/telegram/notify` and
 * `POST /api/v1/whatsapp/notify`, the API key in the JSON body. The schema is checked before the
 * key (400 keyed by field), bodies are bounded (16 KiB, a 4,096-character message), and each
 * route has its own rate limit (OpenAlgo's 30 per minute).
 */
import { Type } from 'typebox';
import type { RateLimitHook } from '../../platform/http/rate-limit.js';
import type { App } from '../../platform/http/types.js';
import { ErrorBody } from '../../platform/http/error-body.js';
import type { ApiKeyGuard } from '../auth/api-key.guard.js';
import { schemaThenKey } from '../api/schema-then-key.js';
import type {
  NotifyCaller,
  NotifyService,
  TelegramNotifyInput,
  WhatsAppNotifyInput,
} from './notify.service.js';
import { WHATSAPP_MAX_RECIPIENTS } from './notify.service.js';
import { WHATSAPP_TEXT_MAX } from './whatsapp.sender.js';

/** Longest message: what both Telegram's `sendMessage` and WhatsApp's text body take. */
const MESSAGE_MAX = WHATSAPP_TEXT_MAX;
/** A notify body is a key, a few recipients and one message: 16 KiB is plenty. */
export const NOTIFY_BODY_LIMIT = 16 * 1024;

const ApiKey = Type.String({ minLength: 1, maxLength: 256 });
const Message = Type.String({
  minLength: 1,
  maxLength: MESSAGE_MAX,
  description: `The text to send (plain text, at most ${MESSAGE_MAX} characters).`,
});
const Username = Type.String({
  minLength: 1,
  maxLength: 64,
  description:
    "The algodesk login username the message is for (OpenAlgo's `username`); it must be the API key's own user.",
});

export const TelegramNotifyBody = Type.Object({
  apikey: ApiKey,
  username: Type.Optional(Username),
  message: Message,
  priority: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 10,
      description: "OpenAlgo's priority, 1-10 (default 5); accepted, every message is sent at once.",
    }),
  ),
});

const Phone = Type.String({
  minLength: 1,
  maxLength: 32,
  description:
    'International number with its country code: `919876543210` (a leading `+` and spaces are fine).',
});

export const WhatsAppNotifyBody = Type.Object({
  apikey: ApiKey,
  self: Type.Optional(
    Type.Boolean({ description: "Send to the user's own number (saved in the alert settings)." }),
  ),
  username: Type.Optional(Username),
  phone: Type.Optional(Phone),
  phones: Type.Optional(
    Type.Array(Phone, { minItems: 1, maxItems: WHATSAPP_MAX_RECIPIENTS, description: 'Up to 5 numbers.' }),
  ),
  message: Message,
  wait_for_delivery: Type.Optional(
    Type.Boolean({ description: "OpenAlgo's flag; accepted, the answer always waits for the send." }),
  ),
  image_path: Type.Optional(
    Type.String({ maxLength: 1024, description: 'Not supported: refused with 400.' }),
  ),
  document_path: Type.Optional(
    Type.String({ maxLength: 1024, description: 'Not supported: refused with 400.' }),
  ),
});

const TelegramOk = Type.Object({ status: Type.Literal('success'), message: Type.String() });
const TelegramFailure = Type.Object({
  status: Type.Literal('error'),
  message: Type.String(),
  code: Type.Optional(Type.String()),
});

const Report = Type.Object({
  /** Numbers WhatsApp accepted the message for. */
  sent: Type.Array(Type.String()),
  /** Numbers it refused, each with the reason. */
  failed: Type.Array(Type.Object({ to: Type.String(), error: Type.String() })),
});
const WhatsAppOk = Type.Object({ status: Type.Literal('success'), message: Type.String(), data: Report });
const WhatsAppFailure = Type.Object({
  status: Type.Literal('error'),
  message: Type.String(),
  code: Type.Optional(Type.String()),
  data: Type.Optional(Report),
});

export interface NotifyRouteDeps {
  notify: NotifyService;
  apiKeyGuard: ApiKeyGuard;
  telegramRateLimit: RateLimitHook;
  whatsappRateLimit: RateLimitHook;
}

export function notifyRoutes(app: App, deps: NotifyRouteDeps): void {
  const route = (summary: string, limit: RateLimitHook, body: unknown, ok: unknown, failure: unknown) => ({
    onRequest: limit,
    attachValidation: true,
    preHandler: schemaThenKey(deps.apiKeyGuard),
    bodyLimit: NOTIFY_BODY_LIMIT,
    schema: {
      summary,
      tags: ['openalgo-api'],
      body,
      response: { 200: ok, '4xx': ErrorBody, '5xx': failure },
    },
  });
  const caller = (req: {
    apiPrincipal?: { userId: number; username: string };
    body: unknown;
  }): NotifyCaller => ({
    userId: req.apiPrincipal!.userId,
    username: req.apiPrincipal!.username,
    apikey: (req.body as { apikey: string }).apikey,
  });

  app.post(
    '/api/v1/telegram/notify',
    route(
      "Send a message to the key's own Telegram chat",
      deps.telegramRateLimit,
      TelegramNotifyBody,
      TelegramOk,
      TelegramFailure,
    ),
    async (req, reply) => {
      const a = await deps.notify.telegram(caller(req), req.body as TelegramNotifyInput);
      return reply.code(a.status).send(a.body);
    },
  );

  app.post(
    '/api/v1/whatsapp/notify',
    route(
      "Send a WhatsApp message from the key's own WhatsApp Business number",
      deps.whatsappRateLimit,
      WhatsAppNotifyBody,
      WhatsAppOk,
      WhatsAppFailure,
    ),
    async (req, reply) => {
      const a = await deps.notify.whatsapp(caller(req), req.body as WhatsAppNotifyInput);
      return reply.code(a.status).send(a.body);
    },
  );
}

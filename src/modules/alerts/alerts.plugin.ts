/**
 * Chat alerts as a plugin: each user's Telegram, Slack and WhatsApp settings (tokens sealed at
 * rest), the consumer that sends an alert for the order events a user asked for, and OpenAlgo's
 * notify calls (`/api/v1/telegram/notify`, `/api/v1/whatsapp/notify`). Order-event sends wait on
 * the network, so they run beside the order event workers, never inside them.
 */
import type { AppDeps } from '../../app-deps.js';
import { modulePlugin, routeLimits, sessionScope } from '../../platform/http/module-plugin.js';
import { parseRateRules } from '../../platform/rate-rule.js';
import { detached } from '../orders/order-events.js';
import { AlertSettingsRepository } from './alert-settings.repository.js';
import { AlertSettingsService } from './alert-settings.service.js';
import { AlertDelivery, alertConsumer } from './alerts.consumer.js';
import { alertRoutes } from './alerts.routes.js';
import { NotifyService } from './notify.service.js';
import { notifyRoutes } from './notify.routes.js';

/** Chat sends waiting beside the order event workers before new ones are dropped. */
const CHAT_QUEUE_LIMIT = 200;
/** Each notify route's limit per client IP: OpenAlgo's default for its Telegram and WhatsApp APIs. */
const NOTIFY_RATE = parseRateRules('30 per minute');

export interface AlertServices {
  settings: AlertSettingsService;
  delivery: AlertDelivery;
}

declare module 'fastify' {
  interface FastifyInstance {
    alerts: AlertServices;
  }
}

export const alertsPlugin = modulePlugin<AppDeps>('alerts', ['auth', 'orders'], async (app, deps) => {
  const { config, logger } = deps;
  const settings = new AlertSettingsService(
    new AlertSettingsRepository(deps.database.db),
    config.appKey,
    deps.clock,
    deps.bus,
    logger,
  );
  const delivery = new AlertDelivery({
    ...(config.telegramApiBaseUrl ? { telegramBaseUrl: config.telegramApiBaseUrl } : {}),
    ...(config.whatsappApiBaseUrl ? { whatsappBaseUrl: config.whatsappApiBaseUrl } : {}),
  });
  app.decorate('alerts', { settings, delivery });
  app.orders.events.subscribe(
    'chat-alerts',
    detached(alertConsumer({ settings, delivery, logger }), CHAT_QUEUE_LIMIT, logger, 'chat-alerts'),
  );
  const limits = routeLimits(deps);
  notifyRoutes(app, {
    notify: new NotifyService(settings, delivery, logger),
    apiKeyGuard: app.auth.apiKeyGuard,
    telegramRateLimit: limits.limit('telegram-notify', NOTIFY_RATE),
    whatsappRateLimit: limits.limit('whatsapp-notify', NOTIFY_RATE),
  });
  await sessionScope(app, (web) =>
    alertRoutes(web, {
      settings,
      delivery,
      guard: app.auth.guard,
      rateLimit: limits.admin,
      testRateLimit: limits.limit('alert-test', limits.rules.heavy),
    }),
  );
});

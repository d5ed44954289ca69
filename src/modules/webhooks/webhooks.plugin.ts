/**
 * Inbound webhooks as a plugin: the deliveries' audit and de-duplication tables every source
 * (strategies, scanners, flows) shares, and the one job that purges claims older than the
 * de-duplication window (a claim is judged by its age, so the purge only keeps the table small).
 */
import type { AppDeps } from '../../app-deps.js';
import { modulePlugin, repeatWhileUp } from '../../platform/http/module-plugin.js';
import { DEDUPE_WINDOW_MS } from '../../domain/limits.js';
import { WebhooksRepository } from './webhooks.repository.js';

export interface WebhookServices {
  repo: WebhooksRepository;
}

declare module 'fastify' {
  interface FastifyInstance {
    webhooks: WebhookServices;
  }
}

export const webhooksPlugin = modulePlugin<AppDeps>('webhooks', [], async (app, deps) => {
  const repo = new WebhooksRepository(deps.database.db);
  app.decorate('webhooks', { repo });
  repeatWhileUp(
    app,
    60_000,
    () => repo.purgeDedupe(deps.clock.now() - DEDUPE_WINDOW_MS),
    deps.logger.child({ module: 'webhooks' }),
    'webhook dedupe purge',
  );
});

/**
 * Flow workflows as a plugin (docs/rules/flow.md): the definition routes, the webhook (its own
 * raw-body scope) and the runner, built from the market, sandbox, orders and alerts services.
 * A flow's orders follow the service's analyzer switch, as API orders do.
 */
import type { AppDeps } from '../../app-deps.js';
import { modulePlugin, routeLimits, sessionScope } from '../../platform/http/module-plugin.js';
import { FlowRepository } from './flow.repository.js';
import { FlowService } from './flow.service.js';
import { FlowRunner, type FlowTrading } from './flow-runner.js';
import { FlowWebhook } from './flow-webhook.service.js';
import { flowRoutes, flowWebhookRoutes } from './flow.routes.js';

export interface FlowServices {
  flows: FlowService;
  webhook: FlowWebhook;
}

declare module 'fastify' {
  interface FastifyInstance {
    flow: FlowServices;
  }
}

export const flowPlugin = modulePlugin<AppDeps>(
  'flow',
  ['auth', 'market-admin', 'market', 'sandbox', 'orders', 'alerts', 'tunnel', 'webhooks'],
  async (app, deps) => {
    const { config, logger, clock } = deps;
    const { tunnel, auth, market, marketAdmin, sandbox, orders, alerts } = app;
    const webhooks = app.webhooks.repo;
    const log = logger.child({ module: 'flow' });
    const publicBase = deps.publicBaseUrl ?? (() => tunnel.publicUrl() ?? undefined);
    const repo = new FlowRepository(deps.database.db);
    const analyze = () => sandbox.mode.analyze;
    const trading: FlowTrading = {
      sessionOn: (exchange, date) => marketAdmin.sessionOn(exchange, date),
      place: (userId, order) => orders.pipeline.run(userId, order, { apiType: 'flow' }),
      async netPosition(userId, key) {
        if (analyze()) return sandbox.books.netQuantity(userId, key);
        const a = await orders.live.openPosition(userId, key);
        if (a.status !== 200 || a.body.status !== 'success')
          throw new Error(`the broker's position book is unavailable (${a.status})`);
        return Number(a.body.quantity) || 0;
      },
      async closable(userId, key) {
        if (analyze()) return sandbox.books.closableQuantity(userId, key);
        const c = await orders.live.closable(userId, key);
        if (!c.ok) throw new Error(`the broker's books are unavailable (${c.answer.status})`);
        return c.quantity;
      },
      async cancelAll(userId) {
        if (analyze()) {
          const r = await sandbox.service.cancelAll(userId);
          return { cancelled: r.cancelled.length, failed: r.failed.length };
        }
        const a = await orders.live.cancelAll(userId);
        if (a.body.status !== 'success') throw new Error(`the broker refused (${a.status})`);
        const b = a.body as { canceled_orders?: unknown[]; failed_cancellations?: unknown[] };
        return { cancelled: b.canceled_orders?.length ?? 0, failed: b.failed_cancellations?.length ?? 0 };
      },
      async quote(symbol, exchange) {
        const inst = await market.contracts.get(symbol, exchange);
        return inst ? sandbox.prices().quote(inst) : undefined;
      },
      async notify(userId, text) {
        const targets = await alerts.settings.targets(userId);
        if (!targets) return { channels: 0, delivered: 0 };
        const sent = await alerts.delivery.send(targets, text);
        return { channels: sent.length, delivered: sent.filter((r) => r.ok).length };
      },
    };
    const flows = new FlowService(repo, clock, () => publicBase() ?? config.hostServer, webhooks);
    const runner = new FlowRunner({ trading, clock });
    const webhook = new FlowWebhook({ repo, webhooks, runner, clock, logger: log });
    app.decorate('flow', { flows, webhook });
    const limits = routeLimits(deps);
    await sessionScope(app, (web) => flowRoutes(web, { flows, guard: auth.guard, rateLimit: limits.admin }));
    await flowWebhookRoutes(app, {
      webhook,
      limiter: deps.rateLimiter,
      rules: config.webhookRateLimit,
      logger: log,
    });
  },
);

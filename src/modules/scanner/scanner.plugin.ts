/**
 * Scanner alerts as a plugin (docs/rules/scanner.md): the configuration routes, the webhook (its
 * own raw-body scope) and the MIS square-off pass (every 30 s), built from the market, sandbox and
 * orders services. Orders go through the placeorder pipeline in the scanner's own mode.
 */
import type { AppDeps } from '../../app-deps.js';
import { modulePlugin, routeLimits, sessionScope } from '../../platform/http/module-plugin.js';
import { ScannerRepository } from './scanner.repository.js';
import { ScannerService } from './scanner.service.js';
import { ScannerWebhook, type ScannerTrading } from './scanner-webhook.service.js';
import { ScannerSquareOff } from './scanner-squareoff.js';
import { scannerRoutes, scannerWebhookRoutes } from './scanner.routes.js';

export interface ScannerServices {
  scanners: ScannerService;
  webhook: ScannerWebhook;
  squareOff: ScannerSquareOff;
}

declare module 'fastify' {
  interface FastifyInstance {
    scanner: ScannerServices;
  }
}

export const scannerPlugin = modulePlugin<AppDeps>(
  'scanner',
  ['auth', 'market-admin', 'market', 'sandbox', 'orders', 'tunnel', 'webhooks'],
  async (app, deps) => {
    const { config, logger, clock } = deps;
    const { tunnel, auth, market, marketAdmin, sandbox, orders } = app;
    const webhooks = app.webhooks.repo;
    const log = logger.child({ module: 'scanner' });
    const publicBase = deps.publicBaseUrl ?? (() => tunnel.publicUrl() ?? undefined);
    const repo = new ScannerRepository(deps.database.db);
    const trading: ScannerTrading = {
      instrument: (symbol, exchange) => market.contracts.get(symbol, exchange),
      sessionOn: (exchange, date) => marketAdmin.sessionOn(exchange, date),
      place: (userId, order, mode) => orders.pipeline.run(userId, order, { apiType: 'scanner', mode }),
      async closable(userId, mode, key) {
        if (mode === 'analyze') return sandbox.books.closableQuantity(userId, key);
        const c = await orders.live.closable(userId, key);
        if (!c.ok) throw new Error(`the broker's books are unavailable (${c.answer.status})`);
        return c.quantity;
      },
    };
    const scanners = new ScannerService(repo, clock, () => publicBase() ?? config.hostServer, webhooks);
    const webhook = new ScannerWebhook({ repo, webhooks, trading, clock, logger: log });
    const squareOff = new ScannerSquareOff({ repo, webhooks, trading, webhook, clock, logger: log });
    app.decorate('scanner', { scanners, webhook, squareOff });
    const limits = routeLimits(deps);
    await sessionScope(app, (web) =>
      scannerRoutes(web, { scanners, guard: auth.guard, rateLimit: limits.admin }),
    );
    await scannerWebhookRoutes(app, {
      webhook,
      limiter: deps.rateLimiter,
      rules: config.webhookRateLimit,
      logger: log,
    });
    app.addHook('onReady', async () => squareOff.start());
    app.addHook('onClose', async () => squareOff.stop());
  },
);

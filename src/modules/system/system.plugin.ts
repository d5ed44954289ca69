/**
 * System: the operator's view of the whole install. The snapshot (versions, host, database,
 * mode, broker, queues, index), the diagnostics probes and the downloadable report read the other
 * modules through their services only, so this plugin is registered last.
 */
import type { AppDeps } from '../../app-deps.js';
import { modulePlugin, routeLimits, sessionScope } from '../../platform/http/module-plugin.js';
import { UPSTOX_BASE_URL } from '../brokers/quotes/upstox-quotes.js';
import { KITE_BASE_URL } from '../brokers/quotes/zerodha-quotes.js';
import { PROBE_TIMEOUT_MS, runDiagnostics } from './diagnostics.js';
import { systemRoutes, type SystemRouteDeps } from './system.routes.js';
import { SystemSnapshotService } from './system-snapshot.js';

/** Each live broker's API origin (what the diagnostics connect to without `BROKER_API_BASE_URL`). */
const BROKER_API_ORIGINS: Record<string, string> = { zerodha: KITE_BASE_URL, upstox: UPSTOX_BASE_URL };

/**
 * The snapshot, the clock of the report's time, and `diagnostics()`: the fixed probes (parallel,
 * each bounded by {@link PROBE_TIMEOUT_MS}).
 */
export type SystemServices = SystemRouteDeps['system'];

declare module 'fastify' {
  interface FastifyInstance {
    system: SystemServices;
  }
}

export const systemPlugin = modulePlugin<AppDeps>(
  'system',
  ['observability', 'auth', 'mail', 'market', 'brokers', 'sandbox', 'orders', 'alerts'],
  async (app, deps) => {
    const { config, database, clock } = deps;
    const { brokers, sandbox, orders, mail, alerts, market } = app;
    const users = app.auth.users;
    const activeBroker = () => {
      const p = brokers.sessions.primarySession();
      return p ? { broker: p.broker, expiresAt: p.expiresAt } : undefined;
    };
    const snapshot = new SystemSnapshotService({
      config,
      database,
      clock,
      analyze: () => sandbox.mode.analyze,
      brokerNames: () => brokers.registry.names(),
      activeBroker,
      mailPasswordSet: async () => (await mail.settings.view()).smtp_password_set,
      // Bot tokens are per user (alert settings); a self-hosted install has a handful of users.
      botTokenSet: async () => {
        for (const u of await users.list())
          if ((await alerts.settings.view(u.id)).telegram_bot_token_set) return true;
        return false;
      },
      eventBus: () => {
        const e = orders.events;
        return {
          pending: e.pending,
          dropped: e.dropped,
          delivered: e.delivered,
          running: e.running,
          workers: e.workers,
          queue_limit: e.queueLimit,
        };
      },
      instrumentIndex: () => ({
        enabled: config.instrumentIndex,
        ready: market.contracts.indexReady,
        instruments: market.contracts.indexSize,
      }),
    });
    const system: SystemServices = {
      snapshot,
      clock,
      async diagnostics() {
        const result = await runDiagnostics({
          db: database.db,
          hostServer: config.hostServer,
          redisUrl: config.redisUrl,
          loopback: () => {
            const a = app.server.address();
            if (!a || typeof a === 'string') return undefined;
            const host = a.address === '0.0.0.0' ? '127.0.0.1' : a.address === '::' ? '::1' : a.address;
            return { host, port: a.port };
          },
          brokerTarget: () => {
            const broker = activeBroker()?.broker ?? config.broker.name;
            const origin = config.broker.baseUrl ?? (broker ? BROKER_API_ORIGINS[broker] : undefined);
            return broker && origin ? { broker, origin } : undefined;
          },
          ledger: async () => {
            const r = await sandbox.verify.run();
            const of = `${r.accounts} sandbox account${r.accounts === 1 ? '' : 's'}`;
            if (r.drifted === 0) return `${of} agree with their trade books`;
            const first = r.differences
              .slice(0, 3)
              .map((d) => `user ${d.user_id} ${d.check} ${d.subject}`)
              .join('; ');
            throw new Error(`${r.drifted} of ${of} differ from their trade books: ${first}`);
          },
        });
        return { ...result, timeout_ms: PROBE_TIMEOUT_MS };
      },
    };
    app.decorate('system', system);
    const limits = routeLimits(deps);
    await sessionScope(app, (web) =>
      systemRoutes(web, {
        system,
        errorLog: app.observability.errors,
        guard: app.auth.guard,
        rateLimit: limits.admin,
        diagnosticsRateLimit: limits.limit('system-diagnostics', limits.rules.heavy),
        reportRateLimit: limits.limit('system-report', limits.rules.heavy),
      }),
    );
    app.addHook('onReady', async () => snapshot.start());
    app.addHook('onClose', async () => snapshot.stop());
  },
);

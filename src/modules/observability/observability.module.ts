/**
 * Wiring of operator observability (observability issue): the error log store fed by the
 * logger's warn-and-above tee, the system snapshot, diagnostics and the routes. Built once in
 * `buildServices` (app.ts); other modules are read through their services only.
 */
import type { Server } from 'node:http';
import cookie from '@fastify/cookie';
import type { AppDeps, Services } from '../../app.js';
import type { Clock } from '../../platform/clock.js';
import { createRateLimitHooks, rateLimitsFrom } from '../../platform/http/rate-limit.js';
import type { App } from '../../platform/http/types.js';
import { parseRateRules } from '../../platform/rate-rule.js';
import { createSessionGuard } from '../auth/session.guard.js';
import { UPSTOX_BASE_URL } from '../brokers/quotes/upstox-quotes.js';
import { KITE_BASE_URL } from '../brokers/quotes/zerodha-quotes.js';
import { PROBE_TIMEOUT_MS, runDiagnostics, type ProbeResult } from './diagnostics.js';
import { ErrorLogRepository } from './error-log.repository.js';
import { ErrorLogService } from './error-log.service.js';
import { observabilityRoutes } from './observability.routes.js';
import { SystemSnapshotService } from './system-snapshot.js';

/** Browser error reports per client address (their own window). */
export const CLIENT_REPORT_RATE = '60 per minute';

/** Each live broker's API origin (what the diagnostics connect to without `BROKER_API_BASE_URL`). */
const BROKER_API_ORIGINS: Record<string, string> = { zerodha: KITE_BASE_URL, upstox: UPSTOX_BASE_URL };

export interface ObservabilityServices {
  errors: ErrorLogService;
  snapshot: SystemSnapshotService;
  clock: Clock;
  /** Runs the fixed probes (parallel, each bounded by {@link PROBE_TIMEOUT_MS}). */
  diagnostics(): Promise<{ ok: boolean; ms: number; timeout_ms: number; probes: ProbeResult[] }>;
  /** The HTTP server whose address the loopback probe calls (set when routes are registered). */
  bindServer(server: Server): void;
  start(): void;
  stop(): Promise<void>;
}

type Sources = Pick<Services, 'sandbox' | 'brokers' | 'orders' | 'mail' | 'users' | 'alerts' | 'market'>;

export function buildObservabilityServices(deps: AppDeps, s: Sources): ObservabilityServices {
  const { config, database, clock } = deps;
  const errors = new ErrorLogService(new ErrorLogRepository(database.db), clock, deps.logger);
  const activeBroker = () => {
    const p = s.orders.brokerSessions.primarySession();
    return p ? { broker: p.broker, expiresAt: p.expiresAt } : undefined;
  };
  const snapshot = new SystemSnapshotService({
    config,
    database,
    clock,
    analyze: () => s.sandbox.mode.analyze,
    brokerNames: () => s.brokers.names(),
    activeBroker,
    mailPasswordSet: async () => (await s.mail.settings.view()).smtp_password_set,
    // Bot tokens are per user (alert settings); a self-hosted install has a handful of users.
    botTokenSet: async () => {
      for (const u of await s.users.list())
        if ((await s.alerts.settings.view(u.id)).telegram_bot_token_set) return true;
      return false;
    },
    eventBus: () => {
      const e = s.orders.events;
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
      ready: s.market.contracts.indexReady,
      instruments: s.market.contracts.indexSize,
    }),
  });
  let server: Server | undefined;
  return {
    errors,
    snapshot,
    clock,
    async diagnostics() {
      const result = await runDiagnostics({
        db: database.db,
        hostServer: config.hostServer,
        redisUrl: config.redisUrl,
        loopback: () => {
          const a = server?.address();
          if (!a || typeof a === 'string') return undefined;
          const host = a.address === '0.0.0.0' ? '127.0.0.1' : a.address === '::' ? '::1' : a.address;
          return { host, port: a.port };
        },
        brokerTarget: () => {
          const broker = activeBroker()?.broker ?? config.broker.name;
          const origin = config.broker.baseUrl ?? (broker ? BROKER_API_ORIGINS[broker] : undefined);
          return broker && origin ? { broker, origin } : undefined;
        },
      });
      return { ...result, timeout_ms: PROBE_TIMEOUT_MS };
    },
    bindServer(s) {
      server = s;
    },
    start() {
      errors.start();
      snapshot.start();
    },
    async stop() {
      snapshot.stop();
      await errors.stop();
    },
  };
}

/**
 * Registers the routes in a scope of their own with the cookie plugin (as the other session
 * routes have), with the shared limiter: the admin surface window is the same `admin` key the
 * other administration routes count against.
 */
export async function registerObservabilityRoutes(
  app: App,
  deps: AppDeps,
  services: Services,
): Promise<void> {
  const obs = services.observability;
  obs.bindServer(app.server);
  const limit = createRateLimitHooks(deps.rateLimiter, deps.logger);
  const limits = rateLimitsFrom(deps.config);
  await app.register(async (scope) => {
    const web = scope as unknown as App;
    await web.register(cookie, { hook: false });
    observabilityRoutes(web, {
      services: obs,
      guard: createSessionGuard(services.sessions, services.users),
      rateLimit: limit('admin', limits.admin),
      diagnosticsRateLimit: limit('system-diagnostics', limits.heavy),
      reportRateLimit: limit('system-report', limits.heavy),
      clientRateLimit: limit('client-errors', parseRateRules(CLIENT_REPORT_RATE)),
    });
  });
}

/**
 * Observability: what the install records about itself as it runs. The traffic log (one row per
 * request, batched) and the error log (every warn-and-above record, with its request's context)
 * both observe the request pipeline; their routes are the administrator's traffic and error views.
 * Registered right after auth, so it captures the warnings of every module after it and stops
 * (flushing) after them.
 */
import type { AppDeps } from '../../app-deps.js';
import { modulePlugin, repeatWhileUp, routeLimits, sessionScope } from '../../platform/http/module-plugin.js';
import { parseRateRules } from '../../platform/rate-rule.js';
import { errorLogRoutes } from './error-log.routes.js';
import { ErrorLogRepository } from './error-log.repository.js';
import { ErrorLogService } from './error-log.service.js';
import { SINGLE_ROW_INSERT, TrafficRepository } from './traffic.repository.js';
import { trafficRoutes } from './traffic.routes.js';
import { TrafficDashboardRepository } from './traffic-dashboard.repository.js';
import { TrafficDashboard } from './traffic-dashboard.service.js';
import { TrafficLogService } from './traffic.service.js';

/** Browser error reports per client address (their own window). */
export const CLIENT_REPORT_RATE = '60 per minute';

/** How often the traffic and error logs' retention runs (each instance; the deletes are idempotent). */
export const RETENTION_SWEEP_MS = 10 * 60_000;

export interface ObservabilityServices {
  /** The error log: warn+ records of the server, reports of the browser. */
  errors: ErrorLogService;
  /** The traffic log: one row per request. */
  traffic: TrafficLogService;
}

declare module 'fastify' {
  interface FastifyInstance {
    observability: ObservabilityServices;
  }
}

export const observabilityPlugin = modulePlugin<AppDeps>(
  'observability',
  ['request-pipeline', 'sqlite-writer', 'auth'],
  async (app, deps) => {
    const { config, clock } = deps;
    const db = deps.database.db;
    app.sqliteWriter?.define({ traffic: SINGLE_ROW_INSERT });
    const errors = new ErrorLogService(
      new ErrorLogRepository(db),
      clock,
      deps.logger,
      config.errorLogRetention,
    );
    const traffic = new TrafficLogService(new TrafficRepository(db, app.sqliteWriter), clock, deps.logger, {
      retentionDays: config.trafficRetentionDays,
    });
    app.decorate('observability', { errors, traffic });
    app.requests.observe({
      ended: (req, reply, status, route) => {
        // Probes (health, readiness) poll every few seconds: they are not traffic.
        if (route?.probe) return;
        traffic.record({
          ip: req.clientIp,
          method: req.method,
          url: req.url,
          routeUrl: route?.url,
          status,
          durationMs: reply.elapsedTime,
          host: req.headers.host,
          userId: req.session?.userId,
        });
      },
    });
    // Capture starts now: the warnings of the modules registered after this one are recorded.
    errors.start();
    const limits = routeLimits(deps);
    await sessionScope(app, (web) => {
      trafficRoutes(web, {
        traffic,
        dashboard: new TrafficDashboard(new TrafficDashboardRepository(db), clock),
        clock,
        guard: app.auth.guard,
        rateLimit: limits.admin,
      });
      errorLogRoutes(web, {
        errorLog: errors,
        guard: app.auth.guard,
        rateLimit: limits.admin,
        clientRateLimit: limits.limit('client-errors', parseRateRules(CLIENT_REPORT_RATE)),
      });
    });
    app.addHook('onReady', async () => traffic.start());
    // Retention, off the request path: batches of deletes with the event loop's turns between.
    repeatWhileUp(
      app,
      RETENTION_SWEEP_MS,
      async () => {
        await traffic.purge();
        await errors.purge();
      },
      deps.logger,
      'log retention',
    );
    app.addHook('onClose', async () => {
      await traffic.stop();
      await errors.stop();
    });
  },
);

/**
 * Metrics as a plugin: `GET /metrics` in the Prometheus text format, off unless `METRICS_TOKEN`
 * is set. Registered after the modules it observes: it adds a request observer to the request
 * pipeline, listens to the order event bus, the Action Center and the ban service, and reads
 * the sizes of the order event queue, the instrument index and the sandbox book when scraped.
 * Off, it registers the route alone (answering 404) and observes nothing, so it costs nothing.
 */
import type { Registry } from 'prom-client';
import type { AppDeps } from '../../app-deps.js';
import { modulePlugin, routeLimits } from '../../platform/http/module-plugin.js';
import { parseRateRules } from '../../platform/rate-rule.js';
import { AppMetrics } from './app-metrics.js';
import { bearerCheck } from './bearer.js';
import { metricsRoutes } from './metrics.routes.js';
import { processRegistry } from './process-metrics.js';

/** Scrapes per client address: a scraper every 5 s (two, behind one address) stays well within. */
export const METRICS_RATE = '60 per minute';

export const metricsPlugin = modulePlugin<AppDeps>(
  'metrics',
  ['request-pipeline', 'security', 'market', 'sandbox', 'orders', 'feed'],
  (app, deps) => {
    const token = deps.config.metricsToken;
    if (token === undefined) {
      metricsRoutes(app, { scrape: undefined });
      return;
    }
    const { market, sandbox, orders, security } = app;
    const metrics = new AppMetrics({
      requestsInFlight: () => app.requests.inFlight.count,
      orderEvents: orders.events,
      logRowsDropped: () => orders.logWriter.dropped,
      instrumentIndex: () => ({ size: market.contracts.indexSize, ready: market.contracts.indexReady }),
      sandbox: () => ({
        restingOrders: sandbox.engine.size,
        engineRunning: sandbox.engine.isRunning,
        analyze: sandbox.mode.analyze,
      }),
      ledgerCheck: () => {
        const { runs, drifts, last } = sandbox.verify.state;
        return { runs, drifts, drifted: last?.drifted ?? 0, lastAt: last?.at };
      },
      feed: () => ({
        sockets: app.feed.server.size,
        instruments: app.feed.hub.upstreamCount,
        stale: app.feed.watchdog.status === 'stale',
        stalls: app.feed.watchdog.stalls,
        recoveries: app.feed.watchdog.recoveries,
      }),
    });
    app.requests.observe({
      ended: (req, reply, status, route) =>
        metrics.requestEnded(req.method, route?.url, status, reply.elapsedTime),
    });
    orders.events.publishListeners.push((e) => metrics.orderEvent(e));
    orders.actionCenter.listeners.push((d) => {
      if (d !== 'deleted') metrics.pendingDecision(d);
    });
    security.bans.listeners.push(metrics.ban);

    // The process metrics (one set per process) start when the first app with metrics is ready;
    // the CLI builds the app without starting anything.
    let processMetrics: Registry | undefined;
    app.addHook('onReady', async () => {
      processMetrics = processRegistry();
    });

    metricsRoutes(app, {
      scrape: {
        bearer: bearerCheck(token),
        rateLimit: routeLimits(deps).limit('metrics', parseRateRules(METRICS_RATE)),
        contentType: () => metrics.contentType,
        text: async () => (await metrics.text()) + (processMetrics ? await processMetrics.metrics() : ''),
      },
    });
  },
);

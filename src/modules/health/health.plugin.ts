/**
 * Health as a plugin: `GET /health` (liveness: the process answers; no database, no auth) and
 * `GET /ready` (readiness: 200 when this instance can serve, 503 naming what fails). Both are for
 * load balancers, orchestrators and container health checks: no rate limit, no traffic-log row,
 * and nothing secret in the answer.
 */
import { Type, type TSchema } from 'typebox';
import type { AppDeps } from '../../app-deps.js';
import { modulePlugin } from '../../platform/http/module-plugin.js';
import { readiness } from './readiness.js';

const Str = Type.String();
const Check = (extra: Record<string, TSchema> = {}) =>
  Type.Object({
    ok: Type.Boolean(),
    state: Str,
    reason: Type.Optional(Str),
    ms: Type.Optional(Type.Integer()),
    ...extra,
  });

const ReadyBody = Type.Object({
  status: Type.Union([Type.Literal('ready'), Type.Literal('not_ready')]),
  failing: Type.Array(Str),
  checks: Type.Object({
    database: Check(),
    redis: Check(),
    instrument_index: Check({ instruments: Type.Integer() }),
    sandbox_engine: Check({ mode: Type.Union([Type.Literal('analyze'), Type.Literal('live')]) }),
    market_feed: Check({ upstream: Str, stalls: Type.Integer(), holds_upstream: Type.Boolean() }),
  }),
});

const LiveBody = Type.Object({ status: Type.Literal('ok') });

export const healthPlugin = modulePlugin<AppDeps>(
  'health',
  ['request-pipeline', 'market', 'sandbox', 'feed'],
  (app, deps) => {
    const { market, sandbox } = app;
    const probe = { probe: true } as const;
    app.get(
      '/health',
      {
        config: probe,
        schema: {
          summary: 'Liveness: the process answers',
          tags: ['operations'],
          response: { 200: LiveBody },
        },
      },
      async (_req, reply) => {
        reply.header('cache-control', 'no-store');
        return { status: 'ok' as const };
      },
    );
    app.get(
      '/ready',
      {
        config: probe,
        schema: {
          summary: 'Readiness: this instance can serve (503 names what fails)',
          tags: ['operations'],
          response: { 200: ReadyBody, 503: ReadyBody },
        },
      },
      async (_req, reply) => {
        const r = await readiness({
          db: deps.database.db,
          bus: deps.bus,
          redisConfigured: deps.config.redisUrl !== undefined,
          index: () => ({
            enabled: deps.config.instrumentIndex,
            ready: market.contracts.indexReady,
            size: market.contracts.indexSize,
          }),
          sandbox: () => ({ analyze: sandbox.mode.analyze, engineRunning: sandbox.engine.isRunning }),
          feed: () => ({
            upstream: app.feed.upstream.name,
            status: app.feed.watchdog.status,
            stalls: app.feed.watchdog.stalls,
            stalled: app.feed.watchdog.stalledKeys.length,
            holds: app.feed.cluster.holds,
          }),
        });
        return reply
          .code(r.ready ? 200 : 503)
          .header('cache-control', 'no-store')
          .send({ status: r.ready ? 'ready' : 'not_ready', failing: r.failing, checks: r.checks });
      },
    );
  },
);

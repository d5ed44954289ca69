import { Type } from 'typebox';
import { badRequest } from '../../platform/errors.js';
import type { App } from '../../platform/http/types.js';
import type { RateLimitHook } from '../../platform/http/rate-limit.js';
import type { SessionGuard } from '../auth/session.guard.js';
import type { TrafficLogService } from './traffic.service.js';
import { ErrorBody } from '../../platform/http/error-body.js';

/** An ISO-8601 date-time with a zone (RFC 3339), or epoch milliseconds. */
const Since = Type.Union([
  Type.String({ format: 'date-time', maxLength: 40 }),
  Type.String({ pattern: '^[0-9]{1,15}$' }),
]);

export const TrafficQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  since: Type.Optional(Since),
});

export const TrafficStatsQuery = Type.Object({ since: Type.Optional(Since) });

/** Epoch ms of a validated `since`; 400 for a date the schema lets through but Date cannot read. */
function parseSince(since: string | undefined): number | undefined {
  if (since === undefined) return undefined;
  const t = /^[0-9]+$/.test(since) ? Number(since) : Date.parse(since);
  if (!Number.isFinite(t) || Number.isNaN(new Date(t).getTime())) {
    throw badRequest('since must be an ISO-8601 date-time or epoch milliseconds', {
      since: ['invalid date'],
    });
  }
  return t;
}

const Numbers = {
  requests: Type.Integer(),
  errors: Type.Integer(),
  server_errors: Type.Integer(),
  avg_ms: Type.Number(),
};

export const TrafficResponse = Type.Object({
  status: Type.Literal('success'),
  data: Type.Array(
    Type.Object({
      ts: Type.String(),
      ip: Type.String(),
      method: Type.String(),
      path: Type.String(),
      endpoint_group: Type.String(),
      status: Type.Integer(),
      duration_ms: Type.Number(),
      host: Type.Union([Type.String(), Type.Null()]),
      user_id: Type.Union([Type.Integer(), Type.Null()]),
    }),
  ),
});

export const TrafficStatsResponse = Type.Object({
  status: Type.Literal('success'),
  since: Type.String(),
  totals: Type.Object(Numbers),
  groups: Type.Array(Type.Object({ endpoint_group: Type.String(), ...Numbers, p95_ms: Type.Number() })),
});

const iso = (t: number) => new Date(t).toISOString();
const ms = (v: number) => Math.round(v * 100) / 100;

/** `/logs/api/traffic*`: the traffic dashboard's data, for administrators only. */
export function trafficRoutes(
  app: App,
  deps: { traffic: TrafficLogService; guard: SessionGuard; rateLimit: RateLimitHook },
): void {
  const { traffic } = deps;
  const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 429: ErrorBody };
  const admin = { onRequest: deps.rateLimit, preHandler: deps.guard({ admin: true }) };

  app.get(
    '/logs/api/traffic',
    {
      ...admin,
      schema: {
        summary: 'Recent requests (the traffic log)',
        tags: ['observability'],
        querystring: TrafficQuery,
        response: { 200: TrafficResponse, ...errors },
      },
    },
    async (req) => {
      const rows = await traffic.recent({
        limit: req.query.limit ?? 100,
        since: parseSince(req.query.since),
      });
      return {
        status: 'success' as const,
        data: rows.map((r) => ({
          ts: iso(r.ts),
          ip: r.ip,
          method: r.method,
          path: r.path,
          endpoint_group: r.endpoint_group,
          status: r.status,
          duration_ms: r.duration_ms,
          host: r.host,
          user_id: r.user_id,
        })),
      };
    },
  );

  app.get(
    '/logs/api/traffic/stats',
    {
      ...admin,
      schema: {
        summary: 'Traffic statistics by endpoint group',
        tags: ['observability'],
        querystring: TrafficStatsQuery,
        response: { 200: TrafficStatsResponse, ...errors },
      },
    },
    async (req) => {
      const s = await traffic.stats({ since: parseSince(req.query.since) });
      return {
        status: 'success' as const,
        since: iso(s.since),
        totals: { ...s.totals, avg_ms: ms(s.totals.avg_ms) },
        groups: s.groups.map((g) => ({
          endpoint_group: g.endpoint_group,
          requests: g.requests,
          errors: g.errors,
          server_errors: g.server_errors,
          avg_ms: ms(g.avg_ms),
          p95_ms: ms(g.p95_ms),
        })),
      };
    },
  );
}

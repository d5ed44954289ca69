import { Type } from 'typebox';
import type { Clock } from '../../platform/clock.js';
import { badRequest } from '../../platform/errors.js';
import type { App } from '../../platform/http/types.js';
import type { RateLimitHook } from '../../platform/http/rate-limit.js';
import type { SessionGuard } from '../auth/session.guard.js';
import type { TrafficLogService } from './traffic.service.js';
import type { TrafficDashboard } from './traffic-dashboard.service.js';
import { ErrorBody } from '../../platform/http/error-body.js';

/** An ISO-8601 date-time with a zone (RFC 3339), or epoch milliseconds. */
const Since = Type.Union([
  Type.String({ format: 'date-time', maxLength: 40 }),
  Type.String({ pattern: '^[0-9]{1,15}$' }),
]);

/** The last `hours` on the server's clock, another way to say `since` (the console's windows). */
const Hours = Type.Integer({ minimum: 1, maximum: 24 * 90 });

/** The request list's filters and page (docs/rules/web.md#traffic-page). */
export const TrafficQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  since: Type.Optional(Since),
  hours: Type.Optional(Hours),
  /** Rows to skip (paging), newest first. */
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000_000 })),
  /** An exact status (`404`) or a class (`4xx`). */
  status: Type.Optional(Type.String({ pattern: '^[1-5]([0-9]{2}|[xX]{2})$' })),
  /** An exact method (any case). */
  method: Type.Optional(Type.String({ pattern: '^[A-Za-z]{1,10}$' })),
  /** A case-insensitive substring of the (masked) path. */
  path: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  /** A client address, or its start ending in `.` or `:` (`203.0.113.` is that /24). */
  ip: Type.Optional(Type.String({ pattern: '^[0-9A-Fa-f:.]{1,45}$' })),
});

export const TrafficStatsQuery = Type.Object({
  since: Type.Optional(Since),
  hours: Type.Optional(Hours),
  /** The series' bucket; default minutes for a window of up to 6 hours, else hours. */
  bucket: Type.Optional(Type.Union([Type.Literal('minute'), Type.Literal('hour')])),
  /** How many top paths and client addresses (default 10). */
  top: Type.Optional(Type.Integer({ minimum: 1, maximum: 50 })),
});

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

/** The window's start from `since` or `hours` (at most one of them); undefined for neither. */
/** The request list's window when the query names none. */
const DEFAULT_LIST_WINDOW_MS = 24 * 3_600_000;

function windowStart(q: { since?: string | undefined; hours?: number | undefined }, now: number) {
  if (q.since !== undefined && q.hours !== undefined)
    throw badRequest('Give since or hours, not both', { hours: ['give since or hours, not both'] });
  return q.hours !== undefined ? now - q.hours * 3_600_000 : parseSince(q.since);
}

const Numbers = {
  requests: Type.Integer(),
  errors: Type.Integer(),
  server_errors: Type.Integer(),
  avg_ms: Type.Number(),
};

export const TrafficResponse = Type.Object({
  status: Type.Literal('success'),
  /** Rows matching the filters in all (every page). */
  total: Type.Integer(),
  limit: Type.Integer(),
  offset: Type.Integer(),
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

const Top = (key: 'path' | 'ip') =>
  Type.Array(Type.Object({ [key]: Type.String(), requests: Type.Integer(), errors: Type.Integer() }));

export const TrafficStatsResponse = Type.Object({
  status: Type.Literal('success'),
  since: Type.String(),
  /** The server's time the window ends at. */
  until: Type.String(),
  totals: Type.Object(Numbers),
  groups: Type.Array(Type.Object({ endpoint_group: Type.String(), ...Numbers, p95_ms: Type.Number() })),
  status_classes: Type.Object({
    '1xx': Type.Integer(),
    '2xx': Type.Integer(),
    '3xx': Type.Integer(),
    '4xx': Type.Integer(),
    '5xx': Type.Integer(),
  }),
  /** Busiest (masked) paths and client addresses, with their errors (status ≥ 400). */
  top_paths: Top('path'),
  top_ips: Top('ip'),
  /** Requests and errors per bucket; only buckets with requests, oldest first. */
  series: Type.Object({
    bucket: Type.Union([Type.Literal('minute'), Type.Literal('hour')]),
    bucket_ms: Type.Integer(),
    points: Type.Array(Type.Object({ ts: Type.String(), requests: Type.Integer(), errors: Type.Integer() })),
  }),
});

const iso = (t: number) => new Date(t).toISOString();
const ms = (v: number) => Math.round(v * 100) / 100;

/** `/logs/api/traffic*`: the traffic dashboard's data, for administrators only. */
export function trafficRoutes(
  app: App,
  deps: {
    traffic: TrafficLogService;
    dashboard: TrafficDashboard;
    clock: Clock;
    guard: SessionGuard;
    rateLimit: RateLimitHook;
  },
): void {
  const { traffic, dashboard } = deps;
  const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 429: ErrorBody };
  const admin = { onRequest: deps.rateLimit, preHandler: deps.guard({ admin: true }) };

  app.get(
    '/logs/api/traffic',
    {
      ...admin,
      schema: {
        summary: 'Recent requests (the traffic log), filtered and paged',
        tags: ['observability'],
        querystring: TrafficQuery,
        response: { 200: TrafficResponse, ...errors },
      },
    },
    async (req) => {
      const q = req.query;
      const limit = q.limit ?? 100;
      const offset = q.offset ?? 0;
      const now = deps.clock.now();
      const { rows, total } = await dashboard.requests(
        {
          // Without a window, the last 24 hours (as the statistics): the count of a filter is a
          // range of the time index, never the whole log.
          since: windowStart(q, now) ?? now - DEFAULT_LIST_WINDOW_MS,
          status: q.status?.toLowerCase(),
          method: q.method?.toUpperCase(),
          path: q.path,
          ip: q.ip,
        },
        limit,
        offset,
      );
      return {
        status: 'success' as const,
        total,
        limit,
        offset,
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
        summary: 'Traffic statistics: groups, status classes, top paths and addresses, series',
        tags: ['observability'],
        querystring: TrafficStatsQuery,
        response: { 200: TrafficStatsResponse, ...errors },
      },
    },
    async (req) => {
      const s = await traffic.stats({ since: windowStart(req.query, deps.clock.now()) });
      const o = await dashboard.overview({
        since: s.since,
        bucket: req.query.bucket,
        top: req.query.top ?? 10,
      });
      return {
        status: 'success' as const,
        since: iso(s.since),
        until: iso(o.until),
        totals: { ...s.totals, avg_ms: ms(s.totals.avg_ms) },
        groups: s.groups.map((g) => ({
          endpoint_group: g.endpoint_group,
          requests: g.requests,
          errors: g.errors,
          server_errors: g.server_errors,
          avg_ms: ms(g.avg_ms),
          p95_ms: ms(g.p95_ms),
        })),
        status_classes: o.status_classes,
        top_paths: o.top_paths.map((r) => ({ path: r.key, requests: r.requests, errors: r.errors })),
        top_ips: o.top_ips.map((r) => ({ ip: r.key, requests: r.requests, errors: r.errors })),
        series: {
          bucket: o.bucket,
          bucket_ms: o.bucket_ms,
          points: o.points.map((p) => ({ ts: iso(p.ts), requests: p.requests, errors: p.errors })),
        },
      };
    },
  );
}

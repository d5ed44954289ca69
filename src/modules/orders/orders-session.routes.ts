/**
 * Session routes of the orders module: the Action Center (docs/rules/orders.md#action-center: any
 * logged-in user acts on their own queue; CSRF on every change) and, for the administrator,
 * latency statistics (docs/rules/orders.md#latency-statistics) and the order / analyzer logs.
 */
import { Type } from 'typebox';
import { ErrorBody } from '../../platform/http/error-body.js';
import type { SessionGuard } from '../auth/session.guard.js';
import type { RateLimitHook } from '../../platform/http/rate-limit.js';
import type { App } from '../../platform/http/types.js';
import {
  ApproveAllResponse,
  ApproveResponse,
  DecisionResponse,
  PendingOrdersResponse,
} from './action-center.schema.js';
import type { ActionCenterService } from './action-center.service.js';
import type { LatencyService } from './latency.service.js';
import type { OrderLogWriter } from './order-log.writer.js';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody };
const IdParams = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }) });
const Num = Type.Number();
/** One window's figures (latency-stats.ts `LatencySummary`). */
const LatencySummary = Type.Object({
  count: Type.Integer(),
  avg_ms: Num,
  min_ms: Num,
  max_ms: Num,
  p50_ms: Num,
  p90_ms: Num,
  p95_ms: Num,
  p99_ms: Num,
  /** Percent of orders whose total is strictly under 100 ms (and 150, 200). */
  sla_100ms: Num,
  sla_150ms: Num,
  sla_200ms: Num,
});
/** `GET /logs/api/latency/stats` (docs/rules/orders.md#latency-statistics). */
const LatencyStatsResponse = Type.Object({
  status: Type.Literal('success'),
  window_hours: Type.Integer(),
  /** The window's start and end (the server's clock). */
  since: Type.String(),
  until: Type.String(),
  percentile_method: Type.Literal('nearest-rank'),
  overall: LatencySummary,
  by_broker: Type.Record(Type.String(), LatencySummary),
  /** By the sample's label (`PLACE`). */
  by_api_type: Type.Record(Type.String(), LatencySummary),
  /** Orders per total-latency bar [from_ms, to_ms); the last bar is open (to_ms null). */
  histogram: Type.Array(
    Type.Object({ from_ms: Num, to_ms: Type.Union([Num, Type.Null()]), count: Type.Integer() }),
  ),
  /** Per minute (windows up to 6 hours) or hour; only buckets with orders, oldest first. */
  series: Type.Object({
    bucket: Type.Union([Type.Literal('minute'), Type.Literal('hour')]),
    bucket_ms: Type.Integer(),
    points: Type.Array(
      Type.Object({
        ts: Type.String(),
        count: Type.Integer(),
        avg_ms: Num,
        p50_ms: Num,
        p95_ms: Num,
        max_ms: Num,
      }),
    ),
  }),
});
const Success = Type.Object(
  { status: Type.Literal('success'), message: Type.Optional(Type.String()) },
  { additionalProperties: true },
);

export function orderSessionRoutes(
  app: App,
  deps: {
    actionCenter: ActionCenterService;
    latency: LatencyService;
    /** The order and analyzer logs (read for the administrator's views). */
    logs: Pick<OrderLogWriter, 'recent'>;
    guard: SessionGuard;
    rateLimit: RateLimitHook;
  },
): void {
  const user = { onRequest: deps.rateLimit, preHandler: deps.guard() };
  const admin = { onRequest: deps.rateLimit, preHandler: deps.guard({ admin: true }) };
  const ac = deps.actionCenter;

  app.get(
    '/action-center/api/orders',
    {
      ...user,
      schema: {
        summary: 'Orders in the Action Center',
        tags: ['orders'],
        querystring: Type.Object({
          status: Type.Optional(
            Type.Union([Type.Literal('pending'), Type.Literal('approved'), Type.Literal('rejected')]),
          ),
        }),
        response: { 200: PendingOrdersResponse, ...errors },
      },
    },
    async (req) => ({
      status: 'success' as const,
      data: await ac.list(req.session!.userId, req.query.status),
    }),
  );
  app.post(
    '/action-center/api/orders/:id/approve',
    {
      ...user,
      schema: {
        summary: 'Approve a pending order (it is placed)',
        tags: ['orders'],
        params: IdParams,
        response: { 200: ApproveResponse, ...errors },
      },
    },
    async (req) => {
      const a = await ac.approve(req.session!.userId, req.params.id);
      return {
        status: 'success' as const,
        message: `Pending order ${req.params.id} approved`,
        http_status: a.status,
        result: a.body,
      };
    },
  );
  app.post(
    '/action-center/api/orders/approve-all',
    {
      ...user,
      schema: {
        summary: 'Approve every pending order',
        tags: ['orders'],
        response: { 200: ApproveAllResponse, ...errors },
      },
    },
    async (req) => {
      const results = await ac.approveAll(req.session!.userId);
      return { status: 'success' as const, message: `Approved ${results.length} orders`, results };
    },
  );
  app.post(
    '/action-center/api/orders/:id/reject',
    {
      ...user,
      schema: {
        summary: 'Reject a pending order',
        tags: ['orders'],
        params: IdParams,
        body: Type.Object({ reason: Type.String({ minLength: 1, maxLength: 500 }) }),
        response: { 200: DecisionResponse, ...errors },
      },
    },
    async (req) => {
      await ac.reject(req.session!.userId, req.params.id, req.body.reason);
      return { status: 'success' as const, message: `Pending order ${req.params.id} rejected` };
    },
  );
  app.delete(
    '/action-center/api/orders/:id',
    {
      ...user,
      schema: {
        summary: 'Delete a pending order',
        tags: ['orders'],
        params: IdParams,
        response: { 200: DecisionResponse, ...errors },
      },
    },
    async (req) => {
      await ac.remove(req.session!.userId, req.params.id);
      return { status: 'success' as const, message: `Pending order ${req.params.id} deleted` };
    },
  );

  app.get(
    '/logs/api/latency/stats',
    {
      ...admin,
      schema: {
        summary: 'Order latency percentiles, SLA shares, histogram and series',
        tags: ['orders'],
        querystring: Type.Object({ hours: Type.Optional(Type.Integer({ minimum: 1, maximum: 24 * 90 })) }),
        response: { 200: LatencyStatsResponse, ...errors },
      },
    },
    async (req) => {
      const hours = req.query.hours ?? 24;
      const s = await deps.latency.stats(hours);
      return {
        status: 'success' as const,
        window_hours: hours,
        percentile_method: 'nearest-rank' as const,
        ...s,
        since: new Date(s.since).toISOString(),
        until: new Date(s.until).toISOString(),
        series: {
          ...s.series,
          points: s.series.points.map((p) => ({ ...p, ts: new Date(p.ts).toISOString() })),
        },
      };
    },
  );
  const Limit = Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })) });
  const LatencyLogs = Type.Object({
    status: Type.Literal('success'),
    data: Type.Array(
      Type.Object({
        id: Type.Integer(),
        label: Type.String(),
        broker: Type.String(),
        symbol: Type.String(),
        order_id: Type.Union([Type.String(), Type.Null()]),
        status: Type.String(),
        total_latency_ms: Num,
        broker_ms: Num,
        validation_ms: Num,
        overhead_ms: Num,
        created_at: Type.String({ description: 'ISO-8601 UTC' }),
      }),
    ),
  });
  app.get(
    '/logs/api/latency/logs',
    {
      ...admin,
      schema: {
        summary: 'Recent order latencies',
        tags: ['orders'],
        querystring: Limit,
        response: { 200: LatencyLogs, ...errors },
      },
    },
    async (req) => ({
      status: 'success' as const,
      data: (await deps.latency.logs(req.query.limit ?? 100)).map((r) => ({
        id: r.id,
        label: r.label,
        broker: r.broker,
        symbol: r.symbol,
        order_id: r.order_id,
        status: r.status,
        total_latency_ms: r.total_ms,
        broker_ms: r.broker_ms,
        validation_ms: r.validation_ms,
        overhead_ms: r.overhead_ms,
        created_at: new Date(r.created_at).toISOString(),
      })),
    }),
  );
  for (const [path, table, summary] of [
    ['/logs/api/orders', 'order_logs', 'Recent order log entries (live mode)'],
    ['/logs/api/analyzer', 'analyzer_logs', 'Recent analyzer log entries (analyze mode)'],
  ] as const)
    app.get(
      path,
      {
        ...admin,
        schema: { summary, tags: ['orders'], querystring: Limit, response: { 200: Success, ...errors } },
      },
      async (req) => ({
        status: 'success' as const,
        data: (await deps.logs.recent(table, req.query.limit ?? 100)).map((r) => ({
          id: r.id,
          event: r.event,
          api_type: r.api_type,
          broker: r.broker,
          order_id: r.order_id,
          status_code: r.status_code,
          request: JSON.parse(r.request) as unknown,
          response: JSON.parse(r.response) as unknown,
          created_at: new Date(r.created_at).toISOString(),
        })),
      }),
    );
}

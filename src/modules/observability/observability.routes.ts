/**
 * Operator observability routes (spec "Session routes: administration"; observability issue):
 * the error log, browser error ingest, stats and groups, the system snapshot, diagnostics and
 * the downloadable report. Administrator session on every route (CSRF on the POSTs, the guard's
 * rule); the admin surface limit (`API_RATE_LIMIT`, default 50 per second) on reads,
 * 10 per minute on diagnostics and the report, a limit of its own on browser reports.
 */
import { badRequest } from '../../platform/errors.js';
import type { RateLimitHook } from '../../platform/http/rate-limit.js';
import type { App } from '../../platform/http/types.js';
import { ErrorBody } from '../../platform/http/error-body.js';
import type { SessionGuard } from '../auth/session.guard.js';
import type { ObservabilityServices } from './observability.module.js';
import {
  CLIENT_REPORT_BODY_LIMIT,
  ClientErrorBody,
  ClientErrorResponse,
  DiagnosticsResponse,
  ErrorsQuery,
  ErrorsResponse,
  GroupsQuery,
  GroupsResponse,
  ReportBody,
  ReportQuery,
  StatsResponse,
  SystemResponse,
} from './observability.schema.js';
import { REPORT_GROUPS, REPORT_LAST_ERRORS, renderReport, reportFileName } from './report.js';

export interface ObservabilityRouteDeps {
  services: ObservabilityServices;
  guard: SessionGuard;
  /** The admin surface limit. */
  rateLimit: RateLimitHook;
  /** Diagnostics and the report: 10 per minute each. */
  diagnosticsRateLimit: RateLimitHook;
  reportRateLimit: RateLimitHook;
  /** Browser error reports (their own window, so a crash loop cannot starve the admin API). */
  clientRateLimit: RateLimitHook;
}

const CONTENT_TYPES = { md: 'text/markdown; charset=utf-8', txt: 'text/plain; charset=utf-8' } as const;

export function observabilityRoutes(app: App, deps: ObservabilityRouteDeps): void {
  const { errors: errorLog, snapshot, diagnostics, clock } = deps.services;
  const preHandler = deps.guard({ admin: true });
  const admin = { onRequest: deps.rateLimit, preHandler };
  const failures = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 429: ErrorBody };

  app.get(
    '/admin/api/errors',
    { ...admin, schema: { querystring: ErrorsQuery, response: { 200: ErrorsResponse, ...failures } } },
    async (req, reply) => {
      reply.header('cache-control', 'no-store');
      const { limit, entries } = await errorLog.list(req.query);
      return { status: 'success' as const, data: { limit, count: entries.length, entries } };
    },
  );

  app.post(
    '/admin/api/errors/client',
    {
      onRequest: deps.clientRateLimit,
      preHandler,
      bodyLimit: CLIENT_REPORT_BODY_LIMIT,
      schema: { body: ClientErrorBody, response: { 200: ClientErrorResponse, 413: ErrorBody, ...failures } },
    },
    async (req) => {
      const stored = errorLog.ingestClient(req.body, req.session!.userId);
      if (!stored) {
        throw badRequest('Invalid request: message: Must contain text other than control characters.', {
          message: ['Must contain text other than control characters.'],
        });
      }
      return { status: 'success' as const, message: 'Error report stored', data: stored };
    },
  );

  app.get(
    '/admin/api/errors/stats',
    { ...admin, schema: { response: { 200: StatsResponse, ...failures } } },
    async (_req, reply) => {
      reply.header('cache-control', 'no-store');
      return { status: 'success' as const, data: await errorLog.stats() };
    },
  );

  app.get(
    '/admin/api/errors/groups',
    { ...admin, schema: { querystring: GroupsQuery, response: { 200: GroupsResponse, ...failures } } },
    async (req, reply) => {
      reply.header('cache-control', 'no-store');
      return { status: 'success' as const, data: await errorLog.groups(req.query) };
    },
  );

  app.get(
    '/admin/api/system',
    { ...admin, schema: { response: { 200: SystemResponse, ...failures } } },
    async (_req, reply) => {
      reply.header('cache-control', 'no-store');
      return { status: 'success' as const, data: await snapshot.snapshot() };
    },
  );

  app.post(
    '/admin/api/system/diagnostics',
    {
      onRequest: deps.diagnosticsRateLimit,
      preHandler,
      schema: { response: { 200: DiagnosticsResponse, ...failures } },
    },
    async (_req, reply) => {
      reply.header('cache-control', 'no-store');
      return { status: 'success' as const, data: await diagnostics() };
    },
  );

  app.get(
    '/admin/api/system/report',
    {
      onRequest: deps.reportRateLimit,
      preHandler,
      schema: { querystring: ReportQuery, response: { 200: ReportBody, ...failures } },
    },
    async (req, reply) => {
      const format = req.query.format ?? 'md';
      const at = clock.now();
      const [snap, stats, groups, last] = await Promise.all([
        snapshot.snapshot(),
        errorLog.stats(),
        errorLog.groups({ limit: REPORT_GROUPS }),
        errorLog.list({ limit: REPORT_LAST_ERRORS }),
      ]);
      const body = renderReport(
        { generatedAt: at, snapshot: snap, stats, groups: groups.groups, errors: last.entries },
        format,
      );
      return reply
        .header('cache-control', 'no-store')
        .header('content-disposition', `attachment; filename="${reportFileName(at, format)}"`)
        .type(CONTENT_TYPES[format])
        .send(body);
    },
  );
}

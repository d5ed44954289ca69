/**
 * The error log's routes (spec "Session routes: administration"): entries, browser error ingest,
 * stats and groups. Administrator session on every route (CSRF on the POST, the guard's rule);
 * the admin surface limit on reads, a limit of its own on browser reports.
 */
import { badRequest } from '../../platform/errors.js';
import type { RateLimitHook } from '../../platform/http/rate-limit.js';
import type { App } from '../../platform/http/types.js';
import { ErrorBody } from '../../platform/http/error-body.js';
import type { SessionGuard } from '../auth/session.guard.js';
import {
  CLIENT_REPORT_BODY_LIMIT,
  ClientErrorBody,
  ClientErrorResponse,
  ErrorsQuery,
  ErrorsResponse,
  GroupsQuery,
  GroupsResponse,
  StatsResponse,
} from './observability.schema.js';
import type { ErrorLogService } from './error-log.service.js';

export interface ErrorLogRouteDeps {
  errorLog: ErrorLogService;
  guard: SessionGuard;
  /** The admin surface limit. */
  rateLimit: RateLimitHook;
  /** Browser error reports (their own window, so a crash loop cannot starve the admin API). */
  clientRateLimit: RateLimitHook;
}

/** `/admin/api/errors*`: the error log, read by administrators; browser reports stored. */
export function errorLogRoutes(app: App, deps: ErrorLogRouteDeps): void {
  const { errorLog } = deps;
  const preHandler = deps.guard({ admin: true });
  const admin = { onRequest: deps.rateLimit, preHandler };
  const failures = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 429: ErrorBody };

  app.get(
    '/admin/api/errors',
    {
      ...admin,
      schema: {
        summary: 'Error log entries',
        tags: ['observability'],
        querystring: ErrorsQuery,
        response: { 200: ErrorsResponse, ...failures },
      },
    },
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
      // A browser's message may hold any character: control characters are stripped, not refused.
      config: { keepNul: true },
      schema: {
        summary: 'Report a browser error',
        tags: ['observability'],
        body: ClientErrorBody,
        response: { 200: ClientErrorResponse, 413: ErrorBody, ...failures },
      },
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
    {
      ...admin,
      schema: {
        summary: 'Error log statistics',
        tags: ['observability'],
        response: { 200: StatsResponse, ...failures },
      },
    },
    async (_req, reply) => {
      reply.header('cache-control', 'no-store');
      return { status: 'success' as const, data: await errorLog.stats() };
    },
  );

  app.get(
    '/admin/api/errors/groups',
    {
      ...admin,
      schema: {
        summary: 'Error log entries, grouped',
        tags: ['observability'],
        querystring: GroupsQuery,
        response: { 200: GroupsResponse, ...failures },
      },
    },
    async (req, reply) => {
      reply.header('cache-control', 'no-store');
      return { status: 'success' as const, data: await errorLog.groups(req.query) };
    },
  );
}

/** `/admin/api/system*`: the install's snapshot, the diagnostics probes and the report file. */
import { ErrorBody } from '../../platform/http/error-body.js';
import type { RateLimitHook } from '../../platform/http/rate-limit.js';
import type { App } from '../../platform/http/types.js';
import type { SessionGuard } from '../auth/session.guard.js';
import type { ErrorLogService } from '../observability/error-log.service.js';
import type { Clock } from '../../platform/clock.js';
import type { ProbeResult } from './diagnostics.js';
import type { SystemSnapshotService } from './system-snapshot.js';
import { REPORT_GROUPS, REPORT_LAST_ERRORS, renderReport, reportFileName } from './report.js';
import { DiagnosticsResponse, ReportBody, ReportQuery, SystemResponse } from './system.schema.js';

export interface SystemRouteDeps {
  system: {
    snapshot: SystemSnapshotService;
    clock: Clock;
    diagnostics(): Promise<{ ok: boolean; ms: number; timeout_ms: number; probes: ProbeResult[] }>;
  };
  errorLog: ErrorLogService;
  guard: SessionGuard;
  /** The admin surface limit. */
  rateLimit: RateLimitHook;
  /** Diagnostics and the report: 10 per minute each. */
  diagnosticsRateLimit: RateLimitHook;
  reportRateLimit: RateLimitHook;
}

const CONTENT_TYPES = { md: 'text/markdown; charset=utf-8', txt: 'text/plain; charset=utf-8' } as const;

export function systemRoutes(app: App, deps: SystemRouteDeps): void {
  const { errorLog } = deps;
  const { snapshot, diagnostics, clock } = deps.system;
  const preHandler = deps.guard({ admin: true });
  const admin = { onRequest: deps.rateLimit, preHandler };
  const failures = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 429: ErrorBody };

  app.get(
    '/admin/api/system',
    {
      ...admin,
      schema: {
        summary: "The install's snapshot",
        tags: ['system'],
        response: { 200: SystemResponse, ...failures },
      },
    },
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
      schema: {
        summary: 'Run the diagnostics probes',
        tags: ['system'],
        response: { 200: DiagnosticsResponse, ...failures },
      },
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
      schema: {
        summary: 'Download the system report (Markdown or text)',
        tags: ['system'],
        querystring: ReportQuery,
        response: { 200: ReportBody, ...failures },
      },
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

/**
 * The agents' routes so far: `POST /mcp/local/call`, which the local stdio server
 * (`algodesk mcp`, docs/rules/mcp.md#mcp-local) forwards each tool call to, authenticated by the
 * user's API key; and the administrator's `GET /admin/api/mcp/audit`
 * (docs/rules/mcp.md#mcp-audit).
 */
import { Type } from 'typebox';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import { ErrorBody } from '../../platform/http/error-body.js';
import type { RateLimitHook } from '../../platform/http/rate-limit.js';
import type { App } from '../../platform/http/types.js';
import type { ApiKeyGuard } from '../auth/api-key.guard.js';
import type { SessionGuard } from '../auth/session.guard.js';
import { schemaThenKey } from '../api/schema-then-key.js';
import { MCP_TOOLS } from './mcp-tools.js';
import type { McpCalls } from './mcp-calls.js';

const CallBody = Type.Object(
  {
    apikey: Type.String({ minLength: 1, maxLength: 256 }),
    tool: Type.String({ minLength: 1, maxLength: 64, enum: MCP_TOOLS.map((t) => t.name) }),
    arguments: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { additionalProperties: false },
);

const AuditQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  before_id: Type.Optional(Type.Integer({ minimum: 1 })),
  tool: Type.Optional(Type.String({ maxLength: 64 })),
  user_id: Type.Optional(Type.Integer({ minimum: 1 })),
  outcome: Type.Optional(Type.Union([Type.Literal('ok'), Type.Literal('error'), Type.Literal('refused')])),
});

const AuditRow = Type.Object({
  id: Type.Integer(),
  ts: Type.Integer(),
  transport: Type.String(),
  client_id: Type.Union([Type.String(), Type.Null()]),
  user_id: Type.Union([Type.Integer(), Type.Null()]),
  tool: Type.String(),
  scope: Type.Union([Type.String(), Type.Null()]),
  args_digest: Type.String(),
  http_status: Type.Integer(),
  outcome: Type.String(),
  duration_ms: Type.Number(),
  ip: Type.String(),
});

export function mcpRoutes(
  app: App,
  deps: { calls: McpCalls; apiKeyGuard: ApiKeyGuard; rateLimit: RateLimitHook },
): void {
  app.post(
    '/mcp/local/call',
    {
      onRequest: deps.rateLimit,
      attachValidation: true,
      preHandler: schemaThenKey(deps.apiKeyGuard),
      schema: {
        summary: "Run one agent tool as the API key's user (the local stdio server's calls)",
        description:
          "The tool runs as the `/api/v1` call it stands for, with this key, from this address: the answer is that call's status and body. Every call is audited.",
        tags: ['agents'],
        body: CallBody,
        response: {
          200: Type.Object({
            status: Type.Literal('success'),
            http_status: Type.Integer(),
            result: Type.Unknown(),
          }),
        },
      },
    },
    async (req) => {
      const b = req.body as { apikey: string; tool: string; arguments?: Record<string, unknown> };
      const r = await deps.calls.call(b.apikey, b.tool, b.arguments ?? {}, {
        transport: 'stdio',
        ip: req.clientIp,
        userId: req.apiPrincipal!.userId,
      });
      return { status: 'success' as const, http_status: r.status, result: r.body };
    },
  );
}

export function mcpAdminRoutes(
  app: App,
  deps: { db: Kysely<DB>; guard: SessionGuard; rateLimit: RateLimitHook },
): void {
  app.get(
    '/admin/api/mcp/audit',
    {
      onRequest: deps.rateLimit,
      preHandler: deps.guard({ admin: true }),
      schema: {
        summary: 'Agent tool calls, newest first (administrator)',
        tags: ['agents'],
        querystring: AuditQuery,
        response: {
          200: Type.Object({ status: Type.Literal('success'), data: Type.Array(AuditRow) }),
          400: ErrorBody,
          401: ErrorBody,
          403: ErrorBody,
          429: ErrorBody,
        },
      },
    },
    async (req) => {
      const q = req.query;
      let sel = deps.db
        .selectFrom('mcp_audit')
        .selectAll()
        .orderBy('id', 'desc')
        .limit(q.limit ?? 100);
      if (q.before_id !== undefined) sel = sel.where('id', '<', q.before_id);
      if (q.tool !== undefined) sel = sel.where('tool', '=', q.tool);
      if (q.user_id !== undefined) sel = sel.where('user_id', '=', q.user_id);
      if (q.outcome !== undefined) sel = sel.where('outcome', '=', q.outcome);
      const rows = await sel.execute();
      return {
        status: 'success' as const,
        data: rows.map((r) => ({
          ...r,
          id: Number(r.id),
          ts: Number(r.ts),
          user_id: r.user_id === null ? null : Number(r.user_id),
          duration_ms: Number(r.duration_ms),
        })),
      };
    },
  );
}

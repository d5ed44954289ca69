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
import { MCP_SCOPES, MCP_TOOLS, type McpScope } from './mcp-tools.js';
import type { OAuthAdmin } from './oauth-admin.js';
import type { McpSettingsService } from './mcp-settings.service.js';
import { badRequest, notFound } from '../../platform/errors.js';
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

const SettingsBody = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean()),
    require_approval: Type.Optional(Type.Boolean()),
    writes_enabled: Type.Optional(Type.Boolean()),
    allowed_scopes: Type.Optional(
      Type.Array(Type.Union(MCP_SCOPES.map((s) => Type.Literal(s))), { minItems: 1, uniqueItems: true }),
    ),
    token_rate_per_minute: Type.Optional(Type.Integer({ minimum: 1, maximum: 6000 })),
  },
  { additionalProperties: false },
);
const KillBody = Type.Object(
  {
    engage: Type.Boolean({ description: 'true engages the kill switch, false releases it' }),
    confirm: Type.String({ description: 'ENGAGE or RELEASE, matching `engage`' }),
  },
  { additionalProperties: false },
);
const ClientParams = Type.Object({ client_id: Type.String({ minLength: 1, maxLength: 64 }) });
const ClientStatus = Type.Unsafe<'pending' | 'approved' | 'revoked'>({
  type: 'string',
  enum: ['pending', 'approved', 'revoked'],
});
/** The answers of the agents' administration (oauth-admin.ts, mcp-settings.service.ts). */
const ClientsAnswer = Type.Object({
  status: Type.Literal('success'),
  data: Type.Array(
    Type.Object({
      client_id: Type.String(),
      name: Type.String(),
      redirect_uris: Type.Array(Type.String()),
      status: ClientStatus,
      created_at: Type.Integer(),
      last_used_at: Type.Union([Type.Integer(), Type.Null()]),
      users: Type.Array(Type.String({ description: 'the usernames who consented' })),
    }),
  ),
  counts: Type.Object({
    total: Type.Integer(),
    pending: Type.Integer(),
    approved: Type.Integer(),
    revoked: Type.Integer(),
  }),
});
const ClientStatusAnswer = Type.Object({
  status: Type.Literal('success'),
  client_id: Type.String(),
  client_status: ClientStatus,
});
const SettingsAnswer = Type.Object({
  status: Type.Literal('success'),
  data: Type.Object({
    enabled: Type.Boolean(),
    require_approval: Type.Boolean(),
    writes_enabled: Type.Boolean(),
    allowed_scopes: Type.Array(Type.Unsafe<McpScope>({ type: 'string', enum: [...MCP_SCOPES] })),
    token_rate_per_minute: Type.Integer({ description: 'tool calls per minute per access token' }),
    kill_switch: Type.Boolean(),
  }),
});
const KillSwitchAnswer = Type.Object({
  status: Type.Literal('success'),
  kill_switch: Type.Boolean(),
  revoked_tokens: Type.Integer(),
});

export function mcpAdminRoutes(
  app: App,
  deps: {
    db: Kysely<DB>;
    guard: SessionGuard;
    rateLimit: RateLimitHook;
    admin: OAuthAdmin;
    settings: McpSettingsService;
    /** 30 per minute (PUT settings). */
    settingsLimit: RateLimitHook;
    /** 10 per minute (the kill switch). */
    killLimit: RateLimitHook;
  },
): void {
  const admin = deps.guard({ admin: true });
  const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody };
  app.get(
    '/admin/api/oauth/clients',
    {
      onRequest: deps.rateLimit,
      preHandler: admin,
      schema: {
        summary: 'Remote agents’ OAuth clients with the users who consented',
        tags: ['agents'],
        response: { 200: ClientsAnswer, ...errors },
      },
    },
    async () => ({ status: 'success' as const, ...(await deps.admin.clients()) }),
  );
  for (const action of ['approve', 'revoke'] as const)
    app.post(
      `/admin/api/oauth/clients/:client_id/${action}`,
      {
        onRequest: deps.rateLimit,
        preHandler: admin,
        schema: {
          summary:
            action === 'approve' ? 'Approve a client' : 'Revoke a client (its tokens stop working at once)',
          tags: ['agents'],
          params: ClientParams,
          response: { 200: ClientStatusAnswer, ...errors },
        },
      },
      async (req) => {
        const ok = await deps.admin.setClientStatus(
          req.params.client_id,
          action === 'approve' ? 'approved' : 'revoked',
        );
        if (!ok) throw notFound('No such client');
        return {
          status: 'success' as const,
          client_id: req.params.client_id,
          client_status: action === 'approve' ? ('approved' as const) : ('revoked' as const),
        };
      },
    );
  app.get(
    '/admin/api/mcp/settings',
    {
      onRequest: deps.rateLimit,
      preHandler: admin,
      schema: {
        summary: 'Remote agents’ settings',
        tags: ['agents'],
        response: { 200: SettingsAnswer, ...errors },
      },
    },
    async () => ({ status: 'success' as const, data: await deps.settings.get() }),
  );
  app.put(
    '/admin/api/mcp/settings',
    {
      onRequest: deps.settingsLimit,
      preHandler: admin,
      schema: {
        summary: 'Change remote agents’ settings (in force at once everywhere)',
        tags: ['agents'],
        body: SettingsBody,
        response: { 200: SettingsAnswer, ...errors },
      },
    },
    async (req) => ({ status: 'success' as const, data: await deps.settings.update(req.body) }),
  );
  app.post(
    '/admin/api/mcp/kill-switch',
    {
      onRequest: deps.killLimit,
      preHandler: admin,
      schema: {
        summary:
          'Engage (every token revoked, /mcp and new authorizations refused) or release the kill switch',
        tags: ['agents'],
        body: KillBody,
        response: { 200: KillSwitchAnswer, ...errors },
      },
    },
    async (req) => {
      const { engage, confirm } = req.body;
      if (confirm !== (engage ? 'ENGAGE' : 'RELEASE'))
        throw badRequest(`Confirm with "${engage ? 'ENGAGE' : 'RELEASE'}"`, { confirm: ['does not match'] });
      await deps.settings.update({ kill_switch: engage });
      const revoked = engage ? await deps.admin.revokeAll() : 0;
      return { status: 'success' as const, kill_switch: engage, revoked_tokens: revoked };
    },
  );
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

/**
 * Flow routes: the definitions (session, CSRF on changes; docs/rules/flow.md#flow-management) and
 * the webhook `POST /flow/webhook/<token>` and `/flow/webhook/<token>/<symbol>` in a scope of its
 * own whose only body parser keeps the raw text (docs/rules/flow.md#flow-webhook).
 */
import { Type } from 'typebox';
import type { RateLimitHook } from '../../platform/http/rate-limit.js';
import type { App } from '../../platform/http/types.js';
import { webhookRoutes, type WebhookLimitDeps } from '../webhooks/webhooks.routes.js';
import { webhookSourceRoutes } from '../webhooks/source.routes.js';
import type { SessionGuard } from '../auth/session.guard.js';
import type { FlowService } from './flow.service.js';
import { CREDENTIAL_PREFIX } from '../webhooks/credential.js';
import { FLOW_RESULTS, type FlowWebhook } from './flow-webhook.service.js';

/** A definition is JSON of at most 64 KiB (checked on save: flow-definition.ts). */
const DEFINITION_BODY_LIMIT = 64 * 1024;
const Name = Type.String({ minLength: 1, maxLength: 100 });
const CreateBody = Type.Object(
  { name: Name, definition: Type.Unknown(), enabled: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);
const UpdateBody = Type.Object(
  {
    name: Type.Optional(Name),
    definition: Type.Optional(Type.Unknown()),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
const FlowView = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  definition: Type.Unknown(),
  enabled: Type.Boolean(),
  created_at: Type.Integer(),
  updated_at: Type.Integer(),
});
const Issued = { webhook_token: Type.String(), webhook_url: Type.String(), secret: Type.String() };
const NodeOutcome = Type.Object({
  id: Type.String(),
  type: Type.String(),
  status: Type.Union([Type.Literal('done'), Type.Literal('skipped'), Type.Literal('failed')]),
  result: Type.Optional(Type.Boolean()),
  orderid: Type.Optional(Type.String()),
  message: Type.Optional(Type.String()),
});
const RunView = Type.Object({
  id: Type.Integer(),
  ts: Type.Integer(),
  ip: Type.String(),
  result: Type.String(),
  http_status: Type.Integer(),
  symbol: Type.Union([Type.String(), Type.Null()]),
  message: Type.String(),
  payload: Type.Unknown(),
  nodes: Type.Union([Type.Array(NodeOutcome), Type.Null()]),
  duration_ms: Type.Number(),
});

export function flowRoutes(
  app: App,
  deps: { flows: FlowService; guard: SessionGuard; rateLimit: RateLimitHook },
): void {
  type Body = { name: string; definition: unknown; enabled?: boolean };
  const svc = deps.flows;
  webhookSourceRoutes<Body>(app, {
    base: '/flow/api/flows',
    tags: ['flows'],
    service: {
      list: (u) => svc.list(u),
      create: (u, b) => svc.create(u, b),
      get: (u, id) => svc.get(u, id),
      update: (u, id, b) => svc.update(u, id, b),
      remove: (u, id) => svc.remove(u, id),
      rotate: (u, id) => svc.rotate(u, id),
      deliveries: (u, id, limit) => svc.runs(u, id, limit),
    },
    schemas: { view: FlowView, create: CreateBody, update: UpdateBody, issued: Issued, delivery: RunView },
    deliveriesPath: '/runs',
    summaries: {
      list: "The user's flows",
      create: 'Create a flow (its webhook token and secret are shown once)',
      get: 'A flow',
      update: 'Update a flow (its definition is checked as on creation)',
      remove: 'Delete a flow (its token dies; its runs stay)',
      rotate: 'Issue a new webhook token and secret (the old ones stop working)',
      deliveries: "A flow's runs, newest first",
    },
    removed: 'Flow deleted',
    errors: [400, 401, 403, 404, 409, 413, 429],
    bodyLimit: DEFINITION_BODY_LIMIT,
    onRequest: deps.rateLimit,
    preHandler: deps.guard(),
  });
}

export async function flowWebhookRoutes(
  app: App,
  deps: WebhookLimitDeps & { webhook: FlowWebhook },
): Promise<void> {
  await webhookRoutes(app, deps, {
    base: '/flow/webhook',
    routes: [
      { path: '/:token', summary: 'Run a flow' },
      { path: '/:token/:symbol', summary: 'Run a flow for a symbol (its `{{symbol}}`)' },
    ],
    description:
      'The token in the path and the secret (body `secret` or query `?secret=`) are the credentials. The body is read as text whatever its content type and must be a JSON object; the answer is the run: each node done, skipped or failed.',
    credential: { param: 'token', prefix: CREDENTIAL_PREFIX.flow },
    limitNames: ['flow-ip', 'flow-token'],
    results: FLOW_RESULTS,
    answerFields: {
      flow_id: Type.Optional(Type.Integer()),
      run_id: Type.Optional(Type.Integer()),
      nodes: Type.Optional(Type.Array(NodeOutcome)),
    },
    refusals: [
      ['rejected_payload', 'the body is not a JSON object, or the symbol in the path is not a symbol'],
      ['rejected_secret', 'the secret is missing or wrong'],
      ['rejected_disabled', 'the flow is disabled'],
      ['rejected_token', 'no flow has this token, or the path cannot hold one'],
      ['rejected_engine_error', 'an unexpected failure'],
    ],
    malformed: ['rejected_token', 'the path cannot hold a token'],
    deliver: (req, token, raw) => {
      const q = req.query as { secret?: unknown };
      const symbol = (req.params as { symbol?: string }).symbol;
      return deps.webhook.deliver(
        token,
        symbol,
        typeof q.secret === 'string' ? q.secret : undefined,
        raw,
        req.clientIp,
      );
    },
  });
}

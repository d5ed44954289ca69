/**
 * Flow routes: the definitions (session, CSRF on changes; docs/rules/flow.md#flow-management) and
 * the webhook `POST /flow/webhook/<token>` and `/flow/webhook/<token>/<symbol>` in a scope of its
 * own whose only body parser keeps the raw text (docs/rules/flow.md#flow-webhook).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { Type, type TProperties } from 'typebox';
import { ErrorBody } from '../../platform/http/error-body.js';
import type { ErrorAnswer, HookDoc } from '../../platform/http/hook-doc.js';
import type { RateLimitHook } from '../../platform/http/rate-limit.js';
import type { App } from '../../platform/http/types.js';
import { webhookRoutes } from '../../platform/http/webhook-body.js';
import type { RateLimiter } from '../../platform/rate-limiter.js';
import type { RateRule } from '../../platform/rate-rule.js';
import type { SessionGuard } from '../auth/session.guard.js';
import { flowTokenDigest, type FlowService } from './flow.service.js';
import { FLOW_RESULTS, type FlowResult, type FlowWebhook } from './flow-webhook.service.js';

/** A definition is JSON of at most 64 KiB (checked on save: flow-definition.ts). */
const DEFINITION_BODY_LIMIT = 64 * 1024;
const IdParams = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2 ** 53 - 1 }) });
const LimitQuery = Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })) });
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
const ok = <T extends TProperties>(props: T) => Type.Object({ status: Type.Literal('success'), ...props });
const errors = {
  400: ErrorBody,
  401: ErrorBody,
  403: ErrorBody,
  404: ErrorBody,
  409: ErrorBody,
  413: ErrorBody,
  429: ErrorBody,
};

export function flowRoutes(
  app: App,
  deps: { flows: FlowService; guard: SessionGuard; rateLimit: RateLimitHook },
): void {
  const svc = deps.flows;
  const opts = { onRequest: deps.rateLimit, preHandler: deps.guard() };
  const base = '/flow/api/flows';
  const tags = ['flows'];
  const user = (req: FastifyRequest) => req.session!.userId;
  const noStore = (reply: FastifyReply) => reply.header('cache-control', 'no-store');

  app.get(
    base,
    {
      ...opts,
      schema: {
        summary: "The user's flows",
        tags,
        response: { 200: ok({ data: Type.Array(FlowView) }), ...errors },
      },
    },
    async (req) => ({ status: 'success' as const, data: await svc.list(user(req)) }),
  );
  app.post(
    base,
    {
      ...opts,
      bodyLimit: DEFINITION_BODY_LIMIT,
      schema: {
        summary: 'Create a flow (its webhook token and secret are shown once)',
        tags,
        body: CreateBody,
        response: { 200: ok({ data: FlowView, ...Issued }), ...errors },
      },
    },
    async (req, reply) => {
      noStore(reply);
      const b = req.body as { name: string; definition: unknown; enabled?: boolean };
      return { status: 'success' as const, ...(await svc.create(user(req), b)) };
    },
  );
  app.get(
    `${base}/:id`,
    {
      ...opts,
      schema: {
        summary: 'A flow',
        tags,
        params: IdParams,
        response: { 200: ok({ data: FlowView }), ...errors },
      },
    },
    async (req) => ({ status: 'success' as const, data: await svc.get(user(req), req.params.id) }),
  );
  app.put(
    `${base}/:id`,
    {
      ...opts,
      bodyLimit: DEFINITION_BODY_LIMIT,
      schema: {
        summary: 'Update a flow (its definition is checked as on creation)',
        tags,
        params: IdParams,
        body: UpdateBody,
        response: { 200: ok({ data: FlowView }), ...errors },
      },
    },
    async (req) => ({
      status: 'success' as const,
      data: await svc.update(
        user(req),
        req.params.id,
        req.body as { name?: string; definition?: unknown; enabled?: boolean },
      ),
    }),
  );
  app.delete(
    `${base}/:id`,
    {
      ...opts,
      schema: {
        summary: 'Delete a flow (its token dies; its runs stay)',
        tags,
        params: IdParams,
        response: { 200: ok({ message: Type.String() }), ...errors },
      },
    },
    async (req) => {
      await svc.remove(user(req), req.params.id);
      return { status: 'success' as const, message: 'Flow deleted' };
    },
  );
  app.post(
    `${base}/:id/rotate`,
    {
      ...opts,
      schema: {
        summary: 'Issue a new webhook token and secret (the old ones stop working)',
        tags,
        params: IdParams,
        response: { 200: ok(Issued), ...errors },
      },
    },
    async (req, reply) => {
      noStore(reply);
      return { status: 'success' as const, ...(await svc.rotate(user(req), req.params.id)) };
    },
  );
  app.get(
    `${base}/:id/runs`,
    {
      ...opts,
      schema: {
        summary: "A flow's runs, newest first",
        tags,
        params: IdParams,
        querystring: LimitQuery,
        response: { 200: ok({ data: Type.Array(RunView) }), ...errors },
      },
    },
    async (req) => ({
      status: 'success' as const,
      data: await svc.runs(user(req), req.params.id, req.query.limit ?? 100),
    }),
  );
}

const AnswerBody = Type.Object({
  status: Type.Union([Type.Literal('success'), Type.Literal('error')]),
  result: Type.Union(Object.keys(FLOW_RESULTS).map((r) => Type.Literal(r))),
  message: Type.String(),
  flow_id: Type.Optional(Type.Integer()),
  run_id: Type.Optional(Type.Integer()),
  nodes: Type.Optional(Type.Array(NodeOutcome)),
});
const refused = (result: FlowResult, when: string): ErrorAnswer => ({
  status: FLOW_RESULTS[result],
  when: `\`${result}\`: ${when}`,
  body: AnswerBody,
});
const DELIVERY_ANSWERS: HookDoc = {
  answers: [
    refused('rejected_payload', 'the body is not a JSON object, or the symbol in the path is not a symbol'),
    refused('rejected_secret', 'the secret is missing or wrong'),
    refused('rejected_disabled', 'the flow is disabled'),
    refused('rejected_token', 'no flow has this token, or the path cannot hold one'),
    refused('rejected_engine_error', 'an unexpected failure'),
  ],
};

export async function flowWebhookRoutes(
  app: App,
  deps: { webhook: FlowWebhook; limiter: RateLimiter; rules: readonly RateRule[]; logger: Logger },
): Promise<void> {
  await webhookRoutes(app, {
    base: '/flow/webhook',
    routes: [
      { path: '/:token', summary: 'Run a flow' },
      { path: '/:token/:symbol', summary: 'Run a flow for a symbol (its `{{symbol}}`)' },
    ],
    description:
      'The token in the path and the secret (body `secret` or query `?secret=`) are the credentials. The body is read as text whatever its content type and must be a JSON object; the answer is the run: each node done, skipped or failed.',
    credential: (p) => p.token ?? p['*'] ?? '',
    limitKeys: (req, token) => [
      `flow-ip:${req.clientIp}`,
      `flow-token:${flowTokenDigest(token) ?? 'malformed'}`,
    ],
    limiter: deps.limiter,
    rules: deps.rules,
    logger: deps.logger,
    answers: DELIVERY_ANSWERS,
    malformed: { answers: [refused('rejected_token', 'the path cannot hold a token')] },
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

/**
 * Strategy routes:
 * - management under `/strategy/api` (session; CSRF on writes): CRUD, token rotation, the lock,
 *   the live switch, runs, events, deliveries; another user's strategy is a plain 404;
 * - `POST /api/v1/strategy/events` (API key): the event trail, newest first;
 * - `POST /strategy/webhook/<token>` (no session, no key): in a scope of its own whose only body
 *   parser keeps the raw text, so every malformed body reaches the audited pipeline. A declared
 *   `Content-Length` over 16,384 → 413 (no `result`) and a rate-limit refusal → 429
 *   `rate_limited`, both before the body is read, neither audited.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type, type TSchema } from 'typebox';
import type { ApiKeyGuard } from '../auth/api-key.guard.js';
import type { SessionGuard } from '../auth/session.guard.js';
import { ErrorBody, errorBodies } from '../../platform/http/error-body.js';
import { schemaThenKey } from '../api/schema-then-key.js';
import type { RateLimitHook } from '../../platform/http/rate-limit.js';
import type { App } from '../../platform/http/types.js';
import type { StrategiesService, StrategyInput, StrategyUpdate } from './strategies.service.js';
import {
  CreateStrategyBody,
  IdParams,
  ListQuery,
  LiveBody,
  LockBody,
  StrategyEventsBody,
  StartBody,
  UpdateStrategyBody,
} from './strategy.schema.js';
import { CREDENTIAL_PREFIX } from '../webhooks/credential.js';
import {
  CreatedView,
  DeliveryView,
  EventView,
  Issued,
  ok,
  RunOutcome,
  RunView,
  StrategyView,
} from './strategy-answers.schema.js';
import { RESULT_STATUS } from './strategy.types.js';
import type { RunStopper } from './run-stop.js';
import type { StrategyRunner } from './strategy-runner.js';
import type { WebhookService } from './webhook.service.js';
import { runnerBody, startOwnedBatch, stopOwned } from './strategy-actions.js';
import { webhookRoutes, type WebhookLimitDeps } from '../webhooks/webhooks.routes.js';

export function strategyRoutes(
  app: App,
  deps: {
    strategies: StrategiesService;
    runner: StrategyRunner;
    stopper: RunStopper;
    guard: SessionGuard;
    rateLimit: RateLimitHook;
  },
): void {
  const { strategies: svc } = deps;
  const errors = errorBodies(400, 401, 403, 404, 409, 429, 500);
  /** A success with `data`, and the errors. */
  const answers = <T extends TSchema>(data: T) => ({ 200: ok({ data }), ...errors });
  const opts = { onRequest: deps.rateLimit, preHandler: deps.guard() };
  // Start and stop answer the webhook's fields (result, run_id, …) on the statuses a run action
  // has; a guard, a schema or the error handler may answer those statuses too (an error body).
  const either = Type.Union([RunOutcome, ErrorBody]);
  const outcome = { ...errors, 200: RunOutcome, 400: either, 403: either, 409: either, 500: either };
  const base = '/strategy/api/strategies';
  const user = (req: FastifyRequest) => req.session!.userId;
  const noStore = (reply: FastifyReply) => reply.header('cache-control', 'no-store');

  app.post(
    base,
    {
      ...opts,
      schema: {
        summary: 'Create a strategy',
        tags: ['strategies'],
        body: CreateStrategyBody,
        response: { 201: ok({ data: CreatedView }), ...errors },
      },
    },
    async (req, reply) => {
      noStore(reply);
      const created = await svc.create(user(req), req.body as StrategyInput);
      return reply.code(201).send({ status: 'success' as const, data: created });
    },
  );
  app.get(
    base,
    {
      ...opts,
      schema: {
        summary: "The user's strategies",
        tags: ['strategies'],
        response: answers(Type.Array(StrategyView)),
      },
    },
    async (req) => ({
      status: 'success' as const,
      data: await svc.list(user(req)),
    }),
  );
  app.get(
    `${base}/:id`,
    {
      ...opts,
      schema: {
        summary: 'A strategy',
        tags: ['strategies'],
        params: IdParams,
        response: answers(StrategyView),
      },
    },
    async (req) => ({
      status: 'success' as const,
      data: await svc.view(user(req), req.params.id),
    }),
  );
  app.put(
    `${base}/:id`,
    {
      ...opts,
      schema: {
        summary: 'Update a strategy',
        tags: ['strategies'],
        params: IdParams,
        body: UpdateStrategyBody,
        response: answers(StrategyView),
      },
    },
    async (req) => ({
      status: 'success' as const,
      data: await svc.update(user(req), req.params.id, req.body as StrategyUpdate),
    }),
  );
  app.delete(
    `${base}/:id`,
    {
      ...opts,
      schema: {
        summary: 'Delete a strategy',
        tags: ['strategies'],
        params: IdParams,
        response: { 200: ok({ message: Type.String() }), ...errors },
      },
    },
    async (req) => {
      await svc.remove(user(req), req.params.id);
      return { status: 'success' as const, message: 'Strategy deleted' };
    },
  );
  app.post(
    `${base}/:id/rotate-token`,
    {
      ...opts,
      schema: {
        summary: 'Issue a new webhook token (the old one stops working)',
        tags: ['strategies'],
        params: IdParams,
        response: answers(Issued),
      },
    },
    async (req, reply) => {
      noStore(reply);
      return { status: 'success' as const, data: await svc.rotateToken(user(req), req.params.id) };
    },
  );
  app.post(
    `${base}/:id/lock`,
    {
      ...opts,
      schema: {
        summary: 'Lock or unlock a strategy',
        tags: ['strategies'],
        params: IdParams,
        body: LockBody,
        response: answers(StrategyView),
      },
    },
    async (req) => ({
      status: 'success' as const,
      data: await svc.setLocked(user(req), req.params.id, req.body.locked),
    }),
  );
  app.post(
    `${base}/:id/live`,
    {
      ...opts,
      schema: {
        summary: 'Allow or forbid live orders for a strategy',
        tags: ['strategies'],
        params: IdParams,
        body: LiveBody,
        response: answers(StrategyView),
      },
    },
    async (req) => ({
      status: 'success' as const,
      data: await svc.setLive(user(req), req.params.id, req.body.enabled),
    }),
  );
  // The strategy page's start and stop buttons: the same claim as the webhook, so a click, a
  // scheduler and a webhook can never open two runs.
  app.post(
    `${base}/:id/start`,
    {
      ...opts,
      schema: {
        summary: 'Start a batch strategy run',
        tags: ['strategies'],
        params: IdParams,
        body: StartBody,
        response: outcome,
      },
    },
    async (req, reply) => {
      const { s, out } = await startOwnedBatch(deps, user(req), req.params.id, req.body.mode);
      return reply.code(RESULT_STATUS[out.result]).send(runnerBody(out, s.id));
    },
  );
  app.post(
    `${base}/:id/stop`,
    {
      ...opts,
      schema: {
        summary: "Stop the strategy's active run",
        tags: ['strategies'],
        params: IdParams,
        response: outcome,
      },
    },
    async (req, reply) => {
      const { s, out } = await stopOwned(deps, user(req), req.params.id);
      return reply.code(RESULT_STATUS[out.result]).send(runnerBody(out, s.id));
    },
  );
  app.get(
    `${base}/:id/runs`,
    {
      ...opts,
      schema: {
        summary: "A strategy's runs",
        tags: ['strategies'],
        params: IdParams,
        querystring: ListQuery,
        response: answers(Type.Array(RunView)),
      },
    },
    async (req) => ({
      status: 'success' as const,
      data: await svc.runs(user(req), req.params.id, req.query.limit ?? 100),
    }),
  );
  app.get(
    `${base}/:id/events`,
    {
      ...opts,
      schema: {
        summary: "A strategy's events",
        tags: ['strategies'],
        params: IdParams,
        querystring: ListQuery,
        response: answers(Type.Array(EventView)),
      },
    },
    async (req) => ({
      status: 'success' as const,
      data: await svc.events(user(req), req.params.id, {
        ...(req.query.run_id !== undefined ? { runId: req.query.run_id } : {}),
        ...(req.query.kind !== undefined ? { kind: req.query.kind } : {}),
        ...(req.query.severity !== undefined ? { severity: req.query.severity } : {}),
        limit: req.query.limit ?? 500,
      }),
    }),
  );
  app.get(
    `${base}/:id/deliveries`,
    {
      ...opts,
      schema: {
        summary: "A strategy's webhook deliveries",
        tags: ['strategies'],
        params: IdParams,
        querystring: ListQuery,
        response: answers(Type.Array(DeliveryView)),
      },
    },
    async (req) => ({
      status: 'success' as const,
      data: await svc.deliveries(user(req), req.params.id, req.query.limit ?? 100),
    }),
  );
}

/** `POST /api/v1/strategy/events`: schema failures first (400), then the API key, then ownership. */
export function strategyEventsApiRoute(
  app: App,
  deps: { strategies: StrategiesService; apiKeyGuard: ApiKeyGuard; rateLimit: RateLimitHook },
): void {
  app.post(
    '/api/v1/strategy/events',
    {
      onRequest: deps.rateLimit,
      attachValidation: true,
      preHandler: schemaThenKey(deps.apiKeyGuard),
      schema: {
        summary: "A strategy's event trail, newest first",
        tags: ['openalgo-api'],
        body: StrategyEventsBody,
      },
    },
    async (req) => {
      const b = req.body;
      const data = await deps.strategies.events(req.apiPrincipal!.userId, b.strategy_id, {
        ...(b.run_id !== undefined ? { runId: b.run_id } : {}),
        ...(b.kind !== undefined ? { kind: b.kind } : {}),
        ...(b.severity !== undefined ? { severity: b.severity } : {}),
        limit: b.limit ?? 500,
      });
      return { status: 'success', data };
    },
  );
}

export interface WebhookRouteDeps extends WebhookLimitDeps {
  webhook: WebhookService;
}

const WEBHOOK_DESCRIPTION =
  'The token in the path is the only credential (no `apikey`, no session). The body is read as text whatever its content type and must be a JSON object; every delivery is audited. An accepted or de-duplicated delivery answers 200 with `result` `ok` or `rejected_dedupe`.';

/** Registers the webhook in its own scope (raw body parser: modules/webhooks/webhooks.routes.ts). */
export async function strategyWebhookRoutes(app: App, deps: WebhookRouteDeps): Promise<void> {
  await webhookRoutes(app, deps, {
    base: '/strategy/webhook',
    routes: [{ path: '/:token', summary: 'Deliver a signal to a strategy' }],
    description: WEBHOOK_DESCRIPTION,
    credential: { param: 'token', prefix: CREDENTIAL_PREFIX.strategy },
    limitNames: ['webhook-ip', 'webhook-token'],
    results: RESULT_STATUS,
    answerFields: {
      strategy_id: Type.Optional(Type.Integer()),
      run_id: Type.Optional(Type.Integer()),
      stop_pending: Type.Optional(Type.Boolean()),
      exits: Type.Optional(Type.Array(Type.Unknown())),
    },
    // What the pipeline may refuse a delivery with (docs/rules/strategies.md#webhook-pipeline).
    refusals: [
      ['rejected_payload', 'the body is not a JSON object of the expected fields'],
      ['rejected_invalid_action', "the action or mode does not fit the strategy's kind"],
      ['rejected_locked', 'the strategy is locked'],
      ['rejected_ip', "the sender's address is not in the strategy's allowlist"],
      ['rejected_live_disabled', 'a live signal while live orders are not enabled'],
      ['rejected_token', 'no strategy has this token, or the path cannot hold one'],
      ['rejected_cooling_off', 'within the cooling-off after a run, or while one is stopping'],
      ['rejected_engine_error', 'an unexpected failure, or the strategy busy on another instance'],
    ],
    malformed: ['rejected_token', 'the path cannot hold a token'],
    // Over the size (undeclared): answered, and the connection closed on the unread rest.
    deliver: (req, token, raw) => deps.webhook.deliver(token, raw, req.clientIp),
  });
}

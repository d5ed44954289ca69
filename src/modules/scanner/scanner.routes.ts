/**
 * Scanner routes: the configuration (session, CSRF on changes; docs/rules/scanner.md#scanner-configuration)
 * and the webhook `POST /scanner/webhook/<webhook_id>` in a scope of its own whose only body parser
 * keeps the raw text (docs/rules/scanner.md#scanner-delivery); its size and rate checks run before
 * the body is read (docs/rules/scanner.md#scanner-limits).
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
import { webhookIdDigest, type ScannerService } from './scanner.service.js';
import {
  CreateScannerBody,
  DeliveryView,
  ScannerView,
  SymbolResult,
  UpdateScannerBody,
} from './scanner.schema.js';
import { SCANNER_RESULTS, type ScannerResult, type ScannerWebhook } from './scanner-webhook.service.js';

const IdParams = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2 ** 53 - 1 }) });
const LiveBody = Type.Object({ enabled: Type.Boolean() }, { additionalProperties: false });
const LimitQuery = Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })) });
const Issued = { webhook_id: Type.String(), webhook_url: Type.String() };
const ok = <T extends TProperties>(props: T) => Type.Object({ status: Type.Literal('success'), ...props });
const errors = {
  400: ErrorBody,
  401: ErrorBody,
  403: ErrorBody,
  404: ErrorBody,
  409: ErrorBody,
  429: ErrorBody,
};

export function scannerRoutes(
  app: App,
  deps: { scanners: ScannerService; guard: SessionGuard; rateLimit: RateLimitHook },
): void {
  const svc = deps.scanners;
  const opts = { onRequest: deps.rateLimit, preHandler: deps.guard() };
  const admin = { onRequest: deps.rateLimit, preHandler: deps.guard({ admin: true }) };
  const base = '/scanner/api/scanners';
  const tags = ['scanners'];
  const user = (req: FastifyRequest) => req.session!.userId;
  const noStore = (reply: FastifyReply) => reply.header('cache-control', 'no-store');

  app.get(
    base,
    {
      ...opts,
      schema: {
        summary: "The user's scanners",
        tags,
        response: { 200: ok({ data: Type.Array(ScannerView) }), ...errors },
      },
    },
    async (req) => ({ status: 'success' as const, data: await svc.list(user(req)) }),
  );
  app.post(
    base,
    {
      ...opts,
      schema: {
        summary: 'Create a scanner (its webhook id is shown once)',
        tags,
        body: CreateScannerBody,
        response: { 200: ok({ data: ScannerView, ...Issued }), ...errors },
      },
    },
    async (req, reply) => {
      noStore(reply);
      return { status: 'success' as const, ...(await svc.create(user(req), req.body as CreateScannerBody)) };
    },
  );
  app.get(
    `${base}/:id`,
    {
      ...opts,
      schema: {
        summary: 'A scanner',
        tags,
        params: IdParams,
        response: { 200: ok({ data: ScannerView }), ...errors },
      },
    },
    async (req) => ({ status: 'success' as const, data: await svc.get(user(req), req.params.id) }),
  );
  app.put(
    `${base}/:id`,
    {
      ...opts,
      schema: {
        summary: 'Update a scanner',
        tags,
        params: IdParams,
        body: UpdateScannerBody,
        response: { 200: ok({ data: ScannerView }), ...errors },
      },
    },
    async (req) => ({
      status: 'success' as const,
      data: await svc.update(user(req), req.params.id, req.body as UpdateScannerBody),
    }),
  );
  app.delete(
    `${base}/:id`,
    {
      ...opts,
      schema: {
        summary: 'Delete a scanner (its webhook id dies; its audit stays)',
        tags,
        params: IdParams,
        response: { 200: ok({ message: Type.String() }), ...errors },
      },
    },
    async (req) => {
      await svc.remove(user(req), req.params.id);
      return { status: 'success' as const, message: 'Scanner deleted' };
    },
  );
  app.post(
    `${base}/:id/rotate`,
    {
      ...opts,
      schema: {
        summary: 'Issue a new webhook id (the old one stops working)',
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
  app.post(
    `${base}/:id/live`,
    {
      ...admin,
      schema: {
        summary: 'Allow or forbid live orders for a scanner (administrator)',
        tags,
        params: IdParams,
        body: LiveBody,
        response: { 200: ok({ data: ScannerView }), ...errors },
      },
    },
    async (req) => ({ status: 'success' as const, data: await svc.setLive(req.params.id, req.body.enabled) }),
  );
  app.get(
    `${base}/:id/deliveries`,
    {
      ...opts,
      schema: {
        summary: "A scanner's deliveries and square-offs, newest first",
        tags,
        params: IdParams,
        querystring: LimitQuery,
        response: { 200: ok({ data: Type.Array(DeliveryView) }), ...errors },
      },
    },
    async (req) => ({
      status: 'success' as const,
      data: await svc.deliveries(user(req), req.params.id, req.query.limit ?? 100),
    }),
  );
}

/** The webhook's answer (scanner-webhook.service.ts `ScannerAnswer`), for the API reference. */
const AnswerBody = Type.Object({
  status: Type.Union([Type.Literal('success'), Type.Literal('error')]),
  result: Type.Union(Object.keys(SCANNER_RESULTS).map((r) => Type.Literal(r))),
  message: Type.String(),
  scanner_id: Type.Optional(Type.Integer()),
  action: Type.Optional(Type.String()),
  results: Type.Optional(Type.Array(SymbolResult)),
});
const refused = (result: ScannerResult, when: string): ErrorAnswer => ({
  status: SCANNER_RESULTS[result],
  when: `\`${result}\`: ${when}`,
  body: AnswerBody,
});
const DELIVERY_ANSWERS: HookDoc = {
  answers: [
    refused('rejected_payload', "the body is not Chartink's alert (the message names the fault)"),
    refused('rejected_action', 'the scan name holds none of BUY, SELL, SHORT, COVER (action FROM_SCAN_NAME)'),
    refused('rejected_disabled', 'the scanner is disabled'),
    refused('rejected_live_disabled', 'a live scanner whose live orders are not enabled'),
    refused('rejected_id', 'no scanner has this webhook id, or the path cannot hold one'),
    refused('rejected_window', "outside the scanner's trading window or on a day the exchange is closed"),
    refused('rejected_engine_error', 'an unexpected failure'),
  ],
};

export interface ScannerWebhookRouteDeps {
  webhook: ScannerWebhook;
  limiter: RateLimiter;
  /** Per client IP and per webhook id digest (`WEBHOOK_RATE_LIMIT`). */
  rules: readonly RateRule[];
  logger: Logger;
}

export async function scannerWebhookRoutes(app: App, deps: ScannerWebhookRouteDeps): Promise<void> {
  await webhookRoutes(app, {
    base: '/scanner/webhook',
    routes: [{ path: '/:webhook_id', summary: 'Deliver a scanner alert (Chartink format)' }],
    description:
      "The webhook id in the path is the only credential. The body is read as text whatever its content type and must be Chartink's alert; every delivery is audited. An accepted or de-duplicated alert answers 200 with `result` `ok` or `rejected_dedupe`.",
    credential: (p) => p.webhook_id ?? p['*'] ?? '',
    limitKeys: (req, id) => [
      `scanner-ip:${req.clientIp}`,
      `scanner-id:${webhookIdDigest(id) ?? 'malformed'}`,
    ],
    limiter: deps.limiter,
    rules: deps.rules,
    logger: deps.logger,
    answers: DELIVERY_ANSWERS,
    malformed: { answers: [refused('rejected_id', 'the path cannot hold a webhook id')] },
    deliver: (req, id, raw) => deps.webhook.deliver(id, raw, req.clientIp),
  });
}

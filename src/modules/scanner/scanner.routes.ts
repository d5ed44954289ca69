/**
 * Scanner routes: the configuration (session, CSRF on changes; docs/rules/scanner.md#scanner-configuration)
 * and the webhook `POST /scanner/webhook/<webhook_id>` in a scope of its own whose only body parser
 * keeps the raw text (docs/rules/scanner.md#scanner-delivery); its size and rate checks run before
 * the body is read (docs/rules/scanner.md#scanner-limits).
 */
import { Type } from 'typebox';
import { errorBodies } from '../../platform/http/error-body.js';
import type { RateLimitHook } from '../../platform/http/rate-limit.js';
import type { App } from '../../platform/http/types.js';
import { webhookRoutes, type WebhookLimitDeps } from '../webhooks/webhooks.routes.js';
import { ok, webhookSourceRoutes } from '../webhooks/source.routes.js';
import type { SessionGuard } from '../auth/session.guard.js';
import type { ScannerService } from './scanner.service.js';
import { CREDENTIAL_PREFIX } from '../webhooks/credential.js';
import {
  CreateScannerBody,
  DeliveryView,
  ScannerView,
  SymbolResult,
  UpdateScannerBody,
} from './scanner.schema.js';
import { SCANNER_RESULTS, type ScannerWebhook } from './scanner-webhook.service.js';

const IdParams = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2 ** 53 - 1 }) });
const LiveBody = Type.Object({ enabled: Type.Boolean() }, { additionalProperties: false });
const Issued = { webhook_id: Type.String(), webhook_url: Type.String() };
const errors = errorBodies(400, 401, 403, 404, 409, 429);

export function scannerRoutes(
  app: App,
  deps: { scanners: ScannerService; guard: SessionGuard; rateLimit: RateLimitHook },
): void {
  const svc = deps.scanners;
  const base = '/scanner/api/scanners';
  webhookSourceRoutes(app, {
    base,
    tags: ['scanners'],
    service: {
      list: (u) => svc.list(u),
      create: (u, b: CreateScannerBody) => svc.create(u, b),
      get: (u, id) => svc.get(u, id),
      update: (u, id, b) => svc.update(u, id, b as UpdateScannerBody),
      remove: (u, id) => svc.remove(u, id),
      rotate: (u, id) => svc.rotate(u, id),
      deliveries: (u, id, limit) => svc.deliveries(u, id, limit),
    },
    schemas: {
      view: ScannerView,
      create: CreateScannerBody,
      update: UpdateScannerBody,
      issued: Issued,
      delivery: DeliveryView,
    },
    deliveriesPath: '/deliveries',
    summaries: {
      list: "The user's scanners",
      create: 'Create a scanner (its webhook id is shown once)',
      get: 'A scanner',
      update: 'Update a scanner',
      remove: 'Delete a scanner (its webhook id dies; its audit stays)',
      rotate: 'Issue a new webhook id (the old one stops working)',
      deliveries: "A scanner's deliveries and square-offs, newest first",
    },
    removed: 'Scanner deleted',
    errors: [400, 401, 403, 404, 409, 429],
    onRequest: deps.rateLimit,
    preHandler: deps.guard(),
  });
  app.post(
    `${base}/:id/live`,
    {
      onRequest: deps.rateLimit,
      preHandler: deps.guard({ admin: true }),
      schema: {
        summary: 'Allow or forbid live orders for a scanner (administrator)',
        tags: ['scanners'],
        params: IdParams,
        body: LiveBody,
        response: { 200: ok({ data: ScannerView }), ...errors },
      },
    },
    async (req) => ({ status: 'success' as const, data: await svc.setLive(req.params.id, req.body.enabled) }),
  );
}

export interface ScannerWebhookRouteDeps extends WebhookLimitDeps {
  webhook: ScannerWebhook;
}

export async function scannerWebhookRoutes(app: App, deps: ScannerWebhookRouteDeps): Promise<void> {
  await webhookRoutes(app, deps, {
    base: '/scanner/webhook',
    routes: [{ path: '/:webhook_id', summary: 'Deliver a scanner alert (Chartink format)' }],
    description:
      "The webhook id in the path is the only credential. The body is read as text whatever its content type and must be Chartink's alert; every delivery is audited. An accepted or de-duplicated alert answers 200 with `result` `ok` or `rejected_dedupe`.",
    credential: { param: 'webhook_id', prefix: CREDENTIAL_PREFIX.scanner },
    limitNames: ['scanner-ip', 'scanner-id'],
    results: SCANNER_RESULTS,
    answerFields: {
      scanner_id: Type.Optional(Type.Integer()),
      action: Type.Optional(Type.String()),
      results: Type.Optional(Type.Array(SymbolResult)),
    },
    refusals: [
      ['rejected_payload', "the body is not Chartink's alert (the message names the fault)"],
      ['rejected_action', 'the scan name holds none of BUY, SELL, SHORT, COVER (action FROM_SCAN_NAME)'],
      ['rejected_disabled', 'the scanner is disabled'],
      ['rejected_live_disabled', 'a live scanner whose live orders are not enabled'],
      ['rejected_id', 'no scanner has this webhook id, or the path cannot hold one'],
      ['rejected_window', "outside the scanner's trading window or on a day the exchange is closed"],
      ['rejected_engine_error', 'an unexpected failure'],
    ],
    malformed: ['rejected_id', 'the path cannot hold a webhook id'],
    deliver: (req, id, raw) => deps.webhook.deliver(id, raw, req.clientIp),
  });
}

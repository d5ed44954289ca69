/**
 * What every `/api/v1` order route (placeorder, splitorder, the smart, basket and options orders)
 * runs before its handler: its rate limit, the schema before the key (400 first, the key not
 * consulted), and in analyzer mode `"mode":"analyze"` on every error answer — also the ones the
 * shared hooks and error handler write (403 key, 429 limit, 500) — as OpenAlgo's do.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiKeyGuard } from '../auth/api-key.guard.js';
import type { RateLimitHook } from '../../platform/http/rate-limit.js';
import { schemaThenKey } from '../api/schema-then-key.js';
import { OrderErrorBody } from './order.schema.js';

/** The error answers every order route documents. */
export const ORDER_ERRORS = { '4xx': OrderErrorBody, '5xx': OrderErrorBody };

/** The `mode` tag and the route options of the order routes under one analyzer switch. */
export function orderRouteKit(deps: { mode: { readonly analyze: boolean }; apiKeyGuard: ApiKeyGuard }) {
  const modeTag = () => (deps.mode.analyze ? { mode: 'analyze' as const } : {});
  const tagErrors = (
    _req: FastifyRequest,
    reply: FastifyReply,
    payload: unknown,
    done: (err: null, payload: unknown) => void,
  ) =>
    done(
      null,
      reply.statusCode >= 400 && deps.mode.analyze && payload !== null && typeof payload === 'object'
        ? { ...(payload as Record<string, unknown>), mode: 'analyze' }
        : payload,
    );
  const route = (summary: string, limit: RateLimitHook, body: unknown, ok: unknown) => ({
    onRequest: limit,
    attachValidation: true,
    preHandler: schemaThenKey(deps.apiKeyGuard, modeTag),
    preSerialization: tagErrors,
    schema: { summary, tags: ['openalgo-api'], body, response: { 200: ok, ...ORDER_ERRORS } },
  });
  return { modeTag, route };
}

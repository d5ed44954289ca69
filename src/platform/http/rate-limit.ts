import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from '../../config.js';
import type { RateDecision, RateLimiter } from '../rate-limiter.js';
import { parseRateRules, type RateRule } from '../rate-rule.js';
import type { ErrorCode } from '../errors.js';
import { documentHook } from './hook-doc.js';

/** The limits of the spec's "Limits" table, per surface; `API_RATE_LIMIT` overrides the API ones. */
export interface RateLimits {
  /** Public `/api/v1` calls other than orders (default 10 per second). */
  api: RateRule[];
  /** Order placement (`ORDER_RATE_LIMIT`, default 10 per second). */
  order: RateRule[];
  /** Smart-order placement (`SMART_ORDER_RATE_LIMIT`, default 2 per second). */
  smartOrder: RateRule[];
  /** Administration and security JSON routes (default 50 per second). */
  admin: RateRule[];
  /** Uploads, diagnostics, reports, kill switch: 10 per minute. */
  heavy: RateRule[];
  /** Remote-agent settings writes: 30 per minute. */
  mcpSettings: RateRule[];
}

export function rateLimitsFrom(config: Config): RateLimits {
  return {
    api: config.apiRateLimit ?? parseRateRules('10 per second'),
    order: config.orderRateLimit,
    smartOrder: config.smartOrderRateLimit,
    admin: config.apiRateLimit ?? parseRateRules('50 per second'),
    heavy: parseRateRules('10 per minute'),
    mcpSettings: parseRateRules('30 per minute'),
  };
}

export type RateLimitHook = (req: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void;

/**
 * Builds route-level `onRequest` hooks on the one shared limiter: keyed by surface and the
 * resolved client IP, checked before the body is read, refused with 429 JSON and `Retry-After`.
 * Limits and bans are separate controls: a refusal never bans. If the limiter's store (Redis)
 * fails, the request is let through with a warning: an outage of the shared store must not take
 * the trading API down with it.
 */
export function createRateLimitHooks(limiter: RateLimiter, log: Logger) {
  return (surface: string, rules: readonly RateRule[]): RateLimitHook => {
    const limits = rules.map((r) => r.text).join('; ');
    // Built once per surface, not per request: only a refusal needs it.
    const refuse = (reply: FastifyReply, d: RateDecision) => {
      const seconds = Math.max(1, Math.ceil(d.retryAfterMs / 1000));
      reply
        .code(429)
        .header('retry-after', String(seconds))
        .send({
          status: 'error',
          message: `Rate limit exceeded (${limits}); try again in ${seconds} s`,
          code: 'rate_limited' satisfies ErrorCode,
        });
    };
    return documentHook<RateLimitHook>(
      function rateLimit(req, reply, done) {
        const key = `${surface}:${req.clientIp}`;
        // An in-process limiter answers at once: no promise, no extra turn on the hot path.
        if (limiter.hitNow) {
          const d = limiter.hitNow(key, rules);
          return d.allowed ? done() : refuse(reply, d);
        }
        limiter.hit(key, rules).then(
          (d) => (d.allowed ? done() : refuse(reply, d)),
          (err: unknown) => {
            log.warn({ err, surface }, 'rate limiter unavailable; request allowed');
            done();
          },
        );
      },
      {
        answers: [
          {
            status: 429,
            code: 'rate_limited',
            when: `over the \`${surface}\` rate limit (${limits}, per client address); \`Retry-After\` says when to retry`,
          },
        ],
      },
    );
  };
}

export type RateLimitFactory = ReturnType<typeof createRateLimitHooks>;

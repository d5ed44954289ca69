/**
 * `GET /metrics`: the Prometheus text format, for a scraper holding `METRICS_TOKEN`. Without a
 * configured token the route answers exactly as a path no route serves would (the not-found
 * handler: 404, and the 404 tracker for an unauthenticated client), so an install that did not
 * turn metrics on shows no sign of them.
 */
import { Type } from 'typebox';
import type { ErrorCode } from '../../platform/errors.js';
import { ErrorBody } from '../../platform/http/error-body.js';
import type { RateLimitHook } from '../../platform/http/rate-limit.js';
import type { App } from '../../platform/http/types.js';
import type { BearerCheck } from './bearer.js';

export interface MetricsRouteDeps {
  /** Undefined while `METRICS_TOKEN` is unset: the route then answers as if absent. */
  scrape:
    | {
        bearer: BearerCheck;
        rateLimit: RateLimitHook;
        contentType: () => string;
        text: () => Promise<string>;
      }
    | undefined;
}

export const UNAUTHORIZED_MESSAGE = 'Metrics need the header "Authorization: Bearer <METRICS_TOKEN>"';

export function metricsRoutes(app: App, { scrape }: MetricsRouteDeps): void {
  app.get(
    '/metrics',
    {
      // Enabled, a scrape every few seconds is monitoring, not traffic (no traffic-log row), and it
      // is answered even when the ban lookup fails: a database outage is when metrics matter.
      // Disabled, the route is an unknown path like any other.
      config: { probe: scrape !== undefined },
      ...(scrape ? { onRequest: scrape.rateLimit } : {}),
      schema: {
        summary: 'Prometheus metrics of this instance (needs METRICS_TOKEN as a bearer token)',
        tags: ['operations'],
        response: {
          200: Type.String({ description: 'Prometheus text exposition format' }),
          401: ErrorBody,
          404: ErrorBody,
          429: ErrorBody,
        },
      },
    },
    async (req, reply) => {
      if (scrape === undefined) return reply.callNotFound();
      if (!scrape.bearer(req.headers.authorization))
        return reply
          .code(401)
          .header('www-authenticate', 'Bearer realm="metrics"')
          .header('cache-control', 'no-store')
          .send({
            status: 'error' as const,
            message: UNAUTHORIZED_MESSAGE,
            code: 'unauthorized' satisfies ErrorCode,
          });
      const text = await scrape.text();
      return reply.type(scrape.contentType()).header('cache-control', 'no-store').send(text);
    },
  );
}

/**
 * `POST /desk/api/<call>` (docs/rules/web.md#desk-calls): the session (and its CSRF token) instead
 * of the API key; the body is the `/api/v1` call's without `apikey`; the answer is that call's,
 * status and body, as the API would have given it.
 */
import { Type } from 'typebox';
import type { SessionGuard } from '../auth/session.guard.js';
import { ErrorBody } from '../../platform/http/error-body.js';
import type { RateLimitHook } from '../../platform/http/rate-limit.js';
import type { App } from '../../platform/http/types.js';
import { DESK_CALLS, deskPath } from './desk-calls.js';

/** A one-call key standing for the user (ApiKeysService.delegate), never stored or shown. */
export type Delegate = (
  userId: number,
  opts: { orderMode: 'auto' },
) => Promise<{ key: string; release(): void } | undefined>;

const Answer = Type.Object(
  // `message` is a string, or OpenAlgo's messages by field on a refused body.
  { status: Type.String() },
  { additionalProperties: true, description: 'The `/api/v1` call’s answer, as the API gives it' },
);
const Body = Type.Object(
  {},
  {
    additionalProperties: true,
    maxProperties: 64,
    description: 'The `/api/v1` call’s body without `apikey` (the session stands for the key)',
  },
);

export function deskRoutes(
  app: App,
  deps: { guard: SessionGuard; delegate: Delegate; rateLimit: RateLimitHook },
): void {
  for (const call of DESK_CALLS)
    app.post(
      deskPath(call),
      {
        onRequest: deps.rateLimit,
        preHandler: deps.guard(),
        schema: {
          summary: `The console's ${call}: /api/v1/${call} as the signed-in user`,
          tags: ['orders'],
          body: Body,
          response: { '2xx': Answer, '4xx': Answer, '5xx': Answer, 401: ErrorBody },
        },
      },
      async (req, reply) => {
        const userId = req.session!.userId;
        // The person at the desk decides each order: semi-automatic mode's approval queue is for
        // the API key's automated callers (docs/rules/web.md#desk-calls).
        const d = await deps.delegate(userId, { orderMode: 'auto' });
        if (!d) return reply.code(401).send({ status: 'error', message: 'Session expired or not logged in' });
        try {
          const { apikey: _ignored, ...rest } = req.body as Record<string, unknown>;
          const res = await app.inject({
            method: 'POST',
            url: `/api/v1/${call}`,
            remoteAddress: req.clientIp,
            payload: { ...rest, apikey: d.key },
          });
          let body: { status: string };
          try {
            body = res.json();
          } catch {
            body = { status: 'error', message: res.body.slice(0, 500) } as { status: string };
          }
          return reply.code(res.statusCode).send(body);
        } finally {
          d.release();
        }
      },
    );
}

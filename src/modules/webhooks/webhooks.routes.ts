/**
 * The route family every inbound webhook shares (strategies, scanners, flows): bodies read as raw
 * text up to {@link WEBHOOK_MAX_BYTES} whatever their content type, the declared-size and
 * rate-limit checks made before the body is read (neither audited), the delivery routes under a
 * base path, and every malformed path or other method under it refused without the not-found
 * handler (docs/rules/strategies.md#webhook-pipeline).
 */
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { Type, type TProperties } from 'typebox';
import type { Logger } from 'pino';
import { WEBHOOK_MAX_BYTES } from '../../domain/limits.js';
import type { RateDecision, RateLimiter } from '../../platform/rate-limiter.js';
import type { RateRule } from '../../platform/rate-rule.js';
import { documentHook, type ErrorAnswer, type HookDoc } from '../../platform/http/hook-doc.js';
import type { App } from '../../platform/http/types.js';
import { credentialDigest, type CredentialPrefix } from './credential.js';

/** What the raw body parser hands on for a body over the size limit. */
export const TOO_LARGE = Symbol('webhook body too large');

/**
 * Makes `scope` read every body as text whatever its type. A body sent without a declared length
 * (chunked) is read up to the limit: past it the rest is discarded unread into memory and the
 * handler gets {@link TOO_LARGE} (only a *declared* size is refused before reading, in
 * {@link webhookLimits}).
 */
export function rawTextBodies(scope: App): void {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', (_req, payload, done) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (err: Error | null, body?: string | typeof TOO_LARGE) => {
      if (settled) return;
      settled = true;
      done(err, body);
    };
    payload.on('data', (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size > WEBHOOK_MAX_BYTES) {
        chunks.length = 0;
        settle(null, TOO_LARGE);
      } else chunks.push(chunk);
    });
    payload.on('end', () => settle(null, Buffer.concat(chunks).toString('utf8')));
    payload.on('error', (err: Error) => settle(err));
  });
}

/** The raw body of a webhook request, `undefined` when it was over the size (the connection closes). */
export function rawBody(req: FastifyRequest, reply: FastifyReply): string | undefined {
  if (req.body === TOO_LARGE) reply.header('connection', 'close');
  return typeof req.body === 'string' ? req.body : undefined;
}

/** What the size and rate checks before the body may refuse (neither is audited). */
const LIMITS_ANSWERS: HookDoc = {
  answers: [
    {
      status: 413,
      when: `a declared \`Content-Length\` over ${WEBHOOK_MAX_BYTES} bytes (no \`result\`)`,
      body: Type.Object({ status: Type.Literal('error'), message: Type.String() }),
    },
    {
      status: 429,
      when: '`rate_limited`: too many deliveries from this address or to this webhook',
      body: Type.Object({
        status: Type.Literal('error'),
        result: Type.Literal('rate_limited'),
        message: Type.String(),
      }),
    },
  ],
};

/**
 * The `onRequest` hook of a webhook route: a declared `Content-Length` over the limit is a 413,
 * then every key of `keys(req)` (the sender's address, the webhook's digest) is counted against
 * `rules`; the first refusal is a 429 with `Retry-After`. A limiter that cannot answer lets the
 * delivery through (logged).
 */
export function webhookLimits(deps: {
  limiter: RateLimiter;
  rules: readonly RateRule[];
  logger: Logger;
  keys(req: FastifyRequest): string[];
}) {
  return documentHook((req: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > WEBHOOK_MAX_BYTES) {
      reply.code(413).send({ status: 'error', message: `Body over ${WEBHOOK_MAX_BYTES} bytes` });
      return;
    }
    const answer = (decisions: readonly RateDecision[]) => {
      const refused = decisions.find((d) => !d.allowed);
      if (!refused) return done();
      reply
        .code(429)
        .header('retry-after', String(Math.max(1, Math.ceil(refused.retryAfterMs / 1000))))
        .send({ status: 'error', result: 'rate_limited', message: 'Too many deliveries; slow down' });
    };
    const keys = deps.keys(req);
    // An in-process limiter answers at once: no promise, no extra turn on the delivery's path.
    const { limiter } = deps;
    if (limiter.hitNow) return answer(keys.map((k) => limiter.hitNow!(k, deps.rules)));
    Promise.all(keys.map((k) => limiter.hit(k, deps.rules))).then(answer, (err: unknown) => {
      deps.logger.warn({ err }, 'rate limiter unavailable; webhook delivery allowed');
      done();
    });
  }, LIMITS_ANSWERS);
}

/** A webhook family's routes: `base` + each path, and every other path under `base` refused. */
export interface WebhookRoutesSpec {
  /** `/scanner/webhook`: every path under it is this webhook's. */
  base: string;
  /** The delivery routes below `base` (`/:webhook_id`), each with its summary. */
  routes: readonly { path: string; summary: string }[];
  description: string;
  /** The route parameter that holds the credential (`token`, `webhook_id`) and its prefix. */
  credential: { param: string; prefix: CredentialPrefix };
  /** The rate-limit keys' names: per sender address and per credential (`webhook-ip`, `webhook-token`). */
  limitNames: readonly [ip: string, credential: string];
  /** Every result of a delivery and its HTTP status. */
  results: Readonly<Record<string, number>>;
  /** The answer's fields after status, result and message (the API reference). */
  answerFields: TProperties;
  /** The refusals a delivery may answer, each with when it happens (the API reference). */
  refusals: readonly (readonly [result: string, when: string])[];
  /** The refusal of every malformed path, with when it happens. */
  malformed: readonly [result: string, when: string];
  deliver(
    req: FastifyRequest,
    credential: string,
    raw: string | undefined,
  ): Promise<{ http: number; body: unknown }>;
}

/** The API reference's list of a webhook's answers: each refusal with its status and body. */
function documented(spec: WebhookRoutesSpec, refusals: WebhookRoutesSpec['refusals']): HookDoc {
  const body = Type.Object({
    status: Type.Union([Type.Literal('success'), Type.Literal('error')]),
    result: Type.Union(Object.keys(spec.results).map((r) => Type.Literal(r))),
    message: Type.String(),
    ...spec.answerFields,
  });
  return {
    answers: refusals.map(([result, when]): ErrorAnswer => ({
      status: spec.results[result]!,
      when: `\`${result}\`: ${when}`,
      body,
    })),
  };
}

/**
 * Registers a webhook in a scope of its own whose only body parser keeps the raw text: its
 * delivery routes, and `base/*` and `base` themselves, which the delivery handler refuses as a
 * malformed credential — never the not-found handler that feeds the 404 ban tracker.
 */
/** What a webhook's routes are limited by: the limiter, `WEBHOOK_RATE_LIMIT`'s rules, the log. */
export interface WebhookLimitDeps {
  limiter: RateLimiter;
  /** Per client IP and per credential digest (`WEBHOOK_RATE_LIMIT`). */
  rules: readonly RateRule[];
  logger: Logger;
}

export async function webhookRoutes(
  app: App,
  deps: WebhookLimitDeps,
  spec: WebhookRoutesSpec,
): Promise<void> {
  await app.register(async (scope) => {
    const s = scope as unknown as App;
    rawTextBodies(s);
    const credential = (req: FastifyRequest) => {
      const p = req.params as Record<string, string | undefined>;
      return p[spec.credential.param] ?? p['*'] ?? '';
    };
    const [ipKey, credentialKey] = spec.limitNames;
    const limits = webhookLimits({
      ...deps,
      keys: (req) => [
        `${ipKey}:${req.clientIp}`,
        `${credentialKey}:${credentialDigest(spec.credential.prefix, credential(req)) ?? 'malformed'}`,
      ],
    });
    const handle = async (req: FastifyRequest, reply: FastifyReply) => {
      const answer = await spec.deliver(req, credential(req), rawBody(req, reply));
      return reply.code(answer.http).send(answer.body);
    };
    const deliver = documentHook(handle, documented(spec, spec.refusals));
    const tags = ['webhooks'];
    for (const r of spec.routes)
      s.post(
        `${spec.base}${r.path}`,
        { onRequest: limits, schema: { summary: r.summary, description: spec.description, tags } },
        deliver,
      );
    const refuse = documentHook(handle, documented(spec, [spec.malformed]));
    const malformed = (summary: string) => ({
      onRequest: limits,
      config: { webhookRefusal: true },
      schema: { summary, description: 'Always refused as a malformed path, and recorded.', tags },
    });
    s.post(`${spec.base}/*`, malformed(`A malformed path under ${spec.base}`), refuse);
    s.post(spec.base, malformed(`${spec.base} without its credential`), refuse);
    // Another method (a browser opening the URL) is not a delivery: 405, never the not-found
    // handler whose 404s count toward a ban, and nothing recorded.
    const wrongMethod = {
      config: { webhookRefusal: true },
      schema: {
        summary: `Any method but POST under ${spec.base}`,
        description: 'Always refused: 405, `Allow: POST`.',
        tags,
        response: { 405: Type.Object({ status: Type.Literal('error'), message: Type.String() }) },
      },
    };
    for (const url of [spec.base, `${spec.base}/*`])
      s.route({
        method: ['GET', 'PUT', 'DELETE', 'PATCH'],
        url,
        ...wrongMethod,
        handler: async (_req, reply) => {
          reply.code(405).header('allow', 'POST');
          return { status: 'error' as const, message: 'Webhooks take POST' };
        },
      });
  });
}

/**
 * What every webhook of algodesk shares (the strategy webhook, scanner alerts): bodies read as
 * raw text up to {@link WEBHOOK_MAX_BYTES} whatever their content type, the declared-size and
 * rate-limit checks made before the body is read (neither audited), and the audit's payload
 * handling — credential redaction (docs/rules/strategies.md#webhook-credential-redaction), the
 * cap, and the canonical JSON whose digest identifies "the same" delivery.
 */
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { Type } from 'typebox';
import type { Logger } from 'pino';
import { WEBHOOK_MAX_BYTES } from '../../domain/limits.js';
import type { RateDecision, RateLimiter } from '../rate-limiter.js';
import type { RateRule } from '../rate-rule.js';
import { documentHook, type HookDoc } from './hook-doc.js';
import type { App } from './types.js';

/**
 * Body fields that look like credentials: redacted before the payload is audited
 * (docs/rules/strategies.md#webhook-credential-redaction).
 */
const CREDENTIAL_KEY =
  /pass|pwd|secret|token|key|auth|signature|otp|pin|session|cookie|credential|private|jwt|bearer/i;
/**
 * Credential-looking text inside values: webhook tokens and ids (also inside a pasted URL), JWTs,
 * bearer headers, and long unbroken hex or base64url runs (API keys are 64 hex characters).
 */
const CREDENTIAL_TEXT =
  /(?:whk|scn)_[A-Za-z0-9_-]+|eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}(?:\.[A-Za-z0-9_-]*)?|bearer\s+\S+|\b[A-Fa-f0-9]{32,}\b|[A-Za-z0-9_-]{40,}/gi;
const AUDIT_PAYLOAD_MAX = 4_096;

/** How deep the fingerprint reads a body; deeper values count as one placeholder. */
const CANONICAL_DEPTH = 32;

/**
 * JSON with sorted keys: the fingerprint of "identical" deliveries ignores key order. Bounded in
 * depth (a 16 KB body can nest thousands of levels), past which a value counts as one placeholder.
 */
export function canonical(v: unknown, depth = 0): string {
  if (depth > CANONICAL_DEPTH) return '"[deep]"';
  if (Array.isArray(v)) return `[${v.map((x) => canonical(x, depth + 1)).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k], depth + 1)}`)
      .join(',')}}`;
  }
  return JSON.stringify(typeof v === 'string' ? v.trim().toLowerCase() : v) ?? 'null';
}

/**
 * Credential-looking fields replaced, at any depth, and credential-looking text inside any string
 * value: a pasted webhook URL or token, a JWT, a bearer header, a long hex or base64 run such as an
 * API key (docs/rules/strategies.md#webhook-credential-redaction).
 */
export function redact(v: unknown, depth = 0): unknown {
  if (depth > 8) return '[truncated]';
  if (typeof v === 'string') return v.replace(CREDENTIAL_TEXT, '[redacted]');
  if (Array.isArray(v)) return v.map((x) => redact(x, depth + 1));
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(
      Object.entries(v as Record<string, unknown>).map(([k, x]) => [
        k,
        CREDENTIAL_KEY.test(k) ? '[redacted]' : redact(x, depth + 1),
      ]),
    );
  }
  return v;
}

/** Whether a parsed JSON value holds a NUL character in any key or string. */
export function holdsNul(v: unknown, depth = 0): boolean {
  if (typeof v === 'string') return v.includes('\u0000');
  if (depth > 64 || v === null || typeof v !== 'object') return false;
  if (Array.isArray(v)) return v.some((x) => holdsNul(x, depth + 1));
  return Object.entries(v as Record<string, unknown>).some(
    ([k, x]) => k.includes('\u0000') || holdsNul(x, depth + 1),
  );
}

/** A payload as the audit stores it: redacted, as JSON, capped at 4,096 characters. */
export function auditPayload(v: unknown): string {
  const s = JSON.stringify(redact(v));
  return s.length <= AUDIT_PAYLOAD_MAX
    ? s
    : JSON.stringify({ truncated: true, head: s.slice(0, AUDIT_PAYLOAD_MAX - 64) });
}

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
  /** The credential in the path (a route parameter, or the whole rest for a malformed path). */
  credential(params: Record<string, string | undefined>): string;
  /** The rate-limit keys of a request: its sender and its credential's digest. */
  limitKeys(req: FastifyRequest, credential: string): string[];
  limiter: RateLimiter;
  rules: readonly RateRule[];
  logger: Logger;
  /** What a delivery may answer (the API reference). */
  answers: HookDoc;
  /** What the malformed paths answer (always the same refusal). */
  malformed: HookDoc;
  deliver(
    req: FastifyRequest,
    credential: string,
    raw: string | undefined,
  ): Promise<{ http: number; body: unknown }>;
}

/**
 * Registers a webhook in a scope of its own whose only body parser keeps the raw text: its
 * delivery routes, and `base/*` and `base` themselves, which the delivery handler refuses as a
 * malformed credential — never the not-found handler that feeds the 404 ban tracker.
 */
export async function webhookRoutes(app: App, spec: WebhookRoutesSpec): Promise<void> {
  await app.register(async (scope) => {
    const s = scope as unknown as App;
    rawTextBodies(s);
    const credential = (req: FastifyRequest) =>
      spec.credential(req.params as Record<string, string | undefined>);
    const limits = webhookLimits({
      limiter: spec.limiter,
      rules: spec.rules,
      logger: spec.logger,
      keys: (req) => spec.limitKeys(req, credential(req)),
    });
    const handle = async (req: FastifyRequest, reply: FastifyReply) => {
      const answer = await spec.deliver(req, credential(req), rawBody(req, reply));
      return reply.code(answer.http).send(answer.body);
    };
    const deliver = documentHook(handle, spec.answers);
    const tags = ['webhooks'];
    for (const r of spec.routes)
      s.post(
        `${spec.base}${r.path}`,
        { onRequest: limits, schema: { summary: r.summary, description: spec.description, tags } },
        deliver,
      );
    const refuse = documentHook(handle, spec.malformed);
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

import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { documentHook, hookDoc } from '../../platform/http/hook-doc.js';
import { fieldMessages } from '../../platform/http/errors.plugin.js';
import type { ApiKeyGuard } from '../auth/api-key.guard.js';
import type { ErrorCode } from '../../platform/errors.js';

/**
 * `preHandler` of an `/api/v1` route registered with `attachValidation`: a schema failure is
 * answered first (400, `message` keyed by field, as OpenAlgo clients expect; the key is not
 * consulted), then the API key is checked. `extra` adds fields to the 400 body (e.g. the mode).
 */
export function schemaThenKey(apiKeyGuard: ApiKeyGuard, extra: () => Record<string, unknown> = () => ({})) {
  const hook = (req: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    const v = (req as { validationError?: { validation?: unknown[] } }).validationError;
    if (v) {
      const message = fieldMessages((v.validation ?? []) as Parameters<typeof fieldMessages>[0]);
      reply
        .code(400)
        .send({ status: 'error', message, code: 'validation_failed' satisfies ErrorCode, ...extra() });
      return;
    }
    apiKeyGuard(req, reply, done);
  };
  // Documented as the guard is, plus the schema failure it answers itself.
  return documentHook(documentHook(hook, hookDoc(apiKeyGuard)), {
    answers: [
      {
        status: 400,
        code: 'validation_failed',
        when: "the body does not match the schema: `message` is an object keyed by field (OpenAlgo's shape)",
      },
    ],
  });
}

import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { App } from './types.js';
import { isAppError, type ErrorCode } from '../errors.js';

interface AjvLikeError {
  instancePath?: string;
  message?: string;
  keyword?: string;
  params?: Record<string, unknown>;
}

/** Messages for Fastify's own 4xx errors, written for a person, never echoing input. */
const FASTIFY_MESSAGES: Record<string, string> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'Malformed JSON in request body',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'Request body is empty; a JSON object is expected',
  FST_ERR_CTP_BODY_TOO_LARGE: 'Request body is too large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'Unsupported Content-Type; send application/json',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'Content-Length does not match the body',
  FST_ERR_CTP_INVALID_TYPE: 'Invalid Content-Type header',
};

/**
 * Turns schema failures into per-field messages. A missing field reads as OpenAlgo's
 * "Missing data for required field."; a body that is not an object is reported under `_body`.
 */
export function fieldMessages(errors: AjvLikeError[]): Record<string, string[]> {
  const fields: Record<string, string[]> = {};
  const add = (field: string, msg: string) => {
    const list = (fields[field] ??= []);
    if (!list.includes(msg)) list.push(msg);
  };
  for (const e of errors) {
    const path = (e.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
    if (e.keyword === 'required' && typeof e.params?.missingProperty === 'string') {
      add(
        path ? `${path}.${e.params.missingProperty}` : e.params.missingProperty,
        'Missing data for required field.',
      );
    } else if (path === '' && e.keyword === 'type') {
      add('_body', 'Request body must be a JSON object.');
    } else if (e.keyword === 'enum' && Array.isArray(e.params?.allowedValues)) {
      add(path || '_body', `Must be one of: ${(e.params.allowedValues as unknown[]).join(', ')}.`);
    } else {
      add(path || '_body', capitalise(e.message ?? 'is invalid') + '.');
    }
  }
  return fields;
}

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

function flatten(fields: Record<string, string[]>): string {
  return Object.entries(fields)
    .map(([f, msgs]) => (f === '_body' ? msgs.join(' ') : `${f}: ${msgs.join(' ')}`))
    .join('; ');
}

/**
 * The one error handler (ARCHITECTURE.md "Errors are a closed set"). Body:
 * `{"status":"error","message":…,"code":…}`. On `/api/v1` a schema failure's `message` is an object
 * keyed by field, as OpenAlgo clients expect; elsewhere it is a sentence plus `errors` by field.
 * 5xx answers never carry internals; they are logged with the request id instead.
 */
export function registerErrorHandling(app: App): void {
  app.setErrorHandler((err: FastifyError, req: FastifyRequest, reply: FastifyReply) => {
    const isApi = req.url.startsWith('/api/v1/');
    if (err.validation) {
      const fields = fieldMessages(err.validation as AjvLikeError[]);
      const message = isApi ? fields : `Invalid request: ${flatten(fields)}`;
      return reply.code(400).send({
        status: 'error',
        message,
        code: 'validation_failed' satisfies ErrorCode,
        ...(isApi ? {} : { errors: fields }),
      });
    }
    if (isAppError(err)) {
      const retry = (err as { retryAfterSeconds?: number }).retryAfterSeconds;
      if (retry !== undefined) reply.header('retry-after', String(Math.max(1, retry)));
      const message = isApi && err.fields ? err.fields : err.message;
      return reply.code(err.statusCode).send({
        status: 'error',
        message,
        code: err.code,
        ...(!isApi && err.fields ? { errors: err.fields } : {}),
      });
    }
    const status = err.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      const message =
        FASTIFY_MESSAGES[err.code] ?? (err.code?.startsWith('FST_') ? err.message : 'Bad request');
      return reply.code(status).send({ status: 'error', message, code: err.code ?? 'bad_request' });
    }
    req.log.error({ err }, 'unhandled error');
    return reply
      .code(500)
      .send({ status: 'error', message: 'Internal server error', code: 'internal' satisfies ErrorCode });
  });
}

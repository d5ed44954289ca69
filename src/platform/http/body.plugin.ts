import type { FastifyRequest } from 'fastify';
import { badRequest } from '../errors.js';
import type { App } from './types.js';

type Done = (err: Error | null, body?: unknown) => void;

/** A NUL character, raw or as a JSON escape. */
// eslint-disable-next-line no-control-regex -- matching NUL is the point
const JSON_NUL = /\u0000|\\u0000/i;
/** A NUL character, raw or percent-encoded. */
// eslint-disable-next-line no-control-regex -- matching NUL is the point
const FORM_NUL = /\u0000|%00/i;
const NUL_MESSAGE = 'Request body must not contain NUL characters';

/**
 * Body parsing for every route.
 * - NUL is never meaningful in this API's text and PostgreSQL cannot store it in a text column,
 *   so it is refused while parsing (400) and can never surface later as a database error; a route
 *   that strips control characters itself (`config.keepNul`) receives it instead.
 * - Clients written for OpenAlgo often post JSON without a JSON content type (`curl -d '{…}'`
 *   sends `application/x-www-form-urlencoded`, some send none): a body that looks like JSON is
 *   parsed as JSON — with Fastify's prototype-poisoning protection — and any other body as form
 *   fields.
 */
export function registerBodyParsing(app: App): void {
  const json = app.getDefaultJsonParser('error', 'error');

  const parseJson = (req: FastifyRequest, body: string, done: Done) => {
    if (JSON_NUL.test(body) && !req.routeOptions.config?.keepNul) return done(badRequest(NUL_MESSAGE));
    return json(req, body, done);
  };

  const parseLenient = (req: FastifyRequest, body: string, done: Done) => {
    const trimmed = body.trimStart();
    if (trimmed.startsWith('{') || trimmed.startsWith('[')) return parseJson(req, body, done);
    if (trimmed.length === 0) return done(null, undefined);
    if (FORM_NUL.test(body)) return done(badRequest(NUL_MESSAGE));
    const fields: Record<string, string> = {};
    for (const [k, v] of new URLSearchParams(body)) {
      if (k === '__proto__' || k === 'constructor' || k === 'prototype') continue;
      fields[k] = v;
    }
    return done(null, fields);
  };

  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, parseJson);
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, parseLenient);
  app.addContentTypeParser('text/plain', { parseAs: 'string' }, parseLenient);
  // No or an unknown Content-Type: the same rules (multipart uploads register their own parser).
  app.addContentTypeParser('*', { parseAs: 'string' }, parseLenient);
}

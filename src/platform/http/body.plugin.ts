import type { App } from './types.js';

/**
 * Clients written for OpenAlgo often post JSON without a JSON content type (`curl -d '{…}'`
 * sends `application/x-www-form-urlencoded`, some send none). A body that looks like JSON is
 * parsed as JSON — with the same prototype-poisoning protection as Fastify's own parser — and
 * any other form body becomes an object of its fields.
 */
export function registerLenientBodyParsing(app: App): void {
  const json = app.getDefaultJsonParser('error', 'error');
  const parse = (
    req: Parameters<typeof json>[0],
    body: string,
    done: (err: Error | null, body?: unknown) => void,
  ) => {
    const trimmed = body.trimStart();
    if (trimmed.startsWith('{') || trimmed.startsWith('[')) return json(req, body, done);
    if (trimmed.length === 0) return done(null, undefined);
    const fields: Record<string, string> = Object.create(null) as Record<string, string>;
    for (const [k, v] of new URLSearchParams(body)) {
      if (k === '__proto__' || k === 'constructor' || k === 'prototype') continue;
      fields[k] = v;
    }
    return done(null, { ...fields });
  };
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, parse);
  app.addContentTypeParser('text/plain', { parseAs: 'string' }, parse);
  // No or an unknown Content-Type: the same rules (multipart uploads register their own parser).
  app.addContentTypeParser('*', { parseAs: 'string' }, parse);
}

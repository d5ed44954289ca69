import { Ajv, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { App } from './types.js';

const common: Options = { useDefaults: true, allErrors: true, strict: false };

/**
 * Two validators. JSON bodies are checked as sent: a boolean or an object where a string is
 * expected is a 400 naming the field, not silently turned into "true" (schemas that accept
 * several wire types, such as OpenAlgo's numeric-or-string prices, say so with a union).
 * Query strings and path parameters are text by nature, so they are coerced to the declared type.
 */
export function registerValidation(app: App): void {
  // A schema that declares `additionalProperties: false` refuses unknown fields (a typo in a
  // settings name is a 400, not silently ignored); the OpenAlgo-compatible bodies allow extras.
  const body = new Ajv({ ...common, coerceTypes: false, removeAdditional: false });
  const text = new Ajv({ ...common, coerceTypes: 'array', removeAdditional: true });
  addFormats.default(body);
  addFormats.default(text);
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? body : text).compile(schema));
}

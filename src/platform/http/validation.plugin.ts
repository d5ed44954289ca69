import { SchemaCompilers } from './schema-compilers.js';
import type { App } from './types.js';

/**
 * Installs the route schemas' validator and serializer compilers (platform/http/schema-compilers.ts:
 * bodies as sent, query strings and path parameters coerced). A process that builds several apps
 * passes one {@link SchemaCompilers} to all of them, so each schema is compiled once.
 */
export function registerValidation(app: App, compilers: SchemaCompilers = new SchemaCompilers()): void {
  app.setValidatorCompiler(compilers.validator);
  app.setSerializerCompiler(compilers.serializer);
}

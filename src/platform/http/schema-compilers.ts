import { Ajv, type Options, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import fastJsonStringify from 'fast-json-stringify';

const common: Options = { useDefaults: true, allErrors: true, strict: false };

/** What Fastify hands a serializer compiler (only the schema matters here). */
interface SerializerInput {
  schema: unknown;
}

/**
 * The compiled validators and response serializers of the route schemas, kept by the schema's
 * JSON text. Generating that code (Ajv and fast-json-stringify) is most of the app's start-up,
 * about 0.6 s; the compiled functions depend on nothing but the schema, so a process that builds
 * the app more than once (every test does) compiles each schema once. The app builds one of its
 * own unless given one (`AppDeps.schemaCompilers`).
 *
 * Two validators. JSON bodies are checked as sent: a boolean or an object where a string is
 * expected is a 400 naming the field, not silently turned into "true" (schemas that accept
 * several wire types, such as OpenAlgo's numeric-or-string prices, say so with a union).
 * Query strings and path parameters are text by nature, so they are coerced to the declared type.
 */
export class SchemaCompilers {
  // A schema that declares `additionalProperties: false` refuses unknown fields (a typo in a
  // settings name is a 400, not silently ignored); the OpenAlgo-compatible bodies allow extras.
  private readonly body = new Ajv({ ...common, coerceTypes: false, removeAdditional: false });
  private readonly text = new Ajv({ ...common, coerceTypes: 'array', removeAdditional: true });
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly serializers = new Map<string, (data: unknown) => string>();

  constructor() {
    addFormats.default(this.body);
    addFormats.default(this.text);
  }

  /** Fastify's validator compiler: the body validator for bodies, the coercing one for the rest. */
  readonly validator = ({ schema, httpPart }: { schema: unknown; httpPart?: string }): ValidateFunction => {
    const isBody = httpPart === 'body';
    const key = `${isBody ? 'b' : 't'}${JSON.stringify(schema)}`;
    let fn = this.validators.get(key);
    if (fn === undefined) {
      fn = (isBody ? this.body : this.text).compile(schema as object);
      this.validators.set(key, fn);
    }
    return fn;
  };

  /** Fastify's serializer compiler (fast-json-stringify, as Fastify's default, without shared schemas). */
  readonly serializer = ({ schema }: SerializerInput): ((data: unknown) => string) => {
    const key = JSON.stringify(schema);
    let fn = this.serializers.get(key);
    if (fn === undefined) {
      fn = fastJsonStringify(schema as Parameters<typeof fastJsonStringify>[0]) as (data: unknown) => string;
      this.serializers.set(key, fn);
    }
    return fn;
  };
}

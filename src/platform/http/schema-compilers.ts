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
 * JSON text. Generating that code (Ajv and fast-json-stringify) was most of the app's start-up,
 * about 0.6 s (0.8 s on a slower machine): each is compiled when first used; the compiled functions depend on nothing but the schema, so a process that builds
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

  /** Compilations not run yet, by key: {@link compileAll} runs them (a test's check of every route). */
  private readonly pending = new Map<string, () => unknown>();

  /**
   * Fastify's validator compiler: the body validator for bodies, the coercing one for the rest.
   * Compiled on the route's first request, not when the app is built: most routes of an
   * install are never called in a given run, and compiling them all was a fifth of start-up.
   * Fastify reads a refusal's `errors` off the function it was given: the stand-in carries them.
   */
  readonly validator = ({ schema, httpPart }: { schema: unknown; httpPart?: string }): ValidateFunction => {
    const ajv = httpPart === 'body' ? this.body : this.text;
    const key = `${ajv === this.body ? 'b' : 't'}${JSON.stringify(schema)}`;
    const compile = (): ValidateFunction => {
      let fn = this.validators.get(key);
      if (fn === undefined) {
        fn = ajv.compile(schema as object);
        this.validators.set(key, fn);
        this.pending.delete(key);
      }
      return fn;
    };
    if (!this.validators.has(key)) this.pending.set(key, compile);
    let compiled: ValidateFunction | undefined;
    const standIn = ((data: unknown) => {
      compiled ??= compile();
      const ok = compiled(data);
      // Fastify reads them only after a refusal.
      if (!ok) standIn.errors = compiled.errors;
      return ok;
    }) as ValidateFunction;
    return standIn;
  };

  /**
   * Fastify's serializer compiler (fast-json-stringify, as Fastify's default, without shared
   * schemas), compiled on the first answer that uses it, as the validators are.
   */
  readonly serializer = ({ schema }: SerializerInput): ((data: unknown) => string) => {
    const key = `s${JSON.stringify(schema)}`;
    const compile = (): ((data: unknown) => string) => {
      let fn = this.serializers.get(key);
      if (fn === undefined) {
        fn = fastJsonStringify(schema as Parameters<typeof fastJsonStringify>[0]) as (
          data: unknown,
        ) => string;
        this.serializers.set(key, fn);
        this.pending.delete(key);
      }
      return fn;
    };
    if (!this.serializers.has(key)) this.pending.set(key, compile);
    let compiled: ((data: unknown) => string) | undefined;
    return (data: unknown) => (compiled ??= compile())(data);
  };

  /**
   * Compiles every schema handed out and not used yet; returns how many. A schema that cannot
   * be compiled throws here (a test runs it on the whole app), not on its route's first request.
   */
  compileAll(): number {
    const left = [...this.pending.values()];
    for (const compile of left) compile();
    return left.length;
  }

  /** How many distinct validators and serializers are compiled. */
  get compiled(): number {
    return this.validators.size + this.serializers.size;
  }
}

/**
 * The API reference: an OpenAPI 3.1 document that `@fastify/swagger` builds from the routes' own
 * TypeBox schemas (`GET /api/openapi.json`), and the Swagger UI page that reads it (`GET /api/docs`,
 * its scripts and styles served from the `@fastify/swagger-ui` package, nothing from another
 * host). Registered before the modules: swagger collects the routes as they are registered.
 *
 * Each route writes its own `summary` and `tags` (one of {@link API_TAGS}). The rest is derived
 * here when the document is built (swagger's `transform`, which shapes the document only):
 * - the error answers: those the route's hooks and handler are marked with (platform/http/hook-doc.ts:
 *   the session and API-key guards, the rate limits, the webhook), the schema failures its inputs
 *   can cause, the request gate's refusal (the ban) and the 500 any route may give; a status the
 *   route declares keeps its declared schema;
 * - the credentials its guards read: the session cookie and the CSRF header as security schemes,
 *   the `/api/v1` `apikey` as a marked body field (OpenAPI has no scheme for a body field).
 *
 * Error answers are never added to the routes' own `response` schemas: a response schema makes
 * fast-json-stringify write the body, dropping every field it does not list (`mode` on
 * analyzer-mode answers, `errors` by field on session routes' validation failures).
 */
import { existsSync, readFileSync } from 'node:fs';
import { STATUS_CODES } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifySchema, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { Type } from 'typebox';
import { ErrorBody } from './error-body.js';
import { hookDoc, type Credential, type ErrorAnswer } from './hook-doc.js';
import type { App } from './types.js';

/** Where the document is served (the page reads its own copy at `/api/docs/json`). */
export const OPENAPI_PATH = '/api/openapi.json';
/** Where the reference page is served. */
export const DOCS_PATH = '/api/docs';

/** The reference's sections, by area; every route names one or more in its `tags`. */
export const API_TAGS = [
  {
    name: 'openalgo-api',
    description:
      'The OpenAlgo-compatible trading API under `/api/v1`: orders, books, instrument search, the analyzer switch, strategy events. The API key travels in the JSON body (`apikey`), not in a header.',
  },
  {
    name: 'auth',
    description:
      'Login (with the two-factor step), logout, the session and its CSRF token, two-factor enrollment, the API key, password reset.',
  },
  {
    name: 'strategies',
    description:
      "The logged-in user's strategies (`/strategy/api`): definitions, webhook tokens, the lock and live switches, start and stop, runs, events, deliveries.",
  },
  {
    name: 'flows',
    description:
      "Flow workflows: each flow's definition (conditions, order actions, notifications, waits), its webhook token and secret (shown once) and its runs.",
  },
  {
    name: 'agents',
    description:
      'AI agents (MCP): the local stdio server’s tool calls, run as the `/api/v1` calls they stand for, and their audit (administrator).',
  },
  {
    name: 'scanners',
    description:
      "Scanner alerts (Chartink's format): each scanner's configuration, its webhook id (shown once), the live switch and the delivery audit.",
  },
  {
    name: 'webhooks',
    description:
      'Signal deliveries from charting and scanning tools (`/strategy/webhook/<token>`, `/scanner/webhook/<webhook_id>`, `/flow/webhook/<token>`): the token in the path is the credential, and every delivery is audited.',
  },
  {
    name: 'orders',
    description:
      "The Action Center (semi-automatic orders awaiting the user's approval), the order, analyzer and latency logs, and the live socket.",
  },
  {
    name: 'market',
    description:
      'Instrument search, the master contract, and the market calendar the administrator keeps: freeze quantities, holidays, session timings.',
  },
  { name: 'sandbox', description: 'Analyzer mode: the live/analyze switch and the sandbox account reset.' },
  { name: 'brokers', description: "The broker login round trip and the user's broker session." },
  { name: 'alerts', description: "The logged-in user's chat alerts (Telegram, Slack)." },
  { name: 'mail', description: 'Mail settings, a test message and SMTP diagnostics.' },
  {
    name: 'security',
    description:
      'The shield (administrator): IP bans, the 404 and invalid-key trackers and their settings, login activity, active sessions.',
  },
  { name: 'observability', description: 'The error log and the traffic log (administrator).' },
  { name: 'tunnel', description: 'The public base URL webhook senders must use.' },
  {
    name: 'system',
    description: "The install's snapshot, its diagnostics and the report file (administrator).",
  },
  {
    name: 'operations',
    description: 'Liveness, readiness and metrics, for load balancers, orchestrators and monitoring.',
  },
  {
    name: 'web',
    description:
      'The web console (HTML, not JSON): the app shell at each page path and its built assets; present when the console was built.',
  },
] as const;

const DESCRIPTION = `Self-hosted algorithmic trading for Indian markets; \`/api/v1\` is wire-compatible with OpenAlgo.

**Credentials.** \`/api/v1\` routes take the account's API key in the JSON body field \`apikey\` (marked \`x-credential\` on the field: OpenAPI has no security scheme for a body field). Browser routes take the session cookie, and their state-changing requests also the CSRF token header (the \`session\` and \`csrf\` security schemes). Webhook deliveries carry their strategy's token in the path.

**Errors.** Every error body is JSON \`{"status":"error","message":…,"code":…}\` (\`code\` from a closed set) unless the route documents another shape; on \`/api/v1\` a schema failure's \`message\` is an object keyed by field, as OpenAlgo clients expect, and elsewhere \`errors\` lists the messages by field. 5xx answers never carry internals. A refused rate limit is 429 with \`Retry-After\`; a banned client address is refused with a plain-text 403 on every route.`;

/**
 * The page's Content-Security-Policy: everything from this origin (the UI's inline styles and the
 * logo's data: URL aside), so the page can load nothing from another host.
 */
const DOCS_CSP = [
  "default-src 'self'",
  "base-uri 'self'",
  "connect-src 'self'",
  "font-src 'self' data:",
  "form-action 'self'",
  "frame-ancestors 'self'",
  "img-src 'self' data:",
  "object-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
].join('; ');

/** The package version, for the document's `info` (package.json above this file, in src/ or dist/). */
function packageVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const file = join(dir, 'package.json');
    if (existsSync(file))
      return (JSON.parse(readFileSync(file, 'utf8')) as { version?: string }).version ?? '0.0.0';
    dir = dirname(dir);
  }
  return '0.0.0';
}

type Schema = Record<string, unknown>;
type SecuritySchemes = Record<string, { type: 'apiKey'; in: string; name: string; description: string }>;

const PLAIN_TEXT = Type.String();
/** `ErrorBody`, written once in the document's components and referenced by every answer. */
const ERROR_BODY_REF = { $ref: '#/components/schemas/ErrorBody' };
const errorBodySchema = (s: unknown) => (s === ErrorBody ? ERROR_BODY_REF : s);
const json = (schema: unknown) => ({ 'application/json': { schema } });
/** How a declared status range (`4xx`, `5xx`) is described. */
const RANGES: Record<string, string> = { '4xx': 'Any other client error', '5xx': 'Any other server error' };

/** The answers every route with inputs or a body may give, besides those its hooks declare. */
function inputAnswers(schema: FastifySchema, isApi: boolean, bodyLimit: number): ErrorAnswer[] {
  const out: ErrorAnswer[] = [];
  if (schema.body !== undefined || schema.querystring !== undefined || schema.params !== undefined)
    out.push({
      status: 400,
      code: 'validation_failed',
      when: isApi
        ? "a field does not match the schema: `message` is an object keyed by field (OpenAlgo's shape)"
        : 'a field does not match the schema: `message` names it, `errors` lists the messages by field',
    });
  if (schema.body !== undefined) {
    out.push({ status: 400, when: 'the body is not well-formed JSON (or holds a NUL character)' });
    out.push({ status: 413, when: `the body is over ${bodyLimit} bytes` });
  }
  return out;
}

const INTERNAL: ErrorAnswer = {
  status: 500,
  code: 'internal',
  when: 'an unexpected failure: the answer is generic, the details are in the error log under the request id',
};

/** One line per answer: its code (when it has one) and when it is given. */
function describe(status: number, answers: readonly ErrorAnswer[]): string {
  const lines = answers.map((a) => `- ${a.code ? `\`${a.code}\`: ` : ''}${a.when}`);
  return `${STATUS_CODES[status] ?? String(status)}\n\n${[...new Set(lines)].join('\n')}`;
}

/**
 * The route's `response` for the document: what it declares, each 2xx described, and each error
 * status its answers give, with the schema it declares for that status (or its `4xx`/`5xx`
 * range), else the answer's own body, else `ErrorBody`.
 */
function documentResponses(declared: Schema | undefined, answers: readonly ErrorAnswer[]): Schema {
  const out: Schema = {};
  for (const [status, schema] of Object.entries(declared ?? {})) {
    const s = schema as Schema;
    const description = STATUS_CODES[status] ?? RANGES[status] ?? status;
    if (schema === ErrorBody)
      out[status] = { 'x-response-description': description, content: json(ERROR_BODY_REF) };
    else if (s.description === undefined && s['x-response-description'] === undefined)
      out[status] = { ...s, 'x-response-description': description };
    else out[status] = s;
  }
  if (!Object.keys(out).some((k) => /^[123]/.test(k)))
    out['200'] = { 'x-response-description': STATUS_CODES[200] };
  const byStatus = new Map<number, ErrorAnswer[]>();
  for (const a of answers) byStatus.set(a.status, [...(byStatus.get(a.status) ?? []), a]);
  for (const [status, list] of byStatus) {
    const own = declared?.[String(status)] ?? declared?.[`${String(status)[0]}xx`];
    const content: Record<string, { schema: unknown }> = {};
    const jsonAnswers = list.filter((a) => a.contentType === undefined);
    if (jsonAnswers.length > 0)
      Object.assign(
        content,
        json(errorBodySchema(own ?? jsonAnswers.find((a) => a.body)?.body ?? ErrorBody)),
      );
    for (const a of list)
      if (a.contentType !== undefined) content[a.contentType] = { schema: a.body ?? PLAIN_TEXT };
    out[String(status)] = { 'x-response-description': describe(status, list), content };
  }
  return out;
}

/** A body schema with its credential fields marked (top level, and each member of a union). */
function markCredentialFields(body: Schema, fields: readonly Credential[]): Schema {
  const marked: Schema = { ...body };
  const properties = body.properties as Record<string, Schema> | undefined;
  if (properties !== undefined) {
    marked.properties = { ...properties };
    for (const f of fields) {
      const p = properties[f.name];
      if (p !== undefined)
        (marked.properties as Schema)[f.name] = {
          ...p,
          description: f.description,
          writeOnly: true,
          'x-credential': true,
        };
    }
  }
  for (const key of ['anyOf', 'oneOf', 'allOf'])
    if (Array.isArray(body[key]))
      marked[key] = (body[key] as Schema[]).map((m) => markCredentialFields(m, fields));
  return marked;
}

/** The route as the document shows it (swagger's `transform`); the route itself is not touched. */
function documentRoute(
  app: App,
  schema: FastifySchema | undefined,
  url: string,
  route: RouteOptions,
  schemes: SecuritySchemes,
): { schema: FastifySchema; url: string } {
  if (schema?.hide) return { schema, url };
  const s: FastifySchema & Schema = { ...schema };
  const methods = [route.method].flat();
  const applies = (only: readonly string[] | undefined) =>
    only === undefined || methods.some((m) => only.includes(m));
  const docs = [route.onRequest, route.preValidation, route.preHandler, route.handler].flat().map(hookDoc);
  const credentials = [
    ...new Map(
      docs
        .flatMap((d) => d.credentials ?? [])
        .filter((c) => applies(c.methods))
        .map((c) => [`${c.in} ${c.name}`, c]),
    ).values(),
  ];
  const isApi = url.startsWith('/api/v1/');
  const bodyLimit = route.bodyLimit ?? app.initialConfig.bodyLimit ?? 0;
  const gate = app.requests.gate?.refusal;
  const seen = new Set<string>();
  const answers = [
    ...docs.flatMap((d) => d.answers ?? []),
    ...inputAnswers(s, isApi, bodyLimit),
    ...(gate ? [gate] : []),
    INTERNAL,
  ].filter((a) => {
    const key = `${a.status} ${a.code ?? a.when}`;
    if (!applies(a.methods) || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  s.response = documentResponses(s.response as Schema | undefined, answers);

  const schemed = credentials.filter((c) => c.scheme !== undefined);
  if (schemed.length > 0 && s.security === undefined) {
    for (const c of schemed)
      schemes[c.scheme!] ??= { type: 'apiKey', in: c.in, name: c.name, description: c.description };
    s.security = [Object.fromEntries(schemed.map((c) => [c.scheme!, []]))];
  }
  const fields = credentials.filter((c) => c.in === 'body');
  if (fields.length > 0 && s.body !== undefined) {
    s.body = markCredentialFields(s.body as Schema, fields);
    s['x-credential'] = fields.map((f) => ({ in: f.in, name: f.name }));
  }
  return { schema: s, url };
}

/**
 * Registers `@fastify/swagger` (collecting the routes registered after it), the reference page
 * and `GET /api/openapi.json`.
 */
export const openapiPlugin = fp(
  async (fastify) => {
    const app = fastify as unknown as App;
    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: { title: 'algodesk', version: packageVersion(), description: DESCRIPTION },
        tags: API_TAGS.map((t) => ({ ...t })),
        components: { schemas: { ErrorBody } },
      },
      transform: ({ schema, url, route, ...document }) => {
        const components = ((document as { openapiObject: Schema }).openapiObject.components ??=
          {}) as Schema;
        const schemes = (components.securitySchemes ??= {}) as SecuritySchemes;
        return documentRoute(app, schema, url, route, schemes);
      },
    });
    // Not probes (`config.probe`): these are pages people read, so they belong in the traffic log,
    // and a failing ban lookup refuses them as it refuses any other route; only liveness and
    // readiness must answer through a database outage. No rate limit: the document is built once
    // and then served from memory, the page's assets are the package's files, and none of them
    // touches the database or a credential.
    await app.register(swaggerUi, {
      routePrefix: DOCS_PATH,
      staticCSP: DOCS_CSP,
      theme: { title: 'algodesk API reference' },
      uiConfig: { deepLinking: true, docExpansion: 'none', defaultModelsExpandDepth: 0 },
    });
    app.get(OPENAPI_PATH, { schema: { hide: true } }, (_req, reply) =>
      reply.header('cache-control', 'no-cache').send(app.swagger()),
    );
  },
  { name: 'openapi', dependencies: ['request-pipeline'], fastify: '5.x' },
);

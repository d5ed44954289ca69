import SwaggerParser from '@apidevtools/swagger-parser';
import { formatParamUrl } from '@fastify/swagger';
import type * as FastifyModule from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { API_TAGS, DOCS_PATH, OPENAPI_PATH } from '../../src/platform/http/openapi.plugin.js';
import { createTestApp, schemaCompilers, type TestApp } from '../helpers/test-app.js';

/** Every route the app registers, seen by a hook added as the instance is created. */
const registered = vi.hoisted(() => [] as Array<{ method: string; url: string; hidden: boolean }>);

vi.mock('fastify', async (importOriginal) => {
  const mod = await importOriginal<typeof FastifyModule>();
  const create = ((opts?: Parameters<typeof mod.default>[0]) => {
    const app = mod.default(opts);
    app.addHook('onRoute', (route) => {
      for (const method of [route.method].flat())
        registered.push({ method, url: route.url, hidden: route.schema?.hide === true });
    });
    return app;
  }) as typeof mod.default;
  return { ...mod, default: Object.assign(create, mod.default) };
});

interface Operation {
  summary?: string;
  tags?: string[];
  security?: Array<Record<string, string[]>>;
  requestBody?: {
    content: Record<string, { schema: { properties?: Record<string, Record<string, unknown>> } }>;
  };
  responses: Record<string, { description: string; content?: Record<string, { schema: unknown }> }>;
  'x-credential'?: Array<{ in: string; name: string }>;
}
interface Document {
  openapi: string;
  tags: Array<{ name: string; description: string }>;
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, { type: string; in: string; name: string }> };
}

/**
 * Registered routes the document leaves out, on purpose:
 * - HEAD: Fastify answers HEAD for every GET by itself; the document lists the GET;
 * - the reference itself: the page, its assets (`/api/docs/static/*`), its own copies of the
 *   document (`/api/docs/json`, `/api/docs/yaml`) and `/api/openapi.json`.
 */
const leftOut = (r: { method: string; url: string }) =>
  r.method === 'HEAD' || r.url === OPENAPI_PATH || r.url === DOCS_PATH || r.url.startsWith(`${DOCS_PATH}/`);

const operations = (doc: Document) =>
  Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ path, method: method.toUpperCase(), op })),
  );

const EXTERNAL_URL = /(?:src|href)\s*=\s*["']?\s*(?:https?:)?\/\//i;

describe('the API reference', () => {
  let t: TestApp;
  let doc: Document;
  beforeAll(async () => {
    registered.length = 0;
    t = await createTestApp('sqlite');
    const res = await t.app.inject({ method: 'GET', url: OPENAPI_PATH });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    doc = res.json<Document>();
  });
  afterAll(() => t.close());

  it("compiles every route's validators and serializers (built on first use, so checked here)", () => {
    // A schema Ajv or fast-json-stringify refuses would throw here, not on its route's first request.
    schemaCompilers.compileAll();
    expect(schemaCompilers.compileAll()).toBe(0);
    // Distinct schemas of the whole app (bodies, queries, params, answers): far more than a few.
    expect(schemaCompilers.compiled).toBeGreaterThan(200);
  });

  describe('the document', () => {
    it('is a valid OpenAPI 3.1 document', async () => {
      expect(doc.openapi).toMatch(/^3\.1\./);
      await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeTruthy();
    });

    it('is the one the reference page reads', async () => {
      const page = await t.app.inject({ method: 'GET', url: `${DOCS_PATH}/json` });
      expect(page.statusCode).toBe(200);
      expect(page.json()).toEqual(doc);
    });
  });

  describe('completeness: every route is documented, with a summary, its area and its errors', () => {
    it('lists every registered route but the allow-listed ones', () => {
      const listed = new Set(operations(doc).map((o) => `${o.method} ${o.path}`));
      const routes = registered.filter((r) => !leftOut(r));
      // The app registers ~100 routes; a hook that saw none would make this test pass on nothing.
      expect(routes.length).toBeGreaterThan(90);
      const missing = routes.map((r) => `${r.method} ${formatParamUrl(r.url)}`).filter((k) => !listed.has(k));
      expect(missing).toEqual([]);
      // Every operation is a registered route (nothing documented that does not exist).
      const known = new Set(registered.map((r) => `${r.method} ${formatParamUrl(r.url)}`));
      expect([...listed].filter((k) => !known.has(k))).toEqual([]);
    });

    it('leaves out only the allow-listed routes, and those exist', () => {
      expect(registered.filter((r) => r.hidden && !leftOut(r))).toEqual([]);
      for (const url of [OPENAPI_PATH, DOCS_PATH, `${DOCS_PATH}/json`])
        expect(registered.some((r) => r.method === 'GET' && r.url === url)).toBe(true);
      expect(Object.keys(doc.paths).filter((p) => p === OPENAPI_PATH || p.startsWith(DOCS_PATH))).toEqual([]);
    });

    it('gives every operation a summary, tags from the declared list and at least one 4xx answer', () => {
      const names = new Set<string>(API_TAGS.map((tag) => tag.name));
      expect(doc.tags.map((tag) => tag.name)).toEqual([...names]);
      for (const tag of doc.tags) expect(tag.description.length).toBeGreaterThan(10);
      const incomplete = operations(doc)
        .filter(
          ({ op }) =>
            !op.summary?.trim() ||
            !op.tags?.length ||
            !op.tags.every((tag) => names.has(tag)) ||
            !Object.keys(op.responses).some((code) => /^4/.test(code)),
        )
        .map((o) => `${o.method} ${o.path}`);
      expect(incomplete).toEqual([]);
    });

    it('tags the probes `operations` and the OpenAlgo API by its prefix', () => {
      expect(doc.paths['/health']!.get!.tags).toEqual(['operations']);
      expect(doc.paths['/ready']!.get!.tags).toEqual(['operations']);
      for (const { path, op } of operations(doc))
        if (path.startsWith('/api/v1/')) expect(op.tags, path).toEqual(['openalgo-api']);
    });

    it('describes each error status with the codes the route may give', () => {
      const ban = doc.paths['/security/ban']!.post!.responses;
      expect(ban['401']!.description).toContain('`session_required`');
      expect(ban['403']!.description).toContain('`forbidden`');
      expect(ban['403']!.description).toContain('`csrf_failed`');
      expect(ban['400']!.description).toContain('`validation_failed`');
      expect(ban['429']!.description).toContain('`rate_limited`');
      expect(ban['500']!.description).toContain('`internal`');
      // A read does not check the CSRF token.
      expect(doc.paths['/security/stats']!.get!.responses['403']!.description).not.toContain('csrf_failed');
      const order = doc.paths['/api/v1/placeorder']!.post!.responses;
      expect(order['403']!.description).toContain('`invalid_api_key`');
      expect(order['400']!.description).toContain('keyed by field');
      // The ban gate's refusal is plain text, on every route, probes included.
      expect(doc.paths['/health']!.get!.responses['403']!.content).toHaveProperty('text/plain');
      expect(doc.paths['/strategy/webhook/{token}']!.post!.responses['404']!.description).toContain(
        'rejected_token',
      );
    });

    it('keeps the error schemas a route declares', () => {
      const declared = doc.paths['/api/v1/orderbook']!.post!.responses['403']!.content!['application/json']!
        .schema as { properties: Record<string, unknown> };
      // The sandbox routes declare their error body with OpenAlgo's `mode`.
      expect(declared.properties).toHaveProperty('mode');
      const common = doc.paths['/auth/session']!.get!.responses['401']!.content!['application/json']!.schema;
      expect(common).toEqual({ $ref: '#/components/schemas/ErrorBody' });
    });
  });

  describe('credentials', () => {
    it('marks the /api/v1 `apikey` body field as the credential (OpenAPI has no body-field scheme)', () => {
      // A GET (OpenAlgo's `instruments` download) takes the key as the `apikey` query parameter.
      const apiOps = operations(doc).filter((o) => o.path.startsWith('/api/v1/') && o.method !== 'GET');
      expect(apiOps.length).toBeGreaterThan(10);
      const gets = operations(doc).filter((o) => o.path.startsWith('/api/v1/') && o.method === 'GET');
      for (const { path, op } of gets)
        expect(JSON.stringify((op as { parameters?: unknown }).parameters ?? []), path).toMatch(
          /"in":"query","name":"apikey"|"name":"apikey","in":"query"/,
        );
      for (const { path, op } of apiOps) {
        const field = op.requestBody?.content['application/json']?.schema.properties?.apikey;
        expect(field, path).toMatchObject({ type: 'string', writeOnly: true, 'x-credential': true });
        expect(field!.description, path).toMatch(/API key/);
        expect(op['x-credential'], path).toEqual([{ in: 'body', name: 'apikey' }]);
        expect(op.security, path).toBeUndefined();
      }
    });

    it('declares the session cookie and the CSRF header as security schemes of the session routes', () => {
      expect(doc.components.securitySchemes).toEqual({
        session: expect.objectContaining({ type: 'apiKey', in: 'cookie', name: 'algodesk_session' }),
        csrf: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'x-csrf-token' }),
      });
      expect(doc.paths['/security/ban']!.post!.security).toEqual([{ session: [], csrf: [] }]);
      expect(doc.paths['/security/stats']!.get!.security).toEqual([{ session: [] }]);
      expect(doc.paths['/ws']!.get!.security).toEqual([{ session: [] }]);
      expect(doc.paths['/auth/login']!.post!.security).toBeUndefined();
      expect(doc.paths['/strategy/webhook/{token}']!.post!.security).toBeUndefined();
    });
  });

  describe('the reference page', () => {
    it('answers HTML that loads nothing from another host', async () => {
      const res = await t.app.inject({ method: 'GET', url: DOCS_PATH });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['content-security-policy']).toContain("default-src 'self'");
      expect(res.headers['content-security-policy']).not.toMatch(/https?:/);
      expect(res.body).toContain('<div id="swagger-ui">');
      expect(res.body).not.toMatch(EXTERNAL_URL);
      const assets = [...res.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
      expect(assets.length).toBeGreaterThanOrEqual(4);
      for (const asset of assets) {
        expect(asset.startsWith(`${DOCS_PATH}/`), asset).toBe(true);
        const got = await t.app.inject({ method: 'GET', url: asset });
        expect(got.statusCode, asset).toBe(200);
      }
      const init = await t.app.inject({ method: 'GET', url: `${DOCS_PATH}/static/swagger-initializer.js` });
      // No URL to another host in a string it uses (its comments may cite one).
      expect(init.body).not.toMatch(/["'`]\s*(?:https?:)?\/\//);
      expect(init.body).toContain('validatorUrl: null');
    });
  });
});

import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { ALL_PAGE_PATHS, PAGE_PATTERNS } from '../../src/modules/web/web-pages.js';
import type { App } from '../../src/platform/http/types.js';
import { createTestDeps, type TestDeps } from '../helpers/test-app.js';
import { REPO } from '../helpers/web-build.js';

const SHELL =
  '<!doctype html><html><body><div id="root"></div><script src="/assets/app-abc.js"></script></body></html>';
const BANNED = '203.0.113.66';

async function start(webRoot: string | null): Promise<{ app: App; t: TestDeps }> {
  const t = await createTestDeps('sqlite');
  const { app } = await buildApp({ ...t.deps, webRoot });
  await app.ready();
  return { app, t };
}

describe('docs/rules/web.md#app-shell-paths: the server answers the console pages with the app shell', () => {
  let root: string;
  let app: App;
  let t: TestDeps;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'algodesk-web-'));
    mkdirSync(join(root, 'assets'));
    writeFileSync(join(root, 'index.html'), SHELL);
    writeFileSync(join(root, 'assets', 'app-abc.js'), 'console.log("hi")');
    writeFileSync(join(root, 'assets', 'app-abc.js.br'), brotliCompressSync('console.log("hi")'));
    ({ app, t } = await start(root));
    await app.security.bans.ban({
      ip: BANNED,
      reason: 'test',
      durationHours: 1,
      permanent: false,
      force: false,
      by: 'test',
    });
  });
  afterAll(async () => {
    await app.close();
    await t.release();
    rmSync(root, { recursive: true, force: true });
  });

  it('answers every page path with the shell, uncached, under a same-origin policy', async () => {
    expect(ALL_PAGE_PATHS).toContain('/login');
    for (const url of ALL_PAGE_PATHS) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.headers['content-security-policy']).toContain("script-src 'self'");
      expect(res.headers['content-security-policy']).not.toMatch(/https?:/);
      expect(res.body).toBe(SHELL);
    }
    // With a query string too (the return path after signing in).
    expect((await app.inject({ method: 'GET', url: '/login?next=%2Flogs%2Fsecurity' })).body).toBe(SHELL);
  });

  it('answers a page with an id only for a well-formed id (docs/rules/web.md#app-shell-paths)', async () => {
    for (const url of ['/strategy/1', '/strategy/2147483647']) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.body).toBe(SHELL);
    }
    for (const url of ['/strategy/0', '/strategy/x', '/strategy/12a', `/strategy/${'9'.repeat(40)}`]) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(res.json()).toMatchObject({ status: 'error', code: 'not_found' });
    }
  });

  it('answers a chart or an option chain only for a well-formed exchange and symbol', async () => {
    for (const url of [
      '/chart/NSE/SBIN',
      '/chart/NSE_INDEX/NIFTY%2050',
      '/chart/NSE/M%26M',
      '/chart/NSE/BAJAJ-AUTO',
      '/chart/NFO/NIFTY18AUG2626000CE',
      '/optionchain/NIFTY',
      '/optionchain/BANKNIFTY',
    ]) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.body).toBe(SHELL);
    }
    for (const url of [
      '/chart/nse/SBIN',
      '/chart/NSE/%3Cscript%3E',
      `/chart/NSE/${'A'.repeat(80)}`,
      '/chart/NSE',
      '/optionchain/%00',
      '/optionchain/..%2F..%2Fetc',
    ]) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(res.json()).toMatchObject({ status: 'error' });
    }
  });

  it('answers /search/token as the page to a browser’s navigation, query or not, and JSON otherwise', async () => {
    const page = { accept: 'text/html,application/xhtml+xml' };
    for (const url of [
      '/search/token',
      '/search/token?symbol=SBIN&exchange=NSE',
      `/search/token?symbol=${'x'.repeat(300)}`,
    ]) {
      const res = await app.inject({ method: 'GET', url, headers: page });
      expect(res.statusCode, url).toBe(200);
      expect(res.body).toBe(SHELL);
    }
    // A script (no session here): the JSON route's own answer.
    const json = await app.inject({ method: 'GET', url: '/search/token?symbol=SBIN' });
    expect(json.statusCode).toBe(401);
    expect(json.json()).toMatchObject({ code: 'session_required' });
  });

  it('serves the hashed assets with a year-long immutable cache, and 404 JSON for a missing one', async () => {
    const res = await app.inject({ method: 'GET', url: '/assets/app-abc.js' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/javascript/);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.body).toBe('console.log("hi")');
    // The build's pre-compressed copy, to a browser that takes it.
    const br = await app.inject({
      method: 'GET',
      url: '/assets/app-abc.js',
      headers: { 'accept-encoding': 'br, gzip' },
    });
    expect(br.statusCode).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['content-type']).toMatch(/javascript/);
    // No .gz was built here: the file itself.
    const gz = await app.inject({
      method: 'GET',
      url: '/assets/app-abc.js',
      headers: { 'accept-encoding': 'gzip' },
    });
    expect(gz.headers['content-encoding']).toBeUndefined();
    expect(gz.body).toBe('console.log("hi")');
    const missing = await app.inject({ method: 'GET', url: '/assets/nope.js' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ status: 'error', code: 'not_found' });
    const outside = await app.inject({ method: 'GET', url: '/assets/..%2f..%2fpackage.json' });
    // `send` refuses a path that climbs out of the build (403), through the one error handler.
    expect([403, 404]).toContain(outside.statusCode);
    expect(outside.json()).toMatchObject({ status: 'error' });
    expect(outside.body).not.toContain('algodesk');
  });

  it('keeps the JSON 404 for unknown paths, JSON prefixes included', async () => {
    for (const url of [
      '/logs/api/nope',
      '/admin/api/nope',
      '/api/nope',
      '/auth/nope',
      '/logs/nope',
      '/admin/x',
    ]) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(res.json()).toEqual({ status: 'error', message: `No route for GET ${url}`, code: 'not_found' });
    }
  });

  it('a browser’s navigation to an unknown path gets the console (its not-found page) with status 404', async () => {
    for (const url of ['/strategies', '/admin/x', '/nope/deeper?x=1']) {
      const res = await app.inject({
        method: 'GET',
        url,
        headers: { accept: 'text/html,application/xhtml+xml' },
      });
      expect(res.statusCode, url).toBe(404);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.body).toContain('<div id="root">');
    }
    // Not for a POST, nor for a client that does not ask for a page.
    const post = await app.inject({ method: 'POST', url: '/strategies', headers: { accept: 'text/html' } });
    expect(post.json()).toMatchObject({ code: 'not_found' });
    const api = await app.inject({ method: 'GET', url: '/strategies', headers: { accept: '*/*' } });
    expect(api.json()).toMatchObject({ code: 'not_found' });
  });

  it('a 404 never echoes a token of a near-miss webhook path', async () => {
    const token = 'Zm9yIHRoZSBzdHJhdGVneSBvZiBtaW5lIG9ubHk';
    const res = await app.inject({ method: 'POST', url: `/strategy/webhooks/${token}`, payload: {} });
    expect(res.statusCode).toBe(404);
    expect(res.body).not.toContain(token);
    expect(res.json()).toMatchObject({ message: 'No route for POST /strategy/webhooks/[redacted]' });
  });

  it('documents each page and the assets in the API reference, under the web tag', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/api/openapi.json' })).json<{
      paths: Record<string, Record<string, { summary?: string; tags?: string[] }>>;
    }>();
    const web = Object.entries(doc.paths).filter(([, ops]) => ops.get?.tags?.includes('web'));
    expect(web.map(([path]) => path).sort()).toEqual(
      [
        ...ALL_PAGE_PATHS,
        ...Object.values(PAGE_PATTERNS).map((p) => p.path.replace(/:(\w+)/g, '{$1}')),
        '/assets/{*}',
      ].sort(),
    );
    for (const [, ops] of web) expect(ops.get!.summary).toBeTruthy();
  });

  it('refuses a banned address before the shell (docs/rules/web.md#after-the-ban-check)', async () => {
    const res = await app.inject({ method: 'GET', url: '/login', remoteAddress: BANNED });
    expect(res.statusCode).toBe(403);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    const asset = await app.inject({ method: 'GET', url: '/assets/app-abc.js', remoteAddress: BANNED });
    expect(asset.statusCode).toBe(403);
  });
});

describe('docs/rules/web.md#app-shell-paths: without a build the server answers as before', () => {
  it('starts and answers the JSON 404 at the page paths', async () => {
    const { app, t } = await start(join(tmpdir(), 'algodesk-no-such-web-build'));
    try {
      const res = await app.inject({ method: 'GET', url: '/' });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ status: 'error', message: 'No route for GET /', code: 'not_found' });
      expect((await app.inject({ method: 'GET', url: '/login' })).statusCode).toBe(404);
      expect((await app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
    } finally {
      await app.close();
      await t.release();
    }
  });
});

describe('the console calls only routes the server has', () => {
  it('finds every literal api(method, path) call of web/src in the API reference', async () => {
    const calls = new Set<string>();
    const walk = (dir: string) => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        const p = join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (/\.tsx?$/.test(e.name))
          for (const m of readFileSync(p, 'utf8').matchAll(
            /api(?:<[^(]*?>)?\(\s*'([A-Z]+)',\s*(?:'([^'?]+)|`([^`]*))/g,
          )) {
            if (m[2] !== undefined) {
              calls.add(`${m[1]} ${m[2]}`);
              continue;
            }
            // A template path: each whole `${…}` segment is a route parameter (`{}`); a query built
            // at the end (an unclosed `${` or a `?`) is not part of the path. Templates that do not
            // start with a literal `/` (a variable prefix) cannot be read here.
            const path = m[3]!
              .replace(/\$\{[^}]*\}/g, '{}')
              .replace(/\$\{.*$/, '')
              .replace(/\?.*$/, '');
            if (path.startsWith('/') && !/[^/]\{\}|\{\}[^/]/.test(path)) calls.add(`${m[1]} ${path}`);
          }
      }
    };
    walk(join(REPO, 'web', 'src'));
    // The console's sign-in, setup, security page and mode header at least.
    expect(calls.size).toBeGreaterThan(15);
    const { app, t } = await start(null);
    try {
      const doc = (await app.inject({ method: 'GET', url: '/api/openapi.json' })).json<{
        paths: Record<string, Record<string, unknown>>;
      }>();
      const known = new Set(
        Object.entries(doc.paths).flatMap(([path, ops]) =>
          Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
        ),
      );
      // A template's parameter (`{}`) matches any one segment of a documented path.
      const matches = (call: string) => {
        if (known.has(call)) return true;
        const re = new RegExp(`^${call.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\}/g, '[^/]+')}$`);
        return [...known].some((k) => re.test(k));
      };
      expect([...calls].filter((c) => !matches(c))).toEqual([]);
      expect([...calls].some((c) => c.includes('{}'))).toBe(true);
    } finally {
      await app.close();
      await t.release();
    }
  });
});

/**
 * The web console as a plugin (docs/rules/web.md): the app shell (`web/dist/index.html`) at each
 * page path of web-pages.ts and the built assets under `/assets/`, served by `@fastify/static`.
 * Every route is registered after the request pipeline, so a banned address is refused before
 * any of them (docs/rules/web.md#after-the-ban-check). Without a build (`web/dist` missing: tests
 * that do not build the console), nothing is registered and every path answers as before.
 */
import fastifyStatic from '@fastify/static';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { AppDeps } from '../../app-deps.js';
import { ErrorBody } from '../../platform/http/error-body.js';
import { modulePlugin } from '../../platform/http/module-plugin.js';
import { defaultWebRoot, loadWebBuild } from './web-assets.js';
import { ALL_PAGE_PATHS, PAGE_PATTERNS } from './web-pages.js';

/** Where the built assets are served (Vite's `build.assetsDir`, under `base: '/'`). */
export const ASSETS_PREFIX = '/assets/';

/**
 * What the shell may load (docs/rules/web.md#no-cdn): only this origin. Styles allow inline
 * because the component kit writes its theme variables into a `<style>` element.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "base-uri 'self'",
  "connect-src 'self'",
  "font-src 'self' data:",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "img-src 'self' data:",
  "object-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
].join('; ');

const HtmlPage = Type.String({ description: 'The console’s app shell (text/html)' });

/** The built console's app shell, lent to the routes of web-pages.ts `NEGOTIATED_PAGE_PATHS`. */
export interface WebShell {
  /**
   * Answers with the shell (text/html, its policy and cache headers), with `status` (200; 404 for
   * a browser's navigation to a path no page or route has, docs/rules/web.md#app-shell-paths).
   */
  send(reply: FastifyReply, status?: 200 | 404): FastifyReply;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Present only when the console is built (web/dist). */
    webShell?: WebShell;
  }
}

export const webPlugin = modulePlugin<AppDeps>('web', ['request-pipeline'], async (app, deps) => {
  const build = loadWebBuild(deps.webRoot === undefined ? defaultWebRoot() : (deps.webRoot ?? undefined));
  if (build === undefined) {
    deps.logger.debug('web console not built (web/dist/index.html missing): no pages served');
    return;
  }
  // `serve: false`: the plugin only lends `reply.sendFile`; the routes are ours, each documented.
  // `preCompressed`: the build writes `.br` and `.gz` beside each asset (web/vite.config.ts); the
  // one the browser accepts is sent, else the file itself.
  await app.register(fastifyStatic, {
    root: build.root,
    serve: false,
    cacheControl: false,
    etag: true,
    preCompressed: true,
  });

  const sendShell = (reply: FastifyReply, status: 200 | 404 = 200): FastifyReply =>
    reply
      .code(status)
      .header('content-type', 'text/html; charset=utf-8')
      // The shell names the hashed assets of the build it came from: never cached stale.
      .header('cache-control', 'no-cache')
      .header('content-security-policy', CONSOLE_CSP)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'same-origin')
      .send(build.shell);
  // For the pages whose path is another module's JSON route (docs/rules/web.md#negotiated-pages).
  app.decorate('webShell', { send: (reply: FastifyReply, status?: 200 | 404) => sendShell(reply, status) });

  for (const url of ALL_PAGE_PATHS)
    app.get(
      url,
      {
        schema: {
          summary: `The console page ${url} (the app shell)`,
          tags: ['web'],
          response: { 200: HtmlPage, 429: ErrorBody },
        },
      },
      (_req, reply) => {
        void sendShell(reply);
      },
    );

  // Pages with an id (docs/rules/web.md#app-shell-paths): only a well-formed id is a page; any
  // other path under the prefix is what it would be without a console, the JSON 404.
  for (const { path, params } of Object.values(PAGE_PATTERNS) as {
    path: string;
    params: Record<string, RegExp>;
  }[])
    app.get(
      path,
      {
        schema: {
          summary: `The console page ${path} (the app shell)`,
          tags: ['web'],
          params: Type.Record(Type.String(), Type.String({ maxLength: 200 })),
          response: { 200: HtmlPage, 404: ErrorBody, 429: ErrorBody },
        },
      },
      (req, reply) => {
        const given = req.params as Record<string, string>;
        if (!Object.entries(params).every(([name, re]) => re.test(given[name] ?? '')))
          return reply.callNotFound();
        void sendShell(reply);
      },
    );

  app.get(
    `${ASSETS_PREFIX}*`,
    {
      schema: {
        summary: 'A built asset of the console (content-hashed, cached for a year)',
        tags: ['web'],
        response: { 200: Type.String({ description: 'The file' }), 404: ErrorBody },
      },
    },
    (req, reply) => {
      const name = (req.params as { '*': string })['*'];
      // Vite names every asset by its content hash: a name never changes meaning.
      reply.header('cache-control', 'public, max-age=31536000, immutable');
      reply.header('x-content-type-options', 'nosniff');
      void reply.sendFile(`assets/${name}`);
    },
  );
});

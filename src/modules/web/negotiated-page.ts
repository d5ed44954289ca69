/**
 * A JSON route that is also a console page (docs/rules/web.md#negotiated-pages): its `onRequest`
 * hook answers a browser's navigation with the app shell (the console's router then checks the
 * session) before the route's query is validated or its session checked; every other request
 * goes on to the JSON answer. Without a build the hook does nothing.
 */
import type { onRequestAsyncHookHandler } from 'fastify';
import { wantsPage } from './web-pages.js';
import type { WebShell } from './web.plugin.js';

export function pageForBrowsers(
  webShell: (() => WebShell | undefined) | undefined,
): onRequestAsyncHookHandler {
  return async (req, reply) => {
    const shell = webShell?.();
    if (shell && wantsPage(req.headers.accept)) return shell.send(reply);
  };
}

import type { App } from '../../platform/http/types.js';
import { pageForBrowsers } from '../web/negotiated-page.js';
import type { WebShell } from '../web/web.plugin.js';
import type { ApiKeysService } from './api-keys.service.js';
import { ApiKeyCreated, ApiKeyStatus, OrderModeBody, OrderModeResponse } from './auth.schema.js';
import { ErrorBody } from '../../platform/http/error-body.js';
import type { SessionGuard } from './session.guard.js';

export interface ApiKeyRouteDeps {
  apiKeys: ApiKeysService;
  guard: SessionGuard;
  /** The console's app shell when it is built (the web module registers after this one). */
  webShell?: () => WebShell | undefined;
}

/** `/apikey` session routes: key status, regeneration (key shown once), order mode. */
export function apiKeyRoutes(app: App, deps: ApiKeyRouteDeps): void {
  const { apiKeys, guard } = deps;
  const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody };
  app.get(
    '/apikey',
    {
      // Also the console's page (docs/rules/web.md#negotiated-pages).
      onRequest: pageForBrowsers(deps.webShell),
      preHandler: guard(),
      schema: {
        summary: "The API key's status (never the key); a browser's navigation gets the console page",
        tags: ['auth'],
        response: { 200: ApiKeyStatus, ...errors },
      },
    },
    async (req) => ({
      status: 'success' as const,
      ...(await apiKeys.status(req.session!.userId)),
    }),
  );

  app.post(
    '/apikey',
    {
      preHandler: guard(),
      schema: {
        summary: 'Generate a new API key (shown once; the old one stops working)',
        tags: ['auth'],
        response: { 200: ApiKeyCreated, ...errors },
      },
    },
    async (req, reply) => {
      const created = await apiKeys.regenerate(req.session!.userId);
      reply.header('cache-control', 'no-store');
      return {
        status: 'success' as const,
        ...created,
        message: 'Store this key now: it is shown only once. Any previous key no longer works.',
      };
    },
  );

  app.post(
    '/apikey/mode',
    {
      preHandler: guard(),
      schema: {
        summary: "Set the API key's order mode (automatic or semi-automatic)",
        tags: ['auth'],
        body: OrderModeBody,
        response: { 200: OrderModeResponse, ...errors },
      },
    },
    async (req) => ({
      status: 'success' as const,
      order_mode: await apiKeys.setOrderMode(req.session!.userId, req.body.mode),
    }),
  );
}

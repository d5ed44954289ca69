/**
 * The console's trader's desk as a plugin (docs/rules/web.md#desk-calls): session routes that
 * stand for the `/api/v1` books and order calls, made in-process as the signed-in user.
 */
import type { AppDeps } from '../../app-deps.js';
import { modulePlugin, routeLimits, sessionScope } from '../../platform/http/module-plugin.js';
import { deskRoutes } from './desk.routes.js';

export const deskPlugin = modulePlugin<AppDeps>('desk', ['auth'], async (app, deps) => {
  const limits = routeLimits(deps);
  await sessionScope(app, (web) =>
    deskRoutes(web, {
      guard: app.auth.guard,
      delegate: (userId, opts) => app.auth.apiKeys.delegate(userId, opts),
      // Its own window, so one desk call is not counted twice against the API's: the call it
      // stands for meets the API's (and the order) limits as any API call does.
      rateLimit: limits.limit('desk', limits.rules.admin),
    }),
  );
});

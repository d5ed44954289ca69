/**
 * Agents (MCP) as a plugin (docs/rules/mcp.md): the tool catalogue run as `/api/v1` calls
 * (mcp-calls.ts), the local stdio server's call route and the audit. The remote `/mcp` endpoint
 * with its OAuth 2.1 server builds on the same calls.
 */
import type { AppDeps } from '../../app-deps.js';
import { modulePlugin, routeLimits, sessionScope } from '../../platform/http/module-plugin.js';
import { McpCalls } from './mcp-calls.js';
import { mcpAdminRoutes, mcpRoutes } from './mcp.routes.js';

declare module 'fastify' {
  interface FastifyInstance {
    mcp: { calls: McpCalls };
  }
}

export const mcpPlugin = modulePlugin<AppDeps>('mcp', ['auth'], async (app, deps) => {
  const calls = new McpCalls({
    app,
    db: deps.database.db,
    clock: deps.clock,
    logger: deps.logger.child({ module: 'mcp' }),
  });
  app.decorate('mcp', { calls });
  const limits = routeLimits(deps);
  mcpRoutes(app, { calls, apiKeyGuard: app.auth.apiKeyGuard, rateLimit: limits.api });
  await sessionScope(app, (web) =>
    mcpAdminRoutes(web, { db: deps.database.db, guard: app.auth.guard, rateLimit: limits.admin }),
  );
});

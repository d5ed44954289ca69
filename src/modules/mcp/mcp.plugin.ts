/**
 * Agents (MCP) as a plugin (docs/rules/mcp.md): the tool catalogue run as `/api/v1` calls
 * (mcp-calls.ts), the local stdio server's call route and the audit. The remote `/mcp` endpoint
 * with its OAuth 2.1 server builds on the same calls.
 */
import type { AppDeps } from '../../app-deps.js';
import { modulePlugin, routeLimits, sessionScope } from '../../platform/http/module-plugin.js';
import { McpCalls } from './mcp-calls.js';
import { mcpAdminRoutes, mcpRoutes } from './mcp.routes.js';
import { mcpRemoteRoutes } from './mcp-remote.routes.js';
import { McpSettingsService } from './mcp-settings.service.js';
import { OAuthRepository } from './oauth.repository.js';
import { OAuthService } from './oauth.service.js';
import { OAuthAdmin } from './oauth-admin.js';

declare module 'fastify' {
  interface FastifyInstance {
    mcp: { calls: McpCalls; oauth: OAuthService; admin: OAuthAdmin; settings: McpSettingsService };
  }
}

export const mcpPlugin = modulePlugin<AppDeps>('mcp', ['auth', 'tunnel'], async (app, deps) => {
  const { config } = deps;
  const publicBase = deps.publicBaseUrl ?? (() => app.tunnel.publicUrl() ?? undefined);
  const base = () => (publicBase() ?? config.hostServer).replace(/\/+$/, '');
  const settings = new McpSettingsService(deps.database.db, deps.clock, deps.bus);
  const oauth = new OAuthService({
    repo: new OAuthRepository(deps.database.db),
    clock: deps.clock,
    settings,
    resource: () => `${base()}/mcp`,
  });
  const calls = new McpCalls({
    app,
    db: deps.database.db,
    delegate: (userId) => app.auth.apiKeys.delegate(userId),
    clock: deps.clock,
    logger: deps.logger.child({ module: 'mcp' }),
  });
  const admin = new OAuthAdmin({ db: deps.database.db, clock: deps.clock });
  app.decorate('mcp', { calls, oauth, admin, settings });
  app.auth.accounts.onAccountGone((userId, why) => oauth.forgetUser(userId, why === 'deleted'));
  const limits = routeLimits(deps);
  mcpRoutes(app, { calls, apiKeyGuard: app.auth.apiKeyGuard, rateLimit: limits.api });
  mcpRemoteRoutes(app, {
    oauth,
    settings,
    calls,
    sessions: app.auth.sessions,
    users: app.auth.users,
    totp: app.auth.totp,
    limiter: deps.rateLimiter,
    base,
    rateLimit: limits.limit('oauth', limits.rules.api),
    logger: deps.logger.child({ module: 'mcp' }),
    version: '0.1.0',
  });
  await sessionScope(app, (web) =>
    mcpAdminRoutes(web, {
      db: deps.database.db,
      guard: app.auth.guard,
      rateLimit: limits.admin,
      admin,
      settings,
      settingsLimit: limits.limit('mcp-settings', limits.rules.mcpSettings),
      killLimit: limits.limit('mcp-kill', limits.rules.heavy),
    }),
  );
});

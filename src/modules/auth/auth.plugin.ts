/**
 * The auth module as a plugin: users, browser sessions, two-factor codes, API keys and the login
 * flow; the session guard and the API-key guard every other module's routes use; the login,
 * session and API-key routes. Expired sessions are swept here (the request path only reads them).
 */
import type { AppDeps } from '../../app-deps.js';
import { modulePlugin, repeatWhileUp, routeLimits, sessionScope } from '../../platform/http/module-plugin.js';
import { AccountsService } from './accounts.service.js';
import { accountRoutes } from './accounts.routes.js';
import { ApiKeysRepository } from './api-keys.repository.js';
import { apiKeyRoutes } from './api-keys.routes.js';
import { ApiKeysService } from './api-keys.service.js';
import { createApiKeyGuard, type ApiKeyGuard, type InvalidKeyListener } from './api-key.guard.js';
import { authRoutes } from './auth.routes.js';
import { LoginActivityRepository } from './login-activity.repository.js';
import { LoginService } from './login.service.js';
import { createSessionGuard, type SessionGuard } from './session.guard.js';
import { SessionsRepository } from './sessions.repository.js';
import { setupRoutes } from './setup.routes.js';
import { SessionsService } from './sessions.service.js';
import { TotpService } from './totp.service.js';
import { UsersRepository } from './users.repository.js';
import { UsersService } from './users.service.js';

/** How often expired sessions are deleted. */
const SWEEP_MS = 10 * 60_000;

export interface AuthServices {
  users: UsersService;
  sessions: SessionsService;
  /** Two-factor codes: enrollment, login, purposes, the remote-agent consent rule. */
  totp: TotpService;
  apiKeys: ApiKeysService;
  /** Account management: an administrator's changes to users, a user's password change. */
  accounts: AccountsService;
  login: LoginService;
  loginActivity: LoginActivityRepository;
  /** Pre-handlers of session routes: a live session, the administrator flag, the CSRF token. */
  guard: SessionGuard;
  /** Pre-handler of `/api/v1` routes: the API key in the body. */
  apiKeyGuard: ApiKeyGuard;
  /** Told about every refused API key (the shield's tracker subscribes). */
  invalidKeyListeners: InvalidKeyListener[];
}

declare module 'fastify' {
  interface FastifyInstance {
    auth: AuthServices;
  }
}

export function buildAuthServices(deps: AppDeps): AuthServices {
  const { config, clock } = deps;
  const db = deps.database.db;
  const usersRepo = new UsersRepository(db);
  const users = new UsersService(usersRepo, clock);
  const sessions = new SessionsService(new SessionsRepository(db), clock, {
    idleMs: config.sessionIdleMs,
    maxMs: config.sessionMaxMs,
  });
  const loginActivity = new LoginActivityRepository(db);
  const totp = new TotpService(users, sessions, clock, config.appKey);
  const apiKeys = new ApiKeysService(
    new ApiKeysRepository(db),
    usersRepo,
    config.apiKeyPepper,
    clock,
    deps.bus,
  );
  const invalidKeyListeners: InvalidKeyListener[] = [];
  const accounts = new AccountsService({
    users,
    repo: usersRepo,
    sessions,
    apiKeys,
    totp: () => totp,
    clock,
    logger: deps.logger.child({ module: 'auth' }),
  });
  return {
    users,
    sessions,
    totp,
    apiKeys,
    accounts,
    loginActivity,
    login: new LoginService(
      users,
      sessions,
      loginActivity,
      deps.rateLimiter,
      config.loginRateLimit,
      clock,
      deps.logger,
      totp,
    ),
    guard: createSessionGuard(sessions, users),
    apiKeyGuard: createApiKeyGuard(apiKeys, config.serviceName, invalidKeyListeners),
    invalidKeyListeners,
  };
}

export const authPlugin = modulePlugin<AppDeps>('auth', ['request-pipeline'], async (app, deps) => {
  const auth = buildAuthServices(deps);
  app.decorate('auth', auth);
  await sessionScope(app, (web) => {
    authRoutes(web, {
      config: deps.config,
      login: auth.login,
      sessions: auth.sessions,
      users: auth.users,
      totp: auth.totp,
      guard: auth.guard,
    });
    apiKeyRoutes(web, { apiKeys: auth.apiKeys, guard: auth.guard, webShell: () => app.webShell });
    accountRoutes(web, {
      accounts: auth.accounts,
      users: auth.users,
      guard: auth.guard,
      rateLimit: routeLimits(deps).admin,
    });
    setupRoutes(web, {
      config: deps.config,
      users: auth.users,
      sessions: auth.sessions,
      // The key is the login service's (`login:<ip>`): setup attempts and logins share a window.
      rateLimit: routeLimits(deps).limit('login', deps.config.loginRateLimit),
    });
  });
  repeatWhileUp(app, SWEEP_MS, () => auth.sessions.purgeExpired(), deps.logger, 'expired-session cleanup');
});

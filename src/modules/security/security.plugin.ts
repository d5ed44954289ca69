/**
 * The shield as a plugin: IP bans (the request pipeline's gate, before any route logic), the
 * 404 and invalid-API-key trackers that ban repeat offenders, the security settings, and the
 * administrator's security routes. Bans past their retention and closed tracker windows are
 * swept here; the request path only reads them.
 */
import type { AppDeps } from '../../app-deps.js';
import type { ErrorCode } from '../../platform/errors.js';
import { modulePlugin, repeatWhileUp, routeLimits, sessionScope } from '../../platform/http/module-plugin.js';
import { maskUrl } from '../../platform/logger.js';
import { wantsPage } from '../web/web-pages.js';
import { sessionTokenOf } from '../auth/session.guard.js';
import { BAN_MESSAGE, BanService } from './ban.service.js';
import { BansRepository } from './bans.repository.js';
import { SecuritySettingsRepository } from './security-settings.repository.js';
import { SecuritySettingsService } from './security-settings.service.js';
import { securityPageRoute } from './security-page.routes.js';
import { securityRoutes } from './security.routes.js';
import { TrackersRepository } from './trackers.repository.js';
import { TrackersService } from './trackers.service.js';

/** How often expired bans and closed tracker windows are deleted. */
const SWEEP_MS = 10 * 60_000;

export interface SecurityServices {
  bans: BanService;
  trackers: TrackersService;
  settings: SecuritySettingsService;
}

declare module 'fastify' {
  interface FastifyInstance {
    security: SecurityServices;
  }
}

export const securityPlugin = modulePlugin<AppDeps>(
  'security',
  ['request-pipeline', 'auth', 'observability'],
  async (app, deps) => {
    const { clock, logger, config } = deps;
    const db = deps.database.db;
    const bans = new BanService(new BansRepository(db), clock, deps.bus);
    const settings = new SecuritySettingsService(new SecuritySettingsRepository(db), clock, deps.bus);
    const trackers = new TrackersService(new TrackersRepository(db), bans, settings, clock, logger);
    app.decorate('security', { bans, trackers, settings });
    const { sessions } = app.auth;

    if (!config.disableBanCheck)
      app.requests.gate = {
        admits: (ip) => {
          const banned = bans.isBanned(ip);
          return typeof banned === 'boolean' ? !banned : banned.then((b) => !b);
        },
        deny: (reply) => reply.code(403).type('text/plain; charset=utf-8').send(BAN_MESSAGE),
        refusal: {
          status: 403,
          when: 'the client address is banned (a plain-text answer, before any route logic)',
          contentType: 'text/plain',
        },
      };
    app.auth.invalidKeyListeners.push((ip, digest) => trackers.recordInvalidKey(ip, digest));
    app.setNotFoundHandler(async (req, reply) => {
      // Unauthenticated 404s feed the 404 tracker (a logged-in browser's broken link does not).
      if ((await sessions.resolve(sessionTokenOf(req.headers.cookie))) === undefined)
        trackers.record404(req.clientIp, req.url);
      // A person who typed a wrong address in a browser gets the console's not-found page, with
      // the same 404 status (docs/rules/web.md#app-shell-paths); API clients get the JSON below.
      const shell = app.webShell;
      if (shell && (req.method === 'GET' || req.method === 'HEAD') && wantsPage(req.headers.accept))
        return shell.send(reply, 404);
      return reply.code(404).send({
        status: 'error',
        message: `No route for ${req.method} ${maskUrl(req.url)}`,
        code: 'not_found' satisfies ErrorCode,
      });
    });

    const limits = routeLimits(deps);
    await sessionScope(app, (web) =>
      securityRoutes(web, {
        bans,
        trackers,
        securitySettings: settings,
        sessions,
        loginActivity: app.auth.loginActivity,
        traffic: app.observability.traffic,
        guard: app.auth.guard,
        rateLimit: limits.admin,
        clock,
      }),
    );
    await sessionScope(app, (web) =>
      securityPageRoute(web, { bans, trackers, sessions, users: app.auth.users, rateLimit: limits.admin }),
    );
    app.addHook('onReady', async () => trackers.start());
    app.addHook('onClose', async () => trackers.stop());
    repeatWhileUp(
      app,
      SWEEP_MS,
      () => Promise.all([bans.purgeExpired(), trackers.purge()]),
      logger,
      'ban and tracker cleanup',
    );
  },
);

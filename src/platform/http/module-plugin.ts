/**
 * How a module joins the app: a Fastify plugin with a name and the names of the plugins it needs
 * (fastify-plugin checks they were registered first, so the app's plugin list is also the start
 * order; `onClose` hooks run in reverse, so it is the stop order read backwards). A module builds
 * its services in the plugin's body, decorates the app with what other modules may use, starts
 * its timers in `onReady` and stops them in `onClose`.
 */
import cookie from '@fastify/cookie';
import fp from 'fastify-plugin';
import type { Config } from '../../config.js';
import type { RateLimiter } from '../rate-limiter.js';
import type { Logger } from 'pino';
import {
  createRateLimitHooks,
  rateLimitsFrom,
  type RateLimitFactory,
  type RateLimits,
} from './rate-limit.js';
import type { RateLimitHook } from './rate-limit.js';
import type { App } from './types.js';

export function modulePlugin<D extends object>(
  name: string,
  dependencies: string[],
  register: (app: App, deps: D) => void | Promise<void>,
) {
  return fp<D>(
    async (app, deps) => {
      await register(app as unknown as App, deps);
    },
    { name, dependencies, fastify: '5.x' },
  );
}

/**
 * Registers browser (session) routes in a child scope with the cookie plugin, so its
 * per-response hook never runs on the API; cookies are parsed only by the session guard.
 */
export async function sessionScope(app: App, routes: (web: App) => void | Promise<void>): Promise<void> {
  await app.register(async (scope) => {
    const web = scope as unknown as App;
    await web.register(cookie, { hook: false });
    await routes(web);
  });
}

/** The rate-limit hooks of a module's routes, on the one shared limiter (keys by surface name). */
export interface RouteLimits {
  /** A hook for a named surface with its own rules. */
  limit: RateLimitFactory;
  rules: RateLimits;
  /** The administration surface (every admin route of every module counts against one window). */
  admin: RateLimitHook;
  /** The public `/api/v1` surface other than orders. */
  api: RateLimitHook;
}

export function routeLimits(deps: { rateLimiter: RateLimiter; logger: Logger; config: Config }): RouteLimits {
  const limit = createRateLimitHooks(deps.rateLimiter, deps.logger);
  const rules = rateLimitsFrom(deps.config);
  return { limit, rules, admin: limit('admin', rules.admin), api: limit('api', rules.api) };
}

/**
 * Runs `task` every `ms` from `onReady` until `onClose` (unref'd: it never keeps the process
 * alive); a failure is logged as `<what> failed` and the next round runs as usual.
 */
export function repeatWhileUp(
  app: App,
  ms: number,
  task: () => Promise<unknown>,
  log: Pick<Logger, 'warn'>,
  what: string,
): void {
  let timer: NodeJS.Timeout | undefined;
  app.addHook('onReady', async () => {
    timer = setInterval(() => {
      task().catch((err: unknown) => log.warn({ err }, `${what} failed`));
    }, ms);
    timer.unref();
  });
  app.addHook('onClose', async () => clearInterval(timer));
}

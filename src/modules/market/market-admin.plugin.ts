import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { DB } from '../../db/schema.js';
import type { Clock } from '../../platform/clock.js';
import type { AppDeps } from '../../app-deps.js';
import { modulePlugin, routeLimits, sessionScope } from '../../platform/http/module-plugin.js';
import type { InvalidationBus } from '../../platform/invalidation.js';
import { FreezeRepository } from './freeze.repository.js';
import { FreezeService } from './freeze.service.js';
import { HolidaysRepository } from './holidays.repository.js';
import { HolidaysService } from './holidays.service.js';
import { registerMarketAdminRoutes } from './market-admin.routes.js';
import { TimingsRepository } from './timings.repository.js';
import { MarketCalendar, TimingsService, type ExchangeSession } from './timings.service.js';

/** Freeze quantities, holidays and timings: what the order and sandbox code consult. */
export interface MarketAdminServices {
  /**
   * Freeze quantity for an F&O underlying on an exchange (NFO, BFO, CDS, BCD, MCX, NCDEX), or null when
   * none is configured. Synchronous: served from memory, reloaded on every change on any instance.
   */
  freezeQty(exchange: string, underlying: string): number | null;
  /**
   * Whether `exchange` is in session at `instant` (epoch ms): weekends, holidays, special sessions
   * and per-exchange timings in IST. NSE_INDEX/BSE_INDEX/MCX_INDEX follow NSE/BSE/MCX; an
   * exchange without a timing is never open. Synchronous (memory).
   */
  isMarketOpen(exchange: string, instant: number): boolean;
  /** The session of one exchange on an IST date (`YYYY-MM-DD`); undefined for an unknown exchange. */
  sessionOn(exchange: string, date: string): ExchangeSession | undefined;
  /** Every exchange's session on an IST date (`YYYY-MM-DD`). */
  sessionsOn(date: string): ExchangeSession[];
  /** Seeds timings and holidays when their tables are empty, then loads the caches. */
  start(): Promise<void>;
  /** The parts, for the admin routes. */
  readonly freeze: FreezeService;
  readonly holidays: HolidaysService;
  readonly timings: TimingsService;
  readonly calendar: MarketCalendar;
}

export interface MarketAdminDeps {
  db: Kysely<DB>;
  clock: Clock;
  bus: InvalidationBus;
  logger: Logger;
}

export function buildMarketAdminServices(deps: MarketAdminDeps): MarketAdminServices {
  const { db, clock, bus, logger } = deps;
  const freeze = new FreezeService(new FreezeRepository(db), bus, logger);
  const holidays = new HolidaysService(new HolidaysRepository(db), clock, bus, logger);
  const timings = new TimingsService(new TimingsRepository(db), clock, bus, logger);
  const calendar = new MarketCalendar(timings, holidays);
  return {
    freeze,
    holidays,
    timings,
    calendar,
    freezeQty: (exchange, underlying) => freeze.freezeQty(exchange, underlying),
    isMarketOpen: (exchange, instant) => calendar.isMarketOpen(exchange, instant),
    sessionOn: (exchange, date) => calendar.sessionOn(exchange, date),
    sessionsOn: (date) => calendar.sessionsOn(date),
    async start() {
      await timings.start();
      await holidays.start();
      await freeze.start();
    },
  };
}

declare module 'fastify' {
  interface FastifyInstance {
    marketAdmin: MarketAdminServices;
  }
}

/**
 * Market administration as a plugin: freeze quantities, holidays and timings (what orders and the
 * sandbox consult), seeded and cached at start, with `/admin/api/{freeze,holidays,timings,stats}`
 * (their own scope: the multipart parser of the uploads).
 */
export const marketAdminPlugin = modulePlugin<AppDeps>('market-admin', ['auth'], async (app, deps) => {
  const marketAdmin = buildMarketAdminServices({
    db: deps.database.db,
    clock: deps.clock,
    bus: deps.bus,
    logger: deps.logger,
  });
  app.decorate('marketAdmin', marketAdmin);
  const limits = routeLimits(deps);
  await sessionScope(app, (web) =>
    registerMarketAdminRoutes(web, {
      services: marketAdmin,
      guard: app.auth.guard,
      rateLimit: limits.admin,
      uploadRateLimit: limits.limit('freeze-upload', limits.rules.heavy),
    }),
  );
  app.addHook('onReady', async () => marketAdmin.start());
});

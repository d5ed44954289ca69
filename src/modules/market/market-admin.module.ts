import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { DB } from '../../db/schema.js';
import type { Clock } from '../../platform/clock.js';
import type { App } from '../../platform/http/types.js';
import type { RateLimitHook } from '../../platform/http/rate-limit.js';
import type { InvalidationBus } from '../../platform/invalidation.js';
import type { SessionGuard } from '../auth/session.guard.js';

// SCAFFOLD (market data issue): the freeze-quantity, holiday and timing services and the
// `/admin/api/{freeze,holidays,timings,stats}` routes are being written in this module.

/** Freeze quantities, holidays and timings: what the order and sandbox code consult. */
export interface MarketAdminServices {
  /** Freeze quantity for an F&O underlying on an exchange, or null when none is configured. */
  freezeQty(exchange: string, underlying: string): number | null;
  /** Loads caches and seeds timings/holidays when their tables are empty. */
  start(): Promise<void>;
}

export interface MarketAdminDeps {
  db: Kysely<DB>;
  clock: Clock;
  bus: InvalidationBus;
  logger: Logger;
}

export function buildMarketAdminServices(deps: MarketAdminDeps): MarketAdminServices {
  void deps;
  return { freezeQty: () => null, start: () => Promise.resolve() };
}

export interface MarketAdminRouteDeps {
  services: MarketAdminServices;
  guard: SessionGuard;
  /** `/admin/api/*` limit (API_RATE_LIMIT, default 50/s). */
  rateLimit: RateLimitHook;
  /** `POST /admin/api/freeze/upload` limit (10 per minute). */
  uploadRateLimit: RateLimitHook;
}

/** `/admin/api/{freeze,holidays,timings,stats}`; registered in its own scope (multipart). */
export async function marketAdminRoutes(app: App, deps: MarketAdminRouteDeps): Promise<void> {
  void app;
  void deps;
  return Promise.resolve();
}

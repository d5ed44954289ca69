/**
 * What placement and order management (place.ts, manage.ts) need of the sandbox
 * service, and the types they share with it: kept apart so those files depend on this one, not on
 * the service that calls them.
 */
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { SandboxConfig } from '../../../config-sandbox.js';
import type { DB } from '../../../db/schema.js';
import type { Clock } from '../../../platform/clock.js';
import { badRequest } from '../../../platform/errors.js';
import type { Instrument } from '../../market/instrument.js';
import type { MarketPrices, OrderRequest, SessionPhase } from '../core/rules.js';
import type { PriceSource } from '../prices/price-source.js';
import type { OrderRecord } from '../core/records.js';
import type { AccountRow, OrderRow, SandboxRepository } from '../store/sandbox.repository.js';

/** A placeorder request as the sandbox receives it (after the request schema). */
export interface PlaceRequest extends OrderRequest {
  symbol: string;
  exchange: string;
  strategy?: string | null;
  /** The caller's reference (a strategy order's tag): finds the order again after a restart. */
  tag?: string | null;
}

/** What placement decided: the order (rejected orders are kept with their reason). */
export type PlaceOutcome =
  { ok: true; order: OrderRecord } | { ok: false; order: OrderRecord; message: string };

/**
 * Written in the placement's own transaction, after the order's rows: the caller's record of the
 * outcome (the analyzer log row of the order), committed with the order or not at all.
 */
export type PlacementJournal<J> = (trx: Kysely<DB>, outcome: PlaceOutcome) => Promise<J>;

/** Instruments as the sandbox looks them up (the master contract). */
export interface InstrumentLookup {
  get(symbol: string, exchange: string): Promise<Instrument | undefined>;
}

export interface SandboxServiceDeps {
  repo: SandboxRepository;
  instruments: InstrumentLookup;
  prices: () => PriceSource;
  clock: Clock;
  config: SandboxConfig;
  logger: Logger;
}

/** The sandbox service as placement and order management use it (SandboxService implements it). */
export interface SandboxCore {
  readonly deps: SandboxServiceDeps;
  /** The instrument, or a 400 naming it. */
  instrument(symbol: string, exchange: string): Promise<Instrument>;
  /** A quote for the instrument and whether it may fill. */
  pricesFor(instrument: Instrument): Promise<{ prices?: MarketPrices; fallback?: MarketPrices }>;
  /** Tells the listeners (the engine's book) about an order created, changed or ended. */
  changed(order: OrderRow | undefined): void;
  /** Matches a just-placed or modified order against the quote it was placed with. */
  matchNow(
    repo: SandboxRepository,
    account: AccountRow,
    row: OrderRow,
    prices: MarketPrices,
    now: number,
  ): Promise<OrderRow>;
  /** The user's order, or a 404. */
  ownOrder(repo: SandboxRepository, userId: number, orderId: number): Promise<OrderRow>;
  /** Phase of the MIS day for `exchange` at `now`. */
  sessionPhase(exchange: string, now: number): SessionPhase;
  placeOrder<J = never>(
    userId: number,
    req: PlaceRequest,
    journal?: PlacementJournal<J>,
  ): Promise<PlaceOutcome & { journal?: J }>;
}

/** Amounts past the exact money range (about ₹900 billion) are bad input, not a server error. */
export function outOfRange(err: unknown): never {
  if (err instanceof RangeError)
    throw badRequest('order value is too large for exact accounting (over ₹900,000,000,000)');
  throw err;
}

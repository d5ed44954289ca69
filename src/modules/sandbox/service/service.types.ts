/**
 * The types the sandbox's operations (place.ts, manage.ts, context.ts) share with the facade:
 * the service's dependencies, the outcome of a placement, the caller's journal. Kept apart so
 * those files depend on this one, not on the service that calls them.
 */
import type { Action } from '../../../domain/orders.js';
import type { SessionOn } from '../core/sessions.js';
import type { Kysely } from 'kysely';
import type { InsertAtCommit } from '../../../platform/db/inserts-at-commit.js';
import type { Logger } from 'pino';
import type { SandboxConfig } from '../../../config-sandbox.js';
import type { DB } from '../../../db/schema.js';
import type { Clock } from '../../../platform/clock.js';
import { badRequest } from '../../../platform/errors.js';
import type { Instrument } from '../../market/instrument.js';
import type { PriceSource } from '../prices/price-source.js';
import type { OrderRecord } from '../core/records.js';
import type { SandboxRepository } from '../store/sandbox.repository.js';

export type { PlaceRequest } from '../core/placement.js';

/** What placement decided: the order (rejected orders are kept with their reason). */
export type PlaceOutcome =
  { ok: true; order: OrderRecord } | { ok: false; order: OrderRecord; message: string };

/**
 * Written in the placement's own transaction, after the order's rows: the caller's record of the
 * outcome (the analyzer log row of the order), committed with the order or not at all. It may be
 * called again with the placement run again (platform/db/group-commit.ts, `rerun`): it must only
 * write through `trx` or `atCommit` (a row written with its group's just before the COMMIT,
 * platform/db/inserts-at-commit.ts). What it returns is not awaited in the transaction (a row
 * queued with `atCommit` gets its id only at the COMMIT): the placement hands it back as it is.
 */
export type PlacementJournal<J> = (trx: Kysely<DB>, outcome: PlaceOutcome, atCommit: InsertAtCommit) => J;

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
  /**
   * The market calendar: with `SANDBOX_SESSIONS=enforce`, orders are taken only in the exchange's
   * session (docs/rules/sandbox.md#sessions-and-holidays). Absent: always open.
   */
  sessionOn?: SessionOn;
}

/** Amounts past the exact money range (about ₹900 billion) are bad input, not a server error. */
export function outOfRange(err: unknown): never {
  if (err instanceof RangeError)
    throw badRequest('order value is too large for exact accounting (over ₹900,000,000,000)');
  throw err;
}

/** One order as a broker's margin calculator takes it (rupees, as the `margin` API's legs). */
export interface BrokerMarginLeg {
  symbol: string;
  exchange: string;
  action: Action;
  product: string;
  pricetype: string;
  quantity: number;
  price: number;
  trigger_price: number;
}

/**
 * The user's broker calculator for one order (rupees), or undefined when the user has no broker
 * session, the broker offers no calculator, or it did not answer in time.
 */
export type BrokerMarginFn = (
  userId: number,
  leg: BrokerMarginLeg,
) => Promise<{ total: number; span: number; exposure: number; broker: string } | undefined>;

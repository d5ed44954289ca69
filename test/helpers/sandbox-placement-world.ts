/**
 * The world of the sandbox placement service tests (sandbox-placement-*.service.test.ts): the real
 * sandbox service and engine on a real database, no HTTP (trading-services.ts), started afresh for
 * each case with the market open at 10:00 IST (see `marketOpen`), and what the cases share: a
 * resting option LIMIT, an order's status transitions, a position, and the service's refusal of a
 * request (docs/rules/sandbox.md#order-validation).
 */
import { afterEach, beforeEach, expect } from 'vitest';
import type { Dialect } from '../../src/platform/db/database.js';
import { AppError } from '../../src/platform/errors.js';
import { MINI } from './sandbox.js';
import { startTrading, type Trading } from './trading-services.js';

/** The service's 4xx for a request it refuses. */
export async function refusal(p: Promise<unknown>): Promise<AppError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

/**
 * Starts a `Trading` for each case (handed to `onStart`, then the market opened) and closes it
 * after; returns the readers bound to the case's own.
 */
export function placementWorld(dialect: Dialect, onStart: (t: Trading) => void) {
  let t: Trading;
  beforeEach(async () => {
    t = await startTrading(dialect);
    onStart(t);
    await t.marketOpen();
  });
  afterEach(() => t?.close());

  const optionLimit = (price = 100, quantity = 65) =>
    t.place({ ...MINI.NIFTY_CE, side: 'BUY', quantity, priceType: 'LIMIT', product: 'NRML', price });
  /** The order's status transitions, oldest first, as `from→to` (detail appended when there is one). */
  const events = async (orderId: string) =>
    (await t.rows('sandbox_order_events'))
      .filter((e) => String(e.order_id) === orderId)
      .map(
        (e) => `${String(e.from_status)}→${String(e.to_status)}${e.detail ? ` (${String(e.detail)})` : ''}`,
      );
  const position = async (symbol: string, product = 'MIS') =>
    (await t.rows('sandbox_positions')).find((p) => p.symbol === symbol && p.product === product);

  return { optionLimit, events, position };
}

/**
 * Placement of a sandbox order, top to bottom: fetch the instrument and the quote, then in one
 * transaction over the user's locked account read the snapshot (store), ask core/placement.ts
 * for the plan (core decides), and write it (store/ledger.ts `applyPlacement`); after the commit,
 * tell the price source and the listeners.
 */
import { badRequest } from '../../../platform/errors.js';
import { planPlacement, type PlacementMarket, type PlaceRequest } from '../core/placement.js';
import type { Instrument } from '../../market/instrument.js';
import { toOrderRecord } from '../core/records.js';
import { applyPlacement, lockForPlacement } from '../store/ledger.js';
import type { SandboxContext } from './context.js';
import { derivativeMargin } from './derivative-margin.js';
import { outOfRange, type PlacementJournal, type PlaceOutcome } from './service.types.js';

/** What a placement of `req` knows of the market, fetched before its transaction. */
export async function placementMarket(
  s: SandboxContext,
  userId: number,
  instrument: Instrument,
  req: PlaceRequest,
): Promise<PlacementMarket> {
  const { prices, fallback } = await s.pricesFor(instrument);
  const now = s.deps.clock.now();
  const derivative = await derivativeMargin(s, userId, instrument, req);
  const closed = s.closedReason(req.exchange, now);
  return {
    instrument,
    ...(prices ? { prices } : {}),
    ...(fallback ? { fallback } : {}),
    now,
    session: s.sessionPhase(req.exchange, now),
    ...(closed !== undefined ? { closed } : {}),
    noPriceReason: () => s.deps.prices().noPriceReason?.(instrument),
    ...(derivative ? { derivative } : {}),
  };
}

/** See SandboxService.placeOrder. */
export async function placeOrder<J>(
  s: SandboxContext,
  userId: number,
  req: PlaceRequest,
  journal?: PlacementJournal<J>,
): Promise<PlaceOutcome & { journal?: J }> {
  const { repo, config } = s.deps;
  const instrument = await s.instrument(req.symbol, req.exchange);
  const market = await placementMarket(s, userId, instrument, req);
  const { now } = market;
  const { outcome, row, written } = await repo
    .groupedTransaction(userId, async (trx) => {
      const snapshot = await lockForPlacement(
        trx,
        userId,
        config.startingFunds,
        now,
        req.symbol,
        req.exchange,
        req.product,
      );
      const plan = planPlacement(snapshot, userId, req, market, config);
      if (plan.kind === 'invalid') throw badRequest(plan.reason);
      const row = await applyPlacement(trx, plan);
      const order = toOrderRecord(row);
      const outcome: PlaceOutcome =
        plan.kind === 'reject' ? { ok: false, order, message: plan.reason } : { ok: true, order };
      return { outcome, row, written: journal ? { journal: journal(trx.bound, outcome, trx.atCommit) } : {} };
    })
    .catch(outOfRange);
  s.deps.prices().orderPlaced?.(instrument);
  s.changed(row);
  return { ...outcome, ...written };
}

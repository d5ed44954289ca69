/**
 * What the strategy page's buttons and `/api/v1/strategy/*` do to a run, written once: both
 * surfaces start, stop and close through these, on the runner's and the stopper's locked paths
 * (the same claim, the same exits as the webhook), so a click, an API call and a delivery can
 * never open two runs or exit a holding twice.
 */
import { badRequest, liveDisabled } from '../../platform/errors.js';
import { fromDbBool } from '../../platform/db/database.js';
import type { LegRow, StrategyRow } from './strategies.repository.js';
import type { StrategiesService } from './strategies.service.js';
import type { RunStopper } from './run-stop.js';
import type { StrategyRunner } from './strategy-runner.js';
import type { RunnerOutcome } from './strategy-runner.types.js';
import type { RunMode } from './strategy.types.js';

/**
 * A batch start of the user's strategy: a signal strategy is refused (400), `live` needs the
 * operator's live switch (403, docs/rules/strategies.md#batch-start-mode); the run itself is the
 * runner's claim, cooling-off included (docs/rules/strategies.md#cooling-off).
 */
export async function startOwnedBatch(
  deps: { strategies: StrategiesService; runner: StrategyRunner },
  userId: number,
  id: number,
  mode: RunMode,
): Promise<{ s: StrategyRow; legs: LegRow[]; out: RunnerOutcome }> {
  const s = await deps.strategies.owned(userId, id);
  if (s.kind !== 'batch')
    throw badRequest('Only batch strategies are started; signal strategies open a run on their first signal');
  if (mode === 'live' && !fromDbBool(s.live_enabled)) {
    throw liveDisabled('Live batch start is not enabled for this strategy');
  }
  const legs = await deps.strategies.repo.legs(s.id);
  return { s, legs, out: await deps.runner.start(s, legs, mode) };
}

/** A stop of the user's strategy's active run (docs/rules/strategies.md#stop). */
export async function stopOwned(
  deps: { strategies: StrategiesService; stopper: RunStopper },
  userId: number,
  id: number,
): Promise<{ s: StrategyRow; out: RunnerOutcome }> {
  const s = await deps.strategies.owned(userId, id);
  return { s, out: await deps.stopper.stop(s) };
}

/** A runner outcome as the session routes and the API answer it (the webhook's response fields). */
export function runnerBody(out: RunnerOutcome, strategyId: number) {
  return {
    status: out.result === 'ok' ? ('success' as const) : ('error' as const),
    result: out.result,
    message: out.message,
    strategy_id: strategyId,
    ...(out.runId !== undefined ? { run_id: out.runId } : {}),
    ...(out.stopPending !== undefined ? { stop_pending: out.stopPending } : {}),
    ...(out.exits !== undefined ? { exits: out.exits } : {}),
  };
}

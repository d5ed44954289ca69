/**
 * A batch strategy's `start` (docs/rules/strategies.md#batch-leg-resolution): the run claimed,
 * each leg resolved to its contract, the entries sent BUY legs before SELL legs, and every SELL
 * leg withheld once a BUY leg is refused (critical `entries_withheld`). Apart from
 * strategy-runner.ts, which holds the run's claim, its lock and what its orders became: this
 * file is only what a start sends and in which order; stopping is run-stop.ts.
 */
import { COOLING_OFF_MS, seconds } from '../../domain/limits.js';
import type { Action } from '../../domain/orders.js';
import { resolveDerivativeLeg, type DerivativeContract } from '../market/derivative-leg.js';
import type { PlaceArgs } from './run-order.js';
import type { LegRow, StrategiesRepository, StrategyRow } from './strategies.repository.js';
import type { EventWrite } from './strategies.service.js';
import type { EventArgs, Placed, RunnerOutcome } from './strategy-runner.types.js';
import type { RunMode } from './strategy.types.js';

/** What a start needs of the runner. */
export interface StartContext {
  repo: Pick<StrategiesRepository, 'run'>;
  deps: { contract: DerivativeContract };
  claim(
    s: StrategyRow,
    mode: RunMode,
    opened: Omit<EventWrite, 'strategyId' | 'runId' | 'kind'>,
  ): Promise<{ runId: number } | { refused: 'active' | 'cooling_off'; runId?: number }>;
  place(...args: PlaceArgs): Promise<Placed>;
  event(...args: EventArgs): Promise<void>;
}

/**
 * Batch `start`: claim, resolve legs, entries BUY before SELL. A BUY leg that cannot be
 * resolved or is refused withholds every SELL leg (critical `entries_withheld`): the hedges go
 * first so that a short option never stands without the long one it was paired with. The caller
 * holds the strategy's lock and read `s` under it.
 */
export async function startRun(
  runner: StartContext,
  s: StrategyRow,
  legs: LegRow[],
  mode: RunMode,
): Promise<RunnerOutcome> {
  const claimed = await runner.claim(s, mode, {
    message: `Run started in ${mode} mode`,
    payload: { mode },
  });
  if ('refused' in claimed) {
    if (claimed.refused === 'cooling_off')
      return {
        result: 'rejected_cooling_off',
        message: `Strategy stopped less than ${seconds(COOLING_OFF_MS)} s ago; start refused`,
      };
    const active = claimed.runId === undefined ? undefined : await runner.repo.run(claimed.runId);
    return {
      result: 'ok',
      message:
        active?.status === 'stop_pending'
          ? 'The previous run is still stopping; nothing started'
          : 'A run is already active; nothing started',
      ...(claimed.runId ? { runId: claimed.runId } : {}),
    };
  }
  const runId = claimed.runId;
  const resolved: { leg: LegRow; symbol: string; exchange: string; quantity: number }[] = [];
  let buyFailed = false;
  for (const leg of legs) {
    const r = await resolveDerivativeLeg(leg, runner.deps.contract, mode === 'live');
    if (!r.ok) {
      await runner.event(s, runId, 'entry_rejected', `Leg ${leg.id}: ${r.message}`, leg.id);
      if (leg.side === 'BUY') buyFailed = true;
      continue;
    }
    if (r.fallback) {
      await runner.event(s, runId, 'leg_expiry_fallback', r.fallback, leg.id, { symbol: r.symbol });
    }
    resolved.push({ leg, symbol: r.symbol, exchange: r.exchange, quantity: r.quantity });
  }
  const order = (a: { leg: LegRow }) => (a.leg.side === 'BUY' ? 0 : 1);
  let placed = 0;
  const withheld: number[] = [];
  for (const r of resolved.sort((a, b) => order(a) - order(b) || a.leg.position - b.leg.position)) {
    const side = r.leg.side as Action;
    if (side === 'SELL' && buyFailed) {
      withheld.push(r.leg.id);
      continue;
    }
    const p = await runner.place(s, runId, mode, r.leg, r.symbol, r.exchange, side, r.quantity, 'entry');
    if (p.ok) placed++;
    else if (side === 'BUY') buyFailed = true;
  }
  if (withheld.length) {
    await runner.event(
      s,
      runId,
      'entries_withheld',
      `A BUY leg was refused, so ${withheld.length} SELL leg(s) were not sent; stop the run to exit what was bought`,
      null,
      { legs: withheld },
    );
  }
  return {
    result: 'ok',
    message:
      `Run started: ${placed} of ${legs.length} entries placed` +
      (withheld.length ? `; ${withheld.length} SELL leg(s) withheld because a BUY leg was refused` : ''),
    runId,
    started: true,
  };
}

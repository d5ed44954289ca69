/**
 * Signal strategies. The leg is named by `leg_id`, else by `symbol` + `exchange` (a one-leg
 * strategy needs neither; docs/rules/strategies.md#signal-leg-selection); its instrument is
 * checked against the master contract at signal time (not a contract on an exchange that has
 * rows → `rejected_invalid_action`; an exchange with no rows passes:
 * docs/rules/strategies.md#signal-contract-at-signal-time); a cash `short_entry` needs product
 * MIS (docs/rules/strategies.md#signal-product-default); direction limits refuse the other side's
 * entries. `long_entry`/`short_entry` open or flip (the outgoing exit first: if it is rejected, the
 * critical `flip_outgoing_exit_rejected` and no new entry); `*_exit` flattens; a signal that would
 * not change the held position is `ok` with a note (docs/rules/strategies.md#no-op-signals). The
 * first accepted signal opens a run, in the mode the service is in (analyzer → sandbox). The
 * caller holds the strategy's lock.
 */
import type { LegRow, SignalView, StrategyRow } from './strategies.repository.js';
import type { DerivativeContract } from '../market/derivative-leg.js';
import type { StrategyRunner } from './strategy-runner.js';
import type { RunnerOutcome } from './strategy-runner.types.js';
import { type RunMode, type SignalAction } from './strategy.types.js';
import { CASH_EXCHANGES } from '../../domain/exchanges.js';
import { COOLING_OFF_MS, seconds } from '../../domain/limits.js';
import { closingAction, openingAction } from '../../domain/orders.js';

export interface SignalRef {
  leg_id: number | null;
  symbol: string | null;
  exchange: string | null;
}

export interface SignalContract {
  get: DerivativeContract['get'];
  hasExchange(exchange: string): Promise<boolean>;
}

const invalid = (message: string): RunnerOutcome => ({ result: 'rejected_invalid_action', message });
const stopping = (runId: number): RunnerOutcome => ({
  result: 'rejected_cooling_off',
  message: 'The strategy is being stopped (its exits are working); signal refused',
  runId,
});

/** The leg a signal names, or a refusal. */
export function findLeg(legs: readonly LegRow[], ref: SignalRef): LegRow | RunnerOutcome {
  if (ref.leg_id !== null) {
    return legs.find((l) => l.id === ref.leg_id) ?? invalid(`No leg ${ref.leg_id} in this strategy`);
  }
  if (ref.symbol !== null || ref.exchange !== null) {
    if (ref.symbol === null || ref.exchange === null)
      return invalid('A leg is named by leg_id, or by symbol and exchange together');
    const symbol = ref.symbol.trim().toUpperCase();
    const exchange = ref.exchange.trim().toUpperCase();
    return (
      legs.find((l) => l.symbol === symbol && l.exchange === exchange) ??
      invalid(`No leg for ${symbol.slice(0, 40)} on ${exchange.slice(0, 16)} in this strategy`)
    );
  }
  if (legs.length === 1) return legs[0]!;
  return invalid('This strategy has several legs: name one with leg_id, or symbol and exchange');
}

export async function handleSignal(
  runner: StrategyRunner,
  contract: SignalContract,
  s: StrategyRow,
  legs: readonly LegRow[],
  action: SignalAction,
  ref: SignalRef,
  globalMode: RunMode,
  /** What the caller read under the lock with the strategy (its run, orders and this leg's position). */
  read?: SignalView,
): Promise<RunnerOutcome> {
  const leg = findLeg(legs, ref);
  if ('result' in leg) return leg;
  const view = read?.legId === leg.id ? read : undefined;
  const symbol = leg.symbol!;
  const exchange = leg.exchange;
  // docs/rules/strategies.md#signal-contract-at-signal-time: the contract may have changed since
  // the leg was saved.
  let lotsize = 1;
  if (await contract.hasExchange(exchange)) {
    const inst = await contract.get(symbol, exchange);
    if (!inst) return invalid(`${symbol} is not a contract on ${exchange} in the master contract`);
    lotsize = inst.lotsize;
  }
  const entrySide = action === 'long_entry' ? 1 : action === 'short_entry' ? -1 : 0;
  if (action === 'short_entry' && CASH_EXCHANGES.has(exchange) && s.product !== 'MIS') {
    return invalid(`A short entry on ${exchange} needs product MIS (the strategy's product is ${s.product})`);
  }
  if (entrySide === 1 && s.direction === 'short_only')
    return invalid('This strategy is short-only: long_entry refused');
  if (entrySide === -1 && s.direction === 'long_only')
    return invalid('This strategy is long-only: short_entry refused');

  const size = leg.quantity * (leg.quantity_unit === 'lots' ? lotsize : 1);
  let runId = s.active_run_id;
  const active =
    runId === null ? undefined : view?.run?.id === runId ? view.run : await runner.repo.run(runId);
  // A run being stopped is exiting: a signal must not open what the stop is closing.
  if (active?.status === 'stop_pending') return stopping(active.id);
  // What the leg holds: its fills, plus its orders still working (asked about first, so an entry
  // the exchange rejected after acknowledging it is not exited as if it had filled), once every
  // intent a crash left unsettled is reconciled.
  const exposure = active
    ? await runner.exposure(s, active, leg.id, view?.run === active ? view : undefined)
    : undefined;
  if (exposure?.unsettled)
    return {
      result: 'rejected_engine_error',
      message: `An earlier order of ${symbol} has no known outcome yet (its ${active!.mode} account could not be asked); signal refused`,
      runId: active!.id,
    };
  const held = exposure?.held ?? 0;
  const target =
    entrySide !== 0 ? entrySide * size : action === 'long_exit' ? (held > 0 ? 0 : held) : held < 0 ? 0 : held;
  if (target === held || (entrySide !== 0 && Math.sign(held) === entrySide)) {
    const note = `No change: ${symbol} ${exchange} already ${held === 0 ? 'flat' : held > 0 ? `long ${held}` : `short ${-held}`}`;
    if (runId !== null) await runner.event(s, runId, 'signal_noop', note, leg.id, { action });
    return { result: 'ok', message: note, ...(runId !== null ? { runId } : {}) };
  }
  if (runId === null) {
    const claimed = await runner.claim(s, globalMode, {
      message: `Run opened by the first signal (${globalMode} mode)`,
      legId: leg.id,
      payload: { mode: globalMode },
    });
    if ('refused' in claimed) {
      if (claimed.refused === 'cooling_off')
        return {
          result: 'rejected_cooling_off',
          message: `The strategy stopped less than ${seconds(COOLING_OFF_MS)} s ago; signal refused`,
        };
      if (claimed.runId === undefined)
        return { result: 'rejected_engine_error', message: 'No run could be opened for the signal' };
      const other = await runner.repo.run(claimed.runId);
      if (other?.status === 'stop_pending') return stopping(other.id);
      runId = claimed.runId;
    } else {
      runId = claimed.runId;
    }
  }
  const run = active?.id === runId ? active : await runner.repo.run(runId);
  const mode = (run?.mode ?? globalMode) as RunMode;
  // The outgoing side first (exit, or the exit half of a flip).
  if (held !== 0 && Math.sign(target) !== Math.sign(held)) {
    const out = await runner.place(
      s,
      runId,
      mode,
      leg,
      symbol,
      exchange,
      closingAction(held),
      Math.abs(held),
      'exit',
      exposure?.seen,
    );
    if (out.conflict)
      return {
        result: 'rejected_engine_error',
        message: `The position of ${symbol} changed while the signal was handled; signal refused`,
        runId,
      };
    if (!out.ok) {
      if (entrySide !== 0) {
        await runner.event(
          s,
          runId,
          'flip_outgoing_exit_rejected',
          `Flip refused: the exit of ${symbol} was rejected (${out.message}); no new entry`,
          leg.id,
        );
      }
      return { result: 'ok', message: `Exit rejected: ${out.message}`, runId };
    }
  }
  if (target !== 0) {
    const inn = await runner.place(
      s,
      runId,
      mode,
      leg,
      symbol,
      exchange,
      openingAction(target),
      Math.abs(target),
      'entry',
    );
    if (!inn.ok) return { result: 'ok', message: `Entry rejected: ${inn.message}`, runId };
    return {
      result: 'ok',
      message: `${action}: ${openingAction(target)} ${Math.abs(target)} ${symbol} placed`,
      runId,
    };
  }
  return { result: 'ok', message: `${action}: ${symbol} flattened`, runId };
}

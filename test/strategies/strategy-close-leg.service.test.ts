/**
 * Closing one leg of a run (docs/rules/strategies.md#close-leg) in the middle tier: the run
 * stopper's step limited to that leg, on a real database against the sandbox. One exit per
 * holding whatever arrives together (repeated closes, a stop), the other legs untouched, the run
 * left open, a refused exit retried by the next close and never written as a failed stop.
 */
import { afterEach, expect, it } from 'vitest';
import { describeEachDb } from '../helpers/test-app.js';
import { BATCH_PAIR, startStrategyServices, type StrategyWorld } from '../helpers/strategies-services.js';

let w: StrategyWorld;
afterEach(async () => {
  await w?.close();
});

/** A started BATCH_PAIR: its row, its legs by symbol. */
async function started() {
  const { id } = await w.create(BATCH_PAIR);
  expect(await w.start(id, 'sandbox')).toMatchObject({ result: 'ok', started: true });
  const st = w.services.strategies;
  const legs = await st.strategies.repo.legs(id);
  const leg = (symbol: string) => legs.find((l) => l.symbol === symbol)!.id;
  return {
    id,
    sbin: leg('SBIN'),
    infy: leg('INFY'),
    row: async () => (await st.strategies.repo.find(id))!,
    closeLeg: async (legId: number) => st.stopper.closeLeg((await st.strategies.repo.find(id))!, legId),
  };
}

const exitsOf = async (legId: number) =>
  (await w.rows('strategy_orders')).filter((o) => o.leg_id === legId && o.purpose === 'exit');

describeEachDb('closing one leg', (dialect) => {
  it('concurrent closes of a leg send one exit; the other leg and the run are untouched', async () => {
    w = await startStrategyServices(dialect);
    const p = await started();
    const answers = await Promise.all(Array.from({ length: 8 }, () => p.closeLeg(p.sbin)));
    expect(answers.every((a) => a.result === 'ok')).toBe(true);
    expect(answers.flatMap((a) => a.exits ?? [])).toEqual([
      expect.objectContaining({ leg_id: p.sbin, action: 'SELL', quantity: 3, status: 'placed' }),
    ]);
    expect(await exitsOf(p.sbin)).toHaveLength(1);
    expect(await exitsOf(p.infy)).toHaveLength(0);
    expect(await w.runStatus()).toEqual(['running']);
    expect((await p.row()).active_run_id).not.toBeNull();
    const kinds = await w.kinds();
    expect(kinds).not.toContain('run_stop_requested:info');
    expect(kinds.filter((k) => k === 'exit_placed:info')).toHaveLength(1);
  });

  it('a close and a stop arriving together still exit each holding once; the run then stops on its fills', async () => {
    w = await startStrategyServices(dialect);
    const p = await started();
    await Promise.all([p.closeLeg(p.sbin), w.stop(p.id), p.closeLeg(p.sbin), p.closeLeg(p.infy)]);
    expect(await exitsOf(p.sbin)).toHaveLength(1);
    expect(await exitsOf(p.infy)).toHaveLength(1);
    await w.idle();
    await w.services.strategies.stopper.reconcile();
    expect(await w.runStatus()).toEqual(['stopped']);
    expect(await w.positions()).toMatchObject({ SBIN: 0, INFY: 0 });
  });

  it('a refused exit is answered as such, is no failed stop, and the next close retries it', async () => {
    w = await startStrategyServices(dialect);
    const p = await started();
    w.refuseOrders((o) => o.symbol === 'SBIN' && o.action === 'SELL');
    const refused = await p.closeLeg(p.sbin);
    expect(refused).toMatchObject({
      result: 'ok',
      message: 'The exit of the leg was refused: operator action needed',
      exits: [expect.objectContaining({ leg_id: p.sbin, status: 'rejected', message: 'refused SELL SBIN' })],
    });
    const kinds = await w.kinds();
    expect(kinds).toContain('exit_rejected:warn');
    expect(kinds).not.toContain('run_stop_failed:critical');
    expect(await w.runStatus()).toEqual(['running']);
    w.refuseOrders(() => false);
    const retried = await p.closeLeg(p.sbin);
    expect(retried.exits).toEqual([expect.objectContaining({ status: 'placed', quantity: 3 })]);
    expect((await exitsOf(p.sbin)).map((o) => o.status)).toEqual(['rejected', 'filled']);
  });

  it('without an active run nothing is sent', async () => {
    w = await startStrategyServices(dialect);
    const { id } = await w.create(BATCH_PAIR);
    const st = w.services.strategies;
    const leg = (await st.strategies.repo.legs(id))[0]!.id;
    const out = await st.stopper.closeLeg((await st.strategies.repo.find(id))!, leg);
    expect(out).toEqual({ result: 'ok', message: 'No active run; nothing to close', exits: [] });
    expect(await w.rows('strategy_orders')).toEqual([]);
  });
});

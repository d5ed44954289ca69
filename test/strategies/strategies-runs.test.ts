/**
 * Issue 7 parts 5-6 at the HTTP layer: what the management routes add to runs and signals — a
 * leg refused at configuration time (rule 7, 400 from the create route), and the strategy page's
 * start and stop buttons sharing the webhook's claim. The rules of runs, stops, fills and signals
 * themselves are tested on the services: strategies-runner.service.test.ts and
 * strategies-pipeline.service.test.ts.
 */
import { afterEach, expect, it } from 'vitest';
import { describeEachDb } from '../helpers/test-app.js';
import { BATCH_PAIR, SIGNAL_SBIN, startStrategies, type StrategyHarness } from '../helpers/strategies.js';

let h: StrategyHarness;
afterEach(async () => {
  await h?.close();
});

const json = (res: { json(): unknown }) => res.json() as Record<string, unknown>;

describeEachDb('signal strategies: legs at configuration time (rule 7)', (dialect) => {
  it('rule 7: a leg whose instrument is not a contract is refused; an exchange with no master rows passes', async () => {
    h = await startStrategies(dialect);
    const bad = await h.manage('POST', '', {
      ...SIGNAL_SBIN,
      legs: [{ symbol: 'SBINN', exchange: 'NSE', quantity: 1 }],
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toMatch(/SBINN is not a contract on NSE/);
    const base = await h.manage('POST', '', {
      ...SIGNAL_SBIN,
      legs: [{ symbol: 'NIFTY', exchange: 'NFO', quantity: 1 }],
    });
    expect(base.statusCode).toBe(400);
    // MCX holds no rows in the mini contract: the leg passes (the order itself is then the pipeline's).
    const mcx = await h.create({
      ...SIGNAL_SBIN,
      name: 'mcx',
      product: 'NRML',
      legs: [{ symbol: 'GOLDM', exchange: 'MCX', quantity: 1 }],
    });
    expect(json(await h.hook(mcx.token, { action: 'long_exit' }))).toMatchObject({ result: 'ok' });
  });
});

describeEachDb('batch runs from the strategy page', (dialect) => {
  it('the strategy page’s start and stop share the webhook’s claim: clicks and deliveries open one run', async () => {
    h = await startStrategies(dialect);
    const { id, token } = await h.create(BATCH_PAIR);
    const signal = await h.create(SIGNAL_SBIN);
    expect((await h.manage('POST', `/${signal.id}/start`, { mode: 'sandbox' })).statusCode).toBe(400);
    expect((await h.manage('POST', `/${id}/start`, { mode: 'live' })).statusCode).toBe(403);
    expect((await h.manage('POST', `/${id}/start`, { mode: 'paper' })).statusCode).toBe(400);
    const answers = await Promise.all([
      ...Array.from({ length: 10 }, () => h.manage('POST', `/${id}/start`, { mode: 'sandbox' })),
      ...Array.from({ length: 10 }, (_, n) => h.hook(token, { action: 'start', mode: 'sandbox', n })),
    ]);
    expect(answers.every((a) => a.statusCode === 200)).toBe(true);
    expect(await h.rows('strategy_runs')).toHaveLength(1);
    expect(await h.rows('strategy_orders')).toHaveLength(2);
    const stop = await h.manage('POST', `/${id}/stop`);
    expect(json(stop)).toMatchObject({ result: 'ok', stop_pending: true, strategy_id: id });
    await h.t.services.strategies.stopper.whenIdle();
    const cooling = await h.manage('POST', `/${id}/start`, { mode: 'sandbox' });
    expect(cooling.statusCode).toBe(409);
    expect(json(cooling)).toMatchObject({ result: 'rejected_cooling_off' });
  });
});

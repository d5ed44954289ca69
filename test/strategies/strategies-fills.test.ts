/**
 * Spec "Strategy run stop", at the HTTP layer: the operator's stop from the
 * strategy page retries a leg whose exit died, against a loopback Kite Connect v3 stub (live
 * runs). The rest of the rule — a run holds what its orders *filled*; exits sized by fills,
 * working entries cancelled, unrecorded acknowledgements, freeze splits — is tested on the
 * services: strategies-runner.service.test.ts.
 */
import { afterEach, beforeAll, afterAll, expect, it } from 'vitest';
import { startKiteOrderStub, type KiteOrderStub } from '../helpers/broker-order-stubs.js';
import { asBrowser, describeEachDb } from '../helpers/test-app.js';
import { startStrategies, type StrategyHarness } from '../helpers/strategies.js';

const CREDS = { apiKey: 'kiteapikey01', apiSecret: 'kiteapisecret01', accessToken: 'kiteaccess0123456789' };

let h: StrategyHarness;
let stub: KiteOrderStub;
beforeAll(async () => {
  stub = await startKiteOrderStub(CREDS);
});
afterAll(async () => {
  await stub?.close();
});
afterEach(async () => {
  await h?.close();
  stub.reset();
  stub.orders.clear();
});

const json = (res: { json(): unknown }) => res.json() as Record<string, unknown>;
const kinds = async () => (await h.rows('strategy_events')).map((e) => `${e.kind}:${e.severity}`);
const runStatus = async () => (await h.rows('strategy_runs')).map((r) => r.status);

/** The harness with the live broker (Kite stub) configured and the admin's session stored. */
async function liveHarness(dialect: 'sqlite' | 'postgres'): Promise<StrategyHarness> {
  const harness = await startStrategies(dialect, stub.appEnv());
  await harness.t.services.brokers.sessions.set(1, 'zerodha', { accessToken: CREDS.accessToken });
  return harness;
}

/** A live batch strategy of one BUY leg of 3 SBIN, started. */
async function startedLiveBatch(): Promise<{ id: number; token: string; entry: string }> {
  const { id, token } = await h.create({
    name: 'live sbin',
    kind: 'batch',
    product: 'MIS',
    legs: [{ symbol: 'SBIN', exchange: 'NSE', quantity: 3, side: 'BUY' }],
  });
  await h.manage('POST', `/${id}/live`, { enabled: true });
  expect(json(await h.hook(token, { action: 'start', mode: 'live' }))).toMatchObject({ result: 'ok' });
  const [entry] = stub.placed('BUY');
  expect(entry).toMatchObject({ quantity: 3 });
  return { id, token, entry: entry!.id };
}

const stopPage = (id: number) =>
  h.t.app.inject({
    method: 'POST',
    url: `/strategy/api/strategies/${id}/stop`,
    headers: asBrowser(h.admin),
  });
const idle = () => h.t.services.strategies.stopper.whenIdle();
const reconcile = () => h.t.services.strategies.stopper.reconcile();

describeEachDb('a stop from the strategy page retries what died (live broker)', (dialect) => {
  it('an exit rejected after its acknowledgement writes run_stop_failed; the run stays managed and is not retried on its own; the next stop retries', async () => {
    h = await liveHarness(dialect);
    const { id, token, entry } = await startedLiveBatch();
    stub.settle(entry, 'COMPLETE');
    await h.hook(token, { action: 'stop' });
    await idle();
    stub.settle(stub.placed('SELL')[0]!.id, 'REJECTED');
    await reconcile();
    expect(await kinds()).toContain('run_stop_failed:critical');
    expect(await runStatus()).toEqual(['stop_pending']);
    // The reconcile does not ask a refusing broker again by itself.
    await reconcile();
    await reconcile();
    expect(stub.placed('SELL')).toHaveLength(1);
    // The operator's next stop retries the leg.
    const again = json(await stopPage(id));
    expect(again).toMatchObject({ stop_pending: true, exits: [expect.objectContaining({ quantity: 3 })] });
    stub.settle(stub.placed('SELL')[1]!.id, 'COMPLETE');
    await idle();
    await reconcile();
    expect(await runStatus()).toEqual(['stopped']);
  });
});

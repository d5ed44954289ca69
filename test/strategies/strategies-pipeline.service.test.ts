/**
 * The strategy webhook pipeline, rule by rule, in the middle tier: the webhook service on a real
 * database, no HTTP (the route's own contract — status lines, sizes, rate limits, content types —
 * is strategies-webhook*.test.ts). Batch de-duplication (60 s) and cooling-off (30 s) on the fake
 * clock, and signal strategies: rules 6-9, flips, direction limits, signals of one strategy one
 * at a time.
 */
import { afterEach, expect, it } from 'vitest';
import { describeEachDb } from '../helpers/test-app.js';
import {
  BATCH_PAIR,
  SIGNAL_SBIN,
  startStrategyServices,
  type StrategyWorld,
} from '../helpers/strategies-services.js';
import { miniKiteContract } from '../helpers/sandbox.js';

let w: StrategyWorld;
afterEach(async () => {
  await w?.close();
});

describeEachDb('batch de-duplication: identical deliveries within 60 s are handled once', (dialect) => {
  it('rejected_dedupe (200) for an identical batch delivery within 60 s; rejected_cooling_off (409) within 30 s of a stop', async () => {
    w = await startStrategyServices(dialect);
    const { token } = await w.create(BATCH_PAIR);
    const start = { action: 'start', mode: 'sandbox' };
    const first = await w.deliver(token, start);
    expect(first.body).toMatchObject({ status: 'success', result: 'ok' });
    const dup = await w.deliver(token, { mode: 'sandbox', action: 'start' });
    expect(dup.http).toBe(200);
    expect(dup.body).toMatchObject({ result: 'rejected_dedupe' });
    w.clock.advance(1_000);
    const stop = await w.deliver(token, { action: 'stop' });
    expect(stop.body).toMatchObject({ result: 'ok', stop_pending: true });
    await w.idle();
    // 29 s after the stop (a different body, so not a duplicate): cooling off.
    w.clock.advance(29_000);
    const cooling = await w.deliver(token, { ...start, note: 'again' });
    expect(cooling.http).toBe(409);
    expect(cooling.body).toMatchObject({ result: 'rejected_cooling_off' });
    w.clock.advance(2_000);
    expect((await w.deliver(token, { ...start, note: 'later' })).body).toMatchObject({ result: 'ok' });
  });

  it('an identical delivery after the 60 s window is judged afresh: a start finds the run active and opens nothing', async () => {
    w = await startStrategyServices(dialect);
    const { token } = await w.create(BATCH_PAIR);
    const start = { action: 'start', mode: 'sandbox' };
    const first = await w.deliver(token, start);
    expect(first.body).toMatchObject({ result: 'ok' });
    w.clock.advance(59_999);
    expect((await w.deliver(token, start)).body).toMatchObject({ result: 'rejected_dedupe' });
    w.clock.advance(2);
    const later = await w.deliver(token, start);
    expect(later.http).toBe(200);
    expect(later.body).toMatchObject({
      result: 'ok',
      run_id: first.body.run_id,
      message: 'A run is already active; nothing started',
    });
    expect(await w.rows('strategy_runs')).toHaveLength(1);
    expect(await w.rows('strategy_orders')).toHaveLength(2);
    expect((await w.rows('webhook_deliveries')).map((d) => d.result)).toEqual([
      'ok',
      'rejected_dedupe',
      'ok',
    ]);
  });

  it('1,000 concurrent identical starts give exactly one run and one set of entry orders', async () => {
    w = await startStrategyServices(dialect);
    const { token } = await w.create(BATCH_PAIR);
    const answers = await Promise.all(
      Array.from({ length: 1000 }, () => w.deliver(token, { action: 'start', mode: 'sandbox' })),
    );
    const results = answers.map((a) => a.body.result);
    expect(results.filter((r) => r === 'ok')).toHaveLength(1);
    expect(results.filter((r) => r === 'rejected_dedupe')).toHaveLength(999);
    expect(await w.rows('strategy_runs')).toHaveLength(1);
    expect(await w.rows('strategy_orders')).toHaveLength(2);
    expect(await w.rows('webhook_deliveries')).toHaveLength(1000);
  }, 120_000);
});

describeEachDb('cooling-off: a run being stopped refuses what would reopen it', (dialect) => {
  it('a batch start while the previous run is still stopping opens nothing', async () => {
    w = await startStrategyServices(dialect);
    const { token } = await w.create(BATCH_PAIR);
    const started = await w.deliver(token, { action: 'start', mode: 'sandbox' });
    w.clock.advance(10 * 60_000); // the quotes are now stale: the MARKET exits rest
    expect((await w.deliver(token, { action: 'stop' })).body).toMatchObject({ stop_pending: true });
    await w.idle();
    expect(await w.runStatus()).toEqual(['stop_pending']);
    const again = await w.deliver(token, { action: 'start', mode: 'sandbox' });
    expect(again.body).toMatchObject({
      result: 'ok',
      run_id: started.body.run_id,
      message: 'The previous run is still stopping; nothing started',
    });
    expect(await w.rows('strategy_runs')).toHaveLength(1);
    expect((await w.rows('strategy_orders')).map((o) => o.purpose)).toEqual([
      'entry',
      'entry',
      'exit',
      'exit',
    ]);
  });

  it('a signal to a strategy whose run is stop-pending is rejected_cooling_off (409) and places nothing', async () => {
    w = await startStrategyServices(dialect);
    const { id, token } = await w.create(SIGNAL_SBIN);
    const entry = await w.deliver(token, { action: 'long_entry' });
    expect(entry.body).toMatchObject({ result: 'ok' });
    w.clock.advance(10 * 60_000); // stale quotes: the stop's exit rests
    expect(await w.stop(id)).toMatchObject({ stopPending: true });
    await w.idle();
    const refused = await w.deliver(token, { action: 'short_entry' });
    expect(refused.http).toBe(409);
    expect(refused.body).toMatchObject({ result: 'rejected_cooling_off', run_id: entry.body.run_id });
    expect((await w.rows('strategy_orders')).map((o) => `${o.purpose}:${o.action}`)).toEqual([
      'entry:BUY',
      'exit:SELL',
    ]);
  });
});

describeEachDb('signal strategies: entries, no-ops, flips and exits (rules 6, 9)', (dialect) => {
  it('long_entry opens a run and buys; a repeat is an ok no-op; short_entry flips exit-first; exits flatten', async () => {
    w = await startStrategyServices(dialect);
    const { id, token } = await w.create({
      ...SIGNAL_SBIN,
      legs: [{ symbol: 'SBIN', exchange: 'NSE', quantity: 5 }],
    });
    const first = (await w.deliver(token, { action: 'long_entry' })).body;
    expect(first).toMatchObject({ status: 'success', result: 'ok', strategy_id: id });
    expect(first.run_id).toEqual(expect.any(Number));
    expect(await w.positions()).toMatchObject({ SBIN: 5 });

    const again = (await w.deliver(token, { action: 'long_entry', symbol: 'sbin', exchange: 'nse' })).body;
    expect(again).toMatchObject({ result: 'ok', run_id: first.run_id });
    expect(again.message).toMatch(/No change/);

    const flip = (await w.deliver(token, { action: 'short_entry' })).body;
    expect(flip).toMatchObject({ result: 'ok', run_id: first.run_id });
    expect(await w.positions()).toMatchObject({ SBIN: -5 });
    const orders = await w.rows('strategy_orders');
    // Each filled as the sandbox placed it (a MARKET order with a fresh quote fills at once), and
    // recorded filled from the placement's answer: no second look at the sandbox.
    expect(orders.map((o) => `${o.purpose}:${o.action}:${o.quantity}:${o.status}`)).toEqual([
      'entry:BUY:5:filled',
      'exit:SELL:5:filled',
      'entry:SELL:5:filled',
    ]);
    expect((await w.deliver(token, { action: 'long_exit' })).body.message).toMatch(/No change/);
    expect((await w.deliver(token, { action: 'short_exit', leg_id: orders[0]!.leg_id })).body).toMatchObject({
      result: 'ok',
    });
    expect(await w.positions()).toMatchObject({ SBIN: 0 });
    expect(await w.kinds()).toContain('signal_noop:info');
  });

  it('an exit while flat and without a run is an ok no-op that opens no run', async () => {
    w = await startStrategyServices(dialect);
    const { token } = await w.create(SIGNAL_SBIN);
    for (const action of ['long_exit', 'short_exit']) {
      const res = await w.deliver(token, { action });
      expect(res.http).toBe(200);
      expect(res.body).toMatchObject({ result: 'ok', message: 'No change: SBIN NSE already flat' });
      expect(res.body.run_id).toBeUndefined();
    }
    expect(await w.rows('strategy_runs')).toEqual([]);
    expect(await w.rows('strategy_orders')).toEqual([]);
    expect(await w.positions()).toEqual({});
  });

  it('copies of one alert arriving together open the position once (signals of a strategy run one at a time)', async () => {
    w = await startStrategyServices(dialect);
    const { token } = await w.create({
      ...SIGNAL_SBIN,
      legs: [{ symbol: 'SBIN', exchange: 'NSE', quantity: 2 }],
    });
    // Orders take a while to reach the sandbox: the copies would otherwise all read the leg as flat.
    w.refuseOrders(() => false, 30);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => w.deliver(token, { action: 'long_entry' })),
    );
    expect(answers.every((a) => a.http === 200)).toBe(true);
    expect(await w.positions()).toMatchObject({ SBIN: 2 });
    expect(await w.rows('strategy_orders')).toHaveLength(1);
    expect(await w.rows('strategy_runs')).toHaveLength(1);
  });

  it('a rejected outgoing exit of a flip writes the critical flip_outgoing_exit_rejected and places no new entry', async () => {
    w = await startStrategyServices(dialect);
    const { token } = await w.create(SIGNAL_SBIN);
    await w.deliver(token, { action: 'long_entry' });
    w.refuseOrders((o) => o.action === 'SELL');
    const res = (await w.deliver(token, { action: 'short_entry' })).body;
    expect(res).toMatchObject({ result: 'ok' });
    expect(res.message).toMatch(/Exit rejected/);
    expect(await w.kinds()).toContain('flip_outgoing_exit_rejected:critical');
    const orders = await w.rows('strategy_orders');
    expect(orders.map((o) => `${o.purpose}:${o.action}:${o.status}`)).toEqual([
      'entry:BUY:filled',
      'exit:SELL:rejected',
    ]);
    expect(await w.positions()).toMatchObject({ SBIN: 1 });
  });
});

describeEachDb('signal strategies: what an entry may be (rules 7, 8, direction)', (dialect) => {
  it('rule 8: a cash short_entry needs product MIS; direction limits refuse the other side', async () => {
    w = await startStrategyServices(dialect);
    const nrml = await w.create({ ...SIGNAL_SBIN, name: 'nrml', product: 'CNC' });
    expect((await w.deliver(nrml.token, { action: 'short_entry' })).body).toMatchObject({
      result: 'rejected_invalid_action',
    });
    const longOnly = await w.create({ ...SIGNAL_SBIN, name: 'long only', direction: 'long_only' });
    expect((await w.deliver(longOnly.token, { action: 'short_entry' })).body).toMatchObject({
      result: 'rejected_invalid_action',
    });
    const shortOnly = await w.create({ ...SIGNAL_SBIN, name: 'short only', direction: 'short_only' });
    expect((await w.deliver(shortOnly.token, { action: 'long_entry' })).body).toMatchObject({
      result: 'rejected_invalid_action',
    });
    expect((await w.deliver(shortOnly.token, { action: 'short_entry' })).body).toMatchObject({
      result: 'ok',
    });
    expect(await w.rows('strategy_orders')).toHaveLength(1);
  });

  it('rule 7 at signal time: a leg whose contract left the master contract since it was saved is rejected_invalid_action', async () => {
    w = await startStrategyServices(dialect);
    const { token } = await w.create({
      ...SIGNAL_SBIN,
      name: 'infy',
      legs: [{ symbol: 'INFY', exchange: 'NSE', quantity: 1 }],
    });
    // A new master contract without INFY goes live (the leg was valid when it was saved).
    const lines = miniKiteContract().toString('utf8').split('\n');
    await w.importContract(Buffer.from(lines.filter((l) => !l.includes(',INFY,')).join('\n')));
    const res = await w.deliver(token, { action: 'long_entry' });
    expect(res.http).toBe(400);
    expect(res.body).toMatchObject({ result: 'rejected_invalid_action' });
    expect(res.body.message).toMatch(/INFY is not a contract on NSE/);
    expect(await w.rows('strategy_orders')).toEqual([]);
    expect((await w.rows('webhook_deliveries')).map((d) => d.result)).toEqual(['rejected_invalid_action']);
  });
});

/**
 * Batch runs and stops, rule by rule, in the middle tier: the strategy runner and the run stopper
 * on a real database, no HTTP. One run per strategy (the claim), entries BUY before SELL in the
 * run's own mode, derivative legs, orders recorded before they are sent, and spec "Strategy run
 * stop": a run holds what its orders *filled* — against the sandbox and a loopback Kite Connect v3
 * stub (live runs) — and stops only once those fills prove it flat.
 */
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { startKiteOrderStub, type KiteOrderStub } from '../helpers/broker-order-stubs.js';
import { describeEachDb } from '../helpers/test-app.js';
import {
  BATCH_PAIR,
  SIGNAL_SBIN,
  startStrategyServices,
  type StrategyWorld,
} from '../helpers/strategies-services.js';

const CREDS = { apiKey: 'kiteapikey01', apiSecret: 'kiteapisecret01', accessToken: 'kiteaccess0123456789' };

let w: StrategyWorld;
let stub: KiteOrderStub;
beforeAll(async () => {
  stub = await startKiteOrderStub(CREDS);
});
afterAll(async () => {
  await stub?.close();
});
afterEach(async () => {
  await w?.close();
  stub.reset();
  stub.orders.clear();
});

describeEachDb('one run per strategy: every start goes through the claim', (dialect) => {
  it('concurrent different starts (UI clicks, schedulers) still open one run', async () => {
    w = await startStrategyServices(dialect);
    const { token } = await w.create(BATCH_PAIR);
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => w.deliver(token, { action: 'start', mode: 'sandbox', n: i })),
    );
    expect(answers.every((a) => a.http === 200)).toBe(true);
    expect(await w.rows('strategy_runs')).toHaveLength(1);
    expect(await w.rows('strategy_orders')).toHaveLength(2);
  });
});

describeEachDb('batch runs: start, stop, modes and leg resolution', (dialect) => {
  it('start places BUY legs before SELL legs in the run’s mode; stop exits and confirms flat from the run’s own fills', async () => {
    w = await startStrategyServices(dialect);
    const { token, id } = await w.create(BATCH_PAIR);
    const started = (await w.deliver(token, { action: 'start', mode: 'sandbox' })).body;
    expect(started).toMatchObject({ result: 'ok', strategy_id: id });
    const orders = await w.rows('strategy_orders');
    expect(orders.map((o) => `${o.action}:${o.symbol}:${o.quantity}`)).toEqual(['BUY:SBIN:3', 'SELL:INFY:2']);
    expect(await w.positions()).toMatchObject({ SBIN: 3, INFY: -2 });
    const view = await w.services.strategies.strategies.view(w.userId, id);
    expect(view).toMatchObject({ status: 'running', active_run_id: started.run_id });

    const stopped = (await w.deliver(token, { action: 'stop' })).body;
    expect(stopped).toMatchObject({ result: 'ok', run_id: started.run_id, stop_pending: true });
    expect(stopped.exits).toHaveLength(2);
    expect(stopped.exits).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ symbol: 'INFY', action: 'BUY', quantity: 2, status: 'placed' }),
        expect.objectContaining({ symbol: 'SBIN', action: 'SELL', quantity: 3, status: 'placed' }),
      ]),
    );
    expect(await w.positions()).toMatchObject({ SBIN: 0, INFY: 0 });
    // The answer was the acceptance; the run's own fills then prove it flat.
    await w.idle();
    const ev = await w.kinds();
    expect(ev.indexOf('run_stop_requested:info')).toBeLessThan(ev.indexOf('run_stopped:info'));
    const runs = await w.services.strategies.strategies.runs(w.userId, id);
    expect(runs[0]).toMatchObject({ status: 'stopped' });
  });

  it('a stop whose exits are refused stays managed (stop_pending) with the critical run_stop_failed; a later stop completes it', async () => {
    w = await startStrategyServices(dialect);
    const { token } = await w.create(BATCH_PAIR);
    await w.deliver(token, { action: 'start', mode: 'sandbox' });
    w.refuseOrders((o) => o.symbol === 'SBIN');
    const res = (await w.deliver(token, { action: 'stop' })).body;
    expect(res).toMatchObject({ result: 'ok', stop_pending: true });
    expect(res.exits).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ symbol: 'SBIN', status: 'rejected', message: 'refused SELL SBIN' }),
      ]),
    );
    expect(await w.kinds()).toContain('run_stop_failed:critical');
    expect((await w.rows('strategy_runs'))[0]).toMatchObject({ status: 'stop_pending' });
    w.refuseOrders(() => false);
    w.clock.advance(61_000);
    await w.tick({ 'NSE:SBIN': w.quote(801), 'NSE:INFY': w.quote(1501) });
    const retry = (await w.deliver(token, { action: 'stop' })).body;
    expect(retry).toMatchObject({ result: 'ok', stop_pending: true });
    await w.idle();
    expect((await w.rows('strategy_runs'))[0]).toMatchObject({ status: 'stopped' });
  });

  it('exits that rest (stale quotes) keep the stop pending until the periodic reconcile sees them filled', async () => {
    w = await startStrategyServices(dialect);
    const { token } = await w.create(BATCH_PAIR);
    await w.deliver(token, { action: 'start', mode: 'sandbox' });
    w.clock.advance(10 * 60_000); // the quotes are now stale: MARKET exits rest
    const res = (await w.deliver(token, { action: 'stop' })).body;
    expect(res).toMatchObject({ result: 'ok', stop_pending: true });
    expect(res.exits).toHaveLength(2);
    await w.services.strategies.stopper.reconcile();
    expect((await w.rows('strategy_runs'))[0]).toMatchObject({ status: 'stop_pending' });
    await w.tick({ 'NSE:SBIN': w.quote(805), 'NSE:INFY': w.quote(1495) });
    // The pass skips a strategy whose lock is held: the stop's own confirmation may still hold it.
    await w.idle();
    await w.services.strategies.stopper.reconcile();
    expect((await w.rows('strategy_runs'))[0]).toMatchObject({ status: 'stopped' });
    expect(await w.kinds()).toContain('run_stopped:info');
    expect(await w.positions()).toMatchObject({ SBIN: 0, INFY: 0 });
  });

  it('the run’s own mode: sandbox even when the global mode is live; live never goes to the sandbox', async () => {
    w = await startStrategyServices(dialect);
    const { id, token } = await w.create(BATCH_PAIR);
    const mode = w.services.sandbox.mode;
    await mode.set(false);
    expect((await w.deliver(token, { action: 'start', mode: 'sandbox' })).body).toMatchObject({
      result: 'ok',
    });
    expect(await w.positions()).toMatchObject({ SBIN: 3 });
    w.clock.advance(1_000);
    await w.deliver(token, { action: 'stop' });
    await w.idle();
    w.clock.advance(31_000);
    await w.services.strategies.strategies.setLive(w.userId, id, true);
    await mode.set(true);
    expect((await w.deliver(token, { action: 'start', mode: 'live' })).body).toMatchObject({ result: 'ok' });
    const run = (await w.rows('strategy_runs')).at(-1)!;
    const live = (await w.rows('strategy_orders')).filter((o) => o.run_id === run.id);
    // No broker session in this test: the live path refuses the BUY leg, nothing reached the
    // sandbox, and the SELL leg was withheld (never a short without its hedge).
    expect(live.map((o) => `${o.action}:${o.status}:${String(o.message)}`)).toEqual([
      expect.stringMatching(/^BUY:rejected:No broker session/),
    ]);
    expect(await w.kinds()).toContain('entries_withheld:critical');
    expect(await w.positions()).toMatchObject({ SBIN: 0, INFY: 0 });
  });

  it('derivative legs: a missing expiry rank falls back with leg_expiry_fallback (warn); options pick the ATM strike', async () => {
    w = await startStrategyServices(dialect);
    const { token } = await w.create({
      name: 'nifty',
      kind: 'batch',
      product: 'NRML',
      legs: [
        {
          underlying: 'NIFTY',
          exchange: 'NFO',
          option_type: 'FUT',
          expiry_rank: 'next',
          quantity: 1,
          side: 'BUY',
        },
        {
          underlying: 'NIFTY',
          exchange: 'NFO',
          option_type: 'CE',
          strike_offset: 0,
          quantity: 2,
          side: 'SELL',
        },
      ],
    });
    expect((await w.deliver(token, { action: 'start', mode: 'sandbox' })).body).toMatchObject({
      result: 'ok',
    });
    const orders = await w.rows('strategy_orders');
    expect(orders.map((o) => `${o.action}:${o.symbol}:${o.quantity}`)).toEqual([
      'BUY:NIFTY25AUG26FUT:65',
      'SELL:NIFTY18AUG2626000CE:130',
    ]);
    const fallback = (await w.rows('strategy_events')).find((e) => e.kind === 'leg_expiry_fallback');
    expect(fallback).toMatchObject({ severity: 'warn' });
    expect(String(fallback!.message)).toMatch(/rank 1/);
  });

  it('an entry that cannot be recorded is not sent; an acknowledgement that cannot be recorded is critical', async () => {
    w = await startStrategyServices(dialect);
    const { token } = await w.create(SIGNAL_SBIN);
    const repo = w.services.strategies.strategies.repo;
    const record = repo.recordOrder.bind(repo);
    repo.recordOrder = () => Promise.reject(new Error('disk full'));
    const refused = (await w.deliver(token, { action: 'long_entry' })).body;
    expect(refused).toMatchObject({ result: 'ok' });
    expect(refused.message).toMatch(/could not be recorded/);
    expect(await w.positions()).toEqual({});
    repo.recordOrder = record;

    const settle = repo.settleOrder.bind(repo);
    repo.settleOrder = () => Promise.reject(new Error('disk full'));
    await w.deliver(token, { action: 'long_entry', n: 2 });
    repo.settleOrder = settle;
    expect(await w.positions()).toMatchObject({ SBIN: 1 });
    const critical = (await w.rows('strategy_events')).find((e) => e.kind === 'order_ack_unrecorded');
    expect(critical).toMatchObject({ severity: 'critical' });
    expect(JSON.parse(String(critical!.payload))).toMatchObject({ orderid: expect.any(String) });
  });
});

/** The world with the live broker (Kite stub) configured and user 1's session stored. */
async function liveWorld(dialect: 'sqlite' | 'postgres'): Promise<StrategyWorld> {
  const world = await startStrategyServices(dialect, stub.appEnv());
  await world.services.brokers.sessions.set(world.userId, 'zerodha', {
    accessToken: CREDS.accessToken,
  });
  return world;
}

/** A live batch strategy of one BUY leg of 3 SBIN, started. */
async function startedLiveBatch(): Promise<{ id: number; token: string; entry: string }> {
  const { id, token } = await w.create({
    name: 'live sbin',
    kind: 'batch',
    product: 'MIS',
    legs: [{ symbol: 'SBIN', exchange: 'NSE', quantity: 3, side: 'BUY' }],
  });
  await w.services.strategies.strategies.setLive(w.userId, id, true);
  expect((await w.deliver(token, { action: 'start', mode: 'live' })).body).toMatchObject({ result: 'ok' });
  const [entry] = stub.placed('BUY');
  expect(entry).toMatchObject({ quantity: 3 });
  return { id, token, entry: entry!.id };
}

const reconcile = () => w.services.strategies.stopper.reconcile();

describeEachDb('a run holds what its orders filled (live broker)', (dialect) => {
  it('an entry the exchange rejects after acknowledging it is not exited: the stop finds the run flat', async () => {
    w = await liveWorld(dialect);
    const { token, entry } = await startedLiveBatch();
    stub.settle(entry, 'REJECTED');
    const stop = (await w.deliver(token, { action: 'stop' })).body;
    expect(stop).toMatchObject({ result: 'ok', stop_pending: true, exits: [] });
    await w.idle();
    expect(stub.placed('SELL')).toEqual([]);
    expect(await w.runStatus()).toEqual(['stopped']);
    expect(await w.kinds()).toEqual(
      expect.arrayContaining(['order_dead:warn', 'run_stop_requested:info', 'run_stopped:info']),
    );
    const orders = await w.rows('strategy_orders');
    expect(orders.map((o) => `${o.status}:${o.filled_quantity}`)).toEqual(['dead:0']);
  });

  it('a stop sells exactly what filled, and the run stops once the exit’s fill is reported', async () => {
    w = await liveWorld(dialect);
    const { token, entry } = await startedLiveBatch();
    stub.settle(entry, 'COMPLETE');
    const stop = (await w.deliver(token, { action: 'stop' })).body;
    expect(stop).toMatchObject({
      stop_pending: true,
      exits: [{ action: 'SELL', quantity: 3, status: 'placed', orderid: expect.any(String) }],
    });
    await w.idle();
    // The exit is working at the exchange: not flat yet.
    expect(await w.runStatus()).toEqual(['stop_pending']);
    const [exit] = stub.placed('SELL');
    stub.settle(exit!.id, 'COMPLETE');
    await reconcile();
    expect(await w.runStatus()).toEqual(['stopped']);
    expect(stub.placed('SELL')).toHaveLength(1);
  });

  it('an entry still working at the stop is cancelled, and only its filled part is exited', async () => {
    w = await liveWorld(dialect);
    const { token, entry } = await startedLiveBatch();
    stub.settle(entry, 'OPEN', 2); // 2 of 3 filled, 1 still open
    const stop = (await w.deliver(token, { action: 'stop' })).body;
    expect(stub.requests.some((r) => r.method === 'DELETE' && r.path === `/orders/regular/${entry}`)).toBe(
      true,
    );
    expect(stop.exits).toEqual([expect.objectContaining({ action: 'SELL', quantity: 2, status: 'placed' })]);
    stub.settle(stub.placed('SELL')[0]!.id, 'COMPLETE');
    await w.idle();
    await reconcile();
    expect(await w.runStatus()).toEqual(['stopped']);
    const orders = await w.rows('strategy_orders');
    expect(orders.map((o) => `${o.purpose}:${o.status}:${o.filled_quantity}`)).toEqual([
      'entry:dead:2',
      'exit:filled:2',
    ]);
  });

  it('a signal exit after an entry the exchange rejected is a no-op: nothing is sold', async () => {
    w = await liveWorld(dialect);
    // Signal runs trade in the global mode: live.
    await w.services.sandbox.mode.set(false);
    const { token } = await w.create({
      ...SIGNAL_SBIN,
      legs: [{ symbol: 'SBIN', exchange: 'NSE', quantity: 4 }],
    });
    expect((await w.deliver(token, { action: 'long_entry' })).body).toMatchObject({ result: 'ok' });
    stub.settle(stub.placed('BUY')[0]!.id, 'REJECTED');
    const exit = (await w.deliver(token, { action: 'long_exit' })).body;
    expect(exit).toMatchObject({ result: 'ok' });
    expect(exit.message).toMatch(/No change: SBIN NSE already flat/);
    expect(stub.placed('SELL')).toEqual([]);
  });
});

describeEachDb('a run holds what its orders filled (sandbox)', (dialect) => {
  it('an order whose acknowledgement could not be recorded is found by its reference at the stop, and exited', async () => {
    w = await startStrategyServices(dialect);
    const { token } = await w.create({
      name: 'one leg',
      kind: 'batch',
      product: 'MIS',
      legs: [{ symbol: 'SBIN', exchange: 'NSE', quantity: 2, side: 'BUY' }],
    });
    const repo = w.services.strategies.strategies.repo;
    const settleOrder = repo.settleOrder.bind(repo);
    repo.settleOrder = () => Promise.reject(new Error('database gone'));
    await w.deliver(token, { action: 'start', mode: 'sandbox' });
    repo.settleOrder = settleOrder;
    expect(await w.kinds()).toContain('order_ack_unrecorded:critical');
    expect(await w.positions()).toMatchObject({ SBIN: 2 });
    // The stop first asks the sandbox for the order by the reference it was sent with: found,
    // recorded (order_recovered), its fill read — and only then sized: one exit of 2.
    const stop = (await w.deliver(token, { action: 'stop' })).body;
    expect(stop).toMatchObject({
      stop_pending: true,
      exits: [expect.objectContaining({ symbol: 'SBIN', action: 'SELL', quantity: 2, status: 'placed' })],
    });
    expect(await w.kinds()).toContain('order_recovered:warn');
    await w.idle();
    expect(await w.runStatus()).toEqual(['stopped']);
    expect(await w.positions()).toMatchObject({ SBIN: 0 });
  });

  it('a leg above the freeze quantity is placed as several orders, each owned by the run, and exited whole', async () => {
    w = await startStrategyServices(dialect);
    await w.services.marketAdmin.freeze.add({ exchange: 'NFO', symbol: 'NIFTY', freeze_qty: 150 });
    const { token } = await w.create({
      name: 'big future',
      kind: 'batch',
      product: 'NRML',
      legs: [{ symbol: 'NIFTY25AUG26FUT', exchange: 'NFO', quantity: 5, quantity_unit: 'lots', side: 'BUY' }],
    });
    await w.deliver(token, { action: 'start', mode: 'sandbox' });
    const entries = (await w.rows('strategy_orders')).filter((o) => o.purpose === 'entry');
    expect(entries.length).toBeGreaterThan(1);
    // Each filled as the sandbox placed it (a MARKET order with a fresh quote), recorded so.
    expect(entries.every((o) => o.status === 'filled' && o.order_id !== null)).toBe(true);
    const total = entries.reduce((n, o) => n + Number(o.quantity), 0);
    expect(entries.every((o) => Number(o.quantity) <= 150)).toBe(true);
    const stop = (await w.deliver(token, { action: 'stop' })).body;
    const exits = stop.exits as { quantity: number }[];
    expect(exits.reduce((n, e) => n + e.quantity, 0)).toBe(total);
    await w.idle();
    expect(await w.runStatus()).toEqual(['stopped']);
  });
});

describeEachDb('what a signal decides on: one read', (dialect) => {
  it('the signal view holds the strategy, its run, the open orders and the leg, as the reads one by one give them', async () => {
    w = await startStrategyServices(dialect);
    const { id, token } = await w.create(SIGNAL_SBIN);
    const repo = w.services.strategies.strategies.repo;
    const legId = Number((await repo.legs(id))[0]!.id);
    // No run yet: the strategy alone.
    expect(await repo.signalView(id, legId)).toEqual({ legId, strategy: await repo.find(id) });
    expect(await repo.signalView(id + 1000, legId)).toBeUndefined();
    // An entry acknowledged and not yet seen filled (the quotes are stale: a MARKET order rests):
    // one open order, working on the leg.
    w.clock.advance(10 * 60_000);
    expect((await w.deliver(token, { action: 'long_entry' })).body).toMatchObject({ result: 'ok' });
    const strategy = (await repo.find(id))!;
    const runId = strategy.active_run_id!;
    const open = await repo.openOrders(runId);
    expect(open).toMatchObject([{ status: 'placed', action: 'BUY', leg_id: legId }]);
    const seen = await repo.position(runId, legId);
    expect(seen).toEqual({ net: 0, working: 1, exits: 0 });
    expect(await repo.signalView(id, legId)).toEqual({
      legId,
      strategy,
      run: await repo.run(runId),
      open,
      seen,
    });
    // Another leg id: no position row for it (all 0).
    expect((await repo.signalView(id, legId + 1000))?.seen).toEqual({ net: 0, working: 0, exits: 0 });
  });
});

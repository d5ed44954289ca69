/**
 * Issue 7 parts 5-6: batch runs (claim, entries BUY before SELL in the run's own mode, stop with
 * durable intent, confirmed-flat and refused-exit paths, expiry fallback, ATM option legs, the
 * 1,000-delivery concurrency case) and signal strategies (rules 6-9, flips, direction limits).
 */
import { afterEach, expect, it } from 'vitest';
import type { PipelineAnswer } from '../../src/modules/orders/order-pipeline.js';
import { importContract } from '../helpers/contracts.js';
import { miniKiteContract } from '../helpers/sandbox.js';
import { asBrowser, describeEachDb } from '../helpers/test-app.js';
import { BATCH_PAIR, SIGNAL_SBIN, startStrategies, type StrategyHarness } from '../helpers/strategies.js';

let h: StrategyHarness;
afterEach(async () => {
  await h?.close();
});

const json = (res: { json(): unknown }) => res.json() as Record<string, unknown>;
const kinds = async (h: StrategyHarness) =>
  (await h.rows('strategy_events')).map((e) => `${e.kind}:${e.severity}`);
const positions = async (h: StrategyHarness) =>
  Object.fromEntries(
    (await h.t.services.sandbox.books.positions(1)).map((p) => [p.symbol, Number(p.quantity)]),
  );

/** Replaces the runner's pipeline: `refuse(order)` decides which orders the "broker" rejects. */
function refusingPipeline(
  h: StrategyHarness,
  refuse: (o: { action: string; symbol: string }) => boolean,
  delayMs = 0,
) {
  const real = h.t.services.orders.pipeline;
  const runner = h.t.services.strategies.runner as unknown as { deps: { pipeline: unknown } };
  runner.deps.pipeline = {
    async run(
      userId: number,
      order: { action: string; symbol: string },
      opts: object,
    ): Promise<PipelineAnswer> {
      if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
      if (refuse(order)) {
        return { status: 400, body: { status: 'error', message: `refused ${order.action} ${order.symbol}` } };
      }
      return real.run(userId, order as never, opts as never);
    },
  };
}

describeEachDb('signal strategies: entries, no-ops, flips and exits (rules 6, 9)', (dialect) => {
  it('long_entry opens a run and buys; a repeat is an ok no-op; short_entry flips exit-first; exits flatten', async () => {
    h = await startStrategies(dialect);
    const { id, token } = await h.create({
      ...SIGNAL_SBIN,
      legs: [{ symbol: 'SBIN', exchange: 'NSE', quantity: 5 }],
    });
    const first = json(await h.hook(token, { action: 'long_entry' }));
    expect(first).toMatchObject({ status: 'success', result: 'ok', strategy_id: id });
    expect(first.run_id).toEqual(expect.any(Number));
    expect(await positions(h)).toMatchObject({ SBIN: 5 });

    const again = json(await h.hook(token, { action: 'long_entry', symbol: 'sbin', exchange: 'nse' }));
    expect(again).toMatchObject({ result: 'ok', run_id: first.run_id });
    expect(String(again.message)).toMatch(/No change/);

    const flip = json(await h.hook(token, { action: 'short_entry' }));
    expect(flip).toMatchObject({ result: 'ok', run_id: first.run_id });
    expect(await positions(h)).toMatchObject({ SBIN: -5 });
    const orders = await h.rows('strategy_orders');
    // The flip read the entry's fate first: filled (the sandbox fills a MARKET order at once).
    expect(orders.map((o) => `${o.purpose}:${o.action}:${o.quantity}:${o.status}`)).toEqual([
      'entry:BUY:5:filled',
      'exit:SELL:5:placed',
      'entry:SELL:5:placed',
    ]);
    expect(json(await h.hook(token, { action: 'long_exit' })).message).toMatch(/No change/);
    expect(json(await h.hook(token, { action: 'short_exit', leg_id: orders[0]!.leg_id }))).toMatchObject({
      result: 'ok',
    });
    expect(await positions(h)).toMatchObject({ SBIN: 0 });
    expect(await kinds(h)).toContain('signal_noop:info');
  });

  it('copies of one alert arriving together open the position once (signals of a strategy run one at a time)', async () => {
    h = await startStrategies(dialect);
    const { token } = await h.create({
      ...SIGNAL_SBIN,
      legs: [{ symbol: 'SBIN', exchange: 'NSE', quantity: 2 }],
    });
    // Orders take a while to reach the sandbox: the copies would otherwise all read the leg as flat.
    refusingPipeline(h, () => false, 30);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => h.hook(token, { action: 'long_entry' })),
    );
    expect(answers.every((a) => a.statusCode === 200)).toBe(true);
    expect(await positions(h)).toMatchObject({ SBIN: 2 });
    expect(await h.rows('strategy_orders')).toHaveLength(1);
    expect(await h.rows('strategy_runs')).toHaveLength(1);
  });

  it('a rejected outgoing exit of a flip writes the critical flip_outgoing_exit_rejected and places no new entry', async () => {
    h = await startStrategies(dialect);
    const { token } = await h.create(SIGNAL_SBIN);
    await h.hook(token, { action: 'long_entry' });
    refusingPipeline(h, (o) => o.action === 'SELL');
    const res = json(await h.hook(token, { action: 'short_entry' }));
    expect(res).toMatchObject({ result: 'ok' });
    expect(String(res.message)).toMatch(/Exit rejected/);
    expect(await kinds(h)).toContain('flip_outgoing_exit_rejected:critical');
    const orders = await h.rows('strategy_orders');
    expect(orders.map((o) => `${o.purpose}:${o.action}:${o.status}`)).toEqual([
      'entry:BUY:filled',
      'exit:SELL:rejected',
    ]);
    expect(await positions(h)).toMatchObject({ SBIN: 1 });
  });

  it('rule 8: a cash short_entry needs product MIS; direction limits refuse the other side', async () => {
    h = await startStrategies(dialect);
    const nrml = await h.create({ ...SIGNAL_SBIN, name: 'nrml', product: 'CNC' });
    expect(json(await h.hook(nrml.token, { action: 'short_entry' }))).toMatchObject({
      result: 'rejected_invalid_action',
    });
    const longOnly = await h.create({ ...SIGNAL_SBIN, name: 'long only', direction: 'long_only' });
    expect(json(await h.hook(longOnly.token, { action: 'short_entry' }))).toMatchObject({
      result: 'rejected_invalid_action',
    });
    const shortOnly = await h.create({ ...SIGNAL_SBIN, name: 'short only', direction: 'short_only' });
    expect(json(await h.hook(shortOnly.token, { action: 'long_entry' }))).toMatchObject({
      result: 'rejected_invalid_action',
    });
    expect(json(await h.hook(shortOnly.token, { action: 'short_entry' }))).toMatchObject({ result: 'ok' });
    expect(await h.rows('strategy_orders')).toHaveLength(1);
  });

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

  it('rule 7 at signal time: a leg whose contract left the master contract since it was saved is rejected_invalid_action', async () => {
    h = await startStrategies(dialect);
    const { token } = await h.create({
      ...SIGNAL_SBIN,
      name: 'infy',
      legs: [{ symbol: 'INFY', exchange: 'NSE', quantity: 1 }],
    });
    // A new master contract without INFY goes live (the leg was valid when it was saved).
    const lines = miniKiteContract().toString('utf8').split('\n');
    await importContract(h.t, 'zerodha', Buffer.from(lines.filter((l) => !l.includes(',INFY,')).join('\n')));
    const res = await h.hook(token, { action: 'long_entry' });
    expect(res.statusCode).toBe(400);
    expect(json(res)).toMatchObject({ result: 'rejected_invalid_action' });
    expect(String(json(res).message)).toMatch(/INFY is not a contract on NSE/);
    expect(await h.rows('strategy_orders')).toEqual([]);
    expect((await h.rows('webhook_deliveries')).map((d) => d.result)).toEqual(['rejected_invalid_action']);
  });
});

describeEachDb('batch runs: start, stop, modes and leg resolution', (dialect) => {
  it('start places BUY legs before SELL legs in the run’s mode; stop exits and confirms flat from the run’s own fills', async () => {
    h = await startStrategies(dialect);
    const { token, id } = await h.create(BATCH_PAIR);
    const started = json(await h.hook(token, { action: 'start', mode: 'sandbox' }));
    expect(started).toMatchObject({ result: 'ok', strategy_id: id });
    const orders = await h.rows('strategy_orders');
    expect(orders.map((o) => `${o.action}:${o.symbol}:${o.quantity}`)).toEqual(['BUY:SBIN:3', 'SELL:INFY:2']);
    expect(await positions(h)).toMatchObject({ SBIN: 3, INFY: -2 });
    const view = json(await h.manage('GET', `/${id}`));
    expect(view.data).toMatchObject({ status: 'running', active_run_id: started.run_id });

    const stopped = json(await h.hook(token, { action: 'stop' }));
    expect(stopped).toMatchObject({ result: 'ok', run_id: started.run_id, stop_pending: true });
    expect(stopped.exits).toHaveLength(2);
    expect(stopped.exits).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ symbol: 'INFY', action: 'BUY', quantity: 2, status: 'placed' }),
        expect.objectContaining({ symbol: 'SBIN', action: 'SELL', quantity: 3, status: 'placed' }),
      ]),
    );
    expect(await positions(h)).toMatchObject({ SBIN: 0, INFY: 0 });
    // The answer was the acceptance; the run's own fills then prove it flat.
    await h.t.services.strategies.stopper.whenIdle();
    const ev = await kinds(h);
    expect(ev.indexOf('run_stop_requested:info')).toBeLessThan(ev.indexOf('run_stopped:info'));
    const runs = json(await h.manage('GET', `/${id}/runs`)).data as { status: string }[];
    expect(runs[0]).toMatchObject({ status: 'stopped' });
  });

  it('a stop whose exits are refused stays managed (stop_pending) with the critical run_stop_failed; a later stop completes it', async () => {
    h = await startStrategies(dialect);
    const { token } = await h.create(BATCH_PAIR);
    await h.hook(token, { action: 'start', mode: 'sandbox' });
    refusingPipeline(h, (o) => o.symbol === 'SBIN');
    const res = json(await h.hook(token, { action: 'stop' }));
    expect(res).toMatchObject({ result: 'ok', stop_pending: true });
    expect(res.exits).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ symbol: 'SBIN', status: 'rejected', message: 'refused SELL SBIN' }),
      ]),
    );
    expect(await kinds(h)).toContain('run_stop_failed:critical');
    expect((await h.rows('strategy_runs'))[0]).toMatchObject({ status: 'stop_pending' });
    refusingPipeline(h, () => false);
    h.t.clock.advance(61_000);
    await h.tick({ 'NSE:SBIN': h.quote(801), 'NSE:INFY': h.quote(1501) });
    const retry = json(await h.hook(token, { action: 'stop' }));
    expect(retry).toMatchObject({ result: 'ok', stop_pending: true });
    await h.t.services.strategies.stopper.whenIdle();
    expect((await h.rows('strategy_runs'))[0]).toMatchObject({ status: 'stopped' });
  });

  it('exits that rest (stale quotes) keep the stop pending until the periodic reconcile sees them filled', async () => {
    h = await startStrategies(dialect);
    const { token } = await h.create(BATCH_PAIR);
    await h.hook(token, { action: 'start', mode: 'sandbox' });
    h.t.clock.advance(10 * 60_000); // the quotes are now stale: MARKET exits rest
    const res = json(await h.hook(token, { action: 'stop' }));
    expect(res).toMatchObject({ result: 'ok', stop_pending: true });
    expect(res.exits).toHaveLength(2);
    await h.t.services.strategies.stopper.reconcile();
    expect((await h.rows('strategy_runs'))[0]).toMatchObject({ status: 'stop_pending' });
    await h.tick({ 'NSE:SBIN': h.quote(805), 'NSE:INFY': h.quote(1495) });
    await h.t.services.strategies.stopper.reconcile();
    expect((await h.rows('strategy_runs'))[0]).toMatchObject({ status: 'stopped' });
    expect(await kinds(h)).toContain('run_stopped:info');
    expect(await positions(h)).toMatchObject({ SBIN: 0, INFY: 0 });
  });

  it('the run’s own mode: sandbox even when the global mode is live; live never goes to the sandbox', async () => {
    h = await startStrategies(dialect);
    const { id, token } = await h.create(BATCH_PAIR);
    await h.t.app.inject({ method: 'POST', url: '/settings/analyze-mode/0', headers: asBrowser(h.admin) });
    expect(json(await h.hook(token, { action: 'start', mode: 'sandbox' }))).toMatchObject({ result: 'ok' });
    expect(await positions(h)).toMatchObject({ SBIN: 3 });
    h.t.clock.advance(1_000);
    await h.hook(token, { action: 'stop' });
    await h.t.services.strategies.stopper.whenIdle();
    h.t.clock.advance(31_000);
    await h.manage('POST', `/${id}/live`, { enabled: true });
    await h.t.app.inject({ method: 'POST', url: '/settings/analyze-mode/1', headers: asBrowser(h.admin) });
    expect(json(await h.hook(token, { action: 'start', mode: 'live' }))).toMatchObject({ result: 'ok' });
    const run = (await h.rows('strategy_runs')).at(-1)!;
    const live = (await h.rows('strategy_orders')).filter((o) => o.run_id === run.id);
    // No broker session in this test: the live path refuses the BUY leg, nothing reached the
    // sandbox, and the SELL leg was withheld (never a short without its hedge).
    expect(live.map((o) => `${o.action}:${o.status}:${o.message}`)).toEqual([
      expect.stringMatching(/^BUY:rejected:No broker session/),
    ]);
    expect(await kinds(h)).toContain('entries_withheld:critical');
    expect(await positions(h)).toMatchObject({ SBIN: 0, INFY: 0 });
  });

  it('derivative legs: a missing expiry rank falls back with leg_expiry_fallback (warn); options pick the ATM strike', async () => {
    h = await startStrategies(dialect);
    const { token } = await h.create({
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
    expect(json(await h.hook(token, { action: 'start', mode: 'sandbox' }))).toMatchObject({ result: 'ok' });
    const orders = await h.rows('strategy_orders');
    expect(orders.map((o) => `${o.action}:${o.symbol}:${o.quantity}`)).toEqual([
      'BUY:NIFTY25AUG26FUT:65',
      'SELL:NIFTY18AUG2626000CE:130',
    ]);
    const fallback = (await h.rows('strategy_events')).find((e) => e.kind === 'leg_expiry_fallback');
    expect(fallback).toMatchObject({ severity: 'warn' });
    expect(String(fallback!.message)).toMatch(/rank 1/);
  });

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

  it('an entry that cannot be recorded is not sent; an acknowledgement that cannot be recorded is critical', async () => {
    h = await startStrategies(dialect);
    const { token } = await h.create(SIGNAL_SBIN);
    const repo = h.t.services.strategies.strategies.repo;
    const record = repo.recordOrder.bind(repo);
    repo.recordOrder = () => Promise.reject(new Error('disk full'));
    const refused = json(await h.hook(token, { action: 'long_entry' }));
    expect(refused).toMatchObject({ result: 'ok' });
    expect(String(refused.message)).toMatch(/could not be recorded/);
    expect(await positions(h)).toEqual({});
    repo.recordOrder = record;

    const settle = repo.settleOrder.bind(repo);
    repo.settleOrder = () => Promise.reject(new Error('disk full'));
    await h.hook(token, { action: 'long_entry', n: 2 });
    repo.settleOrder = settle;
    expect(await positions(h)).toMatchObject({ SBIN: 1 });
    const critical = (await h.rows('strategy_events')).find((e) => e.kind === 'order_ack_unrecorded');
    expect(critical).toMatchObject({ severity: 'critical' });
    expect(JSON.parse(String(critical!.payload))).toMatchObject({ orderid: expect.any(String) });
  });

  it('1,000 concurrent identical starts give exactly one run and one set of entry orders', async () => {
    h = await startStrategies(dialect);
    const { token } = await h.create(BATCH_PAIR);
    const answers = await Promise.all(
      Array.from({ length: 1000 }, () => h.hook(token, { action: 'start', mode: 'sandbox' })),
    );
    const results = answers.map((a) => (a.json() as { result: string }).result);
    expect(results.filter((r) => r === 'ok')).toHaveLength(1);
    expect(results.filter((r) => r === 'rejected_dedupe')).toHaveLength(999);
    expect(await h.rows('strategy_runs')).toHaveLength(1);
    expect(await h.rows('strategy_orders')).toHaveLength(2);
    expect(await h.rows('webhook_deliveries')).toHaveLength(1000);
  }, 120_000);

  it('concurrent different starts (UI clicks, schedulers) still open one run', async () => {
    h = await startStrategies(dialect);
    const { token } = await h.create(BATCH_PAIR);
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => h.hook(token, { action: 'start', mode: 'sandbox', n: i })),
    );
    expect(answers.every((a) => a.statusCode === 200)).toBe(true);
    expect(await h.rows('strategy_runs')).toHaveLength(1);
    expect(await h.rows('strategy_orders')).toHaveLength(2);
  });
});

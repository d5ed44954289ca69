/**
 * Nothing doubled, nothing stuck, in the middle tier (the real services on a real database, no
 * HTTP): concurrent stops of one run send one exit per leg; an exit is idempotent at the database
 * itself; the strategy's lease names its holder, dies with it and is released by a restarted
 * instance; and an order intent a crash left unsettled is reconciled against the sandbox by its
 * reference before anything is decided on it. (The same against a real server killed with
 * SIGKILL: strategies-kill.test.ts.)
 */
import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest';
import type { Quote } from '../../src/modules/sandbox/core/types.js';
import { LEASE_RENEW_MS, LEASE_TTL_MS } from '../../src/modules/strategies/strategy-lock.js';
import { startKiteOrderStub, type KiteOrderStub } from '../helpers/broker-order-stubs.js';
import { createTestServices, type TestServices } from '../helpers/test-services.js';
import { describeEachDb } from '../helpers/test-app.js';
import {
  BATCH_PAIR,
  SIGNAL_SBIN,
  startStrategyServices,
  type StrategyWorld,
} from '../helpers/strategies-services.js';

const CREDS = { apiKey: 'kiteapikey02', apiSecret: 'kiteapisecret02', accessToken: 'kiteaccess9876543210' };
let stub: KiteOrderStub;
beforeAll(async () => {
  stub = await startKiteOrderStub(CREDS);
});
afterAll(async () => {
  await stub?.close();
});

let w: StrategyWorld | undefined;
const others: TestServices[] = [];
afterEach(async () => {
  for (const o of others.splice(0)) await o.close();
  await w?.close();
  w = undefined;
  stub.reset();
  stub.orders.clear();
});

/** Exit orders of each leg of each run: `run:leg` → count. */
async function exitsPerLeg(world: StrategyWorld): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const o of await world.rows('strategy_orders')) {
    if (o.purpose !== 'exit') continue;
    const k = `${String(o.run_id)}:${String(o.leg_id)}`;
    out[k] = (out[k] ?? 0) + 1;
  }
  return out;
}

/** Fresh quotes for the pair's symbols (fills need them). */
const pairQuotes = (world: StrategyWorld): Record<string, Quote> => ({
  'NSE:SBIN': world.quote(800),
  'NSE:INFY': world.quote(1500),
});

/** A second instance of the app on the world's database and clock, trading on the same feed. */
async function secondInstance(world: StrategyWorld, env: Record<string, string> = {}): Promise<TestServices> {
  const b = await createTestServices(world.db.database.dialect, {
    db: world.db,
    clock: world.clock,
    env: { API_RATE_LIMIT: '100000 per second', ORDER_RATE_LIMIT: '100000 per second', ...env },
  });
  others.push(b);
  await b.services.sandbox.usePriceSource(world.feed);
  await b.services.sandbox.mode.reload();
  return b;
}

/** Writes the strategy's lease as `holder` holds it: taken now, for `ms`. */
async function holdLease(world: StrategyWorld, id: number, holder: string, ms = LEASE_TTL_MS): Promise<void> {
  const now = world.clock.now();
  await world.db.database.db
    .updateTable('strategies')
    .set({ signal_lease_holder: holder, signal_lease_started: now, signal_lease_until: now + ms })
    .where('id', '=', id)
    .execute();
}

describeEachDb('one exit per leg, always', (dialect) => {
  it('12 concurrent stops of one run (webhook, strategy page, background pass), five runs in a row: one exit per leg, each run confirmed flat', async () => {
    w = await startStrategyServices(dialect);
    const world = w;
    const { id, token } = await world.create(BATCH_PAIR);
    const stopper = world.services.strategies.stopper;
    for (let round = 0; round < 5; round++) {
      await world.tick(pairQuotes(world));
      const started = (await world.deliver(token, { action: 'start', mode: 'sandbox', round })).body;
      expect(started).toMatchObject({ result: 'ok' });
      expect(await world.positions()).toMatchObject({ SBIN: 3, INFY: -2 });
      const stops = Array.from({ length: 12 }, (_, i) =>
        i % 3 === 0
          ? world.stop(id)
          : i % 3 === 1
            ? world.deliver(token, { action: 'stop', n: `${round}-${i}` }).then((a) => a.body)
            : stopper.reconcile().then(() => ({ result: 'ok' })),
      );
      const answers = await Promise.all(stops);
      expect(answers.every((a) => a.result === 'ok')).toBe(true);
      await world.idle();
      await stopper.reconcile();
      expect(await world.positions()).toMatchObject({ SBIN: 0, INFY: 0 });
      expect((await world.rows('strategy_runs')).at(-1)).toMatchObject({ status: 'stopped' });
      world.clock.advance(31_000); // past the cooling-off
    }
    const exits = await exitsPerLeg(world);
    expect(Object.keys(exits)).toHaveLength(10);
    expect(Object.values(exits).every((n) => n === 1)).toBe(true);
    const kinds = await world.kinds();
    expect(kinds.filter((k) => k === 'run_stopped:info')).toHaveLength(5);
    expect(kinds.filter((k) => k === 'run_stop_requested:info')).toHaveLength(5);
    expect(kinds.filter((k) => k.endsWith(':critical'))).toEqual([]);
  });

  it('stops spread over two instances sharing the database: one exit per leg (the lease holds across instances)', async () => {
    w = await startStrategyServices(dialect);
    const world = w;
    const b = await secondInstance(world);
    const { id, token } = await world.create(BATCH_PAIR);
    await world.deliver(token, { action: 'start', mode: 'sandbox' });
    const onB = async () => {
      const s = await b.services.strategies.strategies.owned(world.userId, id);
      return b.services.strategies.stopper.stop(s);
    };
    const answers = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        i % 2 ? onB() : world.deliver(token, { action: 'stop', n: i }).then((a) => a.body),
      ),
    );
    expect(answers.every((a) => a.result === 'ok')).toBe(true);
    await world.idle();
    await b.services.strategies.stopper.whenIdle();
    await world.services.strategies.stopper.reconcile();
    expect(await world.positions()).toMatchObject({ SBIN: 0, INFY: 0 });
    expect(Object.values(await exitsPerLeg(world))).toEqual([1, 1]);
    expect(await world.runStatus()).toEqual(['stopped']);
  });

  it('the database refuses a second exit of the same holding, whatever the lock: the leg’s compare-and-set', async () => {
    w = await startStrategyServices(dialect);
    const world = w;
    const { token } = await world.create(BATCH_PAIR);
    await world.deliver(token, { action: 'start', mode: 'sandbox' });
    const repo = world.services.strategies.strategies.repo;
    const run = (await world.rows('strategy_runs'))[0]!;
    const sbin = (await repo.positions(Number(run.id))).find((p) => p.symbol === 'SBIN')!;
    const seen = { exits: sbin.exits, net: sbin.net, working: sbin.working };
    const now = world.clock.now();
    const exit = (tag: string) =>
      repo.recordOrder(
        {
          run_id: Number(run.id),
          strategy_id: Number(run.strategy_id),
          leg_id: sbin.leg_id,
          symbol: 'SBIN',
          exchange: 'NSE',
          action: 'SELL',
          quantity: 3,
          purpose: 'exit',
          status: 'recorded',
          order_id: null,
          message: null,
          tag,
          created_at: now,
          updated_at: now,
        },
        seen,
      );
    // Eight passes that all read the leg before any of them wrote: one exit is recorded.
    const outcomes = await Promise.all(Array.from({ length: 8 }, (_, i) => exit(`race${i}`)));
    expect(outcomes.filter((o) => typeof o === 'number')).toHaveLength(1);
    expect(outcomes.filter((o) => o === 'conflict')).toHaveLength(7);
    const exits = (await world.rows('strategy_orders')).filter((o) => o.purpose === 'exit');
    expect(exits).toMatchObject([{ leg_id: sbin.leg_id, exit_gen: 1, status: 'recorded' }]);
    // A pass that read the leg after that exit was recorded is refused too (an intent is unsettled).
    expect(await exit('late')).toBe('conflict');
  });
});

describeEachDb('leases die with their holder', (dialect) => {
  it('a lease left by this instance’s killed previous life is released at start-up: the first delivery takes the lock at once', async () => {
    w = await startStrategyServices(dialect, { INSTANCE_ID: 'desk-1' });
    const world = w;
    const { id, token } = await world.create(SIGNAL_SBIN);
    // What a kill -9 in the middle of a delivery leaves: the lease held far into the future.
    const db = world.db.database.db;
    await holdLease(world, id, 'desk-1', 3_600_000);
    // The same instance starts again on the same data.
    const b = await secondInstance(world, { INSTANCE_ID: 'desk-1' });
    const lease = await db
      .selectFrom('strategies')
      .select('signal_lease_holder')
      .where('id', '=', id)
      .execute();
    expect(lease).toEqual([{ signal_lease_holder: null }]);
    const repo = b.services.strategies.strategies.repo;
    const take = vi.spyOn(repo, 'takeLease');
    const answer = await b.services.strategies.webhook.deliver(
      token,
      JSON.stringify({ action: 'long_entry' }),
      '127.0.0.1',
    );
    expect(answer.body).toMatchObject({ result: 'ok' });
    // Taken at the first attempt: no wait for an expiry.
    expect(take).toHaveBeenCalledTimes(1);
    expect(await world.positions()).toMatchObject({ SBIN: 1 });
  });

  it('another instance’s lease that is no longer renewed lapses after its short life; one that is renewed does not', async () => {
    w = await startStrategyServices(dialect);
    const world = w;
    const { id, token } = await world.create(SIGNAL_SBIN);
    const db = world.db.database.db;
    await holdLease(world, id, 'dead-host:5000');
    const locks = world.services.strategies.locks;
    expect(await locks.run(id, () => Promise.resolve('ran'), { waitMs: 0 })).not.toBe('ran');
    world.clock.advance(LEASE_TTL_MS);
    expect((await world.deliver(token, { action: 'long_entry' })).body).toMatchObject({ result: 'ok' });
    const after = await db
      .selectFrom('strategies')
      .select(['signal_lease_holder'])
      .where('id', '=', id)
      .execute();
    expect(after).toEqual([{ signal_lease_holder: null }]);

    // A holder at work renews its lease: held across more than one lease life, it is never lapsed.
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const working = locks.run(id, () => gate);
    const until = async () =>
      Number(
        (
          await db
            .selectFrom('strategies')
            .select('signal_lease_until')
            .where('id', '=', id)
            .executeTakeFirst()
        )?.signal_lease_until,
      );
    await vi.waitFor(async () => expect(await until()).toBeGreaterThan(0), { timeout: 5_000 });
    const first = await until();
    world.clock.advance(LEASE_TTL_MS - 1);
    await vi.waitFor(async () => expect(await until()).toBeGreaterThan(first), { timeout: 5_000 });
    world.clock.advance(LEASE_TTL_MS - 1);
    const b = await secondInstance(world);
    expect(await b.services.strategies.locks.run(id, () => Promise.resolve('ran'), { waitMs: 0 })).not.toBe(
      'ran',
    );
    release();
    await working;
  });
});

describeEachDb('the lease passes to the work queued behind it', (dialect) => {
  it('a burst of signals to one strategy takes the lease once and releases it once, each signal handled in turn', async () => {
    w = await startStrategyServices(dialect);
    const world = w;
    const { id, token } = await world.create(SIGNAL_SBIN);
    const repo = world.services.strategies.strategies.repo;
    const take = vi.spyOn(repo, 'takeLease');
    const release = vi.spyOn(repo, 'releaseLease');
    const renew = vi.spyOn(repo, 'renewLease');
    // The burst arrives while the strategy is busy (a piece of work holds its lock).
    const locks = world.services.strategies.locks;
    let open!: () => void;
    const busy = locks.run(id, () => new Promise<void>((r) => (open = r)));
    const delivered = Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        world.deliver(token, { action: i % 2 ? 'long_exit' : 'long_entry' }),
      ),
    );
    await vi.waitFor(() => expect(locks.queued(id)).toBe(10));
    open();
    await busy;
    const answers = await delivered;
    expect(answers.map((a) => a.body.result)).toEqual(Array(10).fill('ok'));
    expect(take).toHaveBeenCalledTimes(1);
    expect(release).toHaveBeenCalledTimes(1);
    expect(renew).not.toHaveBeenCalled();
    // One at a time, each seeing the last one's position: entries and exits alternate (never two
    // entries in a row), the others no-ops, and the account holds what the last order left.
    const purposes = (await world.rows('strategy_orders')).map((o) => o.purpose);
    expect(purposes).toEqual(purposes.map((_, i) => (i % 2 ? 'exit' : 'entry')));
    expect(await world.rows('webhook_deliveries')).toHaveLength(10);
    expect(await world.positions()).toMatchObject({ SBIN: purposes.at(-1) === 'entry' ? 1 : 0 });
    const lease = await world.db.database.db
      .selectFrom('strategies')
      .select(['signal_lease_holder', 'signal_lease_until'])
      .where('id', '=', id)
      .execute();
    expect(lease).toEqual([{ signal_lease_holder: null, signal_lease_until: null }]);
    // Work arriving once the queue is empty takes the lease afresh.
    expect((await world.deliver(token, { action: 'long_entry' })).body).toMatchObject({ result: 'ok' });
    expect(take).toHaveBeenCalledTimes(2);
    expect(release).toHaveBeenCalledTimes(2);
  });

  it('a kept lease not confirmed within a renewal period is checked first: renewed when still held, given up when another instance took it', async () => {
    w = await startStrategyServices(dialect);
    const world = w;
    const { id } = await world.create(SIGNAL_SBIN);
    const db = world.db.database.db;
    const locks = world.services.strategies.locks;
    const repo = world.services.strategies.strategies.repo;
    const take = vi.spyOn(repo, 'takeLease');
    const renew = vi.spyOn(repo, 'renewLease');

    // Still held: one renewal, no second take.
    let open!: () => void;
    let gate = new Promise<void>((r) => (open = r));
    const first = locks.run(id, () => gate);
    const second = locks.run(id, () => Promise.resolve('second ran'));
    await vi.waitFor(() => expect(take).toHaveBeenCalledTimes(1));
    world.clock.advance(LEASE_RENEW_MS);
    open();
    await first;
    expect(await second).toBe('second ran');
    expect(take).toHaveBeenCalledTimes(1);
    expect(renew).toHaveBeenCalledTimes(1);

    // Lost meanwhile (this process stalled past the lease's life, another instance took it): the
    // queued work does not run on it; it waits for the other holder, here past its wait.
    gate = new Promise<void>((r) => (open = r));
    const third = locks.run(id, () => gate);
    const fourth = locks.run(id, () => Promise.resolve('fourth ran'), { waitMs: 100 });
    await vi.waitFor(() => expect(take).toHaveBeenCalledTimes(2));
    world.clock.advance(LEASE_TTL_MS);
    await holdLease(world, id, 'other-host:5000');
    open();
    await third;
    expect(await fourth).not.toBe('fourth ran');
    const lease = await db
      .selectFrom('strategies')
      .select('signal_lease_holder')
      .where('id', '=', id)
      .execute();
    expect(lease).toEqual([{ signal_lease_holder: 'other-host:5000' }]);
  });
});

describeEachDb('an intent a crash left unsettled is reconciled before any decision', (dialect) => {
  /** Makes the world's runner stop for good at `seam` (as a kill would); resolves when it got there. */
  function haltAt(world: StrategyWorld, seam: 'order.recorded' | 'order.sent'): Promise<void> {
    const runner = world.services.strategies.runner;
    let reached!: () => void;
    const stopped = new Promise<void>((r) => (reached = r));
    runner.deps.seam = (name) => {
      if (name !== seam) return;
      reached();
      return new Promise<void>(() => undefined); // never goes on, like a killed process
    };
    return stopped;
  }

  /**
   * A signal strategy's long_entry whose process "died" at a seam, and a second instance with the
   * same name taking over.
   */
  async function diedAt(seam: 'order.recorded' | 'order.sent') {
    w = await startStrategyServices(dialect, { INSTANCE_ID: 'desk-2' });
    const world = w;
    const { id, token } = await world.create(SIGNAL_SBIN);
    const stopped = haltAt(world, seam);
    void world.deliver(token, { action: 'long_entry' });
    await stopped;
    world.clock.advance(1);
    // The lock of the dead delivery is held in this process; the restarted instance's is not.
    const b = await secondInstance(world, { INSTANCE_ID: 'desk-2' });
    await b.services.strategies.stopper.whenIdle(); // its start-up reconcile pass
    return { world, b, id, token };
  }

  it('sent, not recorded: found in the sandbox by its reference (order_recovered); the run holds what the account holds', async () => {
    const { world, b, token } = await diedAt('order.sent');
    expect(await world.positions()).toMatchObject({ SBIN: 1 });
    const orders = await world.rows('strategy_orders');
    expect(orders).toMatchObject([{ purpose: 'entry', status: 'filled', filled_quantity: 1 }]);
    expect(await world.kinds()).toEqual([
      'strategy_created:info',
      'run_started:info',
      'order_recovered:warn',
    ]);
    const exit = await b.services.strategies.webhook.deliver(
      token,
      JSON.stringify({ action: 'long_exit' }),
      '127.0.0.1',
    );
    expect(exit.body).toMatchObject({ result: 'ok' });
    expect(await world.positions()).toMatchObject({ SBIN: 0 });
    expect((await world.rows('strategy_orders')).filter((o) => o.purpose === 'exit')).toHaveLength(1);
  });

  it('recorded, never sent: marked failed with the critical order_not_placed; the next signal sees the leg flat', async () => {
    const { world, b, token } = await diedAt('order.recorded');
    expect(await world.positions()).toEqual({});
    expect(await world.rows('strategy_orders')).toMatchObject([{ purpose: 'entry', status: 'failed' }]);
    expect(await world.kinds()).toContain('order_not_placed:critical');
    const exit = await b.services.strategies.webhook.deliver(
      token,
      JSON.stringify({ action: 'long_exit' }),
      '127.0.0.1',
    );
    expect(exit.body).toMatchObject({ result: 'ok', message: expect.stringMatching(/already flat/) });
  });

  /** A live batch start (Kite stub) that died at `seam`, and the same instance started again. */
  async function liveDiedAt(seam: 'order.recorded' | 'order.sent', beforeRestart?: () => void) {
    w = await startStrategyServices(dialect, { ...stub.appEnv(), INSTANCE_ID: 'desk-3' });
    const world = w;
    await world.services.brokers.sessions.set(world.userId, 'zerodha', {
      accessToken: CREDS.accessToken,
    });
    const { id, token } = await world.create({
      name: 'live sbin',
      kind: 'batch',
      product: 'MIS',
      legs: [{ symbol: 'SBIN', exchange: 'NSE', quantity: 3, side: 'BUY' }],
    });
    await world.services.strategies.strategies.setLive(world.userId, id, true);
    const stopped = haltAt(world, seam);
    void world.deliver(token, { action: 'start', mode: 'live' });
    await stopped;
    world.clock.advance(1);
    beforeRestart?.();
    const b = await secondInstance(world, { ...stub.appEnv(), INSTANCE_ID: 'desk-3' });
    await b.services.strategies.stopper.whenIdle();
    return { world, b, id };
  }

  it('live: an order the broker took before the crash is found in its order book by its tag, and exited at the stop', async () => {
    const { world, b, id } = await liveDiedAt('order.sent');
    const [entry] = stub.placed('BUY');
    expect(entry).toMatchObject({ quantity: 3 });
    const intent = (await world.rows('strategy_orders'))[0]!;
    expect(stub.forms('/orders/regular')[0]).toMatchObject({ tag: intent.tag });
    expect(intent).toMatchObject({ status: 'placed', order_id: entry!.id });
    expect(await world.kinds()).toContain('order_recovered:warn');
    stub.settle(entry!.id, 'COMPLETE');
    const s = await b.services.strategies.strategies.owned(world.userId, id);
    const stop = await b.services.strategies.stopper.stop(s);
    expect(stop).toMatchObject({
      result: 'ok',
      exits: [expect.objectContaining({ action: 'SELL', quantity: 3, status: 'placed' })],
    });
    expect(stub.placed('SELL')).toHaveLength(1);
  });

  it('live: an intent the broker never saw is marked failed (order_not_placed); the stop finds the run flat', async () => {
    const { world, b, id } = await liveDiedAt('order.recorded');
    expect(stub.placed('BUY')).toEqual([]);
    expect(stub.requests.some((r) => r.method === 'GET' && r.path === '/orders')).toBe(true);
    expect(await world.rows('strategy_orders')).toMatchObject([{ status: 'failed' }]);
    expect(await world.kinds()).toContain('order_not_placed:critical');
    const s = await b.services.strategies.strategies.owned(world.userId, id);
    expect(await b.services.strategies.stopper.stop(s)).toMatchObject({ result: 'ok', exits: [] });
    await b.services.strategies.stopper.whenIdle();
    expect(await world.runStatus()).toEqual(['stopped']);
    expect(stub.placed('SELL')).toEqual([]);
  });

  it('live: while the broker’s order book cannot be read the intent is held (order_unconfirmed, said once), and settled by a later pass', async () => {
    const unavailable = { status: 'error', message: 'Service unavailable', error_type: 'NetworkException' };
    // Four reads refused: the start-up pass, a pass, the stop and its follow-up.
    const { world, b, id } = await liveDiedAt('order.sent', () => stub.failNext(503, unavailable, 4));
    const reconcile = () => b.services.strategies.stopper.reconcile();
    // The start-up pass could not read the book: held, and said.
    expect(await world.rows('strategy_orders')).toMatchObject([{ status: 'recorded' }]);
    await reconcile(); // refused again: nothing new is said
    expect((await world.kinds()).filter((k) => k === 'order_unconfirmed:warn')).toHaveLength(1);
    // A stop now cannot size the leg: it exits nothing and stays pending.
    const s = await b.services.strategies.strategies.owned(world.userId, id);
    expect(await b.services.strategies.stopper.stop(s)).toMatchObject({ result: 'ok', exits: [] });
    await b.services.strategies.stopper.whenIdle();
    expect(await world.runStatus()).toEqual(['stop_pending']);
    // The book is readable again: the order is found, filled, and exited.
    const [entry] = stub.placed('BUY');
    stub.settle(entry!.id, 'COMPLETE');
    await reconcile();
    expect(await world.kinds()).toContain('order_recovered:warn');
    expect(stub.placed('SELL')).toHaveLength(1);
  });
});

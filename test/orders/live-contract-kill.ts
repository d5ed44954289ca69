/**
 * The live contract's crash case (declared per broker by live-contract.ts), in the middle tier as
 * Zerodha's is in strategies-crash-safety.service.test.ts: the real services on a real database,
 * the broker's loopback stub, a live batch strategy whose process "dies" at a seam of its entry
 * order (the runner stops there for good, as a kill -9 would), and the same instance started
 * again. An order the broker took before the answer was lost is found at the broker by its tag
 * (the adapter's `ordersByTag`) and exited at the stop; an intent the broker never saw is marked
 * failed and nothing is exited.
 */
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type { Dialect } from '../../src/platform/db/database.js';
import { importContract } from '../helpers/contracts.js';
import { startStrategyServices, type StrategyWorld } from '../helpers/strategies-services.js';
import { createTestServices, type TestServices } from '../helpers/test-services.js';
import type { LiveRig, RigStub } from './live-rig-world.js';

type Seam = 'order.recorded' | 'order.sent';

export function killCases(rig: LiveRig, dialect: Dialect): void {
  let s: RigStub;
  let w: StrategyWorld | undefined;
  let b: TestServices | undefined;
  beforeAll(async () => {
    s = await rig.startStub();
  });
  afterAll(async () => {
    await s?.close();
  });
  afterEach(async () => {
    await b?.close();
    await w?.close();
    [w, b] = [undefined, undefined];
    s.stub.reset();
    s.stub.orders.clear();
  });

  const env = () => ({
    BROKER_NAME: rig.broker,
    ...rig.env,
    BROKER_API_BASE_URL: s.url,
    BROKER_TIMEOUT_MS: '2000',
    INSTANCE_ID: 'desk-3',
  });

  /** Makes the world's runner stop for good at `seam`; resolves when it got there. */
  function haltAt(world: StrategyWorld, seam: Seam): Promise<void> {
    let reached!: () => void;
    const stopped = new Promise<void>((r) => (reached = r));
    world.services.strategies.runner.deps.seam = (name) => {
      if (name !== seam) return;
      reached();
      return new Promise<void>(() => undefined); // never goes on, like a killed process
    };
    return stopped;
  }

  /** A live batch start (BUY 3 of the equity, MIS) that died at `seam`, and the instance again. */
  async function liveDiedAt(seam: Seam) {
    w = await startStrategyServices(dialect, env());
    const world = w;
    await importContract(world, rig.broker, rig.contract());
    await world.services.brokers.sessions.set(world.userId, rig.broker, rig.session());
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
    b = await createTestServices(dialect, {
      db: world.db,
      clock: world.clock,
      env: { API_RATE_LIMIT: '100000 per second', ORDER_RATE_LIMIT: '100000 per second', ...env() },
    });
    await b.services.sandbox.usePriceSource(world.feed);
    await b.services.sandbox.mode.reload();
    await b.services.strategies.stopper.whenIdle(); // its start-up reconcile pass
    return { world, b, id };
  }

  it('an order the broker took before the answer was lost is found by its tag (order_recovered) and exited at the stop', async () => {
    const { world, b: again, id } = await liveDiedAt('order.sent');
    const entries = s.booked().filter((o) => o.side === 'BUY');
    expect(entries).toHaveLength(1);
    const [entry] = entries;
    const intent = (await world.rows('strategy_orders'))[0]!;
    expect(entry).toMatchObject({ quantity: 3, tag: intent.tag });
    expect(intent).toMatchObject({ status: 'placed', order_id: entry!.id });
    expect(await world.kinds()).toContain('order_recovered:warn');
    s.fill(entry!.id);
    const strategy = await again.services.strategies.strategies.owned(world.userId, id);
    expect(await again.services.strategies.stopper.stop(strategy)).toMatchObject({
      result: 'ok',
      exits: [expect.objectContaining({ action: 'SELL', quantity: 3, status: 'placed' })],
    });
    expect(s.booked().filter((o) => o.side === 'SELL')).toHaveLength(1);
    expect(s.sent().at(-1)).toMatchObject({ side: 'SELL', quantity: 3, priceType: 'MARKET', product: 'MIS' });
  });

  it('an intent the broker never saw is marked failed (order_not_placed); the stop finds the run flat', async () => {
    const { world, b: again, id } = await liveDiedAt('order.recorded');
    expect(s.booked()).toEqual([]);
    expect(await world.rows('strategy_orders')).toMatchObject([{ status: 'failed' }]);
    expect(await world.kinds()).toContain('order_not_placed:critical');
    const strategy = await again.services.strategies.strategies.owned(world.userId, id);
    expect(await again.services.strategies.stopper.stop(strategy)).toMatchObject({ result: 'ok', exits: [] });
    await again.services.strategies.stopper.whenIdle();
    expect(await world.runStatus()).toEqual(['stopped']);
    expect(s.sent()).toEqual([]);
  });
}

/**
 * Issue 7 part 4: de-duplication, cooling-off and run claims hold across instances, and the
 * webhook's token cache is invalidated on every instance (two apps, one database, one Redis).
 */
import { randomBytes } from 'node:crypto';
import { afterEach, expect, it as vitestIt } from 'vitest';
import { createTestApp, describeEachDb, redisUrl, type TestApp } from '../helpers/test-app.js';
import { BATCH_PAIR, SIGNAL_SBIN, startStrategies, type StrategyHarness } from '../helpers/strategies.js';
import { redisBus } from '../helpers/redis-bus.js';

const redisIt = vitestIt.skipIf(redisUrl === '');
const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup.length = 0;
});

/** Instance A (the harness) and instance B on A's database, clock and Redis channel. */
async function twoInstances(dialect: 'sqlite' | 'postgres'): Promise<[StrategyHarness, TestApp]> {
  const prefix = `strat-${randomBytes(4).toString('hex')}`;
  const a = await startStrategies(dialect, {}, { bus: await redisBus(prefix, cleanup) });
  const b = await createTestApp(dialect, {
    db: a.t.db,
    clock: a.t.clock,
    bus: await redisBus(prefix, cleanup),
    env: { WEBHOOK_RATE_LIMIT: '100000 per second' },
  });
  // Both price from the same feed (in production, the same broker's quotes): without it B's
  // market orders find no price and are rejected, and a run of B's deliveries would each open one.
  await b.services.sandbox.usePriceSource(a.t.services.sandbox.prices());
  cleanup.push(() => a.close());
  cleanup.push(() => b.close());
  return [a, b];
}

const deliver = (t: TestApp, token: string, body: object) =>
  t.app.inject({
    method: 'POST',
    url: `/strategy/webhook/${token}`,
    payload: body,
  });

describeEachDb('strategies across instances', (dialect) => {
  // Two instances share state through Redis: skipped (with global-setup's notice) without one.
  const it = redisIt;
  it('a token rotated on one instance is dead on the other at once', async () => {
    const [a, b] = await twoInstances(dialect);
    const { id, token } = await a.create(SIGNAL_SBIN);
    expect((await deliver(b, token, { action: 'long_exit' })).json()).toMatchObject({ result: 'ok' });
    const rotated = await a.manage('POST', `/${id}/rotate-token`);
    const fresh = (rotated.json() as { data: { webhook_token: string } }).data.webhook_token;
    await new Promise((r) => setTimeout(r, 200));

    expect((await deliver(b, token, { action: 'long_exit' })).json()).toMatchObject({
      result: 'rejected_token',
    });
    expect((await deliver(b, fresh, { action: 'long_exit' })).json()).toMatchObject({ result: 'ok' });
    // A lock made on A is seen on B at once as well.
    await a.manage('POST', `/${id}/lock`, { locked: true });
    await new Promise((r) => setTimeout(r, 200));
    expect((await deliver(b, fresh, { action: 'long_exit' })).json()).toMatchObject({
      result: 'rejected_locked',
    });
  });

  it('concurrent starts spread over two instances open one run; dedupe holds across them', async () => {
    const [a, b] = await twoInstances(dialect);
    const { token } = await a.create(BATCH_PAIR);
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        deliver(i % 2 ? b : a.t, token, { action: 'start', mode: 'sandbox' }),
      ),
    );
    const results = answers.map((r) => (r.json() as { result: string }).result);
    expect(results.filter((r) => r === 'ok')).toHaveLength(1);
    expect(results.filter((r) => r === 'rejected_dedupe')).toHaveLength(199);
    const different = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        deliver(i % 2 ? b : a.t, token, { action: 'start', mode: 'sandbox', n: i }),
      ),
    );
    expect(different.every((r) => r.statusCode === 200)).toBe(true);
    expect(await a.rows('strategy_runs')).toHaveLength(1);
    expect(await a.rows('strategy_orders')).toHaveLength(2);
  });

  it('copies of one signal spread over two instances open the position once (the signal lease)', async () => {
    const [a, b] = await twoInstances(dialect);
    const { token } = await a.create(SIGNAL_SBIN);
    // Each instance's order takes a while to reach the sandbox: without the lease, the other
    // instance would read the leg as flat meanwhile and open it a second time.
    for (const t of [a.t, b]) {
      const runner = t.services.strategies.runner as unknown as {
        deps: { pipeline: { run: (...args: unknown[]) => Promise<unknown> } };
      };
      const real = t.services.orders.pipeline;
      runner.deps.pipeline = {
        run: async (...args: unknown[]) => {
          await new Promise((r) => setTimeout(r, 50));
          return real.run(...(args as Parameters<typeof real.run>));
        },
      };
    }
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => deliver(i % 2 ? b : a.t, token, { action: 'long_entry' })),
    );
    expect(answers.map((r) => (r.json() as { result: string }).result)).toEqual(Array(20).fill('ok'));
    expect(await a.rows('strategy_orders')).toHaveLength(1);
    expect(await a.rows('strategy_runs')).toHaveLength(1);
    const leases = await a.t.db.database.db.selectFrom('strategies').select('signal_lease_until').execute();
    expect(leases).toEqual([{ signal_lease_until: null }]);
  });
});

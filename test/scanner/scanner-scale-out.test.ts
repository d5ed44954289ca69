/**
 * Scanner alerts across instances (docs/rules/scanner.md#scanner-dedupe, #scanner-squareoff):
 * copies of one alert delivered at once to two instances on one database place it once, and the
 * day's square-off run on both places its orders once.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, expect, it as vitestIt } from 'vitest';
import { createTestApp, describeEachDb, redisUrl, type TestApp } from '../helpers/test-app.js';
import {
  TRADING_DAY,
  buyScanner,
  chartink,
  startScanner,
  type HookAnswer,
  type ScannerHarness,
} from '../helpers/scanner.js';
import { redisBus } from '../helpers/redis-bus.js';

const redisIt = vitestIt.skipIf(redisUrl === '');
const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup.length = 0;
});

/** Instance A (the harness) and instance B on A's database, clock, price feed and Redis channel. */
async function twoInstances(dialect: 'sqlite' | 'postgres'): Promise<[ScannerHarness, TestApp]> {
  const prefix = `scan-${randomBytes(4).toString('hex')}`;
  const a = await startScanner(dialect, {}, { bus: await redisBus(prefix, cleanup) });
  const b = await createTestApp(dialect, {
    db: a.t.db,
    clock: a.t.clock,
    bus: await redisBus(prefix, cleanup),
    env: { WEBHOOK_RATE_LIMIT: '100000 per second', API_RATE_LIMIT: '100000 per second' },
  });
  await b.services.sandbox.usePriceSource(a.t.services.sandbox.prices());
  cleanup.push(() => a.close());
  cleanup.push(() => b.close());
  return [a, b];
}

const deliver = (t: TestApp, webhookId: string, body: object) =>
  t.app.inject({
    method: 'POST',
    url: `/scanner/webhook/${webhookId}`,
    payload: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });

describeEachDb('scanners across instances', (dialect) => {
  const it = redisIt;

  it('copies of one alert delivered at once to two instances place it once', async () => {
    const [a, b] = await twoInstances(dialect);
    const { id, webhookId } = await a.create(buyScanner({ quantity: 1 }));
    const alert = chartink();
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => deliver(i % 2 ? b : a.t, webhookId, alert)),
    );
    const results = answers.map((r) => (r.json() as HookAnswer).result);
    expect(results.filter((r) => r === 'ok')).toHaveLength(1);
    expect(results.filter((r) => r === 'rejected_dedupe')).toHaveLength(39);
    expect(await a.orders()).toHaveLength(3);
    expect(await a.rows('scanner_orders')).toHaveLength(3);
    expect(await a.deliveries(id, 500)).toHaveLength(40);
  });

  it('the day’s square-off run on both instances at once places its orders once', async () => {
    const [a, b] = await twoInstances(dialect);
    const { webhookId } = await a.create(
      buyScanner({ quantity: 4, window_end: '14:00', squareoff_time: '14:30' }),
    );
    expect(((await deliver(a.t, webhookId, chartink())).json() as HookAnswer).result).toBe('ok');
    await a.moveTo(TRADING_DAY, '14:30');
    await Promise.all([
      a.scanner().squareOff.run(),
      b.services.scanner.squareOff.run(),
      a.scanner().squareOff.run(),
    ]);
    await Promise.all([b.services.scanner.squareOff.run(), a.scanner().squareOff.run()]);
    const sells = (await a.orders()).filter((o) => o.action === 'SELL');
    expect(sells.map((o) => `${String(o.symbol)}×${String(o.quantity)}`).sort()).toEqual([
      'INFY×4',
      'RELIANCE×4',
      'SBIN×4',
    ]);
    for (const s of ['SBIN', 'RELIANCE', 'INFY']) expect(await a.position(s)).toBe(0);
    expect((await a.rows('scanner_orders')).filter((r) => r.kind === 'squareoff')).toHaveLength(3);
    expect((await a.rows('scanner_deliveries')).filter((r) => r.result === 'squareoff')).toHaveLength(1);
  });
});

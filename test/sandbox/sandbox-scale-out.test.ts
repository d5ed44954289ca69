/**
 * Issue 5 on several instances (ARCHITECTURE.md "Scale-out"): two app instances on one database
 * and one Redis each run a sandbox engine. An order placed on one is matched by the other, an
 * update both see fills an order once, and the mode switch reaches both.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { ScriptedFeed } from '../../src/modules/sandbox/prices/price-source.js';
import { asBrowser, createTestApp, describeEachDb, type TestApp } from '../helpers/test-app.js';
import { MINI, startSandbox, type SandboxHarness } from '../helpers/sandbox.js';
import { redisBus } from '../helpers/redis-bus.js';

const SBIN = `${MINI.SBIN.exchange}:${MINI.SBIN.symbol}`;

describeEachDb('sandbox on two instances sharing a database and Redis', (dialect) => {
  const cleanup: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const c of cleanup.reverse()) await c();
    cleanup.length = 0;
  });

  /** Instance A (the harness, analyzer mode on) and instance B on A's database, each with a feed. */
  async function twoInstances(): Promise<{ a: SandboxHarness; b: TestApp; feedB: ScriptedFeed }> {
    const prefix = `sbx-${randomBytes(4).toString('hex')}`;
    const a = await startSandbox(dialect, { bus: await redisBus(prefix, cleanup) });
    cleanup.push(() => a.close());
    a.t.clock.set(Date.parse('2026-01-05T10:00:00+05:30'));
    const b = await createTestApp(dialect, {
      db: a.t.db,
      clock: a.t.clock,
      bus: await redisBus(prefix, cleanup),
      env: { API_RATE_LIMIT: '100000 per second' },
    });
    cleanup.push(() => b.close());
    const feedB = new ScriptedFeed();
    await b.services.sandbox.usePriceSource(feedB);
    expect(b.services.sandbox.engine.isRunning).toBe(true);
    return { a, b, feedB };
  }

  describe('an order placed on one instance is matched by the other', () => {
    it('B’s engine learns of A’s LIMIT through Redis, fills it, and A drops it from its book', async () => {
      const { a, b, feedB } = await twoInstances();
      await a.tick({ [SBIN]: a.quote(800) });
      const r = await a.place({ ...MINI.SBIN, side: 'BUY', quantity: 5, priceType: 'LIMIT', price: 790 });
      expect(r.order.status).toBe('open');
      await expect.poll(() => b.services.sandbox.engine.size).toBe(1);
      feedB.push({ [SBIN]: a.quote(789, { ask: 789.5 }) });
      await b.services.sandbox.engine.whenIdle();
      expect((await a.t.services.sandbox.service.order(1, Number(r.order.orderId))).status).toBe('complete');
      await expect.poll(() => a.t.services.sandbox.engine.size).toBe(0);
    });
  });

  describe('two engines that see the same update fill an order once', () => {
    it('one trade, one position, margin counted once', async () => {
      const { a, b, feedB } = await twoInstances();
      await a.tick({ [SBIN]: a.quote(800) });
      const r = await a.place({ ...MINI.SBIN, side: 'BUY', quantity: 10, priceType: 'LIMIT', price: 790 });
      await expect.poll(() => b.services.sandbox.engine.size).toBe(1);
      const q = { [SBIN]: a.quote(789, { ask: 789.5 }) };
      a.feed.push(q);
      feedB.push(q);
      await Promise.all([a.t.services.sandbox.engine.whenIdle(), b.services.sandbox.engine.whenIdle()]);
      expect((await a.ok<{ data: unknown[] }>('tradebook')).data).toHaveLength(1);
      const pos = (await a.ok<{ data: Record<string, unknown>[] }>('positionbook')).data;
      expect(pos).toMatchObject([{ symbol: 'SBIN', quantity: 10, average_price: 789.5 }]);
      // The 10 × 790 ÷ 5 = 1,580 blocked at the limit moved to the position, once.
      expect((await a.ok<{ data: Record<string, unknown> }>('funds')).data.utiliseddebits).toBe(1_580);
      expect((await a.t.services.sandbox.service.order(1, Number(r.order.orderId))).status).toBe('complete');
    });
  });

  describe('the mode switch reaches every instance', () => {
    it('Live on A stops B’s engine; Analyze starts it again', async () => {
      const { a, b } = await twoInstances();
      const live = await a.t.app.inject({
        method: 'POST',
        url: '/settings/analyze-mode/0',
        headers: asBrowser(a.admin),
      });
      expect(live.json()).toMatchObject({ analyze_mode: false, mode: 'live' });
      await expect.poll(() => b.services.sandbox.engine.isRunning).toBe(false);
      expect(b.services.sandbox.mode.analyze).toBe(false);
      await a.t.app.inject({ method: 'POST', url: '/settings/analyze-mode/1', headers: asBrowser(a.admin) });
      await expect.poll(() => b.services.sandbox.engine.isRunning).toBe(true);
    });
  });
});

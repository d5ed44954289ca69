/**
 * Issue 5, "Price source (b)": a deterministic feed for demos — `SANDBOX_PRICE_SOURCE=scripted`
 * plays the ticks of `SANDBOX_SCRIPT_FILE` against the clock on the engine's ticks.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { scriptedSource } from '../../src/modules/sandbox/sandbox.plugin.js';
import { importContract } from '../helpers/contracts.js';
import { MINI, ist, miniKiteContract } from '../helpers/sandbox.js';
import { appWithAdmin, asBrowser, describeEachDb } from '../helpers/test-app.js';

const dir = mkdtempSync(join(tmpdir(), 'algodesk-script-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const q = (ltp: number, at: number) => ({
  ltp,
  bid: ltp - 0.05,
  ask: ltp + 0.05,
  high: ltp + 10,
  low: ltp - 10,
  timestamp: at,
});

describeEachDb('a scripted price feed played against the clock', (dialect) => {
  it('ticks become prices as the clock reaches them; a resting LIMIT fills on its tick', async () => {
    const t0 = ist('2026-01-05', '10:00');
    const file = join(dir, `script-${dialect}.json`);
    writeFileSync(
      file,
      JSON.stringify([
        { at: t0, quotes: { 'NSE:SBIN': q(800, t0) } },
        { at: t0 + 60_000, quotes: { 'NSE:SBIN': q(790, t0 + 60_000) } },
      ]),
    );
    const { t, admin } = await appWithAdmin(dialect, {
      env: { SANDBOX_PRICE_SOURCE: 'scripted', SANDBOX_SCRIPT_FILE: file },
    });
    try {
      await importContract(t, 'zerodha', miniKiteContract());
      t.clock.set(t0);
      await t.app.inject({ method: 'POST', url: '/settings/analyze-mode/1', headers: asBrowser(admin) });
      const engine = t.services.sandbox.engine;
      await engine.tick();
      expect(t.services.sandbox.prices().latest('NSE:SBIN')?.ltp).toBe(800);
      const r = await t.services.sandbox.service.placeOrder(1, {
        ...MINI.SBIN,
        side: 'BUY',
        priceType: 'LIMIT',
        product: 'MIS',
        quantity: 1,
        price: 795,
      });
      expect(r.order.status).toBe('open');
      t.clock.set(t0 + 60_000);
      await engine.tick();
      await engine.whenIdle();
      const o = await t.services.sandbox.service.order(1, Number(r.order.orderId));
      expect([o.status, o.averagePrice]).toEqual(['complete', 790.05 * 10_000]);
    } finally {
      await t.close();
    }
  });
});

describe('a bad script file stops start-up with a message naming it', () => {
  it.each([
    ['not JSON', '{oops'],
    ['not an array of ticks', '{"at": 1}'],
    ['a quote without prices', '[{"at": 1, "quotes": {"NSE:SBIN": {"ltp": "x"}}}]'],
  ])('%s', (_name, text) => {
    const file = join(dir, 'bad.json');
    writeFileSync(file, text);
    expect(() => scriptedSource(file)).toThrow(/^SANDBOX_SCRIPT_FILE .*bad\.json: /);
  });
});

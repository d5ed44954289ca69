/**
 * Holdings tick in Chromium (docs/rules/web.md#live-prices): a CNC buy of SBIN in the sandbox,
 * settled into holdings the next trading day, shows on /holdings at its LTP; when the feed moves
 * the price, the holding's LTP, P&L and P&L % and the page's totals move with it — no order event,
 * no reload. At 1280 px and at phone width. Screenshots: prefix 64-.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/platform/clock.js';
import { ScriptedFeed } from '../../src/modules/sandbox/prices/price-source.js';
import {
  HAVE_CHROMIUM,
  journeyHooks,
  startConsoleBrowser,
  type ConsoleBrowser,
} from '../helpers/console-browser.js';
import { importContract } from '../helpers/contracts.js';
import { ist, miniKiteContract } from '../helpers/sandbox.js';

const PASSWORD = 'holdings tick horse battery';

describe.skipIf(!HAVE_CHROMIUM)('holdings tick with the feed in Chromium', () => {
  let c: ConsoleBrowser;
  const feed = new ScriptedFeed();

  function tick(ltp: number) {
    c.clock.set(c.clock.now() + 1000);
    feed.push({
      'NSE:SBIN': {
        ltp,
        bid: ltp - 0.05,
        ask: ltp + 0.05,
        high: ltp + 10,
        low: ltp - 10,
        timestamp: c.clock.now(),
      },
    });
  }

  beforeAll(async () => {
    // A Monday in session; the buy settles into holdings on Tuesday.
    c = await startConsoleBrowser({
      clock: new FakeClock(ist('2026-01-05', '10:00')),
      env: { FEED_POLL_MS: '100' },
    });
    await c.app.auth.users.createFirst({ username: 'admin', password: PASSWORD, email: 'admin@example.com' });
    await importContract({ services: c.app } as never, 'zerodha', miniKiteContract());
    await c.app.sandbox.usePriceSource(feed);
    await c.app.sandbox.mode.set(true);
    tick(800);
    await c.app.sandbox.engine.whenIdle();
    const apikey = (await c.app.auth.apiKeys.regenerate(1)).apikey;
    const res = await fetch(`${c.base}/api/v1/placeorder`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        apikey,
        strategy: 'hold',
        symbol: 'SBIN',
        exchange: 'NSE',
        product: 'CNC',
        action: 'BUY',
        quantity: 10,
        pricetype: 'MARKET',
      }),
    });
    expect(res.status).toBe(200);
    c.clock.set(ist('2026-01-06', '09:30'));
    tick(810);
    await c.app.sandbox.engine.whenIdle();
    await c.app.sandbox.engine.tick();
    await c.signIn('admin', PASSWORD);
  }, 120_000);

  journeyHooks(() => c, '64');

  const row = () =>
    c.page.getByRole('table', { name: 'Holdings' }).getByTestId('book-row').filter({ hasText: 'SBIN' });
  const cell = async (label: string) =>
    (await row().locator(`td[data-label="${label}"]`).textContent())?.trim();

  it('the LTP, P&L and totals of a holding move with the feed', async () => {
    const { page, base } = c;
    await page.goto(`${base}/holdings`);
    await page.getByRole('status', { name: 'Live updates on' }).waitFor();
    await row().waitFor();
    // Bought 10 at the ask, 800.05.
    expect(await cell('Avg. price')).toBe('800.05');
    await page.evaluate('window.__noReload = 1');
    tick(820);
    await expect.poll(() => cell('LTP'), { timeout: 5000 }).toBe('820.00');
    // (820 − 800.05) × 10 = 199.50; 199.50 / 8,000.50 = 2.49 %.
    expect(await cell('P&L')).toBe('+199.50');
    expect(await cell('P&L %')).toBe('+2.49 %');
    await expect
      .poll(async () => (await page.getByTestId('holdings-total-pnl').textContent())?.trim())
      .toBe('+₹199.50');
    await page.getByTestId('holdings-statistics').getByText('₹8,200.00').waitFor();
    expect(await page.evaluate('window.__noReload')).toBe(1);
    await c.shot('64a-holdings-ticked');
  });

  it('at phone width too', async () => {
    const { page } = c;
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      tick(790);
      await expect.poll(() => cell('LTP'), { timeout: 5000 }).toBe('790.00');
      expect(await cell('P&L')).toBe('-100.50');
      await expect
        .poll(async () => (await page.getByTestId('holdings-total-pnl').textContent())?.trim())
        .toBe('-₹100.50');
      await c.shot('64b-holdings-phone-ticked');
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });
});

/**
 * Live prices on /positions in Chromium against the real built console
 * (docs/rules/web.md#live-prices): analyzer mode on a mini master contract with a scripted price
 * feed; a filled MARKET order's position shows its LTP, and when the feed moves the price, the LTP
 * and the P&L on the page move too without an order event and without a reload; a `feed_status` of
 * `stale` from the server shows the "Prices stale" badge until the price ticks again. At 1280 px
 * and at phone width. Screenshots go to the shared folder (prefix 56-); the suite fails on any
 * browser console error.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ScriptedFeed } from '../../src/modules/sandbox/prices/price-source.js';
import {
  HAVE_CHROMIUM,
  journeyHooks,
  startConsoleBrowser,
  type ConsoleBrowser,
} from '../helpers/console-browser.js';
import { importContract } from '../helpers/contracts.js';
import { miniKiteContract } from '../helpers/sandbox.js';

const PASSWORD = 'live prices horse battery';

describe.skipIf(!HAVE_CHROMIUM)('live prices on the desk in Chromium', () => {
  let c: ConsoleBrowser;
  let apikey = '';
  const feed = new ScriptedFeed();

  beforeAll(async () => {
    c = await startConsoleBrowser({ env: { FEED_POLL_MS: '100' } });
    await c.app.auth.users.createFirst({ username: 'admin', password: PASSWORD, email: 'admin@example.com' });
    await importContract({ services: c.app } as never, 'zerodha', miniKiteContract());
    apikey = (await c.app.auth.apiKeys.regenerate(1)).apikey;
    await c.app.sandbox.usePriceSource(feed);
    await c.app.sandbox.mode.set(true);
    tick(800);
    await c.signIn('admin', PASSWORD);
  }, 120_000);

  journeyHooks(() => c, '56');

  function tick(ltp: number) {
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

  const sbinRow = () =>
    c.page.getByRole('table', { name: 'Positions' }).getByTestId('book-row').filter({ hasText: 'SBIN' });
  const cell = (label: string) => sbinRow().locator(`td[data-label="${label}"]`);

  it('the LTP and P&L of an open position move with the feed, without an order event or a reload', async () => {
    const { page, base } = c;
    const res = await fetch(`${base}/api/v1/placeorder`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        apikey,
        strategy: 'live',
        symbol: 'SBIN',
        exchange: 'NSE',
        product: 'MIS',
        action: 'BUY',
        quantity: 10,
        pricetype: 'MARKET',
      }),
    });
    expect(res.status).toBe(200);
    await page.goto(`${base}/positions`);
    await page.getByRole('status', { name: 'Live updates on' }).waitFor();
    await sbinRow().getByRole('cell', { name: 'Long', exact: true }).waitFor();
    await page.evaluate('window.__noReload = 1');
    await c.shot('56a-positions-before-tick');

    // Bought 10 at the ask, 800.05. The feed moves SBIN to 812.50: +124.50 unrealised.
    c.clock.set(c.clock.now() + 1000);
    tick(812.5);
    await expect
      .poll(async () => (await cell('LTP').textContent())?.trim(), { timeout: 5000 })
      .toBe('812.50');
    await expect.poll(async () => (await cell('Unrealised P&L').textContent())?.trim()).toBe('+124.50');
    expect(await page.evaluate('window.__noReload')).toBe(1);
    await page.getByTestId('positions-total-pnl').getByText('124.50').waitFor();
    await c.shot('56b-positions-ticked');

    // The server says the feed stalled for SBIN: the badge shows until SBIN ticks again.
    c.app.feed.hub.notifyStatus(['NSE:SBIN'], 'stale');
    await page.getByRole('status', { name: 'Prices stale' }).waitFor();
    await c.shot('56c-positions-stale');
    c.clock.set(c.clock.now() + 1000);
    tick(805);
    await expect
      .poll(async () => (await cell('LTP').textContent())?.trim(), { timeout: 5000 })
      .toBe('805.00');
    await page.getByRole('status', { name: 'Prices stale' }).waitFor({ state: 'hidden' });
  });

  it('ticks at phone width too', async () => {
    const { page } = c;
    await page.setViewportSize({ width: 390, height: 844 });
    await sbinRow().waitFor();
    c.clock.set(c.clock.now() + 1000);
    tick(790);
    await expect
      .poll(async () => (await cell('LTP').textContent())?.trim(), { timeout: 5000 })
      .toBe('790.00');
    await c.shot('56d-positions-phone-ticked');
    await page.setViewportSize({ width: 1280, height: 800 });
  });
});

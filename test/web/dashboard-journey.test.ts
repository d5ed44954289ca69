/**
 * The dashboard in Chromium on the built console (docs/rules/web.md#dashboard,
 * docs/rules/web.md#desk-live-updates): an analyzer order placed through the API appears in the
 * latest orders and the open positions within 2 s without a reload (the live socket, not a
 * polling loop); the administrator's mode switch asks first and says what changes; in live mode
 * without a broker session the books are not asked for and the page says why. Screenshots go to
 * the shared folder (prefix 55-); any browser console error fails the suite.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ScriptedFeed } from '../../src/modules/sandbox/prices/price-source.js';
import { importContract } from '../helpers/contracts.js';
import {
  HAVE_CHROMIUM,
  startConsoleBrowser,
  type ConsoleBrowser,
  journeyHooks,
} from '../helpers/console-browser.js';
import { kiteContract } from '../helpers/orders-app.js';

const PASSWORD = 'dashboard journey horse';
/** A weekday at 10:00 IST: the market is open. */
const MARKET_OPEN = Date.parse('2026-01-05T10:00:00+05:30');

describe.skipIf(!HAVE_CHROMIUM)('the dashboard in Chromium', () => {
  let c: ConsoleBrowser;
  let apikey = '';
  const feed = new ScriptedFeed();

  beforeAll(async () => {
    c = await startConsoleBrowser({
      env: { ORDER_RATE_LIMIT: '100000 per second', API_RATE_LIMIT: '100000 per second' },
    });
    c.clock.set(MARKET_OPEN);
    await c.app.auth.users.createFirst({ username: 'admin', password: PASSWORD, email: 'admin@example.com' });
    apikey = (await c.app.auth.apiKeys.regenerate(1)).apikey;
    await importContract({ services: c.app as never }, 'zerodha', kiteContract(['SBIN', 'INFY']));
    feed.push({
      'NSE:SBIN': { ltp: 800, bid: 799.95, ask: 800.05, high: 805, low: 795, timestamp: MARKET_OPEN },
      'NSE:INFY': { ltp: 1500, bid: 1499.9, ask: 1500.1, high: 1510, low: 1490, timestamp: MARKET_OPEN },
    });
    await c.app.sandbox.usePriceSource(feed);
    await c.app.sandbox.mode.set(true);
    await c.signIn('admin', PASSWORD);
  }, 120_000);

  journeyHooks(() => c, '55');

  const placeViaApi = (order: Record<string, unknown>) =>
    fetch(`${c.base}/api/v1/placeorder`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apikey, strategy: 'dash', exchange: 'NSE', product: 'MIS', ...order }),
    });

  it('shows an API order in the latest orders and open positions within 2 s, without a reload', async () => {
    const { page, base } = c;
    await page.goto(`${base}/dashboard`);
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    await page.getByRole('status', { name: 'Live updates on' }).waitFor();
    await page.getByText('No order today.').waitFor();
    await page.getByText('No open position.').waitFor();
    expect(await page.getByTestId('dashboard-mode').textContent()).toBe('Analyzer');
    await c.shot('55a-dashboard-empty');
    // A marker a reload would lose.
    await page.evaluate('window.__noReload = true');

    const res = await placeViaApi({ symbol: 'SBIN', action: 'BUY', quantity: 5, pricetype: 'MARKET' });
    expect(res.status).toBe(200);
    const { orderid } = (await res.json()) as { orderid: string };
    const started = Date.now();
    const orders = page.getByRole('table', { name: 'Latest orders' });
    await orders.getByRole('cell', { name: orderid, exact: true }).waitFor({ timeout: 2_000 });
    const positions = page.getByRole('table', { name: 'Open positions' });
    await positions.getByRole('cell', { name: 'SBIN', exact: true }).waitFor({ timeout: 2_000 });
    const seenAfter = Date.now() - started;
    expect(await page.evaluate('window.__noReload')).toBe(true);
    const row = orders.getByRole('row').filter({ hasText: orderid });
    expect(await row.textContent()).toMatch(/BUY.*5.*MARKET.*complete/);
    await page.getByText('Available cash').waitFor();
    console.log(`dashboard: the API order shown ${seenAfter} ms after the API answered`);
    await c.shot('55b-dashboard-order-live');
  });

  it('asks before switching the mode, says what changes, and in live mode without a broker says why', async () => {
    const { page } = c;
    await c.button('Switch to Live').click();
    const dialog = page.getByRole('dialog', { name: 'Switch to Live mode?' });
    await dialog.getByText(/go to the broker and trade real money/).waitFor();
    await c.shot('55c-mode-confirmation');
    await dialog.getByRole('button', { name: 'Keep Analyzer' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect(c.app.sandbox.mode.analyze).toBe(true);

    await c.button('Switch to Live').click();
    await page
      .getByRole('dialog', { name: 'Switch to Live mode?' })
      .getByRole('button', { name: 'Switch to Live' })
      .click();
    await page.getByTestId('dashboard-mode').filter({ hasText: 'Live' }).waitFor();
    expect(c.app.sandbox.mode.analyze).toBe(false);
    // No broker session: the books are not asked for (no failed request), the page says why.
    await page.getByText('No broker connected').waitFor();
    await page.getByRole('link', { name: 'Connect your broker' }).waitFor();
    await c.shot('55d-live-no-broker');

    await c.button('Switch to Analyzer').click();
    await page
      .getByRole('dialog', { name: 'Switch to Analyzer mode?' })
      .getByRole('button', { name: 'Switch to Analyzer' })
      .click();
    await page.getByTestId('dashboard-mode').filter({ hasText: 'Analyzer' }).waitFor();
    await page.getByRole('table', { name: 'Latest orders' }).waitFor();
    expect(c.app.sandbox.mode.analyze).toBe(true);
  });
});

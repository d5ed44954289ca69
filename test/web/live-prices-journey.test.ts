/**
 * Live prices on the desk in Chromium against the real built console
 * (docs/rules/web.md#live-prices): analyzer mode on a mini master contract with a scripted price
 * feed; a filled MARKET order's position shows its LTP on /positions and on the dashboard, and when
 * the feed moves the price, the LTP and the P&L on the page move too without an order event and
 * without a reload; a `feed_status` of `stale` from the server shows the "Prices stale" badge until
 * the price ticks again. The order ticket shows its contract's LTP, best bid and ask and the day's
 * change, moving with the feed: a dash while the quote has no previous close, the change once it
 * has one. While the ticket is open the page's
 * socket holds SBIN once, in Depth mode; closed, once again in LTP mode. At 1280 px and at phone
 * width. Screenshots go to the shared folder (prefix 56-); the suite fails on any browser console
 * error.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { FeedConnection } from '../../src/modules/feed/feed-connection.js';
import type { FeedMode } from '../../src/modules/feed/feed.types.js';
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

  /**
   * A quote with the previous session's close (as a broker's stream gives it: the day's change
   * shows), from the same scripted feed; `ask: 0` is a book without a sell side.
   */
  function quoteWithClose(q: { ltp: number; close: number; bid: number; ask: number }) {
    feed.push({ 'NSE:SBIN': { ...q, high: q.ltp + 10, low: q.ltp - 10, timestamp: c.clock.now() } });
  }

  /** The modes the browsers' sockets (not the sandbox engine) hold NSE:SBIN in, one list per socket. */
  function browserModes(): FeedMode[][] {
    return c.app.feed.hub
      .holders('NSE:SBIN')
      .filter((h) => h.client instanceof FeedConnection)
      .map((h) => h.modes);
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

  const dashRow = () =>
    c.page.getByRole('table', { name: 'Open positions' }).getByTestId('book-row').filter({ hasText: 'SBIN' });
  const dashCell = (label: string) => dashRow().locator(`td[data-label="${label}"]`);
  const text = async (testId: string) => (await c.page.getByTestId(testId).textContent())?.trim();

  it('the dashboard ticks its open positions and the unrealised P&L', async () => {
    const { page, base } = c;
    await page.goto(`${base}/dashboard`);
    await page.getByRole('status', { name: 'Live updates on' }).waitFor();
    await dashRow().waitFor();
    await page.evaluate('window.__noReload = 1');

    // 10 bought at 800.05; the feed moves SBIN to 820: +199.50 unrealised.
    c.clock.set(c.clock.now() + 1000);
    tick(820);
    await expect
      .poll(async () => (await dashCell('LTP').textContent())?.trim(), { timeout: 5000 })
      .toBe('820.00');
    await expect.poll(async () => (await dashCell('P&L').textContent())?.trim()).toBe('+199.50');
    await expect
      .poll(async () => page.getByRole('group', { name: 'Unrealised P&L' }).textContent())
      .toContain('+₹199.50');
    expect(await page.evaluate('window.__noReload')).toBe(1);
    await c.shot('56e-dashboard-ticked');
  });

  it('the order ticket shows the LTP, bid, ask and day change of SBIN, moving with the feed', async () => {
    const { page } = c;
    await page.getByRole('button', { name: 'Exit SBIN NSE MIS' }).click();
    const ticket = page.getByRole('dialog', { name: 'Order ticket' });
    await ticket.getByRole('group', { name: 'Live prices of SBIN NSE' }).waitFor();
    await expect.poll(() => text('ticket-ltp'), { timeout: 5000 }).toBe('820.00');
    expect(await text('ticket-bid')).toBe('819.95');
    expect(await text('ticket-ask')).toBe('820.05');
    // No previous close in these quotes yet: a dash, never 0.
    expect(await text('ticket-change')).toBe('—');
    // One subscription for SBIN on the page's socket, at the highest mode asked (the ticket's).
    await expect.poll(browserModes).toEqual([[3]]);

    c.clock.set(c.clock.now() + 1000);
    tick(826.4);
    await expect.poll(() => text('ticket-ltp'), { timeout: 5000 }).toBe('826.40');
    expect(await text('ticket-bid')).toBe('826.35');
    expect(await text('ticket-ask')).toBe('826.45');
    expect(await text('ticket-change')).toBe('—');

    // A broker's tick carries the previous close: the day's change shows, absolute and in percent.
    c.clock.set(c.clock.now() + 1000);
    quoteWithClose({ ltp: 832, close: 800, bid: 831.9, ask: 832.1 });
    await expect.poll(() => text('ticket-change'), { timeout: 5000 }).toBe('+32.00 (+4.00 %)');
    expect(await text('ticket-ltp')).toBe('832.00');
    expect(await text('ticket-bid')).toBe('831.90');
    expect(await text('ticket-ask')).toBe('832.10');
    // The dashboard behind it follows the same tick.
    await expect.poll(async () => (await dashCell('LTP').textContent())?.trim()).toBe('832.00');
    await c.shot('56f-ticket-live');

    // A side of the book the feed does not have is a dash too.
    c.clock.set(c.clock.now() + 1000);
    quoteWithClose({ ltp: 796, close: 800, bid: 795.95, ask: 0 });
    await expect.poll(() => text('ticket-change'), { timeout: 5000 }).toBe('-4.00 (-0.50 %)');
    expect(await text('ticket-ask')).toBe('—');
    expect(await text('ticket-bid')).toBe('795.95');

    // Closed: the page's socket holds SBIN in LTP mode again, and the dashboard still ticks.
    await page.getByRole('button', { name: 'Dismiss the order ticket' }).click();
    await ticket.waitFor({ state: 'hidden' });
    await expect.poll(browserModes).toEqual([[1]]);
    c.clock.set(c.clock.now() + 1000);
    tick(810);
    await expect
      .poll(async () => (await dashCell('LTP').textContent())?.trim(), { timeout: 5000 })
      .toBe('810.00');
    await expect.poll(async () => (await dashCell('P&L').textContent())?.trim()).toBe('+99.50');
  });

  it('the ticket prefills a LIMIT at the LTP on the tick, shows the margin and the depth, and warns on a far limit', async () => {
    const { page } = c;
    c.clock.set(c.clock.now() + 1000);
    tick(812.37);
    await page.getByRole('button', { name: 'Exit SBIN NSE MIS' }).click();
    const ticket = page.getByRole('dialog', { name: 'Order ticket' });
    await expect.poll(() => text('ticket-ltp'), { timeout: 5000 }).toBe('812.37');
    await ticket.getByLabel('Price type').selectOption('LIMIT');
    // 812.37 on SBIN's 0.05 tick.
    const price = ticket.getByRole('textbox', { name: 'Price', exact: true });
    await expect.poll(() => price.inputValue(), { timeout: 5000 }).toBe('812.35');
    // The sandbox's margin for 10 SBIN MIS at 812.35: the calculator's answer, shown in rupees.
    await expect.poll(() => text('ticket-margin-total'), { timeout: 5000 }).toMatch(/^₹[\d,]+\.\d\d$/);
    expect(await ticket.getByTestId('ticket-price-warning').count()).toBe(0);
    // A limit far from the LTP (the exit SELLs) is said, not refused; the sell's mirror of a buy far below.
    await price.fill('1000');
    await expect
      .poll(() => text('ticket-price-warning'))
      .toBe('The limit 1,000.00 is 23.1 % above the LTP 812.37: the order waits until the price gets there.');
    await ticket.getByRole('button', { name: 'Depth' }).click();
    const ladder = ticket.getByRole('table', { name: 'Market depth of SBIN NSE' });
    await ladder.waitFor();
    await expect
      .poll(async () => (await ladder.getByTestId('depth-level').first().textContent())?.trim())
      .toContain('812.32');
    await c.shot('56i-ticket-limit-margin-depth');
    await page.getByRole('button', { name: 'Dismiss the order ticket' }).click();
    await ticket.waitFor({ state: 'hidden' });
  });

  it('the dashboard and the ticket tick at phone width too', async () => {
    const { page } = c;
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await dashRow().waitFor();
      c.clock.set(c.clock.now() + 1000);
      tick(804.25);
      await expect
        .poll(async () => (await dashCell('LTP').textContent())?.trim(), { timeout: 5000 })
        .toBe('804.25');
      await expect.poll(async () => (await dashCell('P&L').textContent())?.trim()).toBe('+42.00');
      await dashRow().scrollIntoViewIfNeeded();
      await c.shot('56g-dashboard-phone-ticked');

      await page.getByRole('button', { name: 'Exit SBIN NSE MIS' }).click();
      const ticket = page.getByRole('dialog', { name: 'Order ticket' });
      await ticket.getByRole('group', { name: 'Live prices of SBIN NSE' }).waitFor();
      await expect.poll(() => text('ticket-ltp'), { timeout: 5000 }).toBe('804.25');
      c.clock.set(c.clock.now() + 1000);
      quoteWithClose({ ltp: 806.5, close: 800, bid: 806.45, ask: 806.55 });
      await expect.poll(() => text('ticket-change'), { timeout: 5000 }).toBe('+6.50 (+0.81 %)');
      expect(await text('ticket-bid')).toBe('806.45');
      expect(await text('ticket-ask')).toBe('806.55');
      expect(await page.evaluate('document.scrollingElement.scrollWidth')).toBeLessThanOrEqual(390);
      await c.shot('56h-ticket-phone');
      await page.getByRole('button', { name: 'Dismiss the order ticket' }).click();
      await ticket.waitFor({ state: 'hidden' });
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });
});

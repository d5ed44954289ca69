/**
 * The console on a phone (390 × 844, touch, the mobile viewport) driven in Chromium against the
 * real built console (docs/rules/web.md#phone-width): the dashboard, the order ticket, positions,
 * the order book and the strategy pages — nothing beyond the screen's edge (the page does not
 * scroll sideways, and the buttons and figures a trader needs are inside the viewport), the
 * navigation drawer closing on Escape, every page of the navigation fitting; the strategy
 * wizard's empty symbol said in words (docs/rules/web.md#field-messages); then on a laptop
 * (1366 × 850) the whole sidebar without scrolling, the brand in the console's colour in light
 * and dark schemes, and a tab title per page (docs/rules/web.md#page-titles). Analyzer mode on
 * the mini master contract with a scripted price feed. Screenshots go to the shared folder
 * (prefix 25-); any browser console error fails the suite.
 */
import type { Locator, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { ScriptedFeed } from '../../src/modules/sandbox/prices/price-source.js';
import { FakeClock } from '../../src/platform/clock.js';
import { SCREENSHOTS } from '../helpers/browser-journey.js';
import {
  HAVE_CHROMIUM,
  startConsoleBrowser,
  type ConsoleBrowser,
  journeyHooks,
} from '../helpers/console-browser.js';
import { importContract } from '../helpers/contracts.js';
import { ist, miniKiteContract } from '../helpers/sandbox.js';
import { TRADING_DAY } from '../helpers/strategies.js';
import { asBrowser, login, type TestApp } from '../helpers/test-app.js';

const PASSWORD = 'phone journey heron';
const PHONE = { width: 390, height: 844 };
const LAPTOP = { width: 1366, height: 850 };
/** Pages reached from the navigation's pages rather than from the navigation itself. */
const MORE_PAGES = ['/strategy/new', '/strategy/1', '/search/token', '/no-such-page'];

interface Fit {
  innerWidth: number;
  scrollWidth: number;
  /** Elements reaching past the right edge that no scrolling box of their own holds. */
  beyond: string[];
}

/**
 * How the page fits the window: its scroll width, and the visible elements past the right edge
 * that are not inside a box that scrolls or clips (a table in its own scroll box is fine).
 */
function measure(page: Page): Promise<Fit> {
  return page.evaluate(`(() => {
    const w = window.innerWidth;
    const held = (el) => {
      for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
        const o = getComputedStyle(a).overflowX;
        if (o === 'auto' || o === 'scroll' || o === 'hidden' || o === 'clip') return true;
      }
      return false;
    };
    const beyond = [];
    for (const el of document.querySelectorAll('body *')) {
      const b = el.getBoundingClientRect();
      if (b.width === 0 || b.height === 0 || b.right <= w + 0.5) continue;
      if (getComputedStyle(el).visibility === 'hidden' || held(el)) continue;
      beyond.push(el.tagName.toLowerCase() + ' "' + (el.textContent || '').trim().slice(0, 40) + '" right=' + Math.round(b.right));
    }
    return { innerWidth: w, scrollWidth: document.scrollingElement.scrollWidth, beyond: beyond.slice(0, 5) };
  })()`);
}

describe.skipIf(!HAVE_CHROMIUM)('the console on a phone, and on a laptop', () => {
  let c: ConsoleBrowser;
  let apikey = '';
  const feed = new ScriptedFeed();
  let clock: FakeClock;
  const quote = (ltp: number) => ({
    ltp,
    bid: ltp - 0.05,
    ask: ltp + 0.05,
    high: ltp * 1.05,
    low: ltp * 0.95,
    timestamp: clock.now(),
  });

  /** Asserts the page fits the phone: no sideways scroll, nothing past the edge. */
  async function expectFits(what: string) {
    const fit = await measure(c.page);
    expect(fit.innerWidth, `${what}: the window is the phone's`).toBe(PHONE.width);
    expect(fit.scrollWidth, `${what}: ${fit.beyond.join('; ')}`).toBeLessThanOrEqual(PHONE.width);
    expect(fit.beyond, what).toEqual([]);
  }

  /** Asserts an element is drawn wholly inside the phone's width. */
  async function expectOnScreen(what: string, el: Locator) {
    await el.waitFor();
    const box = await el.boundingBox();
    expect(box, `${what} is drawn`).not.toBeNull();
    expect(box!.x, `${what}: left edge`).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width, `${what}: right edge`).toBeLessThanOrEqual(PHONE.width + 0.5);
  }

  /** The full page from its top, as a trader scrolls through it. */
  const shot = async (name: string) => {
    await c.page.evaluate('window.scrollTo(0, 0)');
    await c.page.screenshot({ path: `${SCREENSHOTS}/${name}.png`, fullPage: true });
  };

  beforeAll(async () => {
    clock = new FakeClock(ist(TRADING_DAY, '10:00'));
    c = await startConsoleBrowser(
      {
        clock,
        env: {
          API_RATE_LIMIT: '100000 per second',
          ORDER_RATE_LIMIT: '100000 per second',
          SMART_ORDER_RATE_LIMIT: '1000 per second',
        },
      },
      { viewport: PHONE, isMobile: true, hasTouch: true },
    );
    await c.app.auth.users.createFirst({ username: 'admin', password: PASSWORD, email: 'admin@example.com' });
    await importContract({ services: c.app } as never, 'zerodha', miniKiteContract());
    apikey = (await c.app.auth.apiKeys.regenerate(1)).apikey;
    await c.app.sandbox.usePriceSource(feed);
    await c.app.sandbox.mode.set(true);
    feed.push({
      'NSE:SBIN': quote(816.75),
      'NSE:RELIANCE': quote(2890.5),
      'NSE:INFY': quote(1500),
      'NFO:NIFTY18AUG2626000CE': quote(120),
    });
    await c.app.sandbox.engine.whenIdle();
    // Long and short positions, an option's long symbol, and a working LIMIT order.
    await placeOrder({ symbol: 'SBIN', action: 'BUY', quantity: 250, pricetype: 'MARKET' });
    await placeOrder({ symbol: 'RELIANCE', action: 'SELL', quantity: 70, pricetype: 'MARKET' });
    await placeOrder({
      symbol: 'NIFTY18AUG2626000CE',
      exchange: 'NFO',
      product: 'NRML',
      action: 'BUY',
      quantity: 130,
      pricetype: 'MARKET',
    });
    await placeOrder({ symbol: 'INFY', action: 'BUY', quantity: 5, pricetype: 'LIMIT', price: 1400 });
    await c.app.sandbox.engine.whenIdle();
    feed.push({ 'NSE:SBIN': quote(820.1), 'NSE:RELIANCE': quote(2880) });
    await c.app.sandbox.engine.whenIdle();
    const admin = await login({ app: c.app } as TestApp, 'admin', PASSWORD);
    const made = await c.app.inject({
      method: 'POST',
      url: '/strategy/api/strategies',
      headers: asBrowser(admin),
      payload: {
        name: 'SBIN momentum signals',
        kind: 'signal',
        product: 'MIS',
        legs: [{ symbol: 'SBIN', exchange: 'NSE', quantity: 1 }],
      },
    });
    expect(made.statusCode, made.body).toBe(201);
    await c.signIn('admin', PASSWORD);
  }, 120_000);

  journeyHooks(() => c, '25');

  async function placeOrder(order: Record<string, unknown>) {
    const res = await fetch(`${c.base}/api/v1/placeorder`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apikey, strategy: 'phone', exchange: 'NSE', product: 'MIS', ...order }),
    });
    expect(res.status, await res.clone().text()).toBe(200);
  }

  /** A book's row (its `data-key`), and one of its cells by the label its card shows. */
  const row = (key: string) => c.page.locator(`tr[data-key="${key}"]`);
  const cell = (key: string, label: string) => row(key).locator(`td[data-label="${label}"]`);

  it('shows the dashboard within the screen: sign out, the mode switch, and each position’s figures', async () => {
    const { page, base } = c;
    await page.goto(`${base}/dashboard`);
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    await page.getByRole('table', { name: 'Open positions' }).waitFor();
    await page.getByRole('table', { name: 'Latest orders' }).waitFor();
    await page.waitForTimeout(300);
    await expectFits('/dashboard');
    await expectOnScreen('Sign out', c.button('Sign out'));
    await expectOnScreen('the mode badge', page.getByLabel('Mode: Analyzer'));
    await expectOnScreen('the mode switch', c.button('Switch to Live'));
    await expectOnScreen('New order', c.button('New order'));
    const sbin = 'NSE:SBIN:MIS';
    const positions = page.getByRole('table', { name: 'Open positions' });
    for (const [label, text] of [
      ['Quantity', /^250$/],
      ['LTP', /^820\.10$/],
      ['P&L', /^\+[\d,]+\.\d{2}$/],
    ] as const) {
      const figure = positions.locator(`tr[data-key="${sbin}"] td[data-label="${label}"]`);
      await expectOnScreen(`SBIN's ${label}`, figure);
      expect(await figure.textContent()).toMatch(text);
    }
    await expectOnScreen('the exit button', page.getByRole('button', { name: 'Exit SBIN NSE MIS' }));
    // Money in one writing: Indian grouping (lakhs), two decimals, the rupee sign.
    await page
      .getByText(/^₹\d{1,2}(,\d\d)+,\d{3}\.\d{2}$/)
      .first()
      .waitFor();
    await shot('25a-dashboard-phone');
  });

  it('opens the navigation from the burger and closes it on Escape, the focus back on the burger', async () => {
    const { page } = c;
    const burger = page.getByRole('button', { name: 'Toggle navigation' });
    const nav = page.getByRole('navigation', { name: 'Main navigation' });
    await burger.click();
    await expect.poll(async () => (await nav.boundingBox())?.x ?? -1).toBe(0);
    expect(await burger.getAttribute('aria-expanded')).toBe('true');
    await expectOnScreen('the Latency entry', nav.getByRole('link', { name: 'Latency' }));
    await page.waitForTimeout(300);
    await c.page.screenshot({ path: `${SCREENSHOTS}/25b-drawer-phone.png` });
    await page.keyboard.press('Escape');
    await expect
      .poll(async () => {
        const box = await nav.boundingBox();
        return box === null || box.x + box.width <= 0;
      })
      .toBe(true);
    expect(await burger.getAttribute('aria-expanded')).toBe('false');
    expect(await page.evaluate('document.activeElement?.getAttribute("aria-label")')).toBe(
      'Toggle navigation',
    );
    await expectFits('/dashboard after the drawer');
  });

  it('fits the order ticket: BUY, SELL, the fields, the close button and the answer', async () => {
    const { page } = c;
    await c.button('New order').click();
    const ticket = page.getByRole('dialog', { name: 'Order ticket' });
    await ticket.getByRole('combobox', { name: 'Exchange' }).selectOption('NFO');
    await ticket.getByRole('textbox', { name: 'Symbol' }).fill('NIFTY18');
    await ticket.getByRole('listitem', { name: 'NIFTY18AUG2626000CE NFO' }).click();
    await ticket.getByTestId('ticket-facts').getByText('Lot size 65').waitFor();
    await ticket.getByRole('textbox', { name: 'Quantity' }).fill('65');
    await page.waitForTimeout(300);
    await expectFits('the order ticket');
    for (const [what, el] of [
      ['BUY', ticket.getByText('BUY', { exact: true }).first()],
      ['SELL', ticket.getByText('SELL', { exact: true })],
      ['the symbol', ticket.getByRole('textbox', { name: 'Symbol' })],
      ['the quantity', ticket.getByRole('textbox', { name: 'Quantity' })],
      ['the close button', ticket.getByRole('button', { name: 'Dismiss the order ticket' })],
      ['Place', ticket.getByRole('button', { name: 'Place BUY order' })],
    ] as const)
      await expectOnScreen(`the ticket's ${what}`, el);
    await c.page.screenshot({ path: `${SCREENSHOTS}/25c-ticket-phone.png` });
    await ticket.getByText('SELL', { exact: true }).click();
    await ticket.getByRole('button', { name: 'Place SELL order' }).click();
    await ticket.getByTestId('ticket-orderid').waitFor();
    await ticket.getByTestId('ticket-status').waitFor();
    await page.waitForTimeout(300);
    await expectFits('the placed order');
    await expectOnScreen('Place another', ticket.getByRole('button', { name: 'Place another' }));
    await expectOnScreen('Close', ticket.getByRole('button', { name: 'Close', exact: true }));
    await c.page.screenshot({ path: `${SCREENSHOTS}/25d-ticket-placed-phone.png` });
    await ticket.getByRole('button', { name: 'Close', exact: true }).click();
    await ticket.waitFor({ state: 'hidden' });
  });

  it('shows each position as a card: symbol, quantity, LTP and P&L on screen, and closes one', async () => {
    const { page, base } = c;
    await page.goto(`${base}/positions`);
    await page.getByRole('heading', { name: 'Positions', level: 1 }).waitFor();
    const key = 'NSE:RELIANCE:MIS';
    await row(key).waitFor();
    await page.waitForTimeout(300);
    await expectFits('/positions');
    await expectOnScreen('the symbol', row(key).getByText('RELIANCE', { exact: true }));
    for (const [label, text] of [
      ['Net quantity', '-70'],
      ['LTP', '2,880.00'],
      ['P&L', '+731.50'],
    ] as const) {
      await expectOnScreen(`RELIANCE's ${label}`, cell(key, label));
      expect(await cell(key, label).textContent()).toBe(text);
    }
    // A screen reader hears each figure with its label (the card's headings are hidden).
    await page
      .getByRole('table', { name: 'Positions' })
      .getByRole('cell', { name: 'LTP 2,880.00' })
      .waitFor();
    // The option's long symbol wraps within its card.
    await expectOnScreen('the option', row('NFO:NIFTY18AUG2626000CE:NRML').getByText('NIFTY18AUG2626000CE'));
    await shot('25e-positions-phone');
    // The select filters fold under one button; unfolded, they fit too.
    await c.button('Filters and sort').click();
    await page.getByRole('combobox', { name: 'Sort by' }).selectOption({ label: 'P&L (high to low)' });
    await expectFits('/positions with its filters');
    expect(await page.locator('tbody tr').first().getAttribute('data-key')).toBe('NSE:SBIN:MIS');
    await page.getByRole('button', { name: 'Close RELIANCE NSE MIS' }).click();
    const confirm = page.getByRole('dialog', { name: 'Close this position?' });
    await expectOnScreen('the confirmation', confirm.getByRole('button', { name: 'Close position' }));
    await confirm.getByRole('button', { name: 'Close position' }).click();
    await page
      .getByTestId('book-outcome')
      .getByText(/Closing order \d+ placed for RELIANCE/)
      .waitFor();
    await cell(key, 'Net quantity').getByText('0', { exact: true }).waitFor();
    await expectFits('/positions after closing');
  });

  it('shows each order as a card: symbol, side, quantity, status and price on screen', async () => {
    const { page, base } = c;
    await page.goto(`${base}/orderbook`);
    await page.getByRole('heading', { name: 'Order book', level: 1 }).waitFor();
    await row('4').waitFor();
    await page.waitForTimeout(300);
    await expectFits('/orderbook');
    await expectOnScreen('the symbol', row('4').getByText('INFY', { exact: true }));
    for (const [label, text] of [
      ['Side', 'BUY'],
      ['Filled / qty', '0 / 5'],
      ['Status', 'open'],
      ['Price', '1,400.00'],
    ] as const) {
      await expectOnScreen(`the order's ${label}`, cell('4', label));
      expect(await cell('4', label).textContent()).toBe(text);
    }
    await expectOnScreen('Modify', page.getByRole('button', { name: 'Modify order 4' }));
    await expectOnScreen('Cancel', page.getByRole('button', { name: 'Cancel order 4' }));
    // A MARKET order's card says no price and leaves out the trigger it does not have.
    expect(await cell('1', 'Price').textContent()).toBe('–');
    expect(await cell('1', 'Trigger').isVisible()).toBe(false);
    await shot('25f-orderbook-phone');
  });

  it('fits the strategy list and a strategy’s page', async () => {
    const { page, base } = c;
    await page.goto(`${base}/strategy`);
    const card = page.getByRole('list', { name: 'Strategies' }).getByRole('listitem', {
      name: 'SBIN momentum signals',
    });
    await card.waitFor();
    await page.waitForTimeout(300);
    await expectFits('/strategy');
    await expectOnScreen('the strategy’s card', card);
    await expectOnScreen('New strategy', page.getByRole('link', { name: 'New strategy' }).first());
    await shot('25g-strategies-phone');
    await card.getByRole('link', { name: 'SBIN momentum signals' }).click();
    await page.getByRole('heading', { name: 'SBIN momentum signals', level: 1 }).waitFor();
    await page.getByText('Alert message: long_entry').waitFor();
    await page.waitForTimeout(300);
    await expectFits('/strategy/1');
    for (const name of ['Lock the webhook', 'Rotate the token', 'Delete'])
      await expectOnScreen(name, c.button(name));
    await shot('25h-strategy-phone');
  });

  it('says "Enter a symbol" under an empty leg symbol the server refused', async () => {
    const { page, base } = c;
    await page.goto(`${base}/strategy/new`);
    await c.field('Name').fill('No symbol yet');
    await c.button('Next').click();
    await page.getByRole('combobox', { name: 'Leg 1 symbol' }).waitFor();
    await c.button('Next').click();
    c.expected.add('/strategy/api/strategies');
    await c.button('Create strategy').click();
    const symbol = page.getByRole('combobox', { name: 'Leg 1 symbol' });
    await symbol.waitFor();
    await expect.poll(() => symbol.getAttribute('aria-invalid')).toBe('true');
    await page.getByText('Enter a symbol', { exact: true }).waitFor();
    expect(await page.getByText(/fewer than 1 characters/).count()).toBe(0);
    await page.waitForTimeout(300);
    await expectFits('/strategy/new');
    await shot('25i-wizard-symbol-message-phone');
  });

  it('fits every page of the console on a phone, each with a title of its own', async () => {
    const { page, base } = c;
    const titles = new Map<string, string>();
    // The console's own 404 page: the server answers an unknown path 404 (docs/rules/web.md#app-shell-paths).
    c.expected.add('/no-such-page');
    // Every entry of the navigation (an administrator sees them all: a page added there is checked too).
    await page.goto(`${base}/dashboard`);
    await page.locator('#main-navigation a[href]').first().waitFor({ state: 'attached' });
    const entries = await page
      .locator('#main-navigation a[href]')
      .evaluateAll((links) => links.map((a) => a.getAttribute('href') ?? ''));
    expect(entries.length).toBeGreaterThanOrEqual(20);
    for (const path of [...entries, ...MORE_PAGES]) {
      // Through the router, as the navigation does (a whole page load for each cost most of this
      // test's time): the page is drawn as a person reaches it.
      await page.evaluate(
        `history.pushState({}, '', ${JSON.stringify(path)}); dispatchEvent(new PopStateEvent('popstate'))`,
      );
      await page.waitForURL(`${base}${path}`);
      // The console's 404 page (a path no route draws) has no heading of its own.
      await (
        path === '/no-such-page' ? page.getByText('No such page') : page.locator('h1').first()
      ).waitFor();
      // Loaded: no spinner left (charts, tables and figures drawn), checked every 50 ms (the
      // console's policy refuses waitForFunction's evaluated strings).
      const loading = `[...document.querySelectorAll('[role=status]')].some((e) => /Loading|Reading/.test(e.textContent || ''))`;
      for (const until = Date.now() + 8_000; await page.evaluate<boolean>(loading);) {
        if (Date.now() > until) throw new Error(`${path}: still loading after 8 s`);
        await page.waitForTimeout(50);
      }
      await page.waitForTimeout(100);
      await expectFits(path);
      titles.set(path, await page.title());
    }
    expect(titles.get('/positions')).toBe('Positions · algodesk');
    expect(titles.get('/strategy/1')).toBe('Strategy · algodesk');
    expect(titles.get('/no-such-page')).toBe('Page not found · algodesk');
    const named = [...titles.values()];
    expect(
      named.every((t) => t.endsWith(' · algodesk')),
      named.join(', '),
    ).toBe(true);
    expect(new Set(named).size, named.join(', ')).toBe(named.length);
  }, 120_000);

  it('on a laptop shows every sidebar entry without scrolling, and the brand in the console’s colour', async () => {
    const { browser, base, page } = c;
    const laptop = await browser.newContext({
      viewport: LAPTOP,
      storageState: await page.context().storageState(),
    });
    try {
      const p = await laptop.newPage();
      p.on('pageerror', (err) => c.consoleErrors.push(`laptop pageerror: ${err.message}`));
      p.on('console', (msg) => {
        if (msg.type() === 'error') c.consoleErrors.push(`laptop: ${msg.text()}`);
      });
      await p.goto(`${base}/dashboard`);
      await p.getByTestId('analyzer-banner').waitFor();
      const nav = p.getByRole('navigation', { name: 'Main navigation' });
      const links = nav.getByRole('link');
      await links.first().waitFor();
      // The navigation's scroll box holds everything: nothing to scroll to.
      const scroll = await nav.evaluate((el) => {
        const box = el.querySelector('.mantine-ScrollArea-viewport') ?? el;
        return { height: box.scrollHeight, shown: box.clientHeight };
      });
      expect(scroll.height).toBeLessThanOrEqual(scroll.shown);
      const names = await links.allTextContents();
      expect(names).toContain('Latency');
      expect(names).toContain('Administration');
      for (const name of names) {
        const box = await nav.getByRole('link', { name, exact: true }).boundingBox();
        expect(box, name).not.toBeNull();
        expect(box!.y + box!.height, `${name} is above the window's bottom`).toBeLessThanOrEqual(
          LAPTOP.height,
        );
      }
      // The brand: the icon's blue, not a link's.
      const brand = p.getByRole('banner').getByRole('link', { name: 'algodesk' });
      const brandStyle = (property: string) =>
        p.evaluate(`getComputedStyle(document.querySelector('header a[href="/"]')).${property}`);
      await brand.waitFor();
      expect(await brandStyle('color')).toBe('rgb(28, 126, 214)');
      expect(await brandStyle('textDecorationLine')).toBe('none');
      await p.screenshot({ path: `${SCREENSHOTS}/25j-sidebar-laptop.png` });
      // In the dark scheme, a lighter step of the same blue.
      await p.evaluate(`localStorage.setItem('mantine-color-scheme-value', 'dark')`);
      await p.reload();
      await brand.waitFor();
      await expect.poll(() => p.evaluate(`document.documentElement.dataset.mantineColorScheme`)).toBe('dark');
      expect(await brandStyle('color')).toBe('rgb(77, 171, 247)');
      await p.screenshot({
        path: `${SCREENSHOTS}/25k-header-dark-laptop.png`,
        clip: { x: 0, y: 0, width: LAPTOP.width, height: 140 },
      });
      await p.evaluate(`localStorage.removeItem('mantine-color-scheme-value')`);
      // Each page names its tab.
      const titles: string[] = [];
      for (const name of ['Positions', 'Orders', 'Strategies', 'Latency']) {
        await nav.getByRole('link', { name, exact: true }).click();
        await p.locator('h1').first().waitFor();
        titles.push(await p.title());
      }
      expect(titles).toEqual([
        'Positions · algodesk',
        'Order book · algodesk',
        'Strategies · algodesk',
        'Latency · algodesk',
      ]);
    } finally {
      await laptop.close();
    }
  });
});

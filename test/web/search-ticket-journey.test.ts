/**
 * Search, the token lookup and the order ticket driven in Chromium against the real built console
 * (docs/rules/web.md#order-ticket, docs/rules/market.md#empty-session-search): analyzer mode, a
 * master contract cut from the real Kite snapshots (NIFTY options and futures, SBIN) and a
 * scripted sandbox price feed. "NIFTY" is searched with an underlying and expiry filter, the
 * ticket opened from a result with the keyboard, a quantity that is not a whole number of lots
 * refused before sending, the server's message shown under the field it names, and a LIMIT order
 * placed: its id and message shown, and the order found in the order book through the API. The
 * token lookup finds SBIN's token and SBIN by it; in live mode (a Kite Connect stub on loopback)
 * the ticket asks first, naming the broker, and only then sends the order.
 * Screenshots go to the shared folder (prefix 70-); any browser console error fails the suite.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/platform/clock.js';
import { ScriptedFeed } from '../../src/modules/sandbox/prices/price-source.js';
import { HAVE_CHROMIUM, startConsoleBrowser, type ConsoleBrowser } from '../helpers/console-browser.js';
import { importContract } from '../helpers/contracts.js';
import { startKiteOrderStub, type KiteOrderStub } from '../helpers/broker-order-stubs.js';
import { KITE_CREDS, kiteContract } from '../helpers/orders-app.js';

const PASSWORD = 'search ticket journey otter';
/** Kite trading symbols of the cut (NIFTY lot 65; options tick 0.05, futures 0.10). */
const KITE_SYMBOLS = [
  'NIFTY2681826000CE',
  'NIFTY2681826000PE',
  'NIFTY2681826500CE',
  'NIFTY26AUG26000CE',
  'NIFTY26AUG26000PE',
  'NIFTY26AUGFUT',
  'NIFTY26SEPFUT',
  'SBIN',
  'NIFTY 50',
];
/** The monthly 26000 call, as the master contract names it. */
const CALL = 'NIFTY25AUG2626000CE';

describe.skipIf(!HAVE_CHROMIUM)('search and the order ticket in Chromium', () => {
  let c: ConsoleBrowser;
  let apikey = '';
  /** Kite Connect on loopback: the broker of the live-mode step. */
  let stub: KiteOrderStub;
  const feed = new ScriptedFeed();

  beforeAll(async () => {
    // A Monday morning before the contracts' expiries (the expiry list keeps today's and later).
    const clock = new FakeClock(Date.parse('2026-08-17T10:00:00+05:30'));
    stub = await startKiteOrderStub(KITE_CREDS);
    stub.fillMarketOrders = true;
    // The fake clock stands still: lift the API and order rate limits the desk's calls count against.
    c = await startConsoleBrowser({
      clock,
      env: {
        ...stub.appEnv(),
        API_RATE_LIMIT: '100000 per second',
        ORDER_RATE_LIMIT: '100000 per second',
      },
    });
    await c.app.auth.users.createFirst({ username: 'admin', password: PASSWORD, email: 'admin@example.com' });
    await importContract({ services: c.app }, 'zerodha', kiteContract(KITE_SYMBOLS));
    await c.app.marketAdmin.freeze.add({ exchange: 'NFO', symbol: 'NIFTY', freeze_qty: 1800 });
    await c.app.sandbox.mode.set(true);
    await c.app.sandbox.usePriceSource(feed);
    feed.push({
      [`NFO:${CALL}`]: { ltp: 120, bid: 119.95, ask: 120.5, high: 140, low: 95, timestamp: clock.now() },
    });
    apikey = (await c.app.auth.apiKeys.regenerate(1)).apikey;
    await c.signIn('admin', PASSWORD);
  }, 120_000);

  afterAll(async () => {
    await c?.close();
    await stub?.close();
    expect(c?.consoleErrors ?? []).toEqual([]);
  });

  afterEach(async (ctx) => {
    if (ctx.task.result?.state === 'fail')
      await c
        .shot(`70-failed-${ctx.task.name.replace(/[^a-z0-9]+/gi, '-').slice(0, 40)}`)
        .catch(() => undefined);
  });

  it('says in words that nothing is searched without a query or an exchange', async () => {
    const { page, base } = c;
    await page.getByRole('link', { name: 'Search' }).click();
    await page.waitForURL(`${base}/search`);
    await page.getByText('the filters alone search nothing').waitFor();
    await c.shot('70a-search-empty');
  });

  it('finds NIFTY of one expiry with lot size, tick size and freeze quantity', async () => {
    const { page } = c;
    await page.getByRole('textbox', { name: 'Search' }).fill('NIFTY');
    const table = page.getByRole('table', { name: 'Search results' });
    // Every NIFTY contract and the index first.
    await table.getByRole('cell', { name: 'NIFTY18AUG2626500CE', exact: true }).waitFor();
    await page.getByRole('combobox', { name: 'Underlying (optional)' }).selectOption('NIFTY');
    const expiry = page.getByRole('combobox', { name: 'Expiry (optional)' });
    await expiry.locator('option', { hasText: '25-AUG-26' }).waitFor({ state: 'attached' });
    // The expiries of the underlying, by date, from today.
    expect(await expiry.locator('option').allTextContents()).toEqual([
      'Any expiry',
      '18-AUG-26',
      '25-AUG-26',
      '29-SEP-26',
    ]);
    await expiry.selectOption('25-AUG-26');
    await page.getByTestId('search-count').getByText('3 results').waitFor();
    const rows = table.getByTestId('search-row');
    // The option chain's order: the future, then the strike's call and put.
    expect(await rows.locator('td:first-child').allTextContents()).toEqual([
      'NIFTY25AUG26FUT',
      CALL,
      'NIFTY25AUG2626000PE',
    ]);
    const call = rows.filter({ hasText: CALL });
    // Name, exchange, type, lot size, tick size, expiry, strike, freeze quantity.
    expect((await call.locator('td').allTextContents()).slice(1, 9)).toEqual([
      'NIFTY',
      'NFO',
      'CE',
      '65',
      '0.05',
      '25-AUG-26',
      '26000',
      '1,800',
    ]);
    await c.shot('70b-search-nifty-expiry');
  });

  it('opens the ticket from a result with the keyboard and refuses a quantity that is not whole lots', async () => {
    const { page } = c;
    await page.getByRole('textbox', { name: 'Search' }).focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    // The second result (the call) has the focus.
    await expect
      .poll(() =>
        page.evaluate(
          'document.activeElement?.getAttribute("data-testid") + " " + document.activeElement?.textContent',
        ),
      )
      .toMatch(new RegExp(`^search-row ${CALL}`));
    await c.shot('70c-search-keyboard');
    await page.keyboard.press('Enter');
    const ticket = page.getByRole('dialog', { name: 'Order ticket' });
    await ticket.waitFor();
    expect(await ticket.getByRole('textbox', { name: 'Symbol' }).inputValue()).toBe(CALL);
    expect(await ticket.getByRole('combobox', { name: 'Exchange' }).inputValue()).toBe('NFO');
    expect(await ticket.getByRole('combobox', { name: 'Product' }).inputValue()).toBe('NRML');
    await ticket.getByText('Analyzer mode: the order goes to the sandbox').waitFor();
    await ticket.getByTestId('ticket-facts').getByText(`${CALL} · NFO · Lot size 65`).waitFor();
    const quantity = ticket.getByRole('textbox', { name: 'Quantity' });
    await quantity.fill('100');
    await ticket.getByRole('button', { name: 'Place BUY order' }).click();
    await ticket
      .getByText('Quantity must be a multiple of the lot size 65: 65 or 130, for example.')
      .waitFor();
    // Said before sending: the server was not asked.
    expect(c.urls.filter((u) => u.endsWith('/desk/api/placeorder'))).toEqual([]);
    await page.waitForTimeout(300);
    await c.shot('70d-ticket-lot-size-refused');
  });

  it('shows the server’s message under the field it names', async () => {
    const { page } = c;
    const ticket = page.getByRole('dialog', { name: 'Order ticket' });
    await ticket.getByRole('textbox', { name: 'Quantity' }).fill('130');
    await ticket.getByRole('combobox', { name: 'Price type' }).selectOption('LIMIT');
    // The LIMIT starts at the LTP on the tick (120); cleared, it stays cleared.
    const price = ticket.getByRole('textbox', { name: 'Price', exact: true });
    await expect.poll(() => price.inputValue(), { timeout: 5000 }).toBe('120');
    await price.fill('');
    // No price: the server refuses it.
    c.expected.add('/desk/api/placeorder');
    await ticket.getByRole('button', { name: 'Place BUY order' }).click();
    await expect
      .poll(async () => {
        const id = await price.getAttribute('aria-describedby');
        return id
          ? await page.locator(`[id="${id.split(' ').find((x) => x.includes('error'))}"]`).textContent()
          : '';
      })
      .toMatch(/^price must be greater than 0/);
    await page.waitForTimeout(300);
    await c.shot('70e-ticket-server-message');
    c.expected.delete('/desk/api/placeorder');
  });

  it('places a LIMIT order: its id and message are shown and the order book has it', async () => {
    const { page, base } = c;
    const ticket = page.getByRole('dialog', { name: 'Order ticket' });
    await ticket.getByRole('textbox', { name: 'Price' }).fill('121');
    await ticket.getByRole('button', { name: 'Place BUY order' }).click();
    const orderid = (await ticket.getByTestId('ticket-orderid').textContent())!.trim();
    expect(orderid).toMatch(/^\d+$/);
    expect((await ticket.getByTestId('ticket-message').textContent())!.trim()).toBe(
      `The sandbox accepted BUY 130 ${CALL} on NFO, LIMIT at 121, NRML.`,
    );
    // The order book's status: the limit is at or above the ask (120.50), so it fills.
    await ticket.getByTestId('ticket-status').getByText('complete').waitFor();
    await page.waitForTimeout(300);
    await c.shot('70f-ticket-order-placed');

    const res = await fetch(`${base}/api/v1/orderbook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apikey }),
    });
    expect(res.status).toBe(200);
    const book = (await res.json()) as {
      mode: string;
      data: { orders: Array<Record<string, unknown>> };
    };
    expect(book.mode).toBe('analyze');
    const order = book.data.orders.find((o) => o.orderid === orderid);
    expect(order).toMatchObject({
      symbol: CALL,
      exchange: 'NFO',
      action: 'BUY',
      quantity: 130,
      pricetype: 'LIMIT',
      product: 'NRML',
      order_status: 'complete',
    });
    await ticket.getByRole('button', { name: 'Close' }).click();
    await ticket.waitFor({ state: 'hidden' });
  });

  it('suggests symbols as the ticket’s symbol is typed, with the lot size', async () => {
    const { page } = c;
    await page
      .getByTestId('search-row')
      .filter({ hasText: 'NIFTY25AUG2626000PE' })
      .getByRole('button', { name: 'Sell NIFTY25AUG2626000PE NFO' })
      .click();
    const ticket = page.getByRole('dialog', { name: 'Order ticket' });
    await ticket.waitFor();
    expect(await ticket.getByRole('radio', { name: 'SELL' }).isChecked()).toBe(true);
    const symbol = ticket.getByRole('textbox', { name: 'Symbol' });
    await symbol.fill('NIFTY 26500 CE');
    const list = ticket.getByRole('list', { name: 'Symbol suggestions' });
    await list.getByRole('listitem', { name: 'NIFTY18AUG2626500CE NFO' }).waitFor();
    await page.waitForTimeout(300);
    await c.shot('70g-ticket-suggestions');
    await list.getByRole('listitem', { name: 'NIFTY18AUG2626500CE NFO' }).click();
    expect(await symbol.inputValue()).toBe('NIFTY18AUG2626500CE');
    await ticket.getByTestId('ticket-facts').getByText('Lot size 65').waitFor();
    await ticket.getByRole('button', { name: 'Cancel' }).click();
    await ticket.waitFor({ state: 'hidden' });
  });

  it('finds a symbol’s token on /search/token, and the symbol by its token', async () => {
    const { page, base } = c;
    const sbin = await c.app.market.contracts.get('SBIN', 'NSE');
    expect(sbin).toBeTruthy();
    await page.goto(`${base}/search/token`);
    await page.getByRole('heading', { name: 'Token lookup' }).waitFor();
    await page.getByRole('textbox', { name: 'Symbol' }).fill('sbin');
    await page.getByRole('combobox', { name: 'Exchange' }).selectOption('NSE');
    await c.button('Look up').click();
    const found = page.getByRole('table', { name: 'Instruments found' });
    expect((await found.getByTestId('token-value').textContent())!.trim()).toBe(sbin!.token);
    await c.shot('70h-token-by-symbol');

    await page.getByRole('form', { name: 'Token lookup' }).getByText('Token', { exact: true }).click();
    await page.getByRole('textbox', { name: 'Token' }).fill(sbin!.token);
    const answered = page.waitForResponse((r) => r.url().includes(`/search/token?token=${sbin!.token}`));
    await c.button('Look up').click();
    expect((await answered).status()).toBe(200);
    await found.getByTestId('token-value').waitFor();
    expect(await found.getByRole('row').nth(1).getByRole('cell').allTextContents()).toEqual(
      expect.arrayContaining(['SBIN', 'NSE', sbin!.token]),
    );
    await page.getByRole('textbox', { name: 'Token' }).fill('999999999');
    await c.button('Look up').click();
    await page.getByText('No instrument has the token 999999999.').waitFor();
    await c.shot('70i-token-not-found');
  });
  it('in live mode asks first, naming the broker, then sends the order to it', async () => {
    const { page, base } = c;
    // The broker session only now: until here the feed's prices are the sandbox's (a session makes
    // Kite's stream the feed's upstream), which the ticket's LIMIT prefill above reads.
    await c.app.brokers.sessions.set(1, 'zerodha', { accessToken: KITE_CREDS.accessToken });
    // The Kite stub here serves orders, not quotes: the ticket's circuit-band read (the user's
    // broker session prices quotes, docs/rules/market-data.md#data-source) is its 404.
    c.expected.add('/desk/api/quotes');
    await c.app.sandbox.mode.set(false);
    await page.goto(`${base}/search`);
    await page.getByRole('textbox', { name: 'Search' }).fill('SBIN');
    await page.getByRole('button', { name: 'Buy SBIN NSE' }).click();
    const ticket = page.getByRole('dialog', { name: 'Order ticket' });
    await ticket.getByText('Live mode: the order goes to your broker after a confirmation.').waitFor();
    expect(await ticket.getByRole('combobox', { name: 'Product' }).inputValue()).toBe('CNC');
    // The cash exchange's products: no NRML.
    expect(
      await ticket.getByRole('combobox', { name: 'Product' }).locator('option').allTextContents(),
    ).toEqual(['CNC', 'MIS']);
    await ticket.getByRole('textbox', { name: 'Quantity' }).fill('2');
    await ticket.getByRole('button', { name: 'Review the order' }).click();
    await ticket.getByTestId('ticket-broker').getByText('zerodha').waitFor();
    expect((await ticket.getByTestId('ticket-summary').textContent())!.trim()).toBe(
      'BUY 2 SBIN NSE · MARKET · CNC',
    );
    // Nothing is sent before the confirmation.
    expect(stub.placed('BUY')).toEqual([]);
    await page.waitForTimeout(300);
    await c.shot('70j-ticket-live-confirmation');
    await ticket.getByRole('button', { name: 'Send to the broker' }).click();
    const orderid = (await ticket.getByTestId('ticket-orderid').textContent())!.trim();
    expect(stub.placed('BUY')).toEqual([{ id: orderid, quantity: 2 }]);
    await ticket.getByTestId('ticket-status').waitFor();
    await page.waitForTimeout(300);
    await c.shot('70k-ticket-live-placed');
    await ticket.getByRole('button', { name: 'Close' }).click();
    await c.app.sandbox.mode.set(true);
  });
  it('fits a phone screen', async () => {
    const { page, base } = c;
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${base}/search`);
    await page.getByRole('textbox', { name: 'Search' }).fill('NIFTY 26000');
    await page.getByTestId('search-count').getByText('4 results').waitFor();
    await c.shot('70l-search-phone');
    await page.getByRole('button', { name: `Buy ${CALL} NFO` }).click();
    const ticket = page.getByRole('dialog', { name: 'Order ticket' });
    await ticket.getByTestId('ticket-facts').getByText('Lot size 65').waitFor();
    await page.waitForTimeout(300);
    await c.shot('70m-ticket-phone');
    await ticket.getByRole('button', { name: 'Cancel' }).click();
    await page.setViewportSize({ width: 1280, height: 800 });
  });
});

/**
 * The trader's books and the Action Center driven in Chromium against the real built console
 * (docs/rules/web.md#desk-calls, docs/rules/orders.md#action-center): analyzer mode on a mini
 * master contract with a scripted price feed; an order placed through the API shows on
 * /orderbook without a reload (the live socket), is modified and cancelled from the page, then
 * every open order is cancelled at once; a filled MARKET order's position is closed from
 * /positions; the trade book and holdings show their rows and empty state; the order book's CSV
 * export downloads the rows shown; a semi-automatic key's orders are approved and rejected on
 * /action-center; and a book of 500 orders is drawn in full (the time is reported, not asserted).
 * Screenshots go to the shared folder (prefix 50-); the suite fails on any browser console error.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { beforeAll, describe, expect, it } from 'vitest';
import { ScriptedFeed } from '../../src/modules/sandbox/prices/price-source.js';
import {
  HAVE_CHROMIUM,
  startConsoleBrowser,
  type ConsoleBrowser,
  journeyHooks,
} from '../helpers/console-browser.js';
import { importContract } from '../helpers/contracts.js';
import { miniKiteContract } from '../helpers/sandbox.js';

const PASSWORD = 'books journey horse';
const SBIN_LTP = 800;

describe.skipIf(!HAVE_CHROMIUM)('the books and the Action Center in Chromium', () => {
  let c: ConsoleBrowser;
  let apikey = '';
  /** The first LIMIT order, placed through the API. */
  let limitId = '';
  const feed = new ScriptedFeed();

  beforeAll(async () => {
    c = await startConsoleBrowser({
      env: {
        API_RATE_LIMIT: '100000 per second',
        ORDER_RATE_LIMIT: '100000 per second',
        SMART_ORDER_RATE_LIMIT: '1000 per second',
      },
    });
    await c.app.auth.users.createFirst({ username: 'admin', password: PASSWORD, email: 'admin@example.com' });
    await importContract({ services: c.app } as never, 'zerodha', miniKiteContract());
    apikey = (await c.app.auth.apiKeys.regenerate(1)).apikey;
    await c.app.sandbox.usePriceSource(feed);
    await c.app.sandbox.mode.set(true);
    tick(SBIN_LTP);
    await c.signIn('admin', PASSWORD);
  }, 120_000);

  journeyHooks(() => c, '50');

  /** A SBIN quote stamped with the app's clock (bid/ask 5 paise either side). */
  function tick(ltp: number) {
    feed.push({
      'NSE:SBIN': {
        ltp,
        bid: ltp - 0.05,
        ask: ltp + 0.05,
        high: ltp * 1.05,
        low: ltp * 0.95,
        timestamp: c.clock.now(),
      },
    });
  }

  /** POST /api/v1/placeorder with the user's key, as a script would. */
  async function placeOrder(body: Record<string, unknown>) {
    const res = await fetch(`${c.base}/api/v1/placeorder`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        apikey,
        strategy: 'journey',
        symbol: 'SBIN',
        exchange: 'NSE',
        product: 'CNC',
        ...body,
      }),
    });
    const json = (await res.json()) as { status: string; orderid?: string; pending_order_id?: number };
    expect(res.status, JSON.stringify(json)).toBe(200);
    return json;
  }

  const ordersTable = () => c.page.getByRole('table', { name: 'Orders' });
  const orderRow = (id: string) => ordersTable().locator(`tr[data-key="${id}"]`);
  const sandboxOrder = (id: string) =>
    c.t.db.database.db
      .selectFrom('sandbox_orders')
      .selectAll()
      .where('id', '=', Number(id))
      .executeTakeFirst();

  it('shows an order placed through the API on /orderbook within 2 s, without a reload', async () => {
    const { page, base } = c;
    await page.getByRole('link', { name: 'Orders', exact: true }).click();
    await page.waitForURL(`${base}/orderbook`);
    await page.getByText('No order today').waitFor();
    await page.getByRole('status', { name: 'Live updates on' }).waitFor();
    await c.shot('50a-orderbook-empty');
    await page.evaluate('window.__noReload = 1');
    const placed = await placeOrder({ action: 'BUY', quantity: 5, pricetype: 'LIMIT', price: 700 });
    expect(placed.orderid).toBeTruthy();
    limitId = placed.orderid!;
    const row = orderRow(placed.orderid!);
    await row.waitFor({ timeout: 2_000 });
    await row.getByText('open', { exact: true }).waitFor();
    expect(await page.evaluate('window.__noReload')).toBe(1);
    await expect(page.getByTestId('book-count').textContent()).resolves.toContain('1 order');
    await c.shot('50b-orderbook-live-row');
  });

  it('modifies the LIMIT order from its form, cancels it, then cancels all open orders', async () => {
    const { page } = c;
    const id = limitId;
    await page.getByRole('button', { name: `Modify order ${id}` }).click();
    const dialog = page.getByRole('dialog', { name: `Modify order ${id}` });
    expect(await dialog.getByRole('textbox', { name: 'Price', exact: true }).inputValue()).toBe('700');
    expect(await dialog.getByRole('textbox', { name: 'Quantity', exact: true }).inputValue()).toBe('5');
    await dialog.getByRole('textbox', { name: 'Quantity', exact: true }).fill('3');
    await dialog.getByRole('textbox', { name: 'Price', exact: true }).fill('710.5');
    await c.shot('50c-modify-form');
    await dialog.getByRole('button', { name: 'Modify order' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByTestId('book-outcome').waitFor();
    expect(await page.getByTestId('book-outcome').textContent()).toMatch(/modif/i);
    const row = orderRow(id);
    await row.getByRole('cell', { name: '710.50', exact: true }).waitFor();
    await row.getByRole('cell', { name: '0 / 3', exact: true }).waitFor();
    const stored = await sandboxOrder(id);
    expect(stored).toMatchObject({ quantity: 3, status: 'open' });
    await c.shot('50d-modified');

    await page.getByRole('button', { name: `Cancel order ${id}` }).click();
    const confirm = page.getByRole('dialog', { name: 'Cancel this order?' });
    await confirm.getByText('It stops working').waitFor();
    await c.shot('50e-cancel-confirm');
    await confirm.getByRole('button', { name: 'Cancel order' }).click();
    await confirm.waitFor({ state: 'hidden' });
    await page
      .getByTestId('book-outcome')
      .getByText(/cancel/i)
      .waitFor();
    await row.getByText('cancelled', { exact: true }).waitFor();
    expect((await sandboxOrder(id))?.status).toBe('cancelled');

    const a = await placeOrder({ action: 'BUY', quantity: 2, pricetype: 'LIMIT', price: 650 });
    const b = await placeOrder({ action: 'BUY', quantity: 1, pricetype: 'LIMIT', price: 660 });
    await orderRow(a.orderid!).waitFor();
    await orderRow(b.orderid!).waitFor();
    await c.button('Cancel all open orders').click();
    const all = page.getByRole('dialog', { name: 'Cancel every open order?' });
    await all.getByText('All 2 open orders').waitFor();
    await all.getByRole('button', { name: 'Cancel all' }).click();
    await all.waitFor({ state: 'hidden' });
    await page
      .getByTestId('book-outcome')
      .getByText(/Canceled 2 orders/i)
      .waitFor();
    await orderRow(a.orderid!).getByText('cancelled', { exact: true }).waitFor();
    await orderRow(b.orderid!).getByText('cancelled', { exact: true }).waitFor();
    expect(await c.button('Cancel all open orders').isDisabled()).toBe(true);
    await c.shot('50f-cancelled-all');
  });

  it('sorts and filters the order book and exports the rows shown as CSV', async () => {
    const { page } = c;
    // The cancelled orders, narrowed by the text filter to the one at ₹650: one row.
    await page.getByRole('combobox', { name: 'Status' }).selectOption('cancelled');
    await expect(page.getByTestId('book-count').textContent()).resolves.toContain('3 orders, 3 shown');
    await page.getByRole('combobox', { name: 'Status' }).selectOption('open');
    await page.getByText('No order matches the filters.').waitFor();
    await page.getByRole('combobox', { name: 'Status' }).selectOption('cancelled');
    await c.field('Filter').fill('650');
    await expect(page.getByTestId('book-count').textContent()).resolves.toContain('3 orders, 1 shown');
    await c.shot('50g-filtered');
    const [download] = await Promise.all([page.waitForEvent('download'), c.button('Export CSV').click()]);
    expect(download.suggestedFilename()).toMatch(/^orders-\d{4}-\d{2}-\d{2}\.csv$/);
    const csv = readFileSync((await download.path())!, 'utf8')
      .trim()
      .split('\r\n');
    expect(csv).toHaveLength(2);
    const header = csv[0]!.split(',');
    expect(header).toEqual(expect.arrayContaining(['Order id', 'Price', 'Status', 'Reason', 'Strategy']));
    const cells = csv[1]!.split(',');
    expect(cells[header.indexOf('Price')]).toBe('650');
    expect(cells[header.indexOf('Status')]).toBe('cancelled');
    expect(cells[header.indexOf('Strategy')]).toBe('journey');
    await c.button('Clear filters').click();
    await expect(page.getByTestId('book-count').textContent()).resolves.toBe('3 orders');
    // Sorted by price, highest first.
    await page.getByRole('button', { name: 'Sort by Price' }).click();
    await page.getByRole('button', { name: 'Sort by Price' }).click();
    await expect(
      page.getByRole('columnheader', { name: /Price/ }).first().getAttribute('aria-sort'),
    ).resolves.toBe('descending');
    const [all] = await Promise.all([page.waitForEvent('download'), c.button('Export CSV').click()]);
    const lines = readFileSync((await all.path())!, 'utf8')
      .trim()
      .split('\r\n');
    expect(lines).toHaveLength(4);
    const priceAt = lines[0]!.split(',').indexOf('Price');
    expect(lines.slice(1).map((l) => Number(l.split(',')[priceAt]))).toEqual([710.5, 660, 650]);
    await c.shot('50g-sorted');
  });

  it('shows a filled MARKET order as a position and closes it from /positions', async () => {
    const { page, base } = c;
    const filled = await placeOrder({ action: 'BUY', quantity: 10, pricetype: 'MARKET' });
    await orderRow(filled.orderid!).getByText('complete', { exact: true }).waitFor();
    await page.goto(`${base}/positions`);
    const table = page.getByRole('table', { name: 'Positions' });
    const row = table.getByTestId('book-row').filter({ hasText: 'SBIN' });
    await row.getByRole('cell', { name: '10', exact: true }).waitFor();
    await row.getByRole('cell', { name: 'Long', exact: true }).waitFor();
    await c.shot('50h-position-open');
    await page.getByRole('button', { name: 'Close SBIN NSE CNC' }).click();
    const confirm = page.getByRole('dialog', { name: 'Close this position?' });
    await confirm.getByText('a MARKET order to SELL 10').waitFor();
    await confirm.getByRole('button', { name: 'Close position' }).click();
    await confirm.waitFor({ state: 'hidden' });
    await page
      .getByTestId('book-outcome')
      .getByText(/Closing order \d+ placed for SBIN/)
      .waitFor();
    await row.getByRole('cell', { name: 'Closed', exact: true }).waitFor();
    // Bought at the ask (800.05), sold at the bid (799.95): ₹1.00 lost on 10 shares.
    await row.getByRole('cell', { name: '-1.00', exact: true }).first().waitFor();
    const positions = await c.app.sandbox.books.positions(1);
    expect(positions.find((p) => p.symbol === 'SBIN')?.quantity).toBe(0);
    expect(await c.button('Close all positions').isDisabled()).toBe(true);
    await c.shot('50i-position-closed');
  });

  it('closes every open position at once after a confirmation', async () => {
    const { page } = c;
    await placeOrder({ action: 'BUY', quantity: 4, pricetype: 'MARKET' });
    const row = page
      .getByRole('table', { name: 'Positions' })
      .getByTestId('book-row')
      .filter({ hasText: 'SBIN' });
    await row.getByRole('cell', { name: 'Long', exact: true }).waitFor();
    await c.button('Close all positions').click();
    const confirm = page.getByRole('dialog', { name: 'Close every open position?' });
    await confirm.getByText('the 1 open position').waitFor();
    await confirm.getByRole('button', { name: 'Close all' }).click();
    await confirm.waitFor({ state: 'hidden' });
    await page.getByTestId('book-outcome').waitFor();
    await row.getByRole('cell', { name: 'Closed', exact: true }).waitFor();
    await c.shot('50j-closed-all');
  });

  it('lists the fills on /tradebook and says that there is no holding on /holdings', async () => {
    const { page, base } = c;
    await page.goto(`${base}/tradebook`);
    const trades = page.getByRole('table', { name: 'Trades' }).getByTestId('book-row');
    await trades.first().waitFor();
    const book = await c.app.sandbox.books.trades(1);
    expect(book).toHaveLength(4);
    expect(await trades.count()).toBe(4);
    for (const t of book)
      await page
        .getByRole('table', { name: 'Trades' })
        .locator(`tr[data-key="${t.tradeId}"]`)
        .getByRole('cell', { name: t.side, exact: true })
        .waitFor();
    await c.shot('50k-tradebook');
    await page.goto(`${base}/holdings`);
    await page.getByText('No holdings.').waitFor();
    await page.getByTestId('holdings-statistics').getByText('Holding value').waitFor();
    await c.shot('50l-holdings-empty');
  });

  it('approves a semi-automatic order on /action-center and rejects another with a reason', async () => {
    const { page, base } = c;
    await c.app.auth.apiKeys.setOrderMode(1, 'semi_auto');
    const queued = await placeOrder({ action: 'BUY', quantity: 2, pricetype: 'LIMIT', price: 780 });
    const other = await placeOrder({ action: 'SELL', quantity: 1, pricetype: 'LIMIT', price: 850 });
    expect(queued.pending_order_id).toBeTypeOf('number');
    expect(other.pending_order_id).toBeTypeOf('number');
    await page.goto(`${base}/action-center`);
    const pending = page.getByRole('table', { name: 'Pending orders' });
    await pending.getByTestId('book-row').nth(1).waitFor();
    await c.shot('50m-action-center-pending');

    await page.getByRole('button', { name: `Approve pending order ${queued.pending_order_id}` }).click();
    const approve = page.getByRole('dialog', { name: 'Approve this order?' });
    await approve.getByText('BUY 2 SBIN (NSE, CNC, LIMIT at ₹780.00) is placed now.').waitFor();
    await approve.getByRole('button', { name: 'Approve and place' }).click();
    await approve.waitFor({ state: 'hidden' });
    const outcome = page.getByTestId('book-outcome');
    await outcome.getByText(/approved: placed as order \d+/).waitFor();
    const orderid = /order (\d+)\.$/.exec((await outcome.textContent())!)![1]!;
    await expect(page.getByTestId('book-count').textContent()).resolves.toContain('1 pending order');

    // A reason is required: the form says so before anything is sent.
    await page.getByRole('button', { name: `Reject pending order ${other.pending_order_id}` }).click();
    const reject = page.getByRole('dialog', { name: `Reject pending order ${other.pending_order_id}` });
    await reject.getByRole('button', { name: 'Reject order' }).click();
    await reject.getByText('Say why the order is rejected.').waitFor();
    await c.shot('50n-reject-reason-required');
    await reject.getByRole('textbox', { name: 'Reason' }).fill('Too far from the market');
    await reject.getByRole('button', { name: 'Reject order' }).click();
    await reject.waitFor({ state: 'hidden' });
    await outcome.getByText(`Pending order ${other.pending_order_id} rejected`).waitFor();
    await page.getByText('No order waiting.').waitFor();

    await page.getByRole('tab', { name: 'Approved' }).click();
    const approved = page.getByRole('table', { name: 'Approved orders' });
    await approved.getByRole('cell', { name: orderid, exact: true }).waitFor();
    await approved.getByText(`placed as order ${orderid}`).waitFor();
    await c.shot('50o-action-center-approved');
    await page.getByRole('tab', { name: 'Rejected' }).click();
    await page
      .getByRole('table', { name: 'Rejected orders' })
      .getByRole('cell', { name: 'Too far from the market' })
      .waitFor();
    await c.shot('50p-action-center-rejected');

    const stored = await c.t.db.database.db.selectFrom('pending_orders').selectAll().orderBy('id').execute();
    expect(stored.map((r) => [r.status, r.order_id, r.reason])).toEqual([
      ['approved', orderid, null],
      ['rejected', null, 'Too far from the market'],
    ]);
    await page.goto(`${base}/orderbook`);
    await orderRow(orderid).getByText('open', { exact: true }).waitFor();
    await c.shot('50q-approved-in-orderbook');
    await c.app.auth.apiKeys.setOrderMode(1, 'auto');
  });

  it('lists orders queued while the page is open within 2 s, then approves every one at once', async () => {
    const { page, base } = c;
    await page.goto(`${base}/action-center`);
    await page.getByText('No order waiting.').waitFor();
    await page.getByRole('status', { name: 'Live updates on' }).waitFor();
    // A marker a reload would lose: the queue's changes come over the live socket.
    await page.evaluate('window.__noReload = true');
    await c.app.auth.apiKeys.setOrderMode(1, 'semi_auto');
    await placeOrder({ action: 'BUY', quantity: 1, pricetype: 'LIMIT', price: 760 });
    await placeOrder({ action: 'BUY', quantity: 1, pricetype: 'LIMIT', price: 761 });
    await c.app.auth.apiKeys.setOrderMode(1, 'auto');
    await page
      .getByRole('table', { name: 'Pending orders' })
      .getByTestId('book-row')
      .nth(1)
      .waitFor({ timeout: 2_000 });
    expect(await page.evaluate('window.__noReload')).toBe(true);
    await c.button('Approve all').click();
    const dialog = page.getByRole('dialog', { name: 'Approve every pending order?' });
    await dialog.getByText('All 2 pending orders are placed now, oldest first.').waitFor();
    await dialog.getByRole('button', { name: 'Approve all' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByTestId('book-outcome').getByText('Approved 2 orders.').waitFor();
    await page.getByText('No order waiting.').waitFor();
    const rows = await c.t.db.database.db
      .selectFrom('pending_orders')
      .select(['status', 'order_id'])
      .where('status', '=', 'approved')
      .execute();
    expect(rows).toHaveLength(3);
    expect(rows.every((r) => r.order_id !== null)).toBe(true);
  });

  it('draws a book of 500 orders in full (the time is reported)', async () => {
    const { page, base } = c;
    await page.goto(`${base}/profile`);
    const before = (await c.app.sandbox.books.orders(1)).length;
    for (let i = 0; i < 500 - before; i++)
      await c.app.sandbox.service.placeOrder(1, {
        symbol: 'SBIN',
        exchange: 'NSE',
        side: 'BUY',
        priceType: 'LIMIT',
        product: 'CNC',
        quantity: 1 + (i % 7),
        price: 600 + (i % 100),
        strategy: 'bulk',
      });
    expect(await c.app.sandbox.books.orders(1)).toHaveLength(500);
    const rows = ordersTable().getByTestId('book-row');
    // In the page: when the 500th row is in the document (the book's answer's end is timed by
    // the browser's resource timing).
    await page.evaluate(`new MutationObserver((_, o) => {
      if (document.querySelectorAll('[data-testid=book-row]').length >= 500) {
        window.__rowsAt = performance.now();
        o.disconnect();
      }
    }).observe(document.body, { childList: true, subtree: true })`);
    const clicked = await page.evaluate<number>('performance.now()');
    await page.getByRole('link', { name: 'Orders', exact: true }).click();
    await rows.nth(499).waitFor({ state: 'attached', timeout: 30_000 });
    const timing = await page.evaluate<{ rowsAt: number; fetchStart: number; fetchEnd: number }>(`(() => {
      const e = performance.getEntriesByType('resource').filter((r) => r.name.endsWith('/desk/api/orderbook')).pop();
      return { rowsAt: window.__rowsAt, fetchStart: e.startTime, fetchEnd: e.responseEnd };
    })()`);
    const total = Math.round(timing.rowsAt - clicked);
    const fetchMs = Math.round(timing.fetchEnd - timing.fetchStart);
    const renderMs = Math.round(timing.rowsAt - timing.fetchEnd);
    const beforeFetch = Math.round(timing.fetchStart - clicked);
    expect(await rows.count()).toBe(500);
    await expect(page.getByTestId('book-count').textContent()).resolves.toContain('500 orders');
    // A re-sort of all 500 rows, timed in the page from the click to the next frame.
    const resort = await page.evaluate<number>(`new Promise((resolve) => {
      const button = document.querySelector('button[aria-label="Sort by Filled / qty"]');
      const t0 = performance.now();
      button.click();
      requestAnimationFrame(() => setTimeout(() => resolve(performance.now() - t0), 0));
    })`);
    expect(await rows.count()).toBe(500);
    console.info(
      `[books-journey] /orderbook with 500 orders: click to 500 rows ${total} ms (${beforeFetch} ms to the request, the book's answer ${fetchMs} ms, answer to rows drawn ${renderMs} ms); re-sort of 500 rows ${Math.round(resort)} ms; load average ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores`,
    );
    await c.shot('50r-orderbook-500');
  }, 120_000);
});

/**
 * The GTT page driven in Chromium against the real built console (docs/rules/web.md#gtt-page,
 * docs/rules/orders.md#gtt-orders, docs/rules/sandbox.md#gtt-orders): analyzer mode on the mini
 * master contract with a scripted SBIN quote at 800. A SINGLE GTT (BUY 10 SBIN CNC, LIMIT 810.5,
 * target trigger 810) is placed from the form and listed with the margin it reserves; its trigger
 * is modified to 812; a target trigger below the LTP shows the server's message under the field;
 * it is cancelled after a confirmation and the list is empty. On a phone (390 px) the page and the
 * form do not scroll sideways. Screenshots go to the shared folder (prefix 66-); the suite fails
 * on any browser console error.
 */
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

const PASSWORD = 'gtt journey horse battery';
const SBIN_LTP = 800;

describe.skipIf(!HAVE_CHROMIUM)('the GTT page in Chromium', () => {
  let c: ConsoleBrowser;
  let apikey = '';
  let triggerId = '';
  const feed = new ScriptedFeed();

  beforeAll(async () => {
    c = await startConsoleBrowser({
      env: {
        FEED_POLL_MS: '100',
        API_RATE_LIMIT: '100000 per second',
        ORDER_RATE_LIMIT: '100000 per second',
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

  journeyHooks(() => c, '66');

  /** A SBIN quote stamped with the app's clock. */
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

  const table = () => c.page.getByRole('table', { name: 'GTT orders' });
  const row = (id: string) => table().locator(`tr[data-key="${id}"]`);
  const cell = (id: string, label: string) => row(id).locator(`td[data-label="${label}"]`);
  /** A cell's text as read (a line per leg; the no-break space between a sign and its price as a space). */
  const text = async (id: string, label: string) =>
    (await cell(id, label).innerText()).replace(/\u00a0/g, ' ');
  const stored = (id: string) =>
    c.t.db.database.db.selectFrom('sandbox_gtts').selectAll().where('id', '=', Number(id)).executeTakeFirst();
  const noOverflow = () =>
    c.page.evaluate('document.scrollingElement.scrollWidth <= window.innerWidth') as Promise<boolean>;

  it('places a SINGLE GTT from the form and lists it with the margin it reserves', async () => {
    const { page, base } = c;
    // The analyzer banner comes after the page (the mode is fetched) and pushes the menu down: a
    // click aimed before it arrived once landed on the link above (Orders) on a loaded machine.
    await page.getByText('Analyzer mode is on').waitFor();
    await page.getByRole('link', { name: 'GTT orders', exact: true }).click();
    await page.waitForURL(`${base}/gtt`);
    expect(await page.title()).toBe('GTT orders · algodesk');
    await page.getByText('No active GTT').waitFor();
    await page.getByRole('status', { name: 'Live updates on' }).waitFor();
    await c.shot('66a-gtt-empty');

    await page.getByRole('button', { name: 'New GTT' }).click();
    const dialog = page.getByRole('dialog', { name: 'New GTT' });
    expect(await dialog.getByRole('radio', { name: 'Single trigger' }).isChecked()).toBe(true);
    await dialog.getByRole('textbox', { name: 'Symbol', exact: true }).fill('SBIN');
    await dialog.getByRole('listitem', { name: 'SBIN NSE', exact: true }).click();
    await expect.poll(() => dialog.getByTestId('gtt-ltp').textContent()).toBe('LTP ₹800.00');
    expect(await dialog.getByRole('radio', { name: 'BUY' }).isChecked()).toBe(true);
    expect(await dialog.getByRole('combobox', { name: 'Product' }).inputValue()).toBe('CNC');
    expect(await dialog.getByRole('combobox', { name: 'Price type' }).inputValue()).toBe('LIMIT');
    expect(await dialog.getByRole('radio', { name: 'Rises to a target' }).isChecked()).toBe(true);
    await dialog.getByRole('textbox', { name: 'Quantity', exact: true }).fill('10');
    await dialog.getByRole('textbox', { name: 'Target trigger', exact: true }).fill('810');
    await dialog.getByRole('textbox', { name: 'Limit price', exact: true }).fill('810.5');
    // The rule beside the field, with the LTP it is checked against.
    await dialog.getByText('Above the LTP ₹800.00: fires when the price rises to it.').waitFor();
    await c.shot('66b-gtt-new-form');
    await dialog.getByRole('button', { name: 'Place GTT' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const outcome = await page.getByTestId('book-outcome').textContent();
    const m = /GTT (\d+) placed in the sandbox/.exec(outcome ?? '');
    expect(m, outcome ?? '').not.toBeNull();
    triggerId = m![1]!;

    const gtt = await stored(triggerId);
    expect(gtt).toMatchObject({
      status: 'active',
      side: 'BUY',
      quantity: 10,
      product: 'CNC',
      type: 'single',
    });
    await row(triggerId).waitFor();
    expect(await text(triggerId, 'Triggers')).toBe('Target ≥ 810.00');
    expect(await cell(triggerId, 'Leg limits').textContent()).toBe('810.50');
    expect(await cell(triggerId, 'Side').textContent()).toBe('BUY');
    expect(await cell(triggerId, 'Qty').textContent()).toBe('10');
    expect(await cell(triggerId, 'LTP then').textContent()).toBe('800.00');
    // The margin reserved: what the order would block (10 × 810.50 for CNC), as the sandbox stored it.
    const margin = await cell(triggerId, 'Margin reserved').textContent();
    expect(margin).toBe('8,105.00');
    await page.getByTestId('gtt-summary').getByText('Margin reserved: ₹8,105.00').waitFor();
    expect(await row(triggerId).getByTestId('gtt-expires').textContent()).toMatch(
      /^expires \d{1,2} [A-Z][a-z]{2} \d{4}$/,
    );
    await c.shot('66c-gtt-listed');
  });

  it('modifies its trigger to 812 from the prefilled form', async () => {
    const { page } = c;
    await page.getByRole('button', { name: `Modify GTT ${triggerId}` }).click();
    const dialog = page.getByRole('dialog', { name: `Modify GTT ${triggerId}` });
    const trigger = dialog.getByRole('textbox', { name: 'Target trigger', exact: true });
    expect(await trigger.inputValue()).toBe('810');
    expect(await dialog.getByRole('textbox', { name: 'Limit price', exact: true }).inputValue()).toBe(
      '810.5',
    );
    expect(await dialog.getByRole('textbox', { name: 'Quantity', exact: true }).inputValue()).toBe('10');
    await trigger.fill('812');
    await c.shot('66d-gtt-modify-form');
    await dialog.getByRole('button', { name: 'Modify GTT' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect(await page.getByTestId('book-outcome').textContent()).toContain(`GTT ${triggerId} modified`);
    await expect.poll(() => text(triggerId, 'Triggers')).toBe('Target ≥ 812.00');
    expect(await stored(triggerId)).toMatchObject({ status: 'active', quantity: 10 });
    await c.shot('66e-gtt-modified');
  });

  it('shows the server’s message under the trigger when a target is below the LTP', async () => {
    const { page } = c;
    c.expected.add('/desk/api/modifygttorder');
    await page.getByRole('button', { name: `Modify GTT ${triggerId}` }).click();
    const dialog = page.getByRole('dialog', { name: `Modify GTT ${triggerId}` });
    const trigger = dialog.getByRole('textbox', { name: 'Target trigger', exact: true });
    await trigger.fill('790');
    await dialog.getByRole('button', { name: 'Modify GTT' }).click();
    const message = dialog.getByText(/^triggerprice_tg: 790 must be above the last price 800/);
    await message.waitFor();
    // Under the field: the input is described by the message.
    const describedBy = (await trigger.getAttribute('aria-describedby')) ?? '';
    const errorId = await message.getAttribute('id');
    expect(errorId).toBeTruthy();
    expect(describedBy.split(' ')).toContain(errorId);
    await c.shot('66f-gtt-wrong-side');
    await dialog.getByRole('button', { name: 'Back' }).click();
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
    await expect.poll(() => text(triggerId, 'Triggers')).toBe('Target ≥ 812.00');
  });

  it('cancels it after a confirmation, and the list is empty', async () => {
    const { page } = c;
    await page.getByRole('button', { name: `Cancel GTT ${triggerId}` }).click();
    const confirm = page.getByRole('dialog', { name: 'Cancel this GTT?' });
    await confirm.getByText('the margin it reserves is released').waitFor();
    // The dialog fades in for 200 ms: the shot shows it in place.
    await page.waitForTimeout(300);
    await c.shot('66g-gtt-cancel-confirm');
    await confirm.getByRole('button', { name: 'Cancel GTT' }).click();
    await confirm.waitFor({ state: 'hidden' });
    expect(await page.getByTestId('book-outcome').textContent()).toContain(`GTT ${triggerId} cancelled`);
    await page.getByText('No active GTT').waitFor();
    expect(await stored(triggerId)).toMatchObject({ status: 'cancelled' });
    await c.shot('66h-gtt-cancelled');
  });

  it('fits a phone (390 px): cards, and the form, without sideways scrolling', async () => {
    const { page } = c;
    // An OCO placed through the API shows on the page (the desk's queries refresh on order events
    // and on each change; here a reload of the list by navigation).
    const res = await fetch(`${c.base}/api/v1/placegttorder`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        apikey,
        strategy: 'journey',
        trigger_type: 'OCO',
        symbol: 'SBIN',
        exchange: 'NSE',
        action: 'SELL',
        product: 'CNC',
        quantity: 5,
        pricetype: 'LIMIT',
        triggerprice_sl: 780,
        stoploss: 779,
        triggerprice_tg: 820,
        target: 821,
      }),
    });
    const placed = (await res.json()) as { status: string; trigger_id: string };
    expect(res.status, JSON.stringify(placed)).toBe(200);
    await page.reload();
    await row(placed.trigger_id).waitFor();
    expect(await text(placed.trigger_id, 'Triggers')).toBe('SL ≤ 780.00\nTG ≥ 820.00');
    expect(await cell(placed.trigger_id, 'Leg limits').innerText()).toBe('SL 779.00\nTG 821.00');
    expect(await cell(placed.trigger_id, 'Type').textContent()).toBe('OCO');
    // At 1280 px the table fits its box: no column hides behind a sideways scroll.
    const fits = await page.evaluate(
      `(() => { const t = document.querySelector('table[aria-label="GTT orders"]'); return t.parentElement.scrollWidth <= t.parentElement.clientWidth; })()`,
    );
    expect(fits).toBe(true);
    await c.shot('66i-gtt-oco-laptop');

    await page.setViewportSize({ width: 390, height: 844 });
    try {
      // Drawn at the phone's width from the start (no sidebar sliding away in the shot).
      await page.reload();
      await row(placed.trigger_id).waitFor();
      await expect.poll(noOverflow).toBe(true);
      await c.shot('66j-gtt-phone');
      await page.getByRole('button', { name: 'New GTT' }).click();
      const dialog = page.getByRole('dialog', { name: 'New GTT' });
      await dialog.getByText('OCO (two legs)', { exact: true }).click();
      await dialog.getByRole('textbox', { name: 'Stoploss limit', exact: true }).waitFor();
      // The switch's indicator slides for 200 ms: the shot shows where it stops.
      await page.waitForTimeout(300);
      await expect.poll(noOverflow).toBe(true);
      const width = await dialog.evaluate((el) => (el as unknown as { scrollWidth: number }).scrollWidth);
      expect(width).toBeLessThanOrEqual(390);
      // The send button stays in view at the bottom of the full-screen form.
      const send = await dialog.getByRole('button', { name: 'Place GTT' }).boundingBox();
      expect(send!.y + send!.height).toBeLessThanOrEqual(844);
      await c.shot('66k-gtt-phone-form');
      await dialog.getByRole('button', { name: 'Back' }).click();
      await dialog.waitFor({ state: 'hidden' });
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });
});

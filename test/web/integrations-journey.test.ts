/**
 * The scanner and flow pages (/scanners, /chartink, /flows) driven in Chromium against the real
 * built console (docs/rules/scanner.md, docs/rules/flow.md, docs/rules/web.md): a scanner made
 * through its form, its webhook URL shown once and fed a Chartink alert whose delivery the page
 * then lists; a flow made from the starter definition after the server refused a broken one, its
 * token and secret shown once and a run listed. Screenshots go to the shared folder (prefix 40-);
 * the suite fails on any browser console error and on a credential left in storage, a URL or the
 * page after its one-time display.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  HAVE_CHROMIUM,
  startConsoleBrowser,
  type ConsoleBrowser,
  journeyHooks,
} from '../helpers/console-browser.js';

const PASSWORD = 'integrations journey horse';
const SCANNER_URL = /^https?:\/\/[^/]+\/scanner\/webhook\/(scn_[A-Za-z0-9_-]{43})$/;
const FLOW_URL = /^https?:\/\/[^/]+\/flow\/webhook\/(flw_[A-Za-z0-9_-]{43})$/;

describe.skipIf(!HAVE_CHROMIUM)('the scanner and flow pages in Chromium', () => {
  let c: ConsoleBrowser;
  /** Every credential shown once: none may be anywhere afterwards. */
  const secrets: string[] = [];
  let scannerPath = '';

  beforeAll(async () => {
    c = await startConsoleBrowser({ env: { WEBHOOK_RATE_LIMIT: '1000 per minute' } });
    await c.app.auth.users.createFirst({ username: 'admin', password: PASSWORD, email: 'admin@example.com' });
    await c.signIn('admin', PASSWORD);
  }, 120_000);

  journeyHooks(() => c, '40');

  const post = (path: string, body: unknown) =>
    fetch(`${c.base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('creates a scanner through its form, naming the refused field first, and shows its URL once', async () => {
    const { page, base } = c;
    await page.getByRole('link', { name: 'Scanners' }).click();
    await page.waitForURL(`${base}/scanners`);
    await page.getByText('No scanner yet').waitFor();
    await c.shot('40a-scanners-empty');
    await c.button('New scanner').click();
    const dialog = page.getByRole('dialog', { name: 'New scanner' });
    await dialog.getByRole('textbox', { name: 'Name', exact: true }).fill('Breakouts');
    // No sizing: the server's message shows under the quantity.
    c.expected.add('/scanner/api/scanners');
    await dialog.getByRole('button', { name: 'Create scanner' }).click();
    await dialog.getByText('give exactly one of quantity').waitFor();
    await page.waitForTimeout(300);
    await c.shot('40b-scanner-field-message');
    await dialog.getByRole('textbox', { name: 'Quantity (shares per symbol)' }).fill('5');
    await dialog.getByRole('button', { name: 'Add an override' }).click();
    await dialog.getByRole('textbox', { name: 'Override 1 symbol' }).fill('infy');
    await dialog.getByRole('textbox', { name: 'Override 1 quantity' }).fill('2');
    await dialog.getByRole('button', { name: 'Create scanner' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const url = (await page.getByTestId('scanner-webhook-url').textContent())!.trim();
    const id = SCANNER_URL.exec(url)?.[1];
    expect(id, url).toBeTruthy();
    secrets.push(id!);
    scannerPath = new URL(url).pathname;
    await page.getByRole('button', { name: 'Copy webhook url' }).waitFor();
    const table = page.getByRole('table', { name: 'Scanners' });
    const row = table.getByRole('row').filter({ hasText: 'Breakouts' });
    await row.getByText('5 shares').waitFor();
    await row.getByText('1 override').waitFor();
    await row.getByText('09:15–15:15').waitFor();
    // The administrator sees the live switch.
    await page.getByRole('switch', { name: 'Allow live orders for Breakouts' }).waitFor();
    await c.shot('40c-scanner-url-shown-once');
    const made = await c.t.db.database.db.selectFrom('scanners').selectAll().executeTakeFirstOrThrow();
    expect(JSON.parse(String(made.overrides))).toEqual({ INFY: 2 });
  });

  it('takes a Chartink alert at that URL and lists the delivery with its result', async () => {
    const { page } = c;
    const res = await post(scannerPath, { stocks: 'SBIN', trigger_prices: '800' });
    const answer = (await res.json()) as { result: string };
    // The clock decides: outside the window the alert is refused (rejected_window), within it SBIN
    // is tried; either way one delivery row is written and shown.
    expect(answer.result).toMatch(/^(ok|rejected_window)$/);
    await c.button('I have stored it').click();
    expect(await page.getByTestId('scanner-webhook-url').count()).toBe(0);
    await page.getByRole('button', { name: 'Deliveries of Breakouts' }).click();
    await page.getByText('Loading deliveries…').waitFor({ state: 'hidden' });
    const deliveries = page.getByRole('table', { name: 'Deliveries of Breakouts' });
    const row = deliveries.getByTestId('delivery-row');
    await row.getByText(answer.result, { exact: true }).waitFor();
    await row.getByRole('cell', { name: String(res.status), exact: true }).waitFor();
    if (answer.result === 'ok') {
      await row.getByRole('button', { name: /^Show 1$/ }).click();
      // The symbol's own cell (its message cell names it too: "Symbol SBIN not found …").
      await page
        .getByRole('table', { name: /^Symbols of the delivery/ })
        .getByRole('cell', { name: 'SBIN', exact: true })
        .waitFor();
    }
    await deliveries.scrollIntoViewIfNeeded();
    await c.shot('40d-scanner-delivery');
  });

  it('rotates the webhook id after a confirmation: a new URL once, the old one refused', async () => {
    const { page } = c;
    await page.getByRole('button', { name: 'Rotate the webhook of Breakouts' }).click();
    const dialog = page.getByRole('dialog', { name: 'Rotate the webhook URL?' });
    await dialog.getByText('The current one stops working at once').waitFor();
    await dialog.getByRole('button', { name: 'Rotate', exact: true }).click();
    await dialog.waitFor({ state: 'hidden' });
    const url = (await page.getByTestId('scanner-webhook-url').textContent())!.trim();
    const id = SCANNER_URL.exec(url)?.[1];
    expect(id).toBeTruthy();
    expect(new URL(url).pathname).not.toBe(scannerPath);
    secrets.push(id!);
    const old = await post(scannerPath, { stocks: 'SBIN', trigger_prices: '800' });
    expect(old.status).toBe(404);
    await c.button('I have stored it').click();
    expect(await page.getByTestId('scanner-webhook-url').count()).toBe(0);
  });

  it('refuses a broken flow definition naming the node and field, then saves the starter and shows the webhook once', async () => {
    const { page, base } = c;
    await page.getByRole('link', { name: 'Flows' }).click();
    await page.waitForURL(`${base}/flows`);
    await page.getByText('No flow yet').waitFor();
    await c.button('New flow').click();
    const dialog = page.getByRole('dialog', { name: 'New flow' });
    await dialog.getByRole('textbox', { name: 'Name', exact: true }).fill('Entries');
    const definition = dialog.getByRole('textbox', { name: 'Definition (JSON)' });
    const starter = await definition.inputValue();
    expect(starter).toContain('"kind": "time_window"');
    expect(starter).toContain('{{webhook.action}}');
    // Not JSON: the browser says so, nothing is sent.
    await definition.fill(starter.replace(/}\s*$/, ''));
    await dialog.getByRole('button', { name: 'Create flow' }).click();
    await dialog.getByText(/^Not valid JSON/).waitFor();
    // A variable that reaches an object's internals: the server's fault names the node and field.
    c.expected.add('/flow/api/flows');
    await definition.fill(starter.replace('{{symbol}}', '{{constructor}}'));
    await dialog.getByRole('button', { name: 'Create flow' }).click();
    const faults = dialog.getByTestId('flow-faults');
    await faults.getByText(/^node order \(2\): symbol .*constructor/).waitFor();
    await page.waitForTimeout(300);
    await c.shot('40e-flow-server-faults');
    await dialog.getByRole('button', { name: 'Use the starter definition' }).click();
    await dialog.getByRole('button', { name: 'Create flow' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const url = (await page.getByTestId('flow-webhook-url').textContent())!.trim();
    const token = (await page.getByTestId('flow-webhook-token').textContent())!.trim();
    const secret = (await page.getByTestId('flow-webhook-secret').textContent())!.trim();
    expect(FLOW_URL.exec(url)?.[1]).toBe(token);
    expect(secret.length).toBeGreaterThanOrEqual(16);
    secrets.push(token, secret);
    for (const label of ['webhook url', 'token', 'secret'])
      await page.getByRole('button', { name: `Copy ${label}` }).waitFor();
    await page.getByRole('table', { name: 'Flows' }).getByText('Entries').waitFor();
    await page.waitForTimeout(300);
    await c.shot('40f-flow-webhook-shown-once');

    // A delivery runs the flow; the run and each node's outcome are listed.
    const res = await post(new URL(url).pathname, { secret, action: 'BUY' });
    expect(res.status).toBe(200);
    const answer = (await res.json()) as { result: string; nodes: Array<{ id: string; status: string }> };
    expect(answer.nodes.map((n) => n.id)).toEqual(['market_hours', 'order']);
    await c.button('I have stored it').click();
    expect(await page.getByTestId('flow-webhook-secret').count()).toBe(0);
    await page.getByRole('button', { name: 'Runs of Entries' }).click();
    const run = page.getByRole('table', { name: 'Runs of Entries' }).getByTestId('run-row');
    await run.getByText(answer.result, { exact: true }).waitFor();
    await run.getByText('SBIN').waitFor();
    await run.getByRole('button', { name: 'Show 2' }).click();
    const nodes = page.getByRole('table', { name: /^Nodes of the run/ });
    await nodes.getByRole('cell', { name: 'market_hours', exact: true }).waitFor();
    await nodes.getByText(answer.nodes[1]!.status, { exact: true }).waitFor();
    await nodes.scrollIntoViewIfNeeded();
    await c.shot('40g-flow-run');
  });

  it('keeps every credential out of the page after its display, storage and URLs', async () => {
    const { page, base } = c;
    await page.reload();
    await page.getByRole('table', { name: 'Flows' }).waitFor();
    await page.goto(`${base}/scanners`);
    await page.getByRole('table', { name: 'Scanners' }).waitFor();
    const html = await page.content();
    for (const s of secrets) expect(html).not.toContain(s);
    const stored = await page.evaluate(
      '({ local: JSON.stringify(localStorage), session: JSON.stringify(sessionStorage) })',
    );
    for (const s of secrets) expect(JSON.stringify(stored)).not.toContain(s);
    expect(c.urls.filter((u) => secrets.some((s) => u.includes(s)))).toEqual([]);
  });

  it('fits a phone screen, and /chartink is the same page', async () => {
    const { page, base } = c;
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${base}/chartink`);
    await page.getByRole('heading', { name: 'Scanners' }).waitFor();
    // On a phone each scanner is a card, its buttons within reach.
    await page.getByRole('list', { name: 'Scanners' }).getByRole('listitem', { name: 'Breakouts' }).waitFor();
    await c.shot('40h-scanners-phone');
    await page.getByRole('button', { name: 'Edit Breakouts' }).click();
    await page.getByRole('dialog', { name: 'Edit Breakouts' }).waitFor();
    await page.waitForTimeout(300);
    await c.shot('40i-scanner-edit-phone');
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    await page.goto(`${base}/flows`);
    await page.getByRole('list', { name: 'Flows' }).getByRole('listitem', { name: 'Entries' }).waitFor();
    await c.shot('40j-flows-phone');
    await page.getByRole('button', { name: 'Edit Entries' }).click();
    await page.getByRole('dialog', { name: 'Edit Entries' }).waitFor();
    await page.waitForTimeout(300);
    await c.shot('40k-flow-edit-phone');
    await page.setViewportSize({ width: 1280, height: 800 });
  });
});

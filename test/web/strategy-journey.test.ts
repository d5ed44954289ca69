/**
 * The strategy pages (/strategy, /strategy/new, /strategy/<id>) driven in Chromium against the
 * real built console (docs/rules/strategies.md, docs/rules/web.md): a signal strategy made
 * through the wizard after the server refused its leg (the server's message under the field),
 * its webhook URL and token shown once and copied from the page, a TradingView `long_entry` sent
 * to that URL opening a run whose events and delivery the page then shows without a reload, the
 * run stopped from the page (stop_pending until its fills prove it flat), a batch strategy with a
 * derivative leg (expiry rank, strike offset) whose live start needs a confirmation naming the
 * risk, whose token is rotated (shown once again, the old URL dead) and whose sandbox start
 * shows why its leg was refused. Analyzer mode, the mini master contract cut from the real Kite snapshots and a scripted
 * price feed, as the strategy tests run them. Screenshots go to the shared folder (prefix 60-);
 * the suite fails on any browser console error and on a token left in storage, a URL or the page.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/platform/clock.js';
import type { Quote } from '../../src/modules/sandbox/core/types.js';
import { ScriptedFeed } from '../../src/modules/sandbox/prices/price-source.js';
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

const PASSWORD = 'strategy journey horse';
const WEBHOOK_URL = /^https?:\/\/[^/]+\/strategy\/webhook\/(whk_[A-Za-z0-9_-]{43})$/;

describe.skipIf(!HAVE_CHROMIUM)('the strategy pages in Chromium', () => {
  let c: ConsoleBrowser;
  /** Every token shown once: none may be anywhere afterwards. */
  const secrets: string[] = [];
  let hookPath = '';
  let strategyPath = '';
  let runId = 0;
  let clock: FakeClock;
  let feed: ScriptedFeed;
  /** A quote stamped now (the sandbox fills only on a fresh one). */
  const quote = (ltp: number): Quote => ({
    ltp,
    bid: ltp - 0.05,
    ask: ltp + 0.05,
    high: ltp * 1.05,
    low: ltp * 0.95,
    timestamp: clock.now(),
  });

  beforeAll(async () => {
    // A trading day, market open: the sandbox fills MARKET orders at the scripted quotes.
    clock = new FakeClock(ist(TRADING_DAY, '10:00'));
    c = await startConsoleBrowser({
      clock,
      env: {
        WEBHOOK_RATE_LIMIT: '1000 per minute',
        API_RATE_LIMIT: '100000 per second',
        ORDER_RATE_LIMIT: '100000 per second',
      },
    });
    const services = c.app;
    await services.auth.users.createFirst({
      username: 'admin',
      password: PASSWORD,
      email: 'admin@example.com',
    });
    await importContract({ services }, 'zerodha', miniKiteContract());
    feed = new ScriptedFeed();
    await services.sandbox.usePriceSource(feed);
    const admin = await login({ app: c.app } as TestApp, 'admin', PASSWORD);
    const mode = await c.app.inject({
      method: 'POST',
      url: '/settings/analyze-mode/1',
      headers: asBrowser(admin),
    });
    expect(mode.statusCode).toBe(200);
    await services.sandbox.engine.tick();
    feed.push({
      'NSE:SBIN': quote(800),
      'NSE_INDEX:NIFTY': quote(25980),
      'NFO:NIFTY18AUG2626000CE': quote(120),
      'NFO:NIFTY25AUG26FUT': quote(26010),
    });
    await services.sandbox.engine.whenIdle();
    await c.signIn('admin', PASSWORD);
  }, 120_000);

  journeyHooks(() => c, '60');

  it('creates a signal strategy through the wizard, the refused leg showing the server’s message first', async () => {
    const { page, base } = c;
    await page.getByRole('link', { name: 'Strategies' }).click();
    await page.waitForURL(`${base}/strategy`);
    await page.getByText('No strategy yet').waitFor();
    await c.shot('60a-strategies-empty');
    await page.getByRole('link', { name: 'New strategy' }).first().click();
    await page.waitForURL(`${base}/strategy/new`);
    // Step 1: kind, name, product, direction.
    expect(await page.getByRole('radio', { name: 'Signal' }).isChecked()).toBe(true);
    await c.field('Name').fill('SBIN signals');
    await page.waitForTimeout(200);
    await c.shot('60b-wizard-kind');
    await c.button('Next').click();
    // Step 2: a leg whose symbol the master contract does not hold.
    const symbol = page.getByRole('combobox', { name: 'Leg 1 symbol' });
    await symbol.fill('SBINN');
    await page.getByTestId('leg-1-contract').getByText('No SBINN on NSE in the master contract').waitFor();
    await c.button('Next').click();
    await page.getByRole('list', { name: 'Summary' }).getByText('Leg 1: 1 unit SBINN (NSE)').waitFor();
    c.expected.add('/strategy/api/strategies');
    await c.button('Create strategy').click();
    // The server refuses it: the wizard goes back to the legs, the message under the symbol.
    await page.getByText('SBINN is not a contract on NSE in the master contract.').waitFor();
    expect(await symbol.getAttribute('aria-invalid')).toBe('true');
    await page.waitForTimeout(200);
    await c.shot('60c-wizard-leg-refused');
    await symbol.fill('SBIN');
    await page
      .getByTestId('leg-1-contract')
      .getByText(/^In the master contract: .* lot 1$/)
      .waitFor();
    await page.keyboard.press('Escape');
    await c.shot('60d-wizard-leg-found');
    await c.button('Next').click();
    await c.button('Create strategy').click();
    await page.waitForURL(/\/strategy\/\d+$/);
    strategyPath = new URL(page.url()).pathname;

    // The webhook URL and token, shown once, with copy buttons.
    const url = (await page.getByTestId('strategy-webhook-url').textContent())!.trim();
    const token = (await page.getByTestId('strategy-webhook-token').textContent())!.trim();
    expect(WEBHOOK_URL.exec(url)?.[1], url).toBe(token);
    secrets.push(token);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    await c.button('Copy webhook url').click();
    await page.getByRole('button', { name: 'Copy webhook url' }).getByText('Copied').waitFor();
    const copied = String(await page.evaluate('navigator.clipboard.readText()'));
    expect(copied).toBe(url);
    hookPath = new URL(copied).pathname;
    // Ready-to-paste TradingView messages, one per action.
    for (const action of ['long_entry', 'long_exit', 'short_entry', 'short_exit'])
      await page.getByText(JSON.stringify({ action }), { exact: true }).waitFor();
    await page.getByRole('heading', { name: 'SBIN signals' }).waitFor();
    await page.getByRole('list', { name: 'Legs' }).getByText('1 unit SBIN (NSE)').waitFor();
    await page.getByText('No run yet: the first accepted signal opens one.').waitFor();
    await page.waitForTimeout(300);
    await c.shot('60e-strategy-created-webhook-once');
  });

  it('shows the run, its events and the delivery of a long_entry sent to the copied URL, without a reload', async () => {
    const { page, base } = c;
    await page.evaluate('window.__sameDocument = true');
    const res = await fetch(`${base}${hookPath}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ action: 'long_entry' }),
    });
    const answer = (await res.json()) as { result: string; run_id?: number; message: string };
    expect(res.status, JSON.stringify(answer)).toBe(200);
    expect(answer.result).toBe('ok');
    runId = answer.run_id!;
    expect(runId).toBeGreaterThan(0);

    const run = page.getByRole('table', { name: 'Runs' }).getByTestId('run-row');
    await run.getByText(`#${runId}`).waitFor();
    await run.getByText('Running').waitFor();
    await run.getByText('Sandbox').waitFor();
    const trail = page.getByTestId('event-trail');
    await trail.locator('[data-kind="run_started"]').waitFor();
    await trail.locator('[data-kind="entry_placed"]').waitFor();
    const delivery = page.getByRole('table', { name: 'Webhook deliveries' }).getByTestId('delivery-row');
    await delivery.getByText('ok', { exact: true }).waitFor();
    await delivery.getByRole('cell', { name: '200', exact: true }).waitFor();
    await delivery.getByRole('cell', { name: 'long_entry', exact: true }).waitFor();
    expect(await page.evaluate('window.__sameDocument')).toBe(true);
    await page.getByRole('table', { name: 'Runs' }).scrollIntoViewIfNeeded();
    await c.shot('60f-run-opened-live');
  });

  it('stops the run after a confirmation: stop_pending until its exit fills, then stopped; the trail filters', async () => {
    const { page } = c;
    // Ten minutes on, SBIN's last quote is stale: the exit rests in the sandbox until a fresh one.
    clock.advance(10 * 60_000);
    await c.button('Stop the run').click();
    const dialog = page.getByRole('dialog', { name: 'Stop the run?' });
    await dialog.getByText('until its fills prove it flat').waitFor();
    await page.waitForTimeout(200);
    await c.shot('60g-stop-confirmation');
    await dialog.getByRole('button', { name: 'Stop the run' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const outcome = page.getByTestId('action-outcome');
    await outcome.getByText('Stop: ok (stop_pending)').waitFor();
    await outcome.getByText(/^Stop requested: 1 exit/).waitFor();
    const run = page.getByRole('table', { name: 'Runs' }).getByTestId('run-row');
    await run.getByText('Stopping (stop_pending)').waitFor();
    await run.getByText('Waiting for the exits to fill').waitFor();
    await page.getByRole('button', { name: 'Stop again' }).waitFor();
    await page.getByTestId('event-trail').locator('[data-kind="exit_placed"]').waitFor();
    await page.getByRole('table', { name: 'Runs' }).scrollIntoViewIfNeeded();
    await c.shot('60g2-run-stop-pending');
    // A fresh quote fills the exit; the background pass confirms the run flat (every 10 s).
    feed.push({ 'NSE:SBIN': quote(801) });
    await c.app.sandbox.engine.whenIdle();
    await run.getByText('Stopped').waitFor({ timeout: 30_000 });
    const trail = page.getByTestId('event-trail');
    await trail.locator('[data-kind="run_stop_requested"]').waitFor();
    await trail.locator('[data-kind="run_stopped"]').waitFor();
    await page.getByRole('button', { name: 'Stop the run' }).and(page.locator('[disabled]')).waitFor();
    // The timeline filtered by kind, then by severity.
    await page.getByRole('combobox', { name: 'Kind' }).selectOption('run_stopped');
    await trail.locator('[data-kind="run_started"]').waitFor({ state: 'detached' });
    // The filter is the server's: the filtered list replaces the whole one once it is answered.
    await trail.locator('[data-kind="run_stopped"]').waitFor();
    expect(await trail.getByTestId('event').count()).toBe(1);
    await page.getByRole('combobox', { name: 'Kind' }).selectOption('');
    await page.getByRole('combobox', { name: 'Severity' }).selectOption('critical');
    await page.getByText('No event matches these filters.').waitFor();
    await page.getByRole('combobox', { name: 'Severity' }).selectOption('info');
    await trail.locator('[data-kind="strategy_created"]').waitFor();
    await trail.scrollIntoViewIfNeeded();
    await c.shot('60h-run-stopped-trail');
    expect(
      (await c.t.db.database.db.selectFrom('strategy_runs').select(['id', 'status']).execute()).map(
        (r) => r.status,
      ),
    ).toEqual(['stopped']);
  });

  it('keeps the token out of the page after leaving it, out of storage and out of every URL', async () => {
    const { page, base } = c;
    await page.getByRole('link', { name: 'All strategies' }).click();
    await page.waitForURL(`${base}/strategy`);
    const row = page
      .getByRole('table', { name: 'Strategies' })
      .getByRole('row')
      .filter({ hasText: 'SBIN signals' });
    await row.getByText('No active run').waitFor();
    await row.getByText('Signal', { exact: true }).waitFor();
    await c.shot('60i-strategies-list');
    await row.getByRole('link', { name: 'SBIN signals' }).click();
    await page.waitForURL(`${base}${strategyPath}`);
    await page.getByRole('heading', { name: 'SBIN signals' }).waitFor();
    expect(await page.getByTestId('strategy-webhook-token').count()).toBe(0);
    await page.reload();
    await page.getByRole('heading', { name: 'SBIN signals' }).waitFor();
    const html = await page.content();
    for (const s of secrets) expect(html).not.toContain(s);
    const stored = await page.evaluate(
      '({ local: JSON.stringify(localStorage), session: JSON.stringify(sessionStorage), state: JSON.stringify(history.state) })',
    );
    for (const s of secrets) expect(JSON.stringify(stored)).not.toContain(s);
    expect(c.urls.filter((u) => secrets.some((s) => u.includes(s)))).toEqual([]);
  });

  it('makes a batch strategy with an option leg by expiry rank and strike offset; live start named as a risk, rotation, a sandbox start', async () => {
    const { page, base } = c;
    await page.goto(`${base}/strategy/new`);
    await page.getByRole('radio', { name: 'Batch' }).check();
    await c.field('Name').fill('NIFTY hedge');
    await c.button('Next').click();
    await page.getByText('Future or option by expiry and strike', { exact: true }).click();
    await page.getByRole('combobox', { name: 'Leg 1 exchange' }).selectOption('NFO');
    await page.getByRole('combobox', { name: 'Leg 1 underlying' }).fill('NIFTY');
    await page.getByText('NIFTY has derivatives on NFO').waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('combobox', { name: 'Leg 1 option type' }).selectOption('CE');
    await page.getByRole('combobox', { name: 'Leg 1 expiry' }).selectOption('1');
    await page.getByRole('textbox', { name: 'Leg 1 strike offset' }).fill('2');
    await page.waitForTimeout(200);
    await c.shot('60j-wizard-derivative-leg');
    await c.button('Next').click();
    await page
      .getByRole('list', { name: 'Summary' })
      .getByText('Leg 1: BUY 1 lot NIFTY CE, next expiry, ATM +2 (NFO)')
      .waitFor();
    await c.button('Create strategy').click();
    await page.waitForURL(/\/strategy\/\d+$/);
    const token = (await page.getByTestId('strategy-webhook-token').textContent())!.trim();
    secrets.push(token);
    await page
      .getByRole('list', { name: 'Legs' })
      .getByText('BUY 1 lot NIFTY CE, next expiry, ATM +2 (NFO)')
      .waitFor();
    await page.getByText(JSON.stringify({ action: 'start', mode: 'sandbox' }), { exact: true }).waitFor();
    await c.button('I have stored it').click();
    expect(await page.getByTestId('strategy-webhook-token').count()).toBe(0);

    await c.button('Enable live start').click();
    const dialog = page.getByRole('dialog', { name: 'Enable live batch start?' });
    await dialog.getByText('real orders to your broker').waitFor();
    await page.waitForTimeout(200);
    await c.shot('60k-live-start-confirmation');
    await dialog.getByRole('button', { name: 'Enable live start' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByTestId('action-outcome').getByText('Live batch start enabled').waitFor();
    await page.getByText('Allowed: a live start sends real orders').waitFor();
    await page.getByText(JSON.stringify({ action: 'start', mode: 'live' }), { exact: true }).waitFor();
    await page.getByTestId('event-trail').locator('[data-kind="live_enabled"]').waitFor();
    await c.shot('60l-batch-live-enabled');

    // Rotation: a new URL shown once, the old one refused.
    await c.button('Rotate the token').click();
    const rotate = page.getByRole('dialog', { name: 'Rotate the webhook token?' });
    await rotate.getByText('The current URL stops working at once').waitFor();
    await rotate.getByRole('button', { name: 'Rotate', exact: true }).click();
    await rotate.waitFor({ state: 'hidden' });
    const fresh = (await page.getByTestId('strategy-webhook-token').textContent())!.trim();
    expect(fresh).not.toBe(token);
    secrets.push(fresh);
    const dead = await fetch(`${base}/strategy/webhook/${token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ action: 'stop' }),
    });
    expect(dead.status).toBe(404);
    await page.getByTestId('event-trail').locator('[data-kind="token_rotated"]').waitFor();
    await c.button('I have stored it').click();

    // A sandbox start from the page resolves the leg now: the mini contract's chain holds only
    // the ATM strike, so 2 strikes up is refused, and the trail says why (a warning).
    feed.push({ 'NSE_INDEX:NIFTY': quote(25980), 'NFO:NIFTY18AUG2626000CE': quote(120) });
    await c.app.sandbox.engine.whenIdle();
    await c.button('Start a run').click();
    const start = page.getByRole('dialog', { name: 'Start a run?' });
    await start.getByText('in the sandbox').waitFor();
    await start.getByRole('button', { name: 'Start', exact: true }).click();
    await start.waitFor({ state: 'hidden' });
    const outcome = page.getByTestId('action-outcome');
    await outcome.getByText('Start: ok').waitFor();
    await outcome.getByText('Run started: 0 of 1 entries placed').waitFor();
    await page.getByTestId('run-row').getByText('Running').waitFor();
    await page.getByRole('combobox', { name: 'Severity' }).selectOption('warn');
    const rejected = page.getByTestId('event-trail').locator('[data-kind="entry_rejected"]');
    await rejected.getByText('Strike offset 2 from ATM 26000 is outside the chain').waitFor();
    await page.getByTestId('event-trail').locator('[data-kind="live_enabled"]').waitFor();
    await page.getByTestId('event-trail').locator('[data-kind="run_started"]').waitFor({ state: 'detached' });
    await page.getByRole('table', { name: 'Runs' }).scrollIntoViewIfNeeded();
    await c.shot('60p-batch-started');
    // Nothing filled: the stop finds the run flat at once.
    await c.button('Stop the run').click();
    await page
      .getByRole('dialog', { name: 'Stop the run?' })
      .getByRole('button', { name: 'Stop the run' })
      .click();
    await page.getByTestId('run-row').getByText('Stopped').waitFor();
  });

  it('fits a phone screen', async () => {
    const { page, base } = c;
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${base}/strategy`);
    // On a phone each strategy is a card.
    await page
      .getByRole('list', { name: 'Strategies' })
      .getByRole('listitem', { name: 'SBIN signals' })
      .waitFor();
    await page.getByRole('listitem', { name: 'NIFTY hedge' }).getByText('Allowed').waitFor();
    await c.shot('60m-strategies-phone');
    await page.goto(`${base}${strategyPath}`);
    await page.getByRole('heading', { name: 'SBIN signals' }).waitFor();
    await page.getByTestId('run-row').first().waitFor();
    await c.shot('60n-strategy-phone');
    await page.goto(`${base}/strategy/new`);
    await c.button('Next').click();
    await page.getByRole('combobox', { name: 'Leg 1 symbol' }).waitFor();
    await c.shot('60o-wizard-phone');
    await page.setViewportSize({ width: 1280, height: 800 });
    // No token of this journey (the batch strategy's two included) was kept anywhere.
    const stored = await page.evaluate(
      '({ local: JSON.stringify(localStorage), session: JSON.stringify(sessionStorage), state: JSON.stringify(history.state) })',
    );
    expect(secrets).toHaveLength(3);
    for (const s of secrets) expect(JSON.stringify(stored)).not.toContain(s);
    expect(c.urls.filter((u) => secrets.some((s) => u.includes(s)))).toEqual([]);
  });
});

/**
 * The administration pages, /profile's mail settings and order alerts, and /apikey, driven in
 * Chromium against the real built console (docs/rules/web.md). Each journey saves a screenshot;
 * the suite fails on any browser console error and on a secret left in storage or a URL.
 */
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpServer, type SmtpTestServer } from '../helpers/smtp-test-server.js';
import { TEST_CONNECT } from '../helpers/mail-app.js';
import { HAVE_CHROMIUM, startConsoleBrowser, type ConsoleBrowser } from '../helpers/console-browser.js';
import { REPO } from '../helpers/web-build.js';

const PASSWORD = 'admin journey horse';
const SMTP_PASSWORD = 'Smtp-journey-pa55word';
const FREEZE_CSV = join(REPO, 'test', 'fixtures', 'market', 'freeze_qty', 'nse_qtyfreeze_2025-12.csv');

describe.skipIf(!HAVE_CHROMIUM)('the administration pages, profile settings and API key in Chromium', () => {
  let c: ConsoleBrowser;
  let smtp: SmtpTestServer;
  /** The API key while it is on screen: it must then be nowhere else. */
  let apiKey = '';

  beforeAll(async () => {
    smtp = await startSmtpServer('plain', { username: 'mailer', password: SMTP_PASSWORD });
    c = await startConsoleBrowser({ mailConnect: TEST_CONNECT });
    await c.app.auth.users.createFirst({ username: 'admin', password: PASSWORD, email: 'admin@example.com' });
    await c.signIn('admin', PASSWORD);
  }, 120_000);

  afterAll(async () => {
    await c?.close();
    await smtp?.close();
    expect(c?.consoleErrors ?? []).toEqual([]);
  });

  afterEach(async (ctx) => {
    if (ctx.task.result?.state === 'fail')
      await c
        .shot(`admin-failed-${ctx.task.name.replace(/[^a-z0-9]+/gi, '-').slice(0, 40)}`)
        .catch(() => undefined);
  });

  it('/admin shows the counts and links to each page', async () => {
    const { page, base } = c;
    await page.getByRole('link', { name: 'Administration' }).click();
    await page.waitForURL(`${base}/admin`);
    await page.getByRole('heading', { name: 'Administration' }).waitFor();
    await page.getByLabel(/^Exchange timings: \d+$/).waitFor();
    await c.shot('10-admin-home');
  });

  it("uploads NSE's freeze CSV and shows the import summary and the count", async () => {
    const { page, base } = c;
    await page.getByRole('link', { name: 'Freeze quantities' }).first().click();
    await page.waitForURL(`${base}/admin/freeze`);
    await page.getByText('No freeze quantity yet').waitFor();
    await page.locator('input[type=file]').setInputFiles(FREEZE_CSV);
    await c.button('Upload').click();
    const summary = page.getByTestId('freeze-import-summary');
    await summary.waitFor();
    expect(await summary.textContent()).toMatch(
      /^Loaded 213 freeze quantities for NFO \(\d+ lines skipped\)$/,
    );
    await page.getByTestId('freeze-count').getByText('213 freeze quantities').waitFor();
    const db = c.t.db.database.db;
    expect((await db.selectFrom('qty_freeze').select('id').execute()).length).toBe(213);
    await page
      .getByRole('table', { name: 'Freeze quantities' })
      .getByText('NIFTY', { exact: true })
      .waitFor();
    await c.shot('11-freeze-uploaded');
    // Edit one: a quantity of 0 shows the server's message under the field.
    const nifty = await db
      .selectFrom('qty_freeze')
      .select('id')
      .where('symbol', '=', 'NIFTY')
      .executeTakeFirstOrThrow();
    c.expected.add(`/admin/api/freeze/${nifty.id}`);
    await c.field('Filter').fill('NIFTY');
    await page.getByRole('button', { name: 'Edit NFO NIFTY', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit freeze quantity' });
    await dialog.getByRole('textbox', { name: 'Freeze quantity' }).fill('0');
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await dialog.getByText('Must be >= 1.').waitFor();
    await c.shot('11b-freeze-edit-field-message');
    await dialog.getByRole('textbox', { name: 'Freeze quantity' }).fill('1800');
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByRole('table', { name: 'Freeze quantities' }).getByText('1,800').first().waitFor();
  });

  it('adds a holiday with a closed exchange and a special session', async () => {
    const { page, base } = c;
    await page.goto(`${base}/admin/holidays`);
    const year = new Date(c.clock.now()).getUTCFullYear();
    await page.getByRole('heading', { name: `Holidays of ${year}` }).waitFor();
    c.expected.add('/admin/api/holidays');
    await page.getByLabel('Date', { exact: true }).fill(`${year}-12-24`);
    await c.field('Description').fill('Journey holiday');
    await page.getByRole('checkbox', { name: 'NSE', exact: true }).check();
    await c.button('Add a special session').click();
    await page.getByRole('combobox', { name: 'Session 1 exchange' }).selectOption('MCX');
    await c.field('Session 1 start (HH:MM)').fill('18:00');
    await c.field('Session 1 end (HH:MM)').fill('17:00');
    await c.button('Add holiday').click();
    await page.getByText('MCX: start_time must be before end_time').waitFor();
    await c.field('Session 1 end (HH:MM)').fill('19:00');
    await c.button('Add holiday').click();
    await page.getByText(`Holiday added on ${year}-12-24`).waitFor();
    const table = page.getByRole('table', { name: `Holidays of ${year}` });
    await table.getByText('Journey holiday').waitFor();
    await table.getByText('MCX 18:00–19:00').waitFor();
    await c.shot('12-holiday-added');
  });

  it('edits a timing: an out-of-range HH:MM shows the field message, a good one is saved; checks a date', async () => {
    const { page, base } = c;
    await page.goto(`${base}/admin/timings`);
    c.expected.add('/admin/api/timings/NSE');
    await c.field('NSE start').fill('25:00');
    await c.button('Save NSE').click();
    await page.getByText('must be a time written HH:MM, 00:00 to 23:59 (IST)').waitFor();
    await c.shot('13a-timing-field-message');
    await c.field('NSE start').fill('09:10');
    await c.button('Save NSE').click();
    await page.getByText('Timing updated for NSE').waitFor();
    const nse = await c.t.db.database.db
      .selectFrom('market_timings')
      .selectAll()
      .where('exchange', '=', 'NSE')
      .executeTakeFirstOrThrow();
    expect(nse.start_time).toBe('09:10');
    const year = new Date(c.clock.now()).getUTCFullYear();
    await page.getByLabel('Date', { exact: true }).fill(`${year}-12-24`);
    await c.button('Check').click();
    const sessions = page.getByRole('table', { name: `Sessions on ${year}-12-24` });
    await sessions.getByText('Journey holiday').first().waitFor();
    await sessions.getByText('special session').waitFor();
    await sessions.scrollIntoViewIfNeeded();
    await c.shot('13b-timings-check-date');
  });

  it('lists the error log with its stats and filters', async () => {
    const { page, base } = c;
    c.app.observability.errors.ingestClient({ level: 'error', message: 'journey browser failure' }, 1);
    await page.goto(`${base}/admin/errors`);
    await page.getByRole('heading', { name: 'Error log' }).waitFor();
    const entries = page.getByRole('table', { name: 'Error entries' });
    await expect
      .poll(async () => entries.getByText('journey browser failure').count(), { timeout: 8_000 })
      .toBeGreaterThan(0);
    await c.field('Text').fill('no such message anywhere');
    await page.getByText('No entry matches these filters.').waitFor();
    await c.field('Text').fill('journey');
    await entries.getByText('journey browser failure').waitFor();
    await page.getByRole('table', { name: 'Error groups' }).getByText('journey browser failure').waitFor();
    await c.shot('14-error-log');
  });

  it('runs the diagnostics and shows each probe with its result and time', async () => {
    const { page, base } = c;
    await page.goto(`${base}/admin/system`);
    await page.getByRole('table', { name: 'Configuration' }).waitFor();
    await c.button('Run diagnostics').click();
    const probes = page.getByRole('table', { name: 'Diagnostics' });
    await probes.waitFor();
    for (const name of ['database', 'http_loopback', 'host_server', 'redis', 'broker'])
      await probes.getByRole('cell', { name, exact: true }).waitFor();
    const db = probes.getByRole('row').filter({ hasText: 'select 1 answered' });
    await db.getByText('ok', { exact: true }).waitFor();
    await db.getByText(/^\d+ ms$/).waitFor();
    expect(
      await page.getByRole('link', { name: 'Download the report (Markdown)' }).getAttribute('href'),
    ).toBe('/admin/api/system/report?format=md');
    await c.shot('15-system-diagnostics');
  });

  it('saves the mail settings (the password is said to be set, never shown), sends a test and runs the staged diagnostics', async () => {
    const { page, base } = c;
    await page.goto(`${base}/profile`);
    const form = page.getByRole('form', { name: 'Mail settings' });
    await form.waitFor();
    await c.field('SMTP server').fill('127.0.0.1');
    await page.getByRole('textbox', { name: 'Port' }).fill(String(smtp.port));
    await c.field('Username (optional)').fill('mailer');
    await page.getByLabel('Password (optional)').fill(SMTP_PASSWORD);
    await c.field('Sender address').fill('not an address');
    await page.getByRole('switch', { name: 'Use STARTTLS (ports other than 465)' }).uncheck();
    c.expected.add('/auth/smtp-config');
    await c.button('Save mail settings').click();
    await form.locator('.mantine-InputWrapper-error').first().waitFor();
    await c.shot('16a-mail-settings-field-message');
    await c.field('Sender address').fill('desk@example.com');
    await c.button('Save mail settings').click();
    await page.getByText('Mail settings saved').waitFor();
    await page.getByTestId('smtp-password-state').getByText('password set').waitFor();
    expect(await page.getByLabel('Password (optional)').inputValue()).toBe('');
    expect(await page.content()).not.toContain(SMTP_PASSWORD);

    await c.field('Send a test message to').fill('trader@example.com');
    await c.button('Send test message').click();
    await page.getByText('Test message sent to trader@example.com').waitFor();
    expect(smtp.received.map((m) => m.rcptTo)).toEqual([['trader@example.com']]);
    expect(smtp.received[0]!.user).toBe('mailer');

    await c.button('Run mail diagnostics').click();
    const stages = page.getByRole('table', { name: 'Mail diagnostics' });
    for (const stage of ['resolve', 'connect', 'greeting', 'ehlo', 'auth'])
      await stages.getByRole('cell', { name: stage, exact: true }).waitFor();
    await page.getByText(/^Every stage passed/).waitFor();
    await form.scrollIntoViewIfNeeded();
    await c.shot('16b-mail-settings-saved-and-diagnosed');
  });

  it('refuses to switch Telegram alerts on without a token, naming the field', async () => {
    const { page } = c;
    c.expected.add('/settings/alerts');
    await page.getByRole('switch', { name: 'Send to Telegram' }).check();
    await c.button('Save alert settings').click();
    await page.getByText('Required to enable Telegram alerts.').first().waitFor();
    await page.getByRole('form', { name: 'Order alert settings' }).scrollIntoViewIfNeeded();
    await c.shot('17-order-alerts-field-message');
    await page.getByRole('switch', { name: 'Send to Telegram' }).uncheck();
  });

  it('/apikey regenerates the key after a confirmation and shows it once', async () => {
    const { page, base } = c;
    // A navigation to /apikey gets the page (docs/rules/web.md#negotiated-pages).
    await page.goto(`${base}/apikey`);
    await page.getByRole('heading', { name: 'API key' }).waitFor();
    await page.getByTestId('api-key-state').getByText('none yet').waitFor();
    await c.button('Generate an API key').click();
    await page.getByRole('dialog').getByRole('button', { name: 'Generate', exact: true }).click();
    apiKey = (await page.getByTestId('new-api-key').textContent())!.trim();
    expect(apiKey).toMatch(/^[A-Za-z0-9_-]{32,}$/);
    await page.getByTestId('api-key-state').getByText('exists').waitFor();
    await c.button('Copy api key').waitFor();
    await page.getByRole('dialog').waitFor({ state: 'hidden' });
    await c.shot('18a-apikey-shown-once');
    // Regenerating asks first, and the old key stops working.
    await c.button('I have stored it').click();
    expect(await page.getByTestId('new-api-key').count()).toBe(0);
    await c.button('Regenerate the API key').click();
    const dialog = page.getByRole('dialog', { name: 'Regenerate the API key?' });
    await dialog.getByText('The current key stops working at once').waitFor();
    // The picture only: let the dialog's opening transition end (the console's policy forbids the
    // string evaluation a polled check would need).
    await page.waitForTimeout(400);
    await c.shot('18b-apikey-confirm');
    await dialog.getByRole('button', { name: 'Regenerate', exact: true }).click();
    await dialog.waitFor({ state: 'hidden' });
    const second = (await page.getByTestId('new-api-key').textContent())!.trim();
    expect(second).not.toBe(apiKey);
    // Semi-automatic mode.
    await page.getByRole('radio', { name: /^Semi-automatic/ }).check();
    await page.getByText('Order mode saved.').waitFor();
    // Gone once the page is left: a reload shows only that a key exists.
    await page.reload();
    await page.getByTestId('api-key-state').getByText('exists').waitFor();
    expect(await page.getByTestId('new-api-key').count()).toBe(0);
    expect(await page.content()).not.toContain(second);
    expect(await page.getByRole('radio', { name: /^Semi-automatic/ }).isChecked()).toBe(true);
    apiKey = second;
    await c.shot('18c-apikey-after-reload');
  });

  it('answers GET /apikey with JSON to scripts and the shell to a navigation', async () => {
    const cookie = (await c.page.context().cookies()).map((k) => `${k.name}=${k.value}`).join('; ');
    const json = await c.app.inject({ method: 'GET', url: '/apikey', headers: { cookie } });
    expect(json.statusCode).toBe(200);
    expect(json.json()).toMatchObject({ status: 'success', has_api_key: true, order_mode: 'semi_auto' });
    const anon = await c.app.inject({
      method: 'GET',
      url: '/apikey',
      headers: { accept: 'application/json' },
    });
    expect(anon.statusCode).toBe(401);
    const nav = await c.app.inject({
      method: 'GET',
      url: '/apikey',
      headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
    });
    expect(nav.statusCode).toBe(200);
    expect(nav.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(nav.headers['content-security-policy']).toContain("script-src 'self'");
    expect(nav.body).toContain('<div id="root">');
  });

  it('keeps the API key and the SMTP password out of storage and URLs', async () => {
    const stored = await c.page.evaluate(
      '({ local: Object.keys(localStorage), session: Object.keys(sessionStorage), cookies: document.cookie })',
    );
    expect(stored).toEqual({ local: [], session: [], cookies: '' });
    expect(
      c.urls.filter((u) => u.includes(apiKey) || u.includes(SMTP_PASSWORD) || /apikey=/i.test(u)),
    ).toEqual([]);
  });

  it('refuses the administrator pages to another user, and fits a phone screen', async () => {
    const { page, base } = c;
    await c.app.auth.users.create({ username: 'trader', password: PASSWORD });
    await c.button('Sign out').click();
    await page.waitForURL(`${base}/login`);
    await c.signIn('trader', PASSWORD);
    expect(await page.getByRole('link', { name: 'Administration' }).count()).toBe(0);
    for (const path of [
      '/admin',
      '/admin/freeze',
      '/admin/holidays',
      '/admin/timings',
      '/admin/errors',
      '/admin/system',
    ]) {
      await page.goto(`${base}${path}`);
      await page.getByRole('alert').getByText('Not allowed').waitFor();
    }
    await c.shot('19a-admin-not-allowed');
    // The trader's profile has no mail settings (the administrator's), but order alerts.
    await page.goto(`${base}/profile`);
    await page.getByRole('form', { name: 'Order alert settings' }).waitFor();
    expect(await page.getByRole('form', { name: 'Mail settings' }).count()).toBe(0);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${base}/apikey`);
    await page.getByTestId('api-key-state').waitFor();
    await c.shot('19b-apikey-phone');
    await c.button('Sign out').click();
    await page.waitForURL(`${base}/login`);
    await c.signIn('admin', PASSWORD);
    await page.goto(`${base}/admin/holidays`);
    await page.getByRole('form', { name: 'Add a holiday' }).waitFor();
    await c.shot('19c-holidays-phone');
    await page.setViewportSize({ width: 1280, height: 800 });
  });
});

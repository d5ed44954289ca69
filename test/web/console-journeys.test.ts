import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import type { Browser, Page, Route } from 'playwright-core';
import { CHROMIUM, closeJourneyContexts, sharedChromium } from '../helpers/chromium.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { FakeClock } from '../../src/platform/clock.js';
import type { App } from '../../src/platform/http/types.js';
import { createTestDeps, type TestDeps } from '../helpers/test-app.js';
import { codeAt, wrongCode } from '../helpers/totp.js';
import { ensureWebBuild, WEB_DIST } from '../helpers/web-build.js';

const HAVE_CHROMIUM = existsSync(CHROMIUM);
if (!HAVE_CHROMIUM)
  console.warn(`\n*** NOTICE: ${CHROMIUM} is absent; the web console's browser journeys are SKIPPED ***\n`);

/** Where each journey leaves its screenshot. */
export const SCREENSHOTS = process.env.WEB_SCREENSHOTS_DIR ?? join(tmpdir(), 'algodesk-web-screenshots');
const PASSWORD = 'journey horse battery';
/** docs/rules/web.md#first-load-budget */
const FIRST_LOAD_BUDGET = 300 * 1024;

describe('docs/rules/web.md#first-load-budget: the first load stays under 300 KB of compressed JavaScript', () => {
  beforeAll(() => ensureWebBuild(), 120_000);

  it('sums the gzip size of the scripts the shell loads', () => {
    const shell = readFileSync(join(WEB_DIST, 'index.html'), 'utf8');
    const scripts = [...shell.matchAll(/(?:src|href)="(\/assets\/[^"]+\.js)"/g)].map((m) => m[1]!);
    expect(scripts.length).toBeGreaterThan(0);
    const bytes = scripts.reduce((n, s) => n + gzipSync(readFileSync(join(WEB_DIST, s))).length, 0);
    const br = scripts.reduce((n, s) => n + brotliCompressSync(readFileSync(join(WEB_DIST, s))).length, 0);
    console.log(
      `web console first load: ${(bytes / 1024).toFixed(1)} KB gzip, ${(br / 1024).toFixed(1)} KB brotli JavaScript (${scripts.length} files)`,
    );
    expect(bytes).toBeLessThan(FIRST_LOAD_BUDGET);
    // Nothing from another host (docs/rules/web.md#no-cdn).
    expect(shell).not.toMatch(/(?:src|href)\s*=\s*["']?(?:https?:)?\/\//i);
  });
});

describe.skipIf(!HAVE_CHROMIUM)('the console in Chromium: first run, sign in and out, the shield', () => {
  let t: TestDeps;
  let app: App;
  let clock: FakeClock;
  let base: string;
  let browser: Browser;
  let page: Page;
  /** Browser console errors (a journey fails on any), and the API refusals a step expects. */
  const consoleErrors: string[] = [];
  /** Every URL the browser asked for (no secret may be in one). */
  const urls: string[] = [];
  const expected = new Set<string>();
  /** The authenticator's secret once enrolled, and the administrator's password as it changes. */
  let secret = '';
  let password = PASSWORD;
  /** Uncaught errors a step throws on purpose (to see them reported). */
  const expectedPageErrors = new Set<string>();

  beforeAll(async () => {
    await ensureWebBuild();
    mkdirSync(SCREENSHOTS, { recursive: true });
    clock = new FakeClock(Date.now());
    t = await createTestDeps('sqlite', {
      clock,
      // Behind a proxy: the address a request names in X-Forwarded-For is the one the shield judges.
      env: { LOGIN_RATE_LIMIT: '1000 per minute', TRUST_PROXY_HEADERS: 'true' },
    });
    ({ app } = await buildApp({ ...t.deps, webRoot: WEB_DIST }));
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    if (address === null || typeof address === 'string') throw new Error('no TCP address');
    base = `http://127.0.0.1:${address.port}`;
    browser = await sharedChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
    // Under the test's own timeout, so a missing element fails with its locator, not a timeout.
    page.setDefaultTimeout(8_000);
    page.on('request', (req) => urls.push(req.url()));
    page.on('pageerror', (err) => {
      if (!expectedPageErrors.has(err.message)) consoleErrors.push(`pageerror: ${err.message}`);
    });
    page.on('console', (msg) => {
      if (msg.type() !== 'error') return;
      // The browser reports every 4xx answer as a console error; the ones a step asked for
      // (a signed-out session probe, a wrong password) are answers, not faults.
      const url = msg.location().url;
      const path = url ? new URL(url).pathname : '';
      if (
        /Failed to load resource: the server responded with a status of 4\d\d/.test(msg.text()) &&
        expected.has(path)
      )
        return;
      consoleErrors.push(`${msg.text()} (${url})`);
    });
  }, 120_000);

  afterAll(async () => {
    if (browser) await closeJourneyContexts(browser);
    await app?.close();
    await t?.release();
    expect(consoleErrors).toEqual([]);
  });

  afterEach(async (ctx) => {
    if (ctx.task.result?.state === 'fail')
      await shot(`failed-${ctx.task.name.replace(/[^a-z0-9]+/gi, '-').slice(0, 40)}`).catch(() => undefined);
  });

  const shot = (name: string) => page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
  /** A text field by its label (a password field's visibility toggle is labelled too). */
  const field = (label: string) => page.getByRole('textbox', { name: label, exact: true });
  const button = (name: string) => page.getByRole('button', { name, exact: true });
  /** Signs out (reads still on their way are abandoned: see the journey on it below). */
  const signOut = () => button('Sign out').click();

  it('first run: / leads to /setup, which creates the administrator and signs in', async () => {
    expected.add('/auth/session');
    await page.goto(`${base}/`);
    await page.waitForURL(`${base}/setup`);
    await page.getByRole('heading', { name: 'Set up algodesk' }).waitFor();
    // The server's field message under the field.
    await field('Username').fill('admin');
    await field('E-mail (optional)').fill('admin@example.com');
    await field('Password').fill('short');
    await field('Confirm password').fill('short');
    expected.add('/auth/setup');
    await button('Create administrator').click();
    await page.getByText('must be at least 8 characters').waitFor();
    await field('Password').fill(PASSWORD);
    await field('Confirm password').fill(PASSWORD);
    await button('Create administrator').click();
    await page.waitForURL(`${base}/`);
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    expect(await page.getByTestId('signed-in-user').textContent()).toBe('admin');
    await page.getByLabel('Mode: Live').waitFor();
    await page.getByText('Active bans').waitFor();
    await shot('01-setup-done-dashboard');
    expect(await t.deps.database.db.selectFrom('users').select('username').execute()).toEqual([
      { username: 'admin' },
    ]);
    // /setup is over: it sends the visitor on.
    await page.goto(`${base}/setup`);
    await page.waitForURL(`${base}/`);
  });

  it('signs out, refuses a wrong password, then signs in', async () => {
    await signOut();
    await page.waitForURL(`${base}/login`);
    await button('Sign in').waitFor();
    expected.add('/auth/login');
    await field('Username').fill('admin');
    await field('Password').fill('wrong password');
    await button('Sign in').click();
    await page.getByText('Invalid username or password').waitFor();
    await shot('02-sign-in-refused');
    await field('Password').fill(PASSWORD);
    await button('Sign in').click();
    await page.waitForURL(`${base}/`);
    expect(await page.getByTestId('signed-in-user').textContent()).toBe('admin');
  });

  it('signing out while the page is still reading sends none of its reads after the logout', async () => {
    // The dashboard's read of the security figures is held in the browser (on its way, not
    // answered) while the user signs out; then let through. Answered after the logout it would be
    // a 401, which the browser logs as an error (the afterAll check): the console abandons it.
    const held: Route[] = [];
    await page.route('**/security/stats', (route) => void held.push(route));
    try {
      await page.getByRole('link', { name: 'Dashboard' }).click();
      await page.waitForURL(`${base}/dashboard`);
      // The page's read may start late on a loaded machine: the poll's 1 s default is too short.
      await expect.poll(() => held.length, { timeout: 8_000 }).toBeGreaterThan(0);
      await button('Sign out').click();
      await page.waitForURL(`${base}/login`);
      await button('Sign in').waitFor();
      // Abandoned by the page: let through now, it has no answer (the browser cancelled it).
      for (const r of held) await r.continue().catch(() => undefined);
      expect(await Promise.all(held.map((r) => r.request().response()))).toEqual(held.map(() => null));
    } finally {
      await page.unroute('**/security/stats');
    }
    await field('Username').fill('admin');
    await field('Password').fill(PASSWORD);
    await button('Sign in').click();
    await page.waitForURL(`${base}/`);
    expect(consoleErrors).toEqual([]);
  });

  it('bans an address on /logs/security and lists it; an out-of-range setting shows its field message', async () => {
    await page.getByRole('link', { name: 'Security' }).click();
    await page.waitForURL(`${base}/logs/security`);
    await page.getByRole('heading', { name: 'Security', exact: true }).waitFor();
    await page.getByText('No address is banned.').waitFor();
    await field('IP address').fill('203.0.113.7');
    await field('Reason').fill('journey test');
    await button('Ban').click();
    const bans = page.getByRole('table', { name: 'Active bans' });
    await bans.getByText('203.0.113.7').waitFor();
    await bans.getByText('journey test').waitFor();
    expect(await app.security.bans.listActive()).toEqual([expect.objectContaining({ ip: '203.0.113.7' })]);
    await shot('03a-security-ban-listed');
    // A request from that address, through the trusted proxy, is refused at the gate; another
    // address is served.
    const from = (ip: string) => fetch(`${base}/auth/setup`, { headers: { 'x-forwarded-for': ip } });
    expect((await from('203.0.113.7')).status).toBe(403);
    expect((await from('203.0.113.8')).status).toBe(200);
    expected.add('/security/settings');
    await field('404 threshold').fill('0');
    await button('Save settings').click();
    await page.getByText('Must be >= 1.').waitFor();
    await page.getByRole('form', { name: 'Automatic-ban settings' }).scrollIntoViewIfNeeded();
    await shot('03b-security-settings-field-message');
    await page.getByRole('button', { name: 'Unban 203.0.113.7' }).click();
    await page.getByText('No address is banned.').waitFor();
    // The login activity lists the refused and the accepted sign-in; the sessions, this one.
    const activity = page.getByRole('table', { name: 'Login activity' });
    await activity.getByText('refused').first().waitFor();
    await activity.getByText('signed in').first().waitFor();
    await page.getByRole('table', { name: 'Active sessions' }).getByText('this session').waitFor();
  });

  it('serves /security/ as a page that needs no JavaScript (docs/rules/web.md#security-summary-page)', async () => {
    const noJs = await browser.newContext({
      javaScriptEnabled: false,
      viewport: { width: 1280, height: 800 },
    });
    try {
      await noJs.addCookies(await page.context().cookies());
      const plain = await noJs.newPage();
      await plain.goto(`${base}/security/`);
      await plain.getByRole('heading', { name: 'Security summary' }).waitFor();
      await plain.getByRole('link', { name: '/logs/security' }).waitFor();
      await plain.screenshot({ path: join(SCREENSHOTS, '03c-security-summary-without-javascript.png') });
    } finally {
      await noJs.close();
    }
  });

  it('an expired session sends the user to /login and back to the page they were on', async () => {
    // Idle past SESSION_IDLE_MINUTES (8 h by default) on the server's clock.
    clock.advance(9 * 3_600_000);
    expected.add('/security/stats');
    expected.add('/settings/analyze-mode');
    expected.add('/security/api/data');
    // The dashboard reads the broker session in live mode (docs/rules/web.md#dashboard).
    expected.add('/broker/session');
    // And its market watch panel, the user's lists (docs/rules/web.md#market-watch).
    expected.add('/watchlist/api/lists');
    await page.getByRole('link', { name: 'Dashboard' }).click();
    await page.waitForURL(`${base}/login?next=%2Fdashboard`);
    await field('Username').fill('admin');
    await field('Password').fill(PASSWORD);
    await button('Sign in').click();
    await page.waitForURL(`${base}/dashboard`);
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await shot('04-back-after-expiry');
  });

  it('enrols an authenticator on /profile by its QR code, then signs in with a code (docs/rules/auth.md#login-with-totp)', async () => {
    // Enrol on /profile: read the secret shown under the QR code, as an authenticator would.
    await page.getByRole('link', { name: 'Profile' }).click();
    await page.waitForURL(`${base}/profile`);
    await button('Set up an authenticator').click();
    await page.getByRole('img', { name: 'QR code for your authenticator app' }).waitFor();
    secret = (await page.getByTestId('totp-secret').textContent())!.trim();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    await shot('05a-profile-enrol-by-qr');
    expect(await page.getByLabel('Ask for a code when signing in').isChecked()).toBe(true);
    expected.add('/auth/2fa/configure');
    await field('Authenticator code').fill(wrongCode(secret, clock.now()));
    await button('Turn on two-factor').click();
    await page.getByText('Invalid').first().waitFor();
    await field('Authenticator code').fill(codeAt(secret, clock.now()));
    await button('Turn on two-factor').click();
    await page.getByTestId('totp-state').getByText('on').waitFor();
    // The secret is gone from the page once confirmed.
    await page.getByTestId('totp-secret').waitFor({ state: 'detached' });
    expect(await page.getByTestId('totp-secret').count()).toBe(0);
    await shot('05b-profile-two-factor-on');
    clock.advance(30_000);

    await signOut();
    await page.waitForURL(`${base}/login`);
    await field('Username').fill('admin');
    await field('Password').fill(PASSWORD);
    await button('Sign in').click();
    await field('Authenticator code').waitFor();
    expected.add('/auth/login/totp');
    await field('Authenticator code').fill(wrongCode(secret, clock.now()));
    await button('Verify').click();
    await page.getByText('Invalid').first().waitFor();
    await shot('05c-sign-in-totp-step');
    await field('Authenticator code').fill(codeAt(secret, clock.now()));
    await button('Verify').click();
    await page.waitForURL(`${base}/`);
    expect(await page.getByTestId('signed-in-user').textContent()).toBe('admin');
  });

  it('resets a forgotten password with the authenticator code, then signs in with the new one', async () => {
    const newPassword = 'replaced horse battery';
    await signOut();
    await page.waitForURL(`${base}/login`);
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.waitForURL(`${base}/reset-password`);
    await field('E-mail address').fill('admin@example.com');
    await button('Continue').click();
    await button('Use my authenticator app').click();
    clock.advance(30_000);
    await field('Authenticator code').fill(codeAt(secret, clock.now()));
    await button('Verify').click();
    await field('New password').fill(newPassword);
    await field('Confirm new password').fill('not the same password');
    expected.add('/auth/reset-password');
    await button('Set the new password').click();
    await page.getByText('Does not match password.').waitFor();
    await shot('05d-reset-password-field-message');
    await field('Confirm new password').fill(newPassword);
    await button('Set the new password').click();
    await page.getByText('Your password has been reset successfully').waitFor();
    await page.getByRole('link', { name: 'Sign in' }).click();
    await page.waitForURL(`${base}/login`);
    await field('Username').fill('admin');
    await field('Password').fill(newPassword);
    await button('Sign in').click();
    clock.advance(30_000);
    await field('Authenticator code').fill(codeAt(secret, clock.now()));
    await button('Verify').click();
    await page.waitForURL(`${base}/`);
    password = newPassword;
  });

  it('makes analyzer mode unmistakable', async () => {
    await app.sandbox.mode.set(true);
    await page.reload();
    await page.getByTestId('analyzer-banner').waitFor();
    await page.getByLabel('Mode: Analyzer').waitFor();
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await page.getByText('Active bans').waitFor();
    await shot('06-analyzer-mode');
    await app.sandbox.mode.set(false);
  });

  it("reports the administrator's uncaught browser errors to the error log", async () => {
    expectedPageErrors.add('journey probe');
    await page.evaluate(() => setTimeout(() => Promise.reject(new Error('journey probe'))));
    await expect
      .poll(
        async () =>
          (await app.observability.errors.list({ origin: 'client', q: 'journey probe' })).entries.length,
      )
      .toBe(1);
  });

  it('refuses the administrator pages to another user, and fits a phone screen', async () => {
    await app.auth.users.create({ username: 'trader', password: PASSWORD });
    await signOut();
    await page.waitForURL(`${base}/login`);
    await field('Username').fill('trader');
    await field('Password').fill(PASSWORD);
    await button('Sign in').click();
    await page.waitForURL(`${base}/`);
    expect(await page.getByRole('link', { name: 'Security' }).count()).toBe(0);
    await page.goto(`${base}/logs/security`);
    await page.getByText('Not allowed').waitFor();
    await shot('07-not-allowed');
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${base}/dashboard`);
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await page.getByRole('button', { name: 'Toggle navigation' }).click();
    // The navigation slides in over the page: shot once it spans the screen.
    const nav = page.getByRole('navigation', { name: 'Main navigation' });
    await expect.poll(async () => (await nav.boundingBox())?.x ?? -1).toBe(0);
    await expect.poll(async () => (await nav.boundingBox())?.width ?? 0).toBeGreaterThan(300);
    await page.getByRole('link', { name: 'Profile' }).waitFor();
    await shot('08-phone-navigation');
  });

  it('keeps secrets out of browser storage and URLs (docs/rules/web.md#csrf)', async () => {
    // A string: the test is compiled without the DOM library.
    const stored = await page.evaluate(
      '({ local: Object.keys(localStorage), session: Object.keys(sessionStorage), cookies: document.cookie })',
    );
    // The session cookie is HttpOnly: scripts do not see it.
    expect(stored).toEqual({ local: [], session: [], cookies: '' });
    expect(urls.length).toBeGreaterThan(20);
    expect(
      urls.filter(
        (u) => u.includes(PASSWORD) || u.includes(password) || /csrf_token=|password=|apikey=/i.test(u),
      ),
    ).toEqual([]);
  });
});

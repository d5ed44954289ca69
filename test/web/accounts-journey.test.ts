/**
 * Accounts in Chromium against the real built console (docs/rules/auth.md#account-management):
 * an administrator resets another user's password and two-factor on /admin/users (the user then
 * signs in with the new password and no code); a user changes their own password on /profile and
 * their other session dies; a wrong address typed in the browser shows the console's not-found
 * page. Screenshots at 1280 and 390 px; the suite fails on any browser console error.
 */
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  HAVE_CHROMIUM,
  journeyHooks,
  startConsoleBrowser,
  type ConsoleBrowser,
} from '../helpers/console-browser.js';
import { codeAt } from '../helpers/totp.js';

const ADMIN_PW = 'accounts journey horse';
const BOB_PW = 'bob journey battery';

describe.skipIf(!HAVE_CHROMIUM)('accounts in Chromium', () => {
  let c: ConsoleBrowser;

  beforeAll(async () => {
    c = await startConsoleBrowser();
    await c.app.auth.users.createFirst({ username: 'admin', password: ADMIN_PW, email: 'admin@example.com' });
    await c.signIn('admin', ADMIN_PW);
  }, 120_000);

  // The second browsers' contexts close with the journey's (test/helpers/chromium.ts).
  journeyHooks(() => c, 'accounts');

  /** A second browser (another device) signed in as `username`; its console errors count too. */
  async function elsewhere(username: string, password: string): Promise<Page> {
    const ctx = await c.browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await ctx.newPage();
    page.setDefaultTimeout(8_000);
    page.on('pageerror', (err) => c.consoleErrors.push(`pageerror (second browser): ${err.message}`));
    await page.goto(`${c.base}/login`);
    await page.getByRole('textbox', { name: 'Username', exact: true }).fill(username);
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill(password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    return page;
  }

  it('an administrator resets another user’s password and two-factor', async () => {
    const { page, base } = c;
    const bob = await c.app.auth.users.create({
      username: 'bob',
      password: BOB_PW,
      email: 'bob@example.com',
    });
    // Bob has two-factor on, required at sign-in (his phone is what he is about to lose).
    const totp = c.app.auth.totp;
    const { secret } = await totp.beginEnrollment(bob.id);
    const row = await c.app.auth.users.findById(bob.id);
    expect(row?.totp_pending_secret).toBeTruthy();
    await c.app.inject({ method: 'GET', url: '/health' }); // the app is up
    const base32 = secret;
    const bobBrowser = await elsewhere('bob', BOB_PW);
    await bobBrowser.waitForURL(`${base}/`);
    const cookie = (await bobBrowser.context().cookies()).map((k) => `${k.name}=${k.value}`).join('; ');
    const csrf = (await c.app.inject({ method: 'GET', url: '/auth/csrf-token', headers: { cookie } })).json<{
      csrf_token: string;
    }>().csrf_token;
    const configured = await c.app.inject({
      method: 'POST',
      url: '/auth/2fa/configure',
      headers: { cookie, 'x-csrf-token': csrf },
      payload: {
        totp_code: codeAt(base32, c.clock.now()),
        enabled: true,
        required_for_login: true,
        required_for_mcp: false,
        required_for_password_reset: false,
      },
    });
    expect(configured.statusCode, configured.body).toBe(200);

    await page.getByRole('link', { name: 'Users' }).first().click();
    await page.waitForURL(`${base}/admin/users`);
    expect(await page.title()).toBe('Users · algodesk');
    const card = page.getByRole('article', { name: 'User bob' });
    await card.getByText('Two-factor on').waitFor();
    await c.shot('90-users-page');

    await card.getByRole('button', { name: 'Set password' }).click();
    const dialog = page.getByRole('dialog', { name: 'New password for bob' });
    await dialog.getByLabel('New password').fill('short');
    c.expected.add(`/admin/api/users/${bob.id}/password`);
    await dialog.getByRole('button', { name: 'Set password' }).click();
    await dialog.getByText('must be at least 8 characters').waitFor();
    await dialog.getByLabel('New password').fill('bob reset by admin');
    await dialog.getByRole('button', { name: 'Set password' }).click();
    await dialog.waitFor({ state: 'hidden' });

    await card.getByRole('button', { name: 'Reset two-factor' }).click();
    await page
      .getByRole('dialog', { name: 'Reset two-factor of bob?' })
      .getByRole('button', { name: 'Reset two-factor' })
      .click();
    await card.getByText('Two-factor off').waitFor();
    await c.shot('91-users-bob-reset');

    // Bob's old session died with the new password; he signs in with it and no code is asked.
    await bobBrowser.reload();
    await bobBrowser.waitForURL(/\/login/);
    await bobBrowser.getByRole('textbox', { name: 'Username', exact: true }).fill('bob');
    await bobBrowser.getByRole('textbox', { name: 'Password', exact: true }).fill('bob reset by admin');
    await bobBrowser.getByRole('button', { name: 'Sign in', exact: true }).click();
    await bobBrowser.waitForURL(`${base}/`);

    // The same page at phone width: every card and its buttons within the screen.
    await page.setViewportSize({ width: 390, height: 844 });
    await card.getByRole('button', { name: 'Delete' }).waitFor();
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    const box = await card.getByRole('button', { name: 'Delete' }).boundingBox();
    expect(box!.x + box!.width).toBeLessThanOrEqual(390);
    await c.shot('92-users-phone');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('a user changes their own password: this session stays, their other one dies', async () => {
    const { page, base } = c;
    const other = await elsewhere('admin', ADMIN_PW);
    await other.waitForURL(`${base}/`);
    await page.goto(`${base}/profile`);
    const form = page.getByRole('form', { name: 'Change password' });
    await form.getByLabel('Current password').fill('not my password');
    await form.getByLabel('New password', { exact: true }).fill('admin new journey horse');
    await form.getByLabel('New password again').fill('admin new journey horse');
    c.expected.add('/auth/password');
    await form.getByRole('button', { name: 'Change password' }).click();
    await form.getByText('is not the current password').waitFor();
    await form.getByLabel('Current password').fill(ADMIN_PW);
    await form.getByRole('button', { name: 'Change password' }).click();
    await form.getByText(/Password changed\. Your 1 other session ended\./).waitFor();
    await c.shot('93-profile-password-changed');
    // This session still works; the other browser is sent to the sign-in page.
    await page.goto(`${base}/dashboard`);
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await other.reload();
    await other.waitForURL(/\/login/);
  });

  it('a wrong address typed in the browser shows the console’s not-found page', async () => {
    const { page, base } = c;
    c.expected.add('/strategies');
    const res = await page.goto(`${base}/strategies`);
    expect(res?.status()).toBe(404);
    await page.getByText('No such page', { exact: true }).waitFor();
    expect(await page.locator('main').textContent()).toContain('There is no page at /strategies.');
    expect(await page.title()).toBe('Page not found · algodesk');
    await c.shot('94-not-found');
  });
});

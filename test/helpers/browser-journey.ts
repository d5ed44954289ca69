/**
 * A Chromium page for the web console's journeys (playwright-core with Debian's Chromium): a
 * 1280 × 800 viewport, a console-error trap (a journey fails on any browser error but the 4xx
 * answers a step expects), and screenshots in one folder. The same set-up as
 * test/web/console-journeys.test.ts, for the journeys written after it.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHROMIUM, closeJourneyContexts, sharedChromium } from './chromium.js';
import { type Browser, type Page } from 'playwright-core';

export { CHROMIUM };
export const HAVE_CHROMIUM = existsSync(CHROMIUM);
/** Where each journey leaves its screenshots. */
export const SCREENSHOTS = process.env.WEB_SCREENSHOTS_DIR ?? join(tmpdir(), 'algodesk-web-screenshots');

export interface JourneyBrowser {
  browser: Browser;
  page: Page;
  /** Browser console errors and uncaught page errors: a journey expects none. */
  consoleErrors: string[];
  /** Paths whose 4xx answers a step asked for (not faults). */
  expected4xx: Set<string>;
  /**
   * Saves a screenshot as `<name>.png` in {@link SCREENSHOTS}: the whole page from its top, or
   * with `viewport` what the window shows now (a fixed header would sit mid-page in a full-page
   * capture of a scrolled page).
   */
  shot(name: string, opts?: { viewport?: boolean }): Promise<void>;
  close(): Promise<void>;
}

export async function openJourneyBrowser(): Promise<JourneyBrowser> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const browser = await sharedChromium();
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  // Under the test's own timeout, so a missing element fails with its locator, not a timeout.
  page.setDefaultTimeout(8_000);
  const consoleErrors: string[] = [];
  const expected4xx = new Set<string>();
  page.on('pageerror', (err) => consoleErrors.push(`pageerror: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() !== 'error') return;
    const url = msg.location().url;
    const path = url ? new URL(url).pathname : '';
    if (
      /Failed to load resource: the server responded with a status of 4\d\d/.test(msg.text()) &&
      expected4xx.has(path)
    )
      return;
    consoleErrors.push(`${msg.text()} (${url})`);
  });
  return {
    browser,
    page,
    consoleErrors,
    expected4xx,
    shot: async (name, opts = {}) => {
      if (!opts.viewport) await page.evaluate('window.scrollTo(0, 0)');
      await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: !opts.viewport });
    },
    close: () => closeJourneyContexts(browser),
  };
}

/**
 * The web console in Chromium for a browser journey: the real app (with the built console) on a
 * loopback port, one page at 1280 × 800 (or in the browser context a journey asks for: a phone),
 * and the traps every journey keeps — browser console errors (a journey fails on any but the 4xx
 * answers a step asked for), uncaught page errors and every URL the browser requested (no secret
 * may be in one). Shared by the journeys under test/web/ (docs/rules/web.md).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { afterAll, afterEach, expect } from 'vitest';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHROMIUM, closeJourneyContexts, sharedChromium } from './chromium.js';
import { type Browser, type BrowserContextOptions, type Locator, type Page } from 'playwright-core';
import { buildApp } from '../../src/app.js';
import { FakeClock } from '../../src/platform/clock.js';
import type { App } from '../../src/platform/http/types.js';
import { createTestDeps, type TestAppOptions, type TestDeps } from './test-app.js';
import { ensureWebBuild, WEB_DIST } from './web-build.js';
import { journeyStart } from './journey-clock.js';

export { CHROMIUM };
export const HAVE_CHROMIUM = existsSync(CHROMIUM);
/** Where each journey leaves its screenshots. */
export const SCREENSHOTS = process.env.WEB_SCREENSHOTS_DIR ?? join(tmpdir(), 'algodesk-web-screenshots');

export interface ConsoleBrowser {
  t: TestDeps;
  app: App;
  clock: FakeClock;
  base: string;
  browser: Browser;
  page: Page;
  /** Console and page errors seen so far (a journey ends by expecting none). */
  consoleErrors: string[];
  /** Every URL the browser asked for. */
  urls: string[];
  /** Paths whose 4xx answers a step expects (the browser logs each as a console error). */
  expected: Set<string>;
  shot(name: string): Promise<Buffer>;
  /** A text field by its exact label. */
  field(label: string): Locator;
  button(name: string): Locator;
  /** Signs in on /login with a username and password (no second factor). */
  signIn(username: string, password: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts the app and Chromium. `context` overrides the page's browser context (a phone's
 * viewport, `isMobile`, `hasTouch`…); by default a 1280 × 800 desktop window.
 */
export async function startConsoleBrowser(
  opts: TestAppOptions = {},
  context: BrowserContextOptions = {},
): Promise<ConsoleBrowser> {
  await ensureWebBuild();
  mkdirSync(SCREENSHOTS, { recursive: true });
  const clock = opts.clock ?? new FakeClock(journeyStart(Date.now()));
  const t = await createTestDeps('sqlite', {
    ...opts,
    clock,
    env: {
      LOGIN_RATE_LIMIT: '1000 per minute',
      // The browser journeys run on the wall clock's time of day: MIS orders placed after 15:15 IST
      // would meet the square-off rule. Square off at 23:59 IST instead; `journeyStart` keeps a
      // journey's clock out of that last minute (docs/rules/sandbox.md#day-boundary-jobs).
      SANDBOX_SQUARE_OFF: 'NSE=23:59,BSE=23:59,NFO=23:59,BFO=23:59,CDS=23:59,BCD=23:59,MCX=23:59,NCO=23:59',
      ...opts.env,
    },
  });
  const { app } = await buildApp({ ...t.deps, webRoot: WEB_DIST });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  const base = `http://127.0.0.1:${address.port}`;
  const browser = await sharedChromium();
  const page = await (
    await browser.newContext({ viewport: { width: 1280, height: 800 }, ...context })
  ).newPage();
  page.setDefaultTimeout(8_000);
  const consoleErrors: string[] = [];
  const urls: string[] = [];
  const expected = new Set<string>();
  page.on('request', (req) => urls.push(req.url()));
  page.on('pageerror', (err) => consoleErrors.push(`pageerror: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() !== 'error') return;
    const url = msg.location().url;
    const path = url ? new URL(url).pathname : '';
    if (
      /Failed to load resource: the server responded with a status of 4\d\d/.test(msg.text()) &&
      expected.has(path)
    )
      return;
    consoleErrors.push(`${msg.text()} (${url})`);
  });
  const field = (label: string) => page.getByRole('textbox', { name: label, exact: true });
  const button = (name: string) => page.getByRole('button', { name, exact: true });
  return {
    t,
    app,
    clock,
    base,
    browser,
    page,
    consoleErrors,
    urls,
    expected,
    shot: (name) => page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) }),
    field,
    button,
    async signIn(username, password) {
      expected.add('/auth/session');
      await page.goto(`${base}/login`);
      await field('Username').fill(username);
      await field('Password').fill(password);
      await button('Sign in').click();
      await page.waitForURL(`${base}/`);
    },
    async close() {
      await closeJourneyContexts(browser);
      await app.close();
      await t.release();
    },
  };
}

/**
 * The hooks of a journey file: a screenshot named `<prefix>-failed-<step>` when a step fails, and
 * at the end the browser's contexts and the app closed, with no browser console error left.
 */
export function journeyHooks(browser: () => ConsoleBrowser | undefined, prefix: string): void {
  afterEach(async (ctx) => {
    if (ctx.task.result?.state === 'fail')
      await browser()
        ?.shot(`${prefix}-failed-${ctx.task.name.replace(/[^a-z0-9]+/gi, '-').slice(0, 40)}`)
        .catch(() => undefined);
  });
  afterAll(async () => {
    const c = browser();
    await c?.close();
    expect(c?.consoleErrors ?? []).toEqual([]);
  });
}

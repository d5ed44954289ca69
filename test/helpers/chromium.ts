/**
 * One Chromium per test worker (test files share their worker's modules: docs/architecture.md,
 * "Test files share their worker's modules"): launched by the first journey that asks, kept for
 * the worker's next files, each of which works in browser contexts of its own and closes them. A
 * launch cost a second or more of a loaded machine per file. Playwright ends the browser when the
 * worker process exits; a browser that died is launched again on the next call.
 */
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

let shared: Promise<Browser> | undefined;

/** The worker's Chromium. */
export function sharedChromium(): Promise<Browser> {
  if (shared === undefined) {
    const launching = chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    shared = launching;
    launching.then(
      (b) => b.on('disconnected', () => (shared = undefined)),
      () => (shared = undefined),
    );
  }
  return shared;
}

/** Ends what a journey opened in the shared browser: its contexts (the files run one at a time). */
export async function closeJourneyContexts(browser: Browser): Promise<void> {
  for (const context of browser.contexts()) await context.close().catch(() => undefined);
}

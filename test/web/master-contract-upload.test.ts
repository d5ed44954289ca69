/**
 * The master contract upload driven in Chromium against the real built console
 * (docs/rules/web.md#account-pages, docs/rules/market.md#master-contract-upload): with a Zerodha
 * contract in use (the real Kite NSE cut), the administrator picks the real Upstox instrument file
 * (the committed cut of `complete.csv.gz`, test/fixtures/market) on `/master-contract`, sent at a
 * throttled upload speed so the page's progress can be seen while the file arrives, and it
 * replaces the contract: Upstox's rows by exchange and its skipped rows by reason are shown, and
 * the search finds an MCX future that only the uploaded file has. On a phone (390 px) a file of
 * the wrong format is refused in the server's words, the contract staying, and the same file with
 * its right format replaces the contract again; neither width scrolls sideways. Screenshots go to
 * the shared folder (prefix 84-); the suite fails on any browser console error but the one
 * refused upload.
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  HAVE_CHROMIUM,
  SCREENSHOTS,
  startConsoleBrowser,
  type ConsoleBrowser,
  journeyHooks,
} from '../helpers/console-browser.js';
import { importContract } from '../helpers/contracts.js';
import { marketFixture } from '../helpers/market-fixtures.js';
import { readFileSync } from 'node:fs';

const PASSWORD = 'upload journey heron';
const UPSTOX_FILE = marketFixture('upstox', 'upstox_complete_2026-02-05.csv.gz');
const KITE_FILE = marketFixture('zerodha', 'kite_instruments_NSE_2025-10-06.csv');
/** An MCX future of the Upstox file; the Kite cut in use before the upload has no MCX row. */
const ONLY_UPLOADED = 'CRUDEOIL19MAR26FUT';

interface Status {
  status: string;
  total_symbols: number;
  by_exchange: Record<string, Record<string, number>>;
  skipped_by_reason: Record<string, number>;
  live: { broker: string; total_symbols: number } | null;
}

describe.skipIf(!HAVE_CHROMIUM)('the master contract upload in Chromium', () => {
  let c: ConsoleBrowser;

  beforeAll(async () => {
    c = await startConsoleBrowser();
    await c.app.auth.users.createFirst({ username: 'admin', password: PASSWORD, email: 'admin@example.com' });
    await importContract({ services: c.app }, 'zerodha', readFileSync(KITE_FILE));
    await c.signIn('admin', PASSWORD);
  }, 120_000);

  journeyHooks(() => c, '84');

  const status = async () =>
    (await c.page.evaluate("fetch('/api/master-contract/status').then((r) => r.json())")) as Status;
  /** The whole page, from its top (a phone's page is taller than its window). */
  const fullShot = async (name: string) => {
    // From the top: the fixed header of a scrolled page would sit mid-page in the capture.
    await c.page.evaluate('window.scrollTo(0, 0)');
    await c.page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
  };
  const sideways = () =>
    c.page.evaluate('document.documentElement.scrollWidth - window.innerWidth') as Promise<number>;

  /** Picks `file` in the upload's file field, through the browser's file chooser. */
  async function choose(file: string) {
    const chooser = c.page.waitForEvent('filechooser');
    await c.page.getByRole('button', { name: 'Instrument file' }).click();
    await (await chooser).setFiles(file);
  }

  /** Every exchange of `s` is a row of the table with its total. */
  async function rowsByExchange(s: Status) {
    const { page } = c;
    const table = page.getByRole('table', { name: 'Instruments by exchange' });
    for (const [exchange, types] of Object.entries(s.by_exchange)) {
      const total = Object.values(types).reduce((a, b) => a + b, 0);
      await table
        .getByRole('row')
        .filter({ has: page.getByRole('cell', { name: exchange, exact: true }) })
        .getByRole('cell', { name: total.toLocaleString('en-IN'), exact: true })
        .waitFor();
    }
  }

  it('an administrator uploads the real Upstox file: progress while it arrives, then it is the contract in use', async () => {
    const { page, base } = c;
    await page.getByRole('link', { name: 'Master contract', exact: true }).click();
    await page.waitForURL(`${base}/master-contract`);
    await page
      .getByTestId('contract-summary')
      .getByText(/^Zerodha master contract: [\d,]+ instruments, loaded /)
      .waitFor();
    // The Upstox-only future is not in the contract yet.
    const before = (await page.evaluate(
      `fetch('/search/api/search?q=${ONLY_UPLOADED}').then((r) => r.json())`,
    )) as { total: number };
    expect(before.total).toBe(0);
    expect(await sideways()).toBeLessThanOrEqual(0);

    await choose(UPSTOX_FILE);
    await page.getByRole('combobox', { name: 'File format' }).selectOption('upstox');
    await page
      .getByRole('button', { name: 'Instrument file' })
      .filter({ hasText: 'upstox_complete_2026-02-05.csv.gz' })
      .waitFor();
    await c.shot('84a-upload-chosen');

    // 16 KB/s up: the 85 KB file takes about five seconds to arrive.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: 16 * 1024,
    });
    await c.button('Upload and import').click();
    const progress = page.getByTestId('import-progress');
    await progress
      .getByText(/^Read \d+(\.\d)? KB of 84\.5 KB: [\d,]+ instruments, \d+ skipped so far\.$/)
      .waitFor({ timeout: 15_000 });
    await page
      .getByTestId('import-message')
      .getByText('Importing the uploaded file upstox_complete_2026-02-05.csv.gz')
      .waitFor();
    await page.getByText('Running', { exact: true }).waitFor();
    await progress.getByRole('progressbar', { name: /^Upload read: \d+ %$/ }).waitFor();
    await c.shot('84b-upload-progress');

    await page.getByText('Succeeded', { exact: true }).waitFor({ timeout: 30_000 });
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: -1,
    });
    await progress.waitFor({ state: 'hidden' });
    const s = await status();
    expect(s.status).toBe('success');
    expect(s.live).toMatchObject({ broker: 'upstox', total_symbols: s.total_symbols });
    // The Upstox cut: 3,520 rows, read or skipped; 1,303 of them NFO contracts.
    await page
      .getByTestId('upload-result')
      .getByText(
        `${s.total_symbols.toLocaleString('en-IN')} Upstox instruments imported from upstox_complete_2026-02-05.csv.gz; ${(3_520 - s.total_symbols).toLocaleString('en-IN')} rows skipped.`,
      )
      .waitFor();
    expect(Object.values(s.by_exchange.NFO ?? {}).reduce((a, b) => a + b, 0)).toBe(1_303);
    expect(s.by_exchange.MCX).toBeDefined();
    await rowsByExchange(s);
    await page
      .getByTestId('contract-summary')
      .getByText(
        new RegExp(
          `^Upstox master contract: ${s.total_symbols.toLocaleString('en-IN')} instruments, loaded `,
        ),
      )
      .waitFor();
    const reasons = page.getByRole('table', { name: 'Skipped rows by reason' });
    expect(Object.keys(s.skipped_by_reason).length).toBeGreaterThan(0);
    for (const [why, n] of Object.entries(s.skipped_by_reason))
      await reasons
        .getByRole('row')
        .filter({ has: page.getByRole('cell', { name: why, exact: true }) })
        .getByRole('cell', { name: n.toLocaleString('en-IN'), exact: true })
        .waitFor();
    await page
      .getByRole('table', { name: 'Latest import' })
      .getByText('upstox_complete_2026-02-05.csv.gz (uploaded)')
      .waitFor();
    expect(await sideways()).toBeLessThanOrEqual(0);
    await fullShot('84c-upload-imported');

    // The search finds the future only the uploaded file has.
    await page.getByRole('link', { name: 'Search', exact: true }).click();
    await page.getByRole('textbox', { name: 'Search' }).fill(ONLY_UPLOADED);
    const results = page.getByRole('table', { name: 'Search results' });
    const row = results
      .getByTestId('search-row')
      .filter({ has: page.getByRole('cell', { name: ONLY_UPLOADED, exact: true }) });
    await row.getByRole('cell', { name: 'MCX', exact: true }).waitFor();
    await c.shot('84d-search-finds-uploaded');
  });

  it('on a phone: a file of the wrong format is refused and changes nothing; the right format replaces the contract', async () => {
    const { page, base } = c;
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${base}/master-contract`);
    await page
      .getByTestId('contract-summary')
      .getByText(/^Upstox master contract: /)
      .waitFor();
    expect(await sideways()).toBeLessThanOrEqual(0);
    const before = await status();

    // The Kite file sent as Upstox's: its header is not Upstox's.
    c.expected.add('/api/master-contract/upload');
    await choose(KITE_FILE);
    await page.getByRole('combobox', { name: 'File format' }).selectOption('upstox');
    await c.button('Upload and import').click();
    const refused = page.getByRole('alert').filter({ hasText: 'Not imported' });
    await refused
      .getByText(/^Import failed: not an Upstox instruments file: header "instrument_token,/)
      .waitFor();
    await page.getByText('Failed', { exact: true }).waitFor();
    // The contract in use is still the Upstox one.
    await page
      .getByTestId('contract-summary')
      .getByText(new RegExp(`^Upstox master contract: ${before.total_symbols.toLocaleString('en-IN')} `))
      .waitFor();
    expect((await status()).live).toEqual(before.live);
    expect(await sideways()).toBeLessThanOrEqual(0);
    await fullShot('84e-phone-upload-refused');

    await page.getByRole('combobox', { name: 'File format' }).selectOption('zerodha');
    await c.button('Upload and import').click();
    await page.getByText('Succeeded', { exact: true }).waitFor({ timeout: 30_000 });
    const s = await status();
    expect(s.live).toMatchObject({ broker: 'zerodha' });
    await page
      .getByTestId('upload-result')
      .getByText(
        new RegExp(
          `^${s.total_symbols.toLocaleString('en-IN')} Zerodha instruments imported from kite_instruments_NSE_2025-10-06\\.csv; `,
        ),
      )
      .waitFor();
    await rowsByExchange(s);
    expect(await sideways()).toBeLessThanOrEqual(0);
    await fullShot('84f-phone-upload-imported');
    await page.setViewportSize({ width: 1280, height: 800 });
  });
});

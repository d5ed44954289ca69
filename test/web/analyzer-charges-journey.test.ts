/**
 * The sandbox's charges on the console, driven in Chromium against the real built console
 * (docs/rules/web.md#account-pages, docs/rules/sandbox.md#charges-booked, #contract-note,
 * #daily-equity): with `SANDBOX_CHARGES=book`, a MIS round trip on SBIN placed through the API
 * books its charges; `/analyzer` shows the realised P&L gross, the charges and the net as the
 * account route answers them, the equity chart (one day: a point), and the contract note's and
 * the fills' CSV links, whose downloads are the server's CSV; `/positions` and `/tradebook` add
 * their charges columns. At 1280 px and at a phone's 390 px (no sideways scrolling), screenshots
 * with the prefix 65-analyzer-; the suite fails on any browser console error.
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ScriptedFeed } from '../../src/modules/sandbox/prices/price-source.js';
import {
  HAVE_CHROMIUM,
  journeyHooks,
  SCREENSHOTS,
  startConsoleBrowser,
  type ConsoleBrowser,
} from '../helpers/console-browser.js';
import { importContract } from '../helpers/contracts.js';
import { miniKiteContract } from '../helpers/sandbox.js';
import { formatRupees } from '../../web/src/format-number.js';

const PASSWORD = 'analyzer charges horse';

interface AccountAnswer {
  funds: {
    available: number;
    realised_pnl: number;
    charges: number;
    net_realised_pnl: number;
  };
}
interface EquityAnswer {
  data: Array<{ day: string; equity: number; realised_pnl: number; charges: number }>;
}

describe.skipIf(!HAVE_CHROMIUM)('the sandbox’s charges, equity and contract note on /analyzer', () => {
  let c: ConsoleBrowser;
  let apikey = '';
  const feed = new ScriptedFeed();

  beforeAll(async () => {
    c = await startConsoleBrowser({
      env: {
        SANDBOX_CHARGES: 'book',
        API_RATE_LIMIT: '100000 per second',
        ORDER_RATE_LIMIT: '100000 per second',
      },
    });
    await c.app.auth.users.createFirst({ username: 'admin', password: PASSWORD, email: 'admin@example.com' });
    await importContract({ services: c.app } as never, 'zerodha', miniKiteContract());
    apikey = (await c.app.auth.apiKeys.regenerate(1)).apikey;
    await c.app.sandbox.usePriceSource(feed);
    await c.app.sandbox.mode.set(true);
    await c.signIn('admin', PASSWORD);
  }, 120_000);

  journeyHooks(() => c, '65-analyzer');

  /** A SBIN quote stamped with the app's clock (bid/ask 5 paise either side). */
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

  /** POST /api/v1/<call> with the user's key, as a script would. */
  async function v1<T>(call: string, body: Record<string, unknown> = {}): Promise<T> {
    const res = await fetch(`${c.base}/api/v1/${call}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apikey, ...body }),
    });
    const json = (await res.json()) as T;
    expect(res.status, JSON.stringify(json)).toBe(200);
    return json;
  }

  const order = (action: 'BUY' | 'SELL') =>
    v1<{ orderid?: string }>('placeorder', {
      strategy: 'charges journey',
      symbol: 'SBIN',
      exchange: 'NSE',
      product: 'MIS',
      pricetype: 'MARKET',
      action,
      quantity: 50,
    });

  /** A JSON route read in the page, with the page's session. */
  const read = async <T>(path: string): Promise<T> =>
    (await c.page.evaluate(`fetch(${JSON.stringify(path)}).then((r) => r.json())`)) as T;

  /** A full-page screenshot from the page's top (the phone's whole scroll too). */
  const shot = async (name: string) => {
    await c.page.evaluate('window.scrollTo(0, 0)');
    await c.page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
  };

  /** A screenshot of the card under a heading (a phone's full page is too tall to read). */
  const cardShot = (heading: string, name: string) =>
    c.page
      .locator('.mantine-Card-root', { has: c.page.getByRole('heading', { name: heading, exact: true }) })
      .screenshot({ path: join(SCREENSHOTS, `${name}.png`) });

  /** How far the page scrolls sideways (0: it fits the window). */
  const overflow = async () =>
    (await c.page.evaluate(
      'document.documentElement.scrollWidth - document.documentElement.clientWidth',
    )) as number;

  it('books a MIS round trip’s charges and shows gross, charges and net on /analyzer', async () => {
    const { page, base } = c;
    tick(800);
    expect((await order('BUY')).orderid).toBeTruthy();
    tick(812.4);
    expect((await order('SELL')).orderid).toBeTruthy();

    // The books answer charges in analyzer mode (docs/rules/sandbox.md#charges-booked).
    const funds = await v1<{ data: { m2mrealized: number; charges?: number; netrealized?: number } }>(
      'funds',
    );
    expect(funds.data.charges).toBeGreaterThan(0);
    expect(funds.data.netrealized).toBeCloseTo(funds.data.m2mrealized - funds.data.charges!, 2);

    await page.getByRole('link', { name: 'Analyzer', exact: true }).click();
    await page.waitForURL(`${base}/analyzer`);
    const account = await read<AccountAnswer>('/sandbox/api/account');
    const f = account.funds;
    expect(f.charges).toBeCloseTo(funds.data.charges!, 2);
    // A MARKET order fills at the far side: bought at the ask, sold at the bid.
    expect(f.realised_pnl).toBeCloseTo(50 * (812.35 - 800.05), 2);
    expect(f.net_realised_pnl).toBeCloseTo(f.realised_pnl - f.charges, 2);
    await page.getByLabel(`Realised P&L (gross): ${formatRupees(f.realised_pnl)}`).waitFor();
    await page.getByLabel(`Charges: ${formatRupees(f.charges)}`).waitFor();
    await page.getByLabel(`Net realised P&L: ${formatRupees(f.net_realised_pnl)}`).waitFor();
    await page.getByLabel(`Available: ${formatRupees(f.available)}`).waitFor();

    // The equity chart: today's one day, drawn on a canvas, its legend the day's figures.
    const equity = await read<EquityAnswer>('/sandbox/api/equity');
    expect(equity.data.length).toBeGreaterThanOrEqual(1);
    const today = equity.data.at(-1)!;
    const chart = page.getByTestId('equity-chart');
    await chart.locator('canvas').first().waitFor();
    const legend = page.getByTestId('equity-legend');
    await legend.getByText(formatRupees(today.equity), { exact: true }).waitFor();
    await legend.getByText(formatRupees(today.charges), { exact: true }).waitFor();
    if (equity.data.length === 1) await page.getByTestId('equity-one-day').waitFor();

    // The contract note's link carries the day; its download is the server's CSV.
    const day = page.getByRole('textbox', { name: 'Day (IST)' });
    expect(await day.inputValue()).toBe(today.day);
    const note = page.getByRole('link', { name: 'Contract note (CSV)' });
    const href = (await note.getAttribute('href'))!;
    expect(href).toBe(`/sandbox/api/contract-note?day=${today.day}&format=csv`);
    expect(await note.getAttribute('download')).not.toBeNull();
    const csv = await page.request.get(`${base}${href}`);
    expect(csv.status()).toBe(200);
    expect(csv.headers()['content-type']).toMatch(/^text\/csv/);
    expect(csv.headers()['content-disposition']).toContain(`contract-note-${today.day}.csv`);
    const lines = (await csv.text()).split(/\r?\n/);
    expect(lines[0]).toMatch(/^day,time,exchange/);
    expect(lines.filter((l) => l.includes('SBIN'))).toHaveLength(2);

    const fills = page.getByRole('link', { name: 'All fills (CSV)' });
    expect(await fills.getAttribute('href')).toBe('/sandbox/api/fills?format=csv');
    const all = await page.request.get(`${base}/sandbox/api/fills?format=csv`);
    expect(all.status()).toBe(200);
    expect((await all.text()).split(/\r?\n/).filter((l) => l.includes('SBIN'))).toHaveLength(2);

    // Another day's link follows the input.
    await day.fill('2026-01-05');
    expect(await note.getAttribute('href')).toBe('/sandbox/api/contract-note?day=2026-01-05&format=csv');
    await day.fill(today.day);
    await day.blur();

    expect(await overflow()).toBe(0);
    await shot('65-analyzer-desktop');
  });

  it('adds the charges to /positions and /tradebook in analyzer mode', async () => {
    const { page, base } = c;
    const positions = await v1<{ data: Array<{ symbol: string; charges?: number; net_pnl?: number }> }>(
      'positionbook',
    );
    const sbin = positions.data.find((p) => p.symbol === 'SBIN')!;
    expect(sbin.charges).toBeGreaterThan(0);
    await page.goto(`${base}/positions`);
    const table = page.getByRole('table', { name: 'Positions' });
    await table.getByRole('columnheader', { name: /Charges/ }).waitFor();
    await table.getByRole('columnheader', { name: /Net P&L/ }).waitFor();
    await table.getByRole('cell', { name: formatRupees(sbin.charges).slice(1), exact: true }).waitFor();
    await page.getByTestId('positions-net-pnl').waitFor();
    await shot('65-analyzer-positions');

    const trades = await v1<{ data: Array<{ charges?: number }> }>('tradebook');
    expect(trades.data.every((t) => (t.charges ?? 0) > 0)).toBe(true);
    await page.goto(`${base}/tradebook`);
    const book = page.getByRole('table', { name: 'Trades' });
    await book.getByRole('columnheader', { name: /Charges/ }).waitFor();
    for (const t of trades.data)
      await book
        .getByRole('cell', { name: formatRupees(t.charges).slice(1), exact: true })
        .first()
        .waitFor();
    await page.getByTestId('trades-charges').waitFor();
    await shot('65-analyzer-tradebook');
  });

  it('fits a phone’s 390 px: the funds, the chart and the links without sideways scrolling', async () => {
    const { page, base } = c;
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.goto(`${base}/analyzer`);
      const account = await read<AccountAnswer>('/sandbox/api/account');
      await page.getByLabel(`Net realised P&L: ${formatRupees(account.funds.net_realised_pnl)}`).waitFor();
      await page.getByTestId('equity-chart').locator('canvas').first().waitFor();
      await page.getByRole('link', { name: 'Contract note (CSV)' }).waitFor();
      expect(await overflow()).toBe(0);
      const box = (await page.getByTestId('equity-chart').boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(390);
      await shot('65-analyzer-phone');
      await cardShot('Sandbox account', '65-analyzer-phone-funds');
      await cardShot('Equity', '65-analyzer-phone-equity');
      await cardShot('Contract notes and fills', '65-analyzer-phone-downloads');
      await page.goto(`${base}/positions`);
      await page.getByTestId('positions-net-pnl').waitFor();
      expect(await overflow()).toBe(0);
      await shot('65-analyzer-positions-phone');
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });
});

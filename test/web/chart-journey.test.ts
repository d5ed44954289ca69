/**
 * The chart page in Chromium against the real built console (docs/rules/web.md#live-prices):
 * Zerodha configured with a loopback Kite Connect (history) and a loopback Kite Ticker (the feed's
 * upstream), the user's broker session made; orders go to the sandbox (analyzer mode). /chart/NSE/SBIN
 * draws the stub's candles (the legend reads the last one's OHLCV), a tick from the ticker moves the
 * last candle and a tick in the next 5 minutes opens a new one, without a reload; a fill and a
 * working order show on the chart (listed in words for screen readers); another interval asks the
 * broker again for it; a search opens another instrument's chart; Buy opens the ticket prefilled.
 * At 1280 px and at phone width. Screenshots go to the shared folder (prefix 63-); the suite fails
 * on any browser console error.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/platform/clock.js';
import { ScriptedFeed } from '../../src/modules/sandbox/prices/price-source.js';
import { startKiteQuoteStub, type KiteQuoteStub } from '../helpers/broker-quote-stubs.js';
import {
  HAVE_CHROMIUM,
  journeyHooks,
  startConsoleBrowser,
  type ConsoleBrowser,
} from '../helpers/console-browser.js';
import { importContract } from '../helpers/contracts.js';
import { KiteTickerStub, type FullPacket } from '../helpers/kite-ticker-stub.js';
import { kiteContract } from '../helpers/orders-app.js';
import { ist } from '../helpers/sandbox.js';

const PASSWORD = 'chart candles horse battery';
const CREDS = { apiKey: 'kiteCHARTkey31', accessToken: 'kiteCHARTtoken59' };
const SBIN = 779521;
const FIVE_MIN = 300;
/** A Monday, NSE in session: the sandbox fills a MARKET order; the page's clock says the same. */
const T0 = ist('2026-01-05', '13:02');

/** Kite's candle time: IST wall-clock with the offset (`2026-01-05T09:15:00+0530`). */
const kiteTime = (s: number) => new Date((s + 19_800) * 1000).toISOString().slice(0, 19) + '+0530';

describe.skipIf(!HAVE_CHROMIUM)('the chart page in Chromium', () => {
  let c: ConsoleBrowser;
  let quotes: KiteQuoteStub;
  let ticker: KiteTickerStub;
  let apikey = '';
  const feed = new ScriptedFeed();
  // The candles end in the current 5 minutes (13:00): the page asks up to today's date.
  const last = Math.floor(T0 / 1000 / FIVE_MIN) * FIVE_MIN;
  const candles = Array.from({ length: 40 }, (_, i) => {
    const t = last - (39 - i) * FIVE_MIN;
    const o = 800 + Math.round(Math.sin(i / 4) * 800) / 100;
    return [kiteTime(t), o, o + 2.5, o - 1.75, o + (i % 3 === 0 ? -1 : 1.2), 1000 + i * 10, 0];
  });
  candles[39] = [kiteTime(last), 812, 815, 810, 813, 5000, 0];
  // Ten 15-minute candles, the last starting at 12:45.
  const fifteen = Array.from({ length: 10 }, (_, i) => {
    const o = 790 + i * 2;
    return [kiteTime(last - 15 * 60 - (9 - i) * 3 * FIVE_MIN), o, o + 4, o - 3, o + 1.5, 3000 + i * 100, 0];
  });

  beforeAll(async () => {
    quotes = await startKiteQuoteStub(CREDS);
    ticker = await KiteTickerStub.start(CREDS);
    quotes.candles.set(`${SBIN}/5minute`, candles);
    quotes.candles.set(`${SBIN}/15minute`, fifteen);
    c = await startConsoleBrowser({
      clock: new FakeClock(T0),
      env: {
        BROKER_NAME: 'zerodha',
        BROKER_API_KEY: CREDS.apiKey,
        BROKER_API_SECRET: 'kiteCHARTsecret47',
        BROKER_REDIRECT_URL: 'http://127.0.0.1:5000/zerodha/callback',
        BROKER_API_BASE_URL: quotes.url,
        BROKER_FEED_URL: ticker.url,
        API_RATE_LIMIT: '100000 per second',
        ORDER_RATE_LIMIT: '100000 per second',
        // Without a broker session the feed's ticks are the sandbox's prices, read this often.
        FEED_POLL_MS: '100',
      },
    });
    await c.app.auth.users.createFirst({ username: 'admin', password: PASSWORD, email: 'admin@example.com' });
    await importContract({ services: c.app } as never, 'zerodha', kiteContract(['SBIN', 'INFY']));
    apikey = (await c.app.auth.apiKeys.regenerate(1)).apikey;
    await c.app.brokers.sessions.set(1, 'zerodha', { accessToken: CREDS.accessToken });
    await c.app.brokers.sessions.refreshPrimary();
    c.app.feed.upstream.reselect();
    // Orders go to the sandbox, priced by a scripted feed (the chart's ticks come from the ticker).
    await c.app.sandbox.usePriceSource(feed);
    await c.app.sandbox.mode.set(true);
    feed.push({
      'NSE:SBIN': { ltp: 813, bid: 812.95, ask: 813.05, high: 820, low: 790, timestamp: c.clock.now() },
    });
    // The page's clock (its `Date`; its timers run as ever) is the server's.
    await c.page.clock.setFixedTime(T0);
    await c.signIn('admin', PASSWORD);
  }, 120_000);

  afterAll(async () => {
    await ticker?.close();
    await quotes?.close();
  });

  journeyHooks(() => c, '63');

  /** A full-mode packet of SBIN at `rupees`, taken at `at` (epoch seconds), with the day's volume. */
  const tick = (rupees: number, at: number, volume: number): FullPacket => {
    const paise = Math.round(rupees * 100);
    return {
      mode: 'full',
      token: SBIN,
      lastPrice: paise,
      lastQuantity: 10,
      averagePrice: paise,
      volume,
      buyQuantity: 5000,
      sellQuantity: 7000,
      open: 80_000,
      high: 82_000,
      low: 79_000,
      close: 80_500,
      lastTradeTime: at,
      oi: 0,
      oiDayHigh: 0,
      oiDayLow: 0,
      exchangeTimestamp: at,
      bids: [[100, paise - 5, 3] as const],
      asks: [[200, paise + 5, 4] as const],
    };
  };
  const legend = async (name: 'open' | 'high' | 'low' | 'close' | 'volume') =>
    (await c.page.getByTestId(`legend-${name}`).textContent())?.trim();
  const historyAsked = (interval: string) =>
    quotes.requests.filter((r) => r.path === `/instruments/historical/${SBIN}/${interval}`);

  it("draws the broker's candles with the last one's OHLCV in the legend, and the depth beside", async () => {
    const { page, base } = c;
    await page.goto(`${base}/chart/NSE/SBIN`);
    await page.getByRole('heading', { name: 'SBIN' }).waitFor();
    await page.getByRole('status', { name: 'Live updates on' }).waitFor();
    await expect.poll(() => legend('close'), { timeout: 5000 }).toBe('813.00');
    expect(await legend('open')).toBe('812.00');
    expect(await legend('high')).toBe('815.00');
    expect(await legend('low')).toBe('810.00');
    expect(await legend('volume')).toBe('5,000');
    // The 5-minute interval by default, 30 days to today.
    expect(await page.getByRole('radio', { name: '5m', exact: true }).isChecked()).toBe(true);
    const asked = historyAsked('5minute');
    expect(asked).toHaveLength(1);
    expect(asked[0]!.query.get('to')).toMatch(/ 23:59:59$/);
    expect(await page.getByTestId('price-chart').locator('canvas').count()).toBeGreaterThan(0);
    await page.getByRole('table', { name: 'Market depth of SBIN NSE' }).waitFor();
    expect(await page.title()).toBe('Chart · algodesk');
    await page.evaluate('window.__noReload = 1');
    await c.shot('63a-chart-loaded');
  });

  it('a tick moves the last candle; a tick in the next 5 minutes opens a new one, without a reload', async () => {
    const { page } = c;
    await ticker.until(() => ticker.subscriptions().get(SBIN) === 'full', 5000, 'SBIN in full mode');
    ticker.send([tick(817.5, last + 60, 100_000)]);
    await expect.poll(() => legend('close'), { timeout: 5000 }).toBe('817.50');
    expect(await legend('high')).toBe('817.50');
    expect(await legend('open')).toBe('812.00');
    expect(await legend('low')).toBe('810.00');
    // The depth beside the chart ticks with it.
    await page.getByRole('table', { name: 'Market depth of SBIN NSE' }).getByText('817.45').waitFor();

    // The day's volume grew by 250 since the last tick: the live candle's volume with it.
    ticker.send([tick(816, last + 120, 100_250)]);
    await expect.poll(() => legend('close'), { timeout: 5000 }).toBe('816.00');
    expect(await legend('high')).toBe('817.50');
    expect(await legend('volume')).toBe('5,250');
    await c.shot('63b-chart-ticked');

    ticker.send([tick(818.25, last + FIVE_MIN + 5, 100_400)]);
    await expect.poll(() => legend('open'), { timeout: 5000 }).toBe('818.25');
    expect(await legend('close')).toBe('818.25');
    expect(await legend('high')).toBe('818.25');
    expect(await legend('volume')).toBe('150');
    expect(await page.evaluate('window.__noReload')).toBe(1);
  });

  it('a fill, the position and a working order show on the chart', async () => {
    const { page, base } = c;
    const order = async (body: Record<string, unknown>) => {
      const res = await fetch(`${base}/api/v1/placeorder`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          apikey,
          strategy: 'chart',
          symbol: 'SBIN',
          exchange: 'NSE',
          product: 'MIS',
          ...body,
        }),
      });
      expect(res.status, await res.clone().text()).toBe(200);
    };
    await order({ action: 'BUY', quantity: 10, pricetype: 'MARKET' });
    await order({ action: 'BUY', quantity: 5, pricetype: 'LIMIT', price: 790 });
    const list = page.getByRole('list', { name: 'Orders on the chart' });
    // Bought at the sandbox's ask, 813.05; the LIMIT at 790 waits.
    // The list is for screen readers (visually hidden): it is there, not shown.
    const listed = { state: 'attached' } as const;
    await list.getByText('Bought 10 at 813.05, 5 Jan, 13:02:00 IST').waitFor(listed);
    await list.getByText('Open position MIS: +10 at an average of 813.05').waitFor(listed);
    await list.getByText(/^Working order \S+: BUY 5 LMT at 790\.00$/).waitFor(listed);
    expect(await page.evaluate('window.__noReload')).toBe(1);
    await c.shot('63c-chart-orders');
  });

  it('another interval asks the broker for its candles', async () => {
    const { page } = c;
    await page.getByText('15m', { exact: true }).click();
    await expect.poll(() => historyAsked('15minute').length, { timeout: 5000 }).toBe(1);
    expect(await page.getByRole('radio', { name: '15m', exact: true }).isChecked()).toBe(true);
    // The last 15-minute candle (12:45) is drawn, then the live one of 13:00 from the newest tick.
    await expect.poll(() => legend('close'), { timeout: 5000 }).toBe('818.25');
    expect(await legend('open')).toBe('818.25');
    await page.getByText('5 Jan, 13:00:00 IST').waitFor();
    await c.shot('63d-chart-15m');
    await page.getByText('5m', { exact: true }).click();
    await expect.poll(() => historyAsked('5minute').length).toBeGreaterThan(0);
    await page.getByText('5 Jan, 13:05:00 IST').waitFor();
  });

  it("follows the colour scheme: the chart's background turns dark with the console's", async () => {
    const { page } = c;
    /** The red, green and blue of the chart's background, in its top-left corner. */
    const background = () =>
      page.evaluate<number[]>(
        `[...document.querySelector('[data-testid="price-chart"] canvas').getContext('2d').getImageData(2, 2, 1, 1).data.slice(0, 3)]`,
      );
    expect(Math.min(...(await background()))).toBeGreaterThan(200);
    await page.emulateMedia({ colorScheme: 'dark' });
    try {
      await expect.poll(async () => Math.max(...(await background())), { timeout: 5000 }).toBeLessThan(60);
      await c.shot('63h-chart-dark');
    } finally {
      await page.emulateMedia({ colorScheme: 'light' });
    }
    await expect.poll(async () => Math.min(...(await background())), { timeout: 5000 }).toBeGreaterThan(200);
  });

  it('Buy opens the order ticket for SBIN; the symbol box opens another chart', async () => {
    const { page, base } = c;
    await c.button('Buy').click();
    const ticket = page.getByRole('dialog', { name: 'Order ticket' });
    await ticket.waitFor();
    expect(await ticket.getByRole('textbox', { name: 'Symbol' }).inputValue()).toBe('SBIN');
    await page.getByRole('button', { name: 'Dismiss the order ticket' }).click();
    await ticket.waitFor({ state: 'hidden' });

    await page.getByRole('combobox', { name: 'Open another chart' }).fill('INF');
    await page.getByRole('option', { name: 'INFY · NSE' }).click();
    await page.waitForURL(`${base}/chart/NSE/INFY`);
    await page.getByRole('heading', { name: 'INFY' }).waitFor();
    // INFY has no candles at the stub: said in words; the page still holds the feed.
    await page.getByText(/^No 5m candles of INFY NSE from /).waitFor();
    await c.shot('63e-chart-other-symbol');
  });

  it('at phone width the chart takes the width, the depth under it, nothing scrolls sideways', async () => {
    const { page, base } = c;
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.goto(`${base}/chart/NSE/SBIN`);
      await expect.poll(() => legend('close'), { timeout: 5000 }).not.toBe('—');
      const chart = (await page.getByTestId('price-chart').boundingBox())!;
      const depth = (await page.getByRole('table', { name: 'Market depth of SBIN NSE' }).boundingBox())!;
      expect(chart.width).toBeGreaterThan(340);
      expect(chart.height).toBeGreaterThan(300);
      expect(depth.y).toBeGreaterThan(chart.y + chart.height - 1);
      expect(await page.evaluate('document.scrollingElement.scrollWidth')).toBeLessThanOrEqual(390);
      // The new page's socket subscribes again: the tick is sent until it has (a repeat moves nothing).
      await expect
        .poll(
          () => {
            ticker.send([tick(821, last + FIVE_MIN + 30, 100_500)]);
            return legend('close');
          },
          { timeout: 5000 },
        )
        .toBe('821.00');
      await c.shot('63f-chart-phone');
      await page.getByRole('table', { name: 'Market depth of SBIN NSE' }).scrollIntoViewIfNeeded();
      await c.shot('63g-chart-phone-depth');
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  it("without a broker session the history's refusal is said, and the feed's ticks are still drawn", async () => {
    const { page, base } = c;
    await c.app.brokers.sessions.clear(1);
    await c.app.brokers.sessions.refreshPrimary();
    c.app.feed.upstream.reselect();
    c.expected.add('/desk/api/history');
    await page.goto(`${base}/chart/NSE/SBIN`);
    await page
      .getByRole('alert')
      .getByText(/needs a broker session/)
      .waitFor();
    await page.getByText("The live feed's ticks are drawn as they come.").waitFor();
    // The sandbox's prices are the feed's now: its ticks draw the chart's live candle (a quote
    // counts as a new tick when it is newer).
    c.clock.set(T0 + 1000);
    feed.push({
      'NSE:SBIN': { ltp: 825.5, bid: 825.45, ask: 825.55, high: 830, low: 800, timestamp: c.clock.now() },
    });
    await expect.poll(() => legend('close'), { timeout: 5000 }).toBe('825.50');
    expect(await legend('high')).toBe('825.50');
    await page.getByText('5 Jan, 13:00:00 IST').waitFor();
    await c.shot('63i-chart-no-broker-session');
  });
});

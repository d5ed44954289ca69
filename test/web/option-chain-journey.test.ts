/**
 * The option chain page in Chromium against the real built console
 * (docs/rules/market-data.md#option-chain, #option-greeks, docs/rules/web.md#live-prices,
 * #order-ticket, #phone-width): a Zerodha broker session whose Kite Connect quotes (a loopback
 * stub, NIFTY options of the real 2026-08-18 master priced by Black-76 at 13 %) price the chain
 * and the greeks, and whose Kite Ticker (a loopback stub speaking the binary protocol) is the live
 * feed's upstream. /optionchain/NIFTY opens on the nearest expiry with the ATM row at the strike
 * nearest the index's quote; the call deltas read from the page lie between 0 and 1 and the put
 * deltas between −1 and 0; a tick moves an option's LTP and the index's price without a reload;
 * the ATM call's LTP opens the order ticket for that contract, which the sandbox fills (analyzer
 * mode); a straddle goes out as one basket of two orders. At 1280 px and at phone width (no
 * sideways page scroll); without a broker session the page says so. Screenshots: prefix 61-.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { black76Price } from '../../src/modules/market-data/black76.js';
import { ScriptedFeed } from '../../src/modules/sandbox/prices/price-source.js';
import { FakeClock } from '../../src/platform/clock.js';
import { startKiteQuoteStub, kiteQuote, type KiteQuoteStub } from '../helpers/broker-quote-stubs.js';
import {
  HAVE_CHROMIUM,
  journeyHooks,
  startConsoleBrowser,
  type ConsoleBrowser,
} from '../helpers/console-browser.js';
import { importContract } from '../helpers/contracts.js';
import { KiteTickerStub } from '../helpers/kite-ticker-stub.js';
import { KITE_CREDS, kiteContract } from '../helpers/orders-app.js';

const PASSWORD = 'option chain journey heron';
/** A Monday morning in session, eight days before NIFTY's 18 Aug 2026 weekly expiry. */
const NOW = Date.parse('2026-08-10T10:00:00+05:30');
const EXPIRY_AT = Date.parse('2026-08-18T15:30:00+05:30');
const YEARS = (EXPIRY_AT - NOW) / 86_400_000 / 365;
const SPOT = 26_010;
/** The weekly's strikes 25,000–27,000 (41), and a few of the monthly 25 Aug for the expiry picker. */
const WEEKLY = Array.from({ length: 41 }, (_, i) => 25_000 + 50 * i);
const MONTHLY = [25_800, 25_900, 26_000, 26_100, 26_200];
const kiteWeekly = (k: number, t: 'CE' | 'PE') => `NIFTY26818${k}${t}`;
const kiteMonthly = (k: number, t: 'CE' | 'PE') => `NIFTY26AUG${k}${t}`;
/** The master contract's (OpenAlgo's) names. */
const weekly = (k: number, t: 'CE' | 'PE') => `NIFTY18AUG26${k}${t}`;
const ATM_CALL = weekly(26_000, 'CE');
const ATM_PUT = weekly(26_000, 'PE');

/** The option's price at 13 % (to the tick, never below intrinsic plus a tick). */
function premium(strike: number, type: 'CE' | 'PE', years = YEARS): number {
  const p = black76Price({ forward: SPOT, strike, years, rate: 0, vol: 0.13, type });
  const intrinsic = Math.max(0, type === 'CE' ? SPOT - strike : strike - SPOT);
  return Math.max(Math.round(p * 20) / 20, intrinsic + 0.5);
}

describe.skipIf(!HAVE_CHROMIUM)('the option chain in Chromium', () => {
  let c: ConsoleBrowser;
  let quotes: KiteQuoteStub;
  let ticker: KiteTickerStub;
  let apikey = '';
  /** The sandbox's prices: what its MARKET fills are priced at. */
  const feed = new ScriptedFeed();
  let token = 1;

  const quote = (key: string, ltp: number, close: number, oi = 0) =>
    quotes.quotes.set(key, {
      ...kiteQuote({
        instrumentToken: token++,
        lastPrice: ltp,
        ohlc: { open: close, high: Math.max(ltp, close), low: Math.min(ltp, close), close },
        bids: [[ltp - 0.05, 650]],
        asks: [[ltp + 0.05, 650]],
        timestamp: '2026-08-10 10:00:00',
        lastTradeTime: '2026-08-10 09:59:58',
      }),
      oi,
      volume: 1000 + oi / 10,
    });

  beforeAll(async () => {
    const clock = new FakeClock(NOW);
    quotes = await startKiteQuoteStub({ apiKey: KITE_CREDS.apiKey, accessToken: KITE_CREDS.accessToken });
    ticker = await KiteTickerStub.start({ apiKey: KITE_CREDS.apiKey, accessToken: KITE_CREDS.accessToken });
    // The fake clock stands still: lift the API limit the desk's calls count against.
    c = await startConsoleBrowser({
      clock,
      env: {
        BROKER_NAME: 'zerodha',
        BROKER_API_KEY: KITE_CREDS.apiKey,
        BROKER_API_SECRET: KITE_CREDS.apiSecret,
        BROKER_REDIRECT_URL: 'http://127.0.0.1:5000/zerodha/callback',
        BROKER_API_BASE_URL: quotes.url,
        BROKER_FEED_URL: ticker.url,
        API_RATE_LIMIT: '100000 per second',
        ORDER_RATE_LIMIT: '100000 per second',
      },
    });
    await c.app.auth.users.createFirst({ username: 'admin', password: PASSWORD, email: 'admin@example.com' });
    await importContract(
      { services: c.app } as never,
      'zerodha',
      kiteContract([
        'NIFTY 50',
        ...WEEKLY.flatMap((k) => [kiteWeekly(k, 'CE'), kiteWeekly(k, 'PE')]),
        ...MONTHLY.flatMap((k) => [kiteMonthly(k, 'CE'), kiteMonthly(k, 'PE')]),
      ]),
    );
    quote('NSE:NIFTY 50', SPOT, 25_950);
    WEEKLY.forEach((k, n) => {
      for (const t of ['CE', 'PE'] as const) {
        const p = premium(k, t);
        quote(`NFO:${kiteWeekly(k, t)}`, p, Math.round(p * 18) / 20, 50_000 + 1_000 * n);
      }
    });
    const monthlyYears = YEARS + 7 / 365;
    for (const k of MONTHLY)
      for (const t of ['CE', 'PE'] as const) {
        const p = premium(k, t, monthlyYears);
        quote(`NFO:${kiteMonthly(k, t)}`, p, p, 10_000);
      }
    await c.app.sandbox.mode.set(true);
    await c.app.sandbox.usePriceSource(feed);
    const sandboxQuote = (symbol: string, ltp: number) => ({
      [`NFO:${symbol}`]: {
        ltp,
        bid: ltp - 0.05,
        ask: ltp + 0.05,
        high: ltp + 10,
        low: ltp - 10,
        timestamp: NOW,
      },
    });
    feed.push({
      ...sandboxQuote(ATM_CALL, premium(26_000, 'CE')),
      ...sandboxQuote(ATM_PUT, premium(26_000, 'PE')),
    });
    apikey = (await c.app.auth.apiKeys.regenerate(1)).apikey;
    await c.app.brokers.sessions.set(1, 'zerodha', { accessToken: KITE_CREDS.accessToken });
    await c.app.brokers.sessions.refreshPrimary();
    // The broker's stream becomes the feed's upstream at once (the switch would within seconds).
    c.app.feed.upstream.reselect();
    await c.signIn('admin', PASSWORD);
  }, 120_000);

  journeyHooks(() => c, '61');

  const row = (strike: number) => c.page.locator(`tr[data-strike="${strike}"]`);
  /** A cell's text (an LTP cell's price button's: the B/S pair beside it is not the price). */
  const cellText = async (strike: number, col: string) => {
    const cell = row(strike).locator(`[data-col="${col}"]`);
    return (await (col.endsWith('-ltp') ? cell.locator('button').first() : cell).textContent())?.trim();
  };
  const tokenOf = async (symbol: string, exchange: string) =>
    Number((await c.app.market.contracts.get(symbol, exchange))!.token);

  it('opens on the nearest expiry, another can be picked, and ATM is the strike nearest the index', async () => {
    const { page, base } = c;
    await page.goto(`${base}/optionchain/NIFTY`);
    await page.getByRole('status', { name: 'Live updates on' }).waitFor();
    const expiry = page.getByRole('combobox', { name: 'Expiry' });
    await expiry.locator('option').first().waitFor({ state: 'attached' });
    expect(await expiry.locator('option').allTextContents()).toEqual(['18-AUG-26', '25-AUG-26']);
    expect(await expiry.inputValue()).toBe('18-AUG-26');
    await page.getByRole('table', { name: 'Option chain of NIFTY 18-AUG-26' }).waitFor();

    // The monthly: its five strikes, ATM at 26,000 again.
    await expiry.selectOption('25-AUG-26');
    await page.getByRole('table', { name: 'Option chain of NIFTY 25-AUG-26' }).waitFor();
    await expect.poll(() => page.getByTestId('chain-row').count()).toBe(MONTHLY.length);
    await c.shot('61a-monthly-expiry');

    await expiry.selectOption('18-AUG-26');
    await page.getByRole('table', { name: 'Option chain of NIFTY 18-AUG-26' }).waitFor();
    // Ten strikes either side of ATM by default: 21 rows; ATM (nearest 26,010) is 26,000, only one.
    await expect.poll(() => page.getByTestId('chain-row').count()).toBe(21);
    const atm = page.locator('tr[data-atm="true"]');
    expect(await atm.count()).toBe(1);
    expect(await atm.getAttribute('data-strike')).toBe('26000');
    await atm.getByRole('rowheader', { name: '26,000.00, ATM' }).waitFor();
    expect((await page.getByTestId('underlying-ltp').textContent())?.trim()).toBe('26,010.00');
    // The chain's own figures: LTP, the change from the previous close, OI; OI change has no
    // previous OI to come from, so it is a dash.
    expect(await cellText(26_000, 'ce-ltp')).toBe(premium(26_000, 'CE').toFixed(2));
    expect(await cellText(26_000, 'ce-oi')).toBe('70,000');
    expect(await cellText(26_000, 'ce-oiChange')).toBe('—');
    expect(await cellText(26_000, 'pe-change')).toMatch(/^\+\d+\.\d{2}$/);
    // Calls below the index's price and puts above it are in the money.
    expect(await row(25_950).locator('[data-col="ce-ltp"]').getAttribute('data-itm')).toBe('true');
    expect(await row(26_050).locator('[data-col="ce-ltp"]').getAttribute('data-itm')).toBeNull();
    expect(await row(26_050).locator('[data-col="pe-ltp"]').getAttribute('data-itm')).toBe('true');

    // Fifteen each side: 31 rows.
    await page.getByRole('combobox', { name: 'Strikes each side' }).selectOption('15');
    await expect.poll(() => page.getByTestId('chain-row').count()).toBe(31);
  });

  it('shows IV and delta from multioptiongreeks: calls between 0 and 1, puts between −1 and 0', async () => {
    const { page } = c;
    await expect.poll(() => cellText(26_000, 'ce-delta'), { timeout: 10_000 }).not.toBe('—');
    const read = async (col: string) =>
      (await page.locator(`[data-col="${col}"]`).allTextContents())
        .map((t) => t.trim())
        .filter((t) => t !== '—')
        .map(Number);
    const calls = await read('ce-delta');
    const puts = await read('pe-delta');
    expect(calls.length).toBeGreaterThan(20);
    expect(puts.length).toBeGreaterThan(20);
    for (const d of calls) expect(d >= 0 && d <= 1, `call delta ${d}`).toBe(true);
    for (const d of puts) expect(d >= -1 && d <= 0, `put delta ${d}`).toBe(true);
    // Near ATM a call's delta is near one half, and the IV is the 13 % the prices were made with.
    expect(Number(await cellText(26_000, 'ce-delta'))).toBeGreaterThan(0.4);
    expect(Number(await cellText(26_000, 'ce-delta'))).toBeLessThan(0.65);
    expect(Number(await cellText(26_000, 'ce-iv'))).toBeCloseTo(13, 0);
    await c.shot('61b-chain-greeks');
  });

  it('a tick moves an option’s LTP and the index’s price without a reload', async () => {
    const { page } = c;
    await page.evaluate('window.__noReload = 1');
    const callToken = await tokenOf(ATM_CALL, 'NFO');
    const indexToken = await tokenOf('NIFTY', 'NSE_INDEX');
    await ticker.until(
      () => ticker.subscriptions().get(callToken) !== undefined && ticker.subscriptions().has(indexToken),
      5000,
      'the ATM call and the index subscribed upstream',
    );
    const close = Math.round(premium(26_000, 'CE') * 18) / 20;
    ticker.send([
      {
        mode: 'quote',
        token: callToken,
        lastPrice: 21_540, // ₹215.40
        lastQuantity: 65,
        averagePrice: 18_000,
        volume: 99_000,
        buyQuantity: 1000,
        sellQuantity: 1000,
        open: 15_000,
        high: 19_000,
        low: 14_000,
        close: Math.round(close * 100),
      },
      {
        mode: 'index-quote',
        token: indexToken,
        lastPrice: 2_603_250, // 26,032.50
        high: 2_605_000,
        low: 2_590_000,
        open: 2_595_000,
        close: 2_595_000,
        change: 0,
      },
    ]);
    await expect.poll(() => cellText(26_000, 'ce-ltp'), { timeout: 5000 }).toBe('215.40');
    expect(await cellText(26_000, 'ce-change')).toBe(`+${(215.4 - close).toFixed(2)}`);
    expect(await cellText(26_000, 'ce-volume')).toBe('99,000');
    await expect
      .poll(async () => (await page.getByTestId('underlying-ltp').textContent())?.trim())
      .toBe('26,032.50');
    // ATM re-centres on the chain's next read, not on a tick.
    expect(await page.locator('tr[data-atm="true"]').getAttribute('data-strike')).toBe('26000');
    expect(await page.evaluate('window.__noReload')).toBe(1);
    await c.shot('61c-chain-ticked');
  });

  it('the ATM call’s LTP opens the ticket for that contract, and the sandbox fills it', async () => {
    const { page } = c;
    await page.getByRole('button', { name: `Order ticket for the call ${ATM_CALL}` }).click();
    const ticket = page.getByRole('dialog', { name: 'Order ticket' });
    await ticket.waitFor();
    expect(await ticket.getByRole('textbox', { name: 'Symbol' }).inputValue()).toBe(ATM_CALL);
    expect(await ticket.getByRole('combobox', { name: 'Exchange' }).inputValue()).toBe('NFO');
    expect(await ticket.getByRole('textbox', { name: 'Quantity' }).inputValue()).toBe('65');
    expect(await ticket.getByRole('radio', { name: 'BUY' }).isChecked()).toBe(true);
    await ticket.getByText('Analyzer mode: the order goes to the sandbox').waitFor();
    await c.shot('61d-ticket-from-chain');
    await ticket.getByRole('button', { name: 'Place BUY order' }).click();
    const orderid = (await ticket.getByTestId('ticket-orderid').textContent())!.trim();
    expect(orderid).not.toBe('');
    await ticket.getByTestId('ticket-status').getByText('complete').waitFor();
    await ticket.getByRole('button', { name: 'Close' }).click();
    await ticket.waitFor({ state: 'hidden' });
    // The position book has it: 65 of the ATM call.
    const book = await fetch(`${c.base}/api/v1/positionbook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apikey }),
    });
    const positions = ((await book.json()) as { data: { symbol: string; quantity: number }[] }).data;
    expect(positions.find((p) => p.symbol === ATM_CALL)?.quantity).toBe(65);
  });

  it('a straddle goes out as one basket of two orders, after a confirmation that repeats the legs', async () => {
    const { page } = c;
    const builder = page.getByRole('region', { name: 'Straddle / strangle' });
    const legs = builder.getByTestId('basket-leg');
    await expect.poll(() => legs.count()).toBe(2);
    expect(await legs.getByTestId('basket-leg-symbol').allTextContents()).toEqual([ATM_CALL, ATM_PUT]);
    // The legs' live LTPs (the call ticked to 215.40) and the premium of one lot of each.
    expect((await legs.first().getByTestId('basket-leg-ltp').textContent())?.trim()).toBe('215.40');
    const put = premium(26_000, 'PE');
    const perUnit = Math.round((215.4 + put) * 100) / 100;
    await builder.getByTestId('basket-premium').getByText(perUnit.toFixed(2)).waitFor();

    // A strangle two strikes out: the 26,100 call and the 25,900 put.
    await builder.getByRole('combobox', { name: 'Strategy' }).selectOption('strangle');
    await builder.getByRole('combobox', { name: 'Strikes from ATM' }).selectOption('2');
    expect(await legs.getByTestId('basket-leg-symbol').allTextContents()).toEqual([
      weekly(26_100, 'CE'),
      weekly(25_900, 'PE'),
    ]);
    await builder.getByRole('combobox', { name: 'Strategy' }).selectOption('straddle');

    await builder.getByRole('button', { name: 'Place basket' }).click();
    const confirm = page.getByRole('dialog', { name: 'Place this basket?' });
    await confirm.getByText('Analyzer mode: the orders go to the sandbox, at market.').waitFor();
    expect(await confirm.getByTestId('basket-confirm-legs').locator('li').allTextContents()).toEqual([
      `BUY 65 ${ATM_CALL} NFO · MARKET · NRML`,
      `BUY 65 ${ATM_PUT} NFO · MARKET · NRML`,
    ]);
    // Drawn once the dialog's opening transition is over.
    await expect
      .poll(() => confirm.evaluate((el) => el.ownerDocument.defaultView!.getComputedStyle(el).opacity))
      .toBe('1');
    await c.shot('61e-basket-confirm');
    await confirm.getByRole('button', { name: 'Place 2 orders' }).click();
    await confirm.waitFor({ state: 'hidden' });
    const results = builder.getByTestId('basket-result');
    await expect.poll(() => results.count()).toBe(2);
    for (const text of await results.allTextContents()) expect(text).toMatch(/: order \S+$/);
    await builder.getByText('Basket sent to the sandbox: 2 orders').waitFor();
    await c.shot('61f-basket-placed');
  });

  it('follows the dark theme: the shading and the ATM row come from the theme’s colours', async () => {
    const { page } = c;
    const theme = page.getByRole('button', { name: /Switch the theme/ });
    const scheme = () => page.evaluate("document.documentElement.getAttribute('data-mantine-color-scheme')");
    const strikeBg = () =>
      page
        .locator('tr[data-atm="true"] [data-col="strike"]')
        .evaluate((el) => el.ownerDocument.defaultView!.getComputedStyle(el).backgroundImage);
    const light = await strikeBg();
    while ((await scheme()) !== 'dark') await theme.click();
    await expect.poll(strikeBg).not.toBe(light);
    await page.locator('tr[data-atm="true"]').scrollIntoViewIfNeeded();
    await c.shot('61k-chain-dark');
    while ((await theme.getAttribute('data-scheme')) !== 'auto') await theme.click();
  });

  it('at phone width: fewer columns, the table scrolls in its box, the page does not scroll sideways', async () => {
    const { page } = c;
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      const table = page.getByRole('table', { name: 'Option chain of NIFTY 18-AUG-26' });
      // The phone layout drops both Volume columns once the resize is seen (a locator matching the
      // two would fail a strict wait while they are still there).
      await expect.poll(() => table.getByRole('columnheader', { name: 'Volume' }).count()).toBe(0);
      expect(await table.getByRole('columnheader').allTextContents()).toEqual([
        'Calls',
        'Puts',
        'OI',
        'Delta',
        'LTP',
        'Strike',
        'LTP',
        'Delta',
        'OI',
      ]);
      await page.locator('tr[data-atm="true"]').scrollIntoViewIfNeeded();
      expect(await page.evaluate('document.scrollingElement.scrollWidth')).toBeLessThanOrEqual(390);
      await c.shot('61g-chain-phone');
      // The ticket opens from a price here too.
      await page.getByRole('button', { name: `Order ticket for the put ${ATM_PUT}` }).click();
      const ticket = page.getByRole('dialog', { name: 'Order ticket' });
      expect(await ticket.getByRole('textbox', { name: 'Symbol' }).inputValue()).toBe(ATM_PUT);
      await page.getByRole('button', { name: 'Dismiss the order ticket' }).click();
      await ticket.waitFor({ state: 'hidden' });
      await page.getByRole('region', { name: 'Straddle / strangle' }).scrollIntoViewIfNeeded();
      expect(await page.evaluate('document.scrollingElement.scrollWidth')).toBeLessThanOrEqual(390);
      await c.shot('61h-builder-phone');
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  it('says when an underlying has no expiry, and when option data needs a broker session', async () => {
    const { page, base } = c;
    c.expected.add('/desk/api/expiry');
    await page.goto(`${base}/optionchain/BANKNIFTY`);
    await page
      .getByRole('alert')
      .filter({ hasText: 'No expiry dates found for "BANKNIFTY" options in NFO' })
      .waitFor();
    await page.getByText('No expiry found').waitFor();
    await c.shot('61i-no-expiry');

    // The expiries come from the master contract; the chain's prices from the broker session.
    await c.app.brokers.sessions.clear(1);
    c.expected.add('/desk/api/optionchain');
    await page.goto(`${base}/optionchain/NIFTY`);
    await page.getByText('Option data needs a broker session').waitFor();
    await page.getByRole('link', { name: 'Connect your broker' }).waitFor();
    await c.shot('61j-no-broker-session');
  });
});

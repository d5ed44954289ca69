/**
 * The account pages driven in Chromium against the real built console
 * (docs/rules/web.md#account-pages): `/broker` connects through a loopback stand-in of Kite's login
 * page (which sends the browser to the app's `/zerodha/callback`, whose code the Kite API stub
 * exchanges at `POST /session/token`) and disconnects after a confirmation; `/master-contract`
 * downloads Kite's instruments CSV (a real subset, test/fixtures/market) from a loopback origin,
 * its progress shown while the file is held half-sent, then the rows by exchange; `/analyzer`
 * shows an analyzer order placed through `POST /api/v1/placeorder` with the user's key (and a
 * refused one) without a reload, the sandbox's funds and configuration facts, the price source
 * and its last quote, and resets the account after a confirmation. Screenshots go to the shared
 * folder (prefix 80-); the suite fails on any browser console error and on a token or API key on
 * a page or in a URL.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedFeed } from '../../src/modules/sandbox/prices/price-source.js';
import { startKiteOrderStub, type KiteOrderStub } from '../helpers/broker-order-stubs.js';
import { HAVE_CHROMIUM, startConsoleBrowser, type ConsoleBrowser } from '../helpers/console-browser.js';
import { kiteCombined } from '../helpers/contracts.js';

const PASSWORD = 'account journey horse';
const CREDS = { apiKey: 'kitejourneykey', apiSecret: 'kitejourneysecret', accessToken: 'unusedyet' };
const SBIN_LTP = 812.5;

/**
 * Kite's browser side on loopback: `GET /connect/login` draws a login page whose button sends the
 * browser to the app's callback with a fresh `request_token` and the `redirect_params` Kite echoes;
 * `GET /instruments` serves the instrument CSV, holding the second half back until `release()`.
 */
async function kiteWebStub(kite: KiteOrderStub, appBase: () => string) {
  const csv = kiteCombined();
  const half = Math.floor(csv.length * 0.6);
  let release: () => void = () => undefined;
  let held = new Promise<void>((r) => (release = r));
  const logins: Array<{ api_key: string | null; redirect_params: string | null }> = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://stub');
    if (url.pathname === '/connect/login') {
      logins.push({
        api_key: url.searchParams.get('api_key'),
        redirect_params: url.searchParams.get('redirect_params'),
      });
      const params = new URLSearchParams(url.searchParams.get('redirect_params') ?? '');
      const hidden = [...params].map(([k, v]) => `<input type="hidden" name="${k}" value="${v}">`).join('');
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(
        `<!doctype html><html lang="en"><head><title>Kite Connect login</title></head>
        <body style="font-family:sans-serif;padding:40px"><h1>Kite · Login</h1>
        <p>Logging in to the app <b>${url.searchParams.get('api_key') ?? ''}</b> (loopback stand-in).</p>
        <form action="/connect/finish" method="get">${hidden}<button type="submit">Log in</button></form>
        </body></html>`,
      );
      return;
    }
    if (url.pathname === '/connect/finish') {
      // Kite sends the browser to the registered redirect URL with the token and the echoed params.
      const back = new URL('/zerodha/callback', appBase());
      back.searchParams.set('request_token', kite.issueRequestToken());
      back.searchParams.set('action', 'login');
      back.searchParams.set('status', 'success');
      for (const [k, v] of url.searchParams) back.searchParams.set(k, v);
      res.writeHead(302, { location: back.toString() }).end();
      return;
    }
    if (url.pathname === '/instruments') {
      res.writeHead(200, { 'content-type': 'text/csv' });
      res.write(csv.subarray(0, half));
      void held.then(() => res.end(csv.subarray(half)));
      return;
    }
    if (url.pathname === '/favicon.ico') return void res.writeHead(204).end();
    res.writeHead(404).end('not found');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    logins,
    release: () => release(),
    hold: () => void (held = new Promise<void>((r) => (release = r))),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

describe.skipIf(!HAVE_CHROMIUM)('the broker, master contract and analyzer pages in Chromium', () => {
  let c: ConsoleBrowser;
  let kite: KiteOrderStub;
  let web: Awaited<ReturnType<typeof kiteWebStub>>;
  let apikey = '';
  const feed = new ScriptedFeed();
  /** Every credential that must never reach a page, storage or URL. */
  const secrets: string[] = [];

  beforeAll(async () => {
    kite = await startKiteOrderStub(CREDS);
    web = await kiteWebStub(kite, () => c.base);
    c = await startConsoleBrowser({
      env: {
        ...kite.appEnv(),
        BROKER_LOGIN_URL: web.url,
        MASTER_CONTRACT_BASE_URL: web.url,
        MASTER_CONTRACT_BROKER: 'zerodha',
        API_RATE_LIMIT: '100000 per second',
        ORDER_RATE_LIMIT: '100000 per second',
        // The page states the server's default square-off times (the harness moves them to 23:59;
        // this journey places no MIS order).
        SANDBOX_SQUARE_OFF: '',
      },
    });
    await c.app.auth.users.createFirst({ username: 'admin', password: PASSWORD, email: 'admin@example.com' });
    apikey = (await c.app.auth.apiKeys.regenerate(1)).apikey;
    secrets.push(apikey, CREDS.apiSecret);
    await c.signIn('admin', PASSWORD);
  }, 120_000);

  afterAll(async () => {
    await c?.close();
    await kite?.close();
    await web?.close();
    expect(c?.consoleErrors ?? []).toEqual([]);
  });

  afterEach(async (ctx) => {
    if (ctx.task.result?.state === 'fail')
      await c
        .shot(`80-failed-${ctx.task.name.replace(/[^a-z0-9]+/gi, '-').slice(0, 40)}`)
        .catch(() => undefined);
  });

  const brokerState = () => c.page.getByTestId('broker-state');

  it('/broker says "not connected", connects through Kite’s login page and back through the callback', async () => {
    const { page, base } = c;
    await page.getByRole('link', { name: 'Broker', exact: true }).click();
    await page.waitForURL(`${base}/broker`);
    await page.getByRole('heading', { name: 'Zerodha' }).waitFor();
    expect(await brokerState().textContent()).toBe('Not connected');
    await page.getByText('Not connected: no broker session is stored for you').waitFor();
    await c.shot('80a-broker-not-connected');

    await page.getByRole('link', { name: 'Connect', exact: true }).click();
    await page.waitForURL(`${web.url}/connect/login?**`);
    // Kite's documented login URL: v=3, the app's key, our state inside redirect_params.
    expect(web.logins).toHaveLength(1);
    expect(web.logins[0]!.api_key).toBe(CREDS.apiKey);
    expect(web.logins[0]!.redirect_params).toMatch(/^state=1\.\d+\.[0-9a-f]{32}$/);
    await page.getByRole('heading', { name: 'Kite · Login' }).waitFor();
    await c.shot('80b-kite-login-stub');
    await page.getByRole('button', { name: 'Log in' }).click();

    await page.waitForURL(`${base}/broker?login=success`);
    await page.getByRole('status').filter({ hasText: 'Broker login complete' }).waitFor();
    await brokerState().filter({ hasText: 'Connected' }).waitFor();
    await page.getByText(/^Connected to Zerodha, valid until /).waitFor();
    const session = page.getByRole('table', { name: 'Broker session' });
    await session.getByRole('cell', { name: kite.userId, exact: true }).waitFor();
    await c.shot('80c-broker-connected');

    // The code was exchanged at the API stub; the session is stored, sealed.
    expect(kite.forms('/session/token')).toHaveLength(1);
    const stored = await c.t.db.database.db.selectFrom('broker_sessions').selectAll().execute();
    expect(stored).toHaveLength(1);
    expect(stored[0]!.broker).toBe('zerodha');
    const token = kite.credentials.accessToken;
    expect(stored[0]!.access_token_encrypted).not.toContain(token);
    secrets.push(token);
    expect(await page.content()).not.toContain(token);
  });

  it('a lapsed session is said on every other page, with the way back to /broker', async () => {
    const { page, base } = c;
    const [row] = await c.t.db.database.db.selectFrom('broker_sessions').selectAll().execute();
    await c.t.db.database.db
      .updateTable('broker_sessions')
      .set({ expires_at: c.clock.now() - 60_000 })
      .where('user_id', '=', row!.user_id)
      .execute();
    await c.app.brokers.sessions.forget(row!.user_id);
    await page.goto(`${base}/orderbook`);
    const banner = page.getByRole('status').filter({ hasText: 'Your Zerodha session has expired' });
    await banner.waitFor();
    await banner.getByText('Live orders, books and quotes need a new login.').waitFor();
    await c.shot('80f-broker-session-lapsed-banner');
    await banner.getByRole('link', { name: 'Log in to Zerodha' }).click();
    await page.waitForURL(`${base}/broker`);
    await brokerState().filter({ hasText: 'Expired' }).waitFor();
    expect(await page.getByText('Your Zerodha session has expired').count()).toBe(0);
  });

  it('/broker disconnects after a confirmation and says so', async () => {
    const { page } = c;
    await c.button('Disconnect').click();
    const dialog = page.getByRole('dialog', { name: 'Disconnect from the broker?' });
    await dialog.getByText('The stored broker session is deleted').waitFor();
    await page.waitForTimeout(300);
    await c.shot('80d-broker-disconnect-confirm');
    await dialog.getByRole('button', { name: 'Disconnect', exact: true }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByRole('status').filter({ hasText: 'Broker session removed' }).waitFor();
    await brokerState().filter({ hasText: 'Not connected' }).waitFor();
    expect(await c.t.db.database.db.selectFrom('broker_sessions').selectAll().execute()).toEqual([]);
    await c.shot('80e-broker-disconnected');
  });

  it('/master-contract downloads the contract with progress and shows its rows by exchange', async () => {
    const { page, base } = c;
    await page.getByRole('link', { name: 'Master contract', exact: true }).click();
    await page.waitForURL(`${base}/master-contract`);
    await page.getByText('No master contract is loaded yet').waitFor();
    await page.getByText('No import has run yet.').waitFor();
    await c.shot('80f-master-contract-empty');

    await c.button('Download now').click();
    // The file is held 60 % sent: the page follows the running import.
    const progress = page.getByTestId('import-progress');
    await progress
      .getByText(/^Read \d+(\.\d)? KB: [\d,]+ instruments, \d+ skipped so far\.$/)
      .waitFor({ timeout: 15_000 });
    await page.getByText('Running', { exact: true }).waitFor();
    await c.shot('80g-master-contract-progress');
    web.release();

    await page.getByText('Succeeded', { exact: true }).waitFor({ timeout: 30_000 });
    await progress.waitFor({ state: 'hidden' });
    const status = (await page.evaluate("fetch('/api/master-contract/status').then((r) => r.json())")) as {
      status: string;
      total_symbols: number;
      by_exchange: Record<string, Record<string, number>>;
    };
    expect(status.status).toBe('success');
    const table = page.getByRole('table', { name: 'Instruments by exchange' });
    for (const [exchange, types] of Object.entries(status.by_exchange)) {
      const total = Object.values(types).reduce((a, b) => a + b, 0);
      const row = table
        .getByRole('row')
        .filter({ has: page.getByRole('cell', { name: exchange, exact: true }) });
      await row.getByRole('cell', { name: total.toLocaleString('en-IN'), exact: true }).waitFor();
    }
    // The NFO rows of the fixture, as test/market counts them.
    expect(status.by_exchange.NFO).toMatchObject({ CE: 1_090, PE: 1_089, FUT: 640 });
    await page
      .getByTestId('contract-summary')
      .getByText(
        new RegExp(
          `^Zerodha master contract: ${status.total_symbols.toLocaleString('en-IN')} instruments, loaded `,
        ),
      )
      .waitFor();
    await page
      .getByTestId('import-message')
      .getByText(/^Master contract ready: \d+ instruments$/)
      .waitFor();
    await c.shot('80h-master-contract-loaded');
  });

  /** POST /api/v1/placeorder with the user's key, as a script would. */
  async function placeOrder(body: Record<string, unknown>) {
    const res = await fetch(`${c.base}/api/v1/placeorder`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apikey, strategy: 'journey', exchange: 'NSE', product: 'CNC', ...body }),
    });
    return {
      status: res.status,
      body: (await res.json()) as { status: string; orderid?: string; message?: string },
    };
  }

  it('/analyzer lists an analyzer order placed through the API, live, with the sandbox facts', async () => {
    const { page, base } = c;
    await c.app.sandbox.usePriceSource(feed);
    await c.app.sandbox.mode.set(true);
    feed.push({
      'NSE:SBIN': {
        ltp: SBIN_LTP,
        bid: SBIN_LTP - 0.05,
        ask: SBIN_LTP + 0.05,
        high: 830,
        low: 790,
        timestamp: c.clock.now(),
      },
    });
    await page.getByRole('link', { name: 'Analyzer', exact: true }).click();
    await page.waitForURL(`${base}/analyzer`);
    await page.getByText('No analyzer request yet').waitFor();
    await page.getByRole('status', { name: 'Live updates on' }).waitFor();
    await page.evaluate('window.__noReload = 1');

    const placed = await placeOrder({ symbol: 'SBIN', action: 'BUY', quantity: 5, pricetype: 'MARKET' });
    expect(placed.status, JSON.stringify(placed.body)).toBe(200);
    expect(placed.body.orderid).toBeTruthy();
    const refused = await placeOrder({
      symbol: 'NOSUCHSYMBOL',
      action: 'BUY',
      quantity: 1,
      pricetype: 'MARKET',
    });
    expect(refused.status).toBeGreaterThanOrEqual(400);

    const log = page.getByRole('table', { name: 'Analyzer requests' });
    const row = log
      .getByTestId('analyzer-log-row')
      .filter({ has: page.getByRole('cell', { name: placed.body.orderid!, exact: true }) });
    await row.getByText('BUY 5 SBIN on NSE (MARKET, CNC)').waitFor({ timeout: 5_000 });
    await row.getByText('OK 200').waitFor();
    const failed = log.getByTestId('analyzer-log-row').filter({ hasText: 'NOSUCHSYMBOL' });
    await failed.getByText(`Error ${refused.status}`).waitFor({ timeout: 5_000 });
    if (refused.body.message) await failed.getByText(refused.body.message, { exact: true }).waitFor();
    expect(await page.evaluate('window.__noReload')).toBe(1);

    // The account after the fill: the funds the API reports, in words on the page.
    const funds = (await (
      await fetch(`${c.base}/api/v1/funds`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ apikey }),
      })
    ).json()) as { data: { availablecash: number; utiliseddebits: number } };
    const inr = (n: number) =>
      n.toLocaleString('en-IN', { style: 'currency', currency: 'INR', maximumFractionDigits: 2 });
    await page.getByLabel(`Available: ${inr(funds.data.availablecash)}`).waitFor();
    await page.getByLabel(`Used margin: ${inr(funds.data.utiliseddebits)}`).waitFor();
    expect(funds.data.utiliseddebits).toBeGreaterThan(0);

    // The configuration's facts and the price source.
    const facts = page.getByRole('table', { name: 'Sandbox configuration' });
    await facts
      .getByRole('row', { name: /Starting funds/ })
      .getByText(inr(10_000_000))
      .waitFor();
    await facts
      .getByRole('row', { name: /Leverage: Equity intraday \(MIS\)/ })
      .getByText('5×')
      .waitFor();
    await facts
      .getByRole('row', { name: /Automatic reset/ })
      .getByText('Every Sunday at 00:00 IST')
      .waitFor();
    const squareOff = page.getByRole('table', { name: 'MIS square-off times' });
    await squareOff.getByRole('row', { name: 'NSE 15:15' }).waitFor();
    await squareOff.getByRole('row', { name: 'MCX 23:30' }).waitFor();
    await page.getByTestId('price-source').getByText('A scripted feed — not market data').waitFor();
    await page
      .getByTestId('last-quote')
      .getByText(/^Last quote .+ \(.+\)\.$/)
      .waitFor();
    await c.shot('80i-analyzer-order-and-facts');

    await row.getByRole('button', { name: /^Show request and answer/ }).click();
    const request = JSON.parse((await page.getByTestId('analyzer-log-request').textContent())!) as Record<
      string,
      unknown
    >;
    expect(request).toMatchObject({ symbol: 'SBIN', action: 'BUY', quantity: 5 });
    expect(request).not.toHaveProperty('apikey');
    await page
      .getByTestId('analyzer-log-response')
      .getByText(`"orderid": "${placed.body.orderid}"`)
      .waitFor();
    await page.getByTestId('analyzer-log-request').scrollIntoViewIfNeeded();
    await c.shot('80j-analyzer-request-details');
    const html = await page.content();
    for (const s of secrets) expect(html).not.toContain(s);
  });

  it('/analyzer resets the sandbox account after a confirmation', async () => {
    const { page } = c;
    await c.button('Reset account').click();
    const dialog = page.getByRole('dialog', { name: 'Reset the sandbox account?' });
    await dialog.getByText(/Every sandbox order, trade, position and holding of yours is deleted/).waitFor();
    await page.waitForTimeout(300);
    await c.shot('80k-analyzer-reset-confirm');
    await dialog.getByRole('button', { name: 'Reset account', exact: true }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByRole('status').filter({ hasText: 'Sandbox account reset' }).waitFor();
    const inr = (n: number) =>
      n.toLocaleString('en-IN', { style: 'currency', currency: 'INR', maximumFractionDigits: 2 });
    await page.getByLabel(`Available: ${inr(10_000_000)}`).waitFor();
    await page.getByLabel(`Used margin: ${inr(0)}`).waitFor();
    const orders = await c.t.db.database.db
      .selectFrom('sandbox_orders')
      .selectAll()
      .where('user_id', '=', 1)
      .execute();
    expect(orders).toEqual([]);
    // The log is kept: it is the record of what was sent.
    await page
      .getByRole('table', { name: 'Analyzer requests' })
      .getByTestId('analyzer-log-row')
      .first()
      .waitFor();
    await c.shot('80l-analyzer-after-reset');
  });

  it('keeps tokens and keys out of storage and URLs, and fits a phone screen', async () => {
    const { page, base } = c;
    const stored = await page.evaluate(
      '({ local: JSON.stringify(localStorage), session: JSON.stringify(sessionStorage) })',
    );
    for (const s of secrets) expect(JSON.stringify(stored)).not.toContain(s);
    expect(c.urls.filter((u) => secrets.some((s) => u.includes(s)))).toEqual([]);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${base}/master-contract`);
    await page.getByRole('table', { name: 'Instruments by exchange' }).waitFor();
    await c.shot('80m-master-contract-phone');
    await page.goto(`${base}/analyzer`);
    await page.getByRole('table', { name: 'Analyzer requests' }).waitFor();
    await c.shot('80n-analyzer-phone');
    await page.setViewportSize({ width: 1280, height: 800 });
  });
});

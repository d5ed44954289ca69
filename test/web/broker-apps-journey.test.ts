/**
 * Broker apps per install, chosen per user, driven in Chromium against the real built console
 * (docs/rules/brokers.md#broker-apps, docs/rules/web.md#account-pages): the administrator opens
 * /admin/brokers, sees a refusal in the server's words, adds an Angel One app (its API key) and a
 * Dhan app, and adds then deletes a Zerodha app after a confirmation; the administrator chooses
 * the Angel app on /broker and logs in with client code, PIN and TOTP; user B, in a second browser,
 * chooses the Dhan app and pastes a token. Each places a live order — the administrator through
 * the order ticket, B through `POST /api/v1/placeorder` with B's key — and each reaches their own
 * broker's stub only (both behind one `BROKER_API_BASE_URL`, test/helpers/broker-router.ts). Both
 * pages are drawn at 1280 px and on a phone (390 px, nothing beyond the edge). No key, PIN, TOTP
 * or token is in any URL the browsers asked for, or on screen after it was sent. Screenshots go
 * to the shared folder (prefix 85-); any browser console error fails the suite.
 */
import { readFileSync } from 'node:fs';
import type { BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ANGEL_CREDS,
  ANGEL_STUB_PATHS as P,
  startAngelStub,
  type AngelStub,
} from '../helpers/broker-order-stub-angel.js';
import { startDhanStub, type DhanStub } from '../helpers/broker-order-stub-dhan.js';
import { BrokerRouter } from '../helpers/broker-router.js';
import {
  HAVE_CHROMIUM,
  journeyHooks,
  SCREENSHOTS,
  startConsoleBrowser,
  type ConsoleBrowser,
} from '../helpers/console-browser.js';
import { importContract } from '../helpers/contracts.js';
import { DHAN } from '../helpers/dhan-fixtures.js';
import { marketFixture } from '../helpers/market-fixtures.js';

const ADMIN_PW = 'broker apps journey kestrel';
const BOB_PW = 'broker apps journey plover';
const ANGEL_APP = 'Angel One (family)';
const DHAN_APP = 'Dhan desk';
const KITE = { label: 'Kite spare', key: 'kiteSPAREkey7Hq2', secret: 'kiteSPAREsecret9Xw4' };
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };

describe.skipIf(!HAVE_CHROMIUM)(
  'broker apps: added on /admin/brokers, chosen on /broker, in Chromium',
  () => {
    let c: ConsoleBrowser;
    let angel: AngelStub;
    let dhan: DhanStub;
    let router: BrokerRouter;
    let bobKey = '';
    let bobPage: Page;
    /** Every URL the second browsers asked for. */
    const otherUrls: string[] = [];
    /** Every credential that must never be in a URL, or on a page once sent. */
    const secrets = [
      ANGEL_CREDS.apiKey,
      ANGEL_CREDS.pin,
      ANGEL_CREDS.totp,
      ANGEL_CREDS.jwt,
      DHAN.accessToken,
      KITE.key,
      KITE.secret,
    ];

    beforeAll(async () => {
      angel = await startAngelStub(ANGEL_CREDS);
      angel.fillMarketOrders = true;
      dhan = await startDhanStub(DHAN);
      dhan.fillMarketOrders = true;
      // One BROKER_API_BASE_URL for the install: Angel's paths (under /v2/rest/) and Dhan's (/v2/).
      router = await BrokerRouter.start([
        { prefix: '/v2/rest/', origin: angel.url, rewrite: '/rest/' },
        { prefix: '/v2/', origin: dhan.url },
      ]);
      c = await startConsoleBrowser({
        env: {
          BROKER_API_BASE_URL: `${router.url}/v2`,
          API_RATE_LIMIT: '100000 per second',
          ORDER_RATE_LIMIT: '100000 per second',
        },
      });
      await c.app.auth.users.createFirst({
        username: 'admin',
        password: ADMIN_PW,
        email: 'admin@example.com',
      });
      const bob = await c.app.auth.users.create({
        username: 'bob',
        password: BOB_PW,
        email: 'bob@example.com',
      });
      bobKey = (await c.app.auth.apiKeys.regenerate(bob.id)).apikey;
      secrets.push(bobKey);
      // Both brokers' instrument files; Angel's, imported last, is the live contract.
      const services = { services: c.app } as never;
      await importContract(
        services,
        'dhan',
        readFileSync(marketFixture('dhan', 'api-scrip-master_2026-02-10.csv')),
      );
      await importContract(
        services,
        'angel',
        readFileSync(marketFixture('angel', 'OpenAPIScripMaster_documented_rows.json')),
      );
      await c.app.sandbox.mode.set(false);
      await c.signIn('admin', ADMIN_PW);
    }, 120_000);

    journeyHooks(() => c, '85');
    afterAll(async () => {
      await router?.close();
      await angel?.close();
      await dhan?.close();
    });

    /** A second browser signed in as `username`; its errors count, its URLs are checked. */
    async function signedIn(username: string, password: string, context: BrowserContextOptions = {}) {
      const ctx = await c.browser.newContext({ viewport: { width: 1280, height: 800 }, ...context });
      const page = await ctx.newPage();
      page.setDefaultTimeout(8_000);
      page.on('request', (req) => otherUrls.push(req.url()));
      page.on('pageerror', (err) =>
        c.consoleErrors.push(`pageerror (${username}'s browser): ${err.message}`),
      );
      page.on('console', (msg) => {
        if (msg.type() === 'error' && !msg.text().includes('status of 401'))
          c.consoleErrors.push(`${msg.text()} (${username}'s browser)`);
      });
      await page.goto(`${c.base}/login`);
      await page.getByRole('textbox', { name: 'Username', exact: true }).fill(username);
      await page.getByRole('textbox', { name: 'Password', exact: true }).fill(password);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await page.waitForURL(`${c.base}/`);
      return page;
    }

    /** The page holds no secret (its HTML, inputs' values included). */
    async function expectNoSecret(page: Page, what: string) {
      const html = await page.content();
      const values = await page
        .locator('input')
        .evaluateAll((els) => els.map((e) => (e as unknown as { value: string }).value));
      for (const s of secrets) {
        expect(html, `${what}: ${s.slice(0, 4)}… on the page`).not.toContain(s);
        expect(values, `${what}: ${s.slice(0, 4)}… in an input`).not.toContain(s);
      }
    }

    const appsTable = () => c.page.getByRole('table', { name: 'Broker apps' });
    const appRow = (label: string) =>
      appsTable()
        .getByRole('row')
        .filter({ has: c.page.getByRole('cell', { name: label, exact: true }) });

    it('/admin/brokers: a refusal in the server’s words, then an Angel One app and a Dhan app added', async () => {
      const { page, base } = c;
      await page.getByRole('link', { name: 'Broker apps', exact: true }).click();
      await page.waitForURL(`${base}/admin/brokers`);
      await page.getByText('No broker app yet').waitFor();
      const form = page.getByRole('form', { name: 'Add a broker app' });

      // Angel One without its key: the inputs are Angel's only; the server names what is missing.
      await form.getByRole('textbox', { name: 'Label' }).fill(ANGEL_APP);
      await form.getByRole('combobox', { name: 'Broker' }).selectOption({ label: 'Angel One' });
      await form.getByLabel('API key').waitFor();
      expect(await form.getByLabel('API secret').count()).toBe(0);
      expect(await form.getByLabel('Redirect URL').count()).toBe(0);
      c.expected.add('/admin/api/brokers');
      await form.getByRole('button', { name: 'Add broker app' }).click();
      await form.getByRole('alert').filter({ hasText: 'A angel app needs api_key' }).waitFor();
      await c.shot('85a-admin-brokers-refused');

      await form.getByLabel('API key').fill(ANGEL_CREDS.apiKey);
      await form.getByRole('button', { name: 'Add broker app' }).click();
      await form
        .getByRole('status')
        .filter({ hasText: `Broker app “${ANGEL_APP}” added` })
        .waitFor();
      expect(await form.getByRole('textbox', { name: 'Label' }).inputValue()).toBe('');

      // Dhan: no credentials at all.
      await form.getByRole('textbox', { name: 'Label' }).fill(DHAN_APP);
      await form.getByRole('combobox', { name: 'Broker' }).selectOption({ label: 'Dhan' });
      await form.getByText('A Dhan app needs no credentials').waitFor();
      expect(await form.getByLabel('API key').count()).toBe(0);
      await form.getByRole('button', { name: 'Add broker app' }).click();
      await form
        .getByRole('status')
        .filter({ hasText: `Broker app “${DHAN_APP}” added` })
        .waitFor();

      const angelRow = appRow(ANGEL_APP);
      await angelRow.getByRole('cell', { name: 'Angel One', exact: true }).waitFor();
      await angelRow.getByText('Complete', { exact: true }).waitFor();
      expect(await angelRow.getByRole('cell').allTextContents()).toEqual([
        ANGEL_APP,
        'Angel One',
        expect.stringMatching(/^Added here/),
        'Set',
        'Not needed',
        'None',
        'Complete',
        'Replace credentialsDelete',
      ]);
      await appRow(DHAN_APP).getByRole('cell', { name: 'Dhan', exact: true }).waitFor();
      await expectNoSecret(page, '/admin/brokers');
      await c.shot('85b-admin-brokers-added');
    });

    it('/admin/brokers: a Zerodha app asks for key, secret and redirect URL; replaced, then deleted after a confirmation', async () => {
      const { page, base } = c;
      const form = page.getByRole('form', { name: 'Add a broker app' });
      await form.getByRole('textbox', { name: 'Label' }).fill(KITE.label);
      await form.getByRole('combobox', { name: 'Broker' }).selectOption({ label: 'Zerodha' });
      await form.getByText(`Register ${base}/zerodha/callback at Zerodha`).waitFor();
      await form.getByLabel('API key').fill(KITE.key);
      await form.getByLabel('API secret').fill('first-secret-1');
      await form.getByLabel('Redirect URL').fill(`${base}/zerodha/callback`);
      await c.shot('85c-admin-brokers-zerodha-form');
      await form.getByRole('button', { name: 'Add broker app' }).click();
      await form
        .getByRole('status')
        .filter({ hasText: `Broker app “${KITE.label}” added` })
        .waitFor();
      const row = appRow(KITE.label);
      await row.getByRole('cell', { name: `${base}/zerodha/callback`, exact: true }).waitFor();

      // Replace only the secret: the other inputs stay empty and keep what is stored.
      await page.getByRole('button', { name: `Replace credentials of ${KITE.label}` }).click();
      const dialog = page.getByRole('dialog', { name: `Replace credentials of ${KITE.label}` });
      expect(await dialog.getByLabel('New API key').inputValue()).toBe('');
      await dialog.getByLabel('New API secret').fill(KITE.secret);
      await page.waitForTimeout(300);
      await c.shot('85d-admin-brokers-replace');
      await dialog.getByRole('button', { name: 'Replace', exact: true }).click();
      await dialog.waitFor({ state: 'hidden' });
      const stored = c.app.brokers.apps.list().find((a) => a.label === KITE.label)!;
      expect(c.app.brokers.apps.get(stored.id)).toMatchObject({ apiKey: KITE.key, apiSecret: KITE.secret });

      await page.getByRole('button', { name: `Delete ${KITE.label}` }).click();
      const confirm = page.getByRole('dialog', { name: `Delete ${KITE.label}?` });
      await confirm.getByText('they must choose a broker app again').waitFor();
      await page.waitForTimeout(300);
      await c.shot('85e-admin-brokers-delete-confirm');
      await confirm.getByRole('button', { name: 'Delete broker app' }).click();
      await confirm.waitFor({ state: 'hidden' });
      await page
        .getByRole('status')
        .filter({ hasText: 'Broker app deleted (0 user(s) must choose again)' })
        .waitFor();
      await row.waitFor({ state: 'detached' });
      expect(c.app.brokers.apps.list().map((a) => a.label)).toEqual([ANGEL_APP, DHAN_APP]);
      await expectNoSecret(page, '/admin/brokers after the replace');
    });

    it('the administrator chooses the Angel app on /broker and logs in with client code, PIN and TOTP', async () => {
      const { page, base } = c;
      await page.getByRole('link', { name: 'Broker', exact: true }).click();
      await page.waitForURL(`${base}/broker`);
      await page.getByRole('status').filter({ hasText: 'You have not chosen a broker app yet' }).waitFor();
      const select = page.getByRole('combobox', { name: 'Broker app' });
      expect(await select.locator('option').allTextContents()).toEqual([
        'Choose a broker app',
        `${ANGEL_APP} · Angel One`,
        `${DHAN_APP} · Dhan`,
      ]);
      await c.shot('85f-broker-choose');
      await select.selectOption({ label: `${ANGEL_APP} · Angel One` });
      await c.button('Use this app').click();
      await page
        .getByRole('status')
        .filter({ hasText: `Your broker app is ${ANGEL_APP}` })
        .waitFor();
      await page.getByRole('heading', { name: 'Angel One', exact: true }).waitFor();

      const login = page.getByRole('form', { name: 'Broker login' });
      await login.getByRole('textbox', { name: 'Client code' }).fill(ANGEL_CREDS.clientCode);
      await login.getByLabel('PIN').fill(ANGEL_CREDS.pin);
      await login.getByLabel('TOTP code').fill(ANGEL_CREDS.totp);
      await login.getByRole('button', { name: 'Log in' }).click();
      await page.getByTestId('broker-state').filter({ hasText: 'Connected' }).waitFor();
      await page.getByText(/^Connected to Angel One/).waitFor();
      expect(angel.bodies(P.login)).toEqual([
        expect.objectContaining({ clientcode: ANGEL_CREDS.clientCode, password: ANGEL_CREDS.pin }),
      ]);
      await expectNoSecret(page, '/broker after the Angel login');
      await c.shot('85g-broker-angel-connected');
    });

    it('user B, in a second browser, chooses the Dhan app and pastes a token', async () => {
      bobPage = await signedIn('bob', BOB_PW);
      await bobPage.goto(`${c.base}/broker`);
      await bobPage.getByRole('heading', { name: 'No broker app chosen' }).waitFor();
      await bobPage
        .getByRole('combobox', { name: 'Broker app' })
        .selectOption({ label: `${DHAN_APP} · Dhan` });
      await bobPage.getByRole('button', { name: 'Use this app', exact: true }).click();
      await bobPage.getByRole('heading', { name: 'Dhan', exact: true }).waitFor();
      await bobPage.getByLabel('Access token').fill(DHAN.accessToken);
      await bobPage.getByRole('button', { name: 'Log in', exact: true }).click();
      await bobPage.getByTestId('broker-state').filter({ hasText: 'Connected' }).waitFor();
      await bobPage
        .getByRole('table', { name: 'Broker session' })
        .getByRole('cell', { name: DHAN.clientId, exact: true })
        .waitFor();
      await expectNoSecret(bobPage, "B's /broker after the Dhan login");
      await bobPage.screenshot({ path: `${SCREENSHOTS}/85h-broker-dhan-connected.png` });
      // The administrator's session is still Angel's.
      expect((await c.app.brokers.sessions.describe(1))?.broker).toBe('angel');
    });

    it("each one's live order reaches their own broker only", async () => {
      const { page, base } = c;
      const dhanBefore = dhan.bodies('/v2/orders', 'POST').length;
      // The administrator: the order ticket, in live mode, asks first and sends to Angel One.
      c.expected.add('/desk/api/quotes');
      await page.goto(`${base}/search`);
      await page.getByRole('textbox', { name: 'Search' }).fill('SBIN');
      await page.getByRole('button', { name: 'Buy SBIN NSE' }).click();
      const ticket = page.getByRole('dialog', { name: 'Order ticket' });
      await ticket.getByText('Live mode: the order goes to your broker after a confirmation.').waitFor();
      await ticket.getByRole('textbox', { name: 'Quantity' }).fill('2');
      await ticket.getByRole('button', { name: 'Review the order' }).click();
      await ticket.getByRole('button', { name: 'Send to the broker' }).click();
      await ticket.getByTestId('ticket-orderid').waitFor();
      await page.waitForTimeout(300);
      await c.shot('85i-ticket-angel-placed');
      await ticket.getByRole('button', { name: 'Close' }).click();
      expect(angel.bodies(P.place)).toEqual([
        expect.objectContaining({ tradingsymbol: 'SBIN-EQ', symboltoken: '3045', quantity: '2' }),
      ]);
      expect(dhan.bodies('/v2/orders', 'POST').length).toBe(dhanBefore);

      // B: a script with B's key; Dhan gets it, Angel nothing more.
      const res = await fetch(`${base}/api/v1/placeorder`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          apikey: bobKey,
          strategy: 'apps',
          symbol: 'SBIN',
          exchange: 'NSE',
          action: 'BUY',
          pricetype: 'MARKET',
          product: 'MIS',
          quantity: 7,
        }),
      });
      expect(res.status, await res.clone().text()).toBe(200);
      expect(dhan.bodies('/v2/orders', 'POST').slice(dhanBefore)).toEqual([
        expect.objectContaining({ dhanClientId: DHAN.clientId, securityId: '3045', quantity: 7 }),
      ]);
      expect(angel.bodies(P.place)).toHaveLength(1);
    });

    it('choosing another app while connected asks first, naming the session that ends', async () => {
      const { page, base } = c;
      await page.goto(`${base}/broker`);
      await page.getByTestId('broker-state').filter({ hasText: 'Connected' }).waitFor();
      await page.getByRole('combobox', { name: 'Broker app' }).selectOption({ label: `${DHAN_APP} · Dhan` });
      await c.button('Use this app').click();
      const dialog = page.getByRole('dialog', { name: `Use ${DHAN_APP}?` });
      await dialog.getByText(`Your session with ${ANGEL_APP} · Angel One ends`).waitFor();
      await page.waitForTimeout(300);
      await c.shot('85l-broker-switch-confirm');
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'hidden' });
      // Nothing changed: still Angel's app and session.
      expect((await c.app.brokers.sessions.describe(1))?.broker).toBe('angel');
      expect((await c.app.brokers.apps.appOf(1))?.label).toBe(ANGEL_APP);
    });

    it('both pages fit a phone (390 px): the apps as cards, the chooser and the login', async () => {
      const phone = await signedIn('admin', ADMIN_PW, PHONE);
      const fits = async (path: string) => {
        const width = (await phone.evaluate('document.scrollingElement.scrollWidth')) as number;
        expect(width, `${path} scrolls sideways`).toBeLessThanOrEqual(PHONE.viewport.width);
      };
      await phone.goto(`${c.base}/admin/brokers`);
      const card = phone.getByRole('article', { name: `Broker app ${ANGEL_APP}` });
      await card.getByText('Complete', { exact: true }).waitFor();
      const del = await card.getByRole('button', { name: `Delete ${ANGEL_APP}` }).boundingBox();
      expect(del!.x + del!.width).toBeLessThanOrEqual(PHONE.viewport.width);
      await phone.screenshot({ path: `${SCREENSHOTS}/85j-admin-brokers-phone.png`, fullPage: true });
      await fits('/admin/brokers');

      await phone.goto(`${c.base}/broker`);
      await phone.getByTestId('broker-state').filter({ hasText: 'Connected' }).waitFor();
      await phone.getByRole('combobox', { name: 'Broker app' }).waitFor();
      await phone.screenshot({ path: `${SCREENSHOTS}/85k-broker-phone.png`, fullPage: true });
      await fits('/broker');
    });

    it('no secret in any URL the browsers asked for', async () => {
      const all = [...c.urls, ...otherUrls];
      expect(all.length).toBeGreaterThan(10);
      for (const url of all) for (const s of secrets) expect(url).not.toContain(s);
    });
  },
);

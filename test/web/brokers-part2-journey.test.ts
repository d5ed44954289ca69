/**
 * Fyers, Shoonya and Flattrade from `/broker` in Chromium (docs/rules/brokers.md#fyers-adapter,
 * #noren-adapter; docs/rules/web.md#account-pages): for each broker an install configured for it
 * (`BROKER_NAME`), its loopback stub behind `BROKER_API_BASE_URL`, and the person's login on the
 * console — Fyers' and Flattrade's through a stand-in of the broker's login page that sends the
 * browser back to the callback (Flattrade's without `state`, as it documents), Shoonya's through
 * the form — then a live order that reaches the broker's stub. No credential in any URL or on the
 * page.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FLATTRADE, SHOONYA } from '../../src/modules/brokers/noren/noren.mapping.js';
import { startFyersStub, type FyersStub } from '../helpers/broker-order-stub-fyers.js';
import { startNorenStub, type NorenStub } from '../helpers/broker-order-stub-noren.js';
import { HAVE_CHROMIUM, startConsoleBrowser, type ConsoleBrowser } from '../helpers/console-browser.js';
import { importContract } from '../helpers/contracts.js';
import { FYERS } from '../helpers/fyers-fixtures.js';
import { marketFixture } from '../helpers/market-fixtures.js';
import { FLATTRADE_CREDS, SHOONYA_CREDS } from '../helpers/noren-fixtures.js';

const PASSWORD = 'correct horse battery staple';

/** A broker's login page stand-in: every visit is sent on to `to(query)` at once. */
async function loginPage(
  to: (q: URLSearchParams) => string,
): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const q = new URL(req.url ?? '/', 'http://stand-in').searchParams;
    res.writeHead(302, { location: to(q) }).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

interface Case {
  broker: 'fyers' | 'shoonya' | 'flattrade';
  label: string;
  contract: [string, string];
  /** Never on a page, in storage or in a URL. */
  secrets: string[];
  /** The broker's one-time login code: in its own redirect to the callback (as it sends it), on no page. */
  code: string;
  start(base: () => string): Promise<{
    env: Record<string, string>;
    placed(): number;
    close(): Promise<void>;
  }>;
  login(c: ConsoleBrowser): Promise<void>;
}

const fyers: Case = {
  broker: 'fyers',
  label: 'Fyers',
  contract: ['fyers', 'NSE_CM.csv'],
  secrets: [FYERS.appSecret, FYERS.accessToken],
  code: FYERS.authCode,
  async start(base) {
    const stub: FyersStub = await startFyersStub(FYERS);
    stub.fillMarketOrders = true;
    const page = await loginPage(
      (q) =>
        `${base()}/fyers/callback?s=ok&code=200&auth_code=${FYERS.authCode}&state=${q.get('state') ?? ''}`,
    );
    return {
      env: {
        BROKER_API_KEY: FYERS.appId,
        BROKER_API_SECRET: FYERS.appSecret,
        BROKER_REDIRECT_URL: 'http://127.0.0.1:5000/fyers/callback',
        BROKER_API_BASE_URL: stub.url,
        BROKER_LOGIN_URL: page.url,
      },
      placed: () =>
        stub.requests.filter((r) => r.method === 'POST' && r.path === '/api/v3/orders/sync').length,
      close: async () => {
        await page.close();
        await stub.close();
      },
    };
  },
  async login(c) {
    await c.page.getByRole('link', { name: 'Connect', exact: true }).click();
    await c.page.waitForURL(`${c.base}/broker?login=success`);
  },
};

function noren(broker: 'shoonya' | 'flattrade'): Case {
  const variant = broker === 'shoonya' ? SHOONYA : FLATTRADE;
  const creds = broker === 'shoonya' ? SHOONYA_CREDS : FLATTRADE_CREDS;
  const path = new URL(variant.baseUrl).pathname;
  let stub: NorenStub;
  return {
    broker,
    label: broker === 'shoonya' ? 'Shoonya' : 'Flattrade',
    contract: ['shoonya', 'shoonya_NSE_symbols_2026-08-19_cut.txt'],
    // Flattrade's fixture password and TOTP are unused placeholders (its login is the redirect).
    secrets: broker === 'shoonya' ? [creds.password, creds.apiSecret, creds.totp] : [creds.apiSecret],
    code: creds.requestCode,
    async start(base) {
      stub = await startNorenStub(creds, path);
      stub.fillMarketOrders = true;
      // Flattrade's portal sends back the request code and the client, and no state.
      const page = await loginPage(
        () => `${base()}/flattrade/callback?code=${creds.requestCode}&client=${creds.userId}`,
      );
      return {
        env: {
          BROKER_API_KEY: creds.apiKey,
          BROKER_API_SECRET: creds.apiSecret,
          BROKER_REDIRECT_URL: 'http://127.0.0.1:5000/flattrade/callback',
          BROKER_API_BASE_URL: `${stub.url}${path}`,
          BROKER_LOGIN_URL: page.url,
        },
        placed: () => stub.requests.filter((r) => r.path === `${path}/PlaceOrder`).length,
        close: async () => {
          await page.close();
          await stub.close();
        },
      };
    },
    async login(c) {
      if (broker === 'flattrade') {
        await c.page.getByRole('link', { name: 'Connect', exact: true }).click();
        await c.page.waitForURL(`${c.base}/broker?login=success`);
        return;
      }
      const form = c.page.getByRole('form', { name: 'Broker login' });
      const inputs = form.locator('input');
      const n = await inputs.count();
      expect(n).toBe(3);
      await inputs.nth(0).fill(creds.userId);
      await inputs.nth(1).fill(creds.password);
      await inputs.nth(2).fill(creds.totp);
      await form.getByRole('button', { name: 'Log in' }).click();
    },
  };
}

for (const k of [fyers, noren('shoonya'), noren('flattrade')]) {
  describe.skipIf(!HAVE_CHROMIUM)(`${k.label}: log in on /broker, place a live order`, () => {
    let c: ConsoleBrowser;
    let world: Awaited<ReturnType<Case['start']>>;
    let apikey = '';

    beforeAll(async () => {
      world = await k.start(() => c.base);
      c = await startConsoleBrowser({
        env: {
          BROKER_NAME: k.broker,
          ...world.env,
          API_RATE_LIMIT: '100000 per second',
          ORDER_RATE_LIMIT: '100000 per second',
        },
      });
      await c.app.auth.users.createFirst({
        username: 'admin',
        password: PASSWORD,
        email: 'admin@example.com',
      });
      apikey = (await c.app.auth.apiKeys.regenerate(1)).apikey;
      await importContract(
        { services: c.app } as never,
        k.broker,
        readFileSync(marketFixture(...k.contract)),
      );
      await c.signIn('admin', PASSWORD);
    }, 120_000);
    afterAll(async () => {
      await c?.close();
      await world?.close();
      expect(c?.consoleErrors ?? []).toEqual([]);
    });

    it(`logs in to ${k.label} from /broker and the session is connected`, async () => {
      const { page, base } = c;
      await page.goto(`${base}/broker`);
      await page.getByRole('heading', { name: k.label }).waitFor();
      await k.login(c);
      await page.getByTestId('broker-state').filter({ hasText: 'Connected' }).waitFor();
      await c.shot(`86-${k.broker}-connected`);
      const text = await page.content();
      for (const s of [...k.secrets, k.code]) expect(text).not.toContain(s);
      for (const u of c.urls) for (const s of k.secrets) expect(u).not.toContain(s);
      const withCode = c.urls.filter((u) => u.includes(k.code));
      for (const u of withCode)
        expect(new URL(u).pathname).toBe(`/${k.broker === 'fyers' ? 'fyers' : 'flattrade'}/callback`);
      const stored = await c.t.db.database.db.selectFrom('broker_sessions').selectAll().execute();
      expect(stored).toHaveLength(1);
      for (const s of [...k.secrets, k.code]) expect(JSON.stringify(stored)).not.toContain(s);
    });

    it(`a live order reaches ${k.label}`, async () => {
      await c.app.sandbox.mode.set(false);
      const before = world.placed();
      const res = await c.app.inject({
        method: 'POST',
        url: '/api/v1/placeorder',
        payload: {
          apikey,
          strategy: 'journey',
          symbol: 'SBIN',
          exchange: 'NSE',
          action: 'BUY',
          quantity: 1,
          pricetype: 'MARKET',
          product: 'MIS',
        },
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(world.placed()).toBe(before + 1);
    });
  });
}

/**
 * Broker apps per install, chosen per user (docs/rules/brokers.md#broker-apps): an administrator
 * adds an Angel One app and a Dhan app in the console (secrets in, never out); user A chooses
 * Angel and logs in with client code, PIN and TOTP, user B chooses Dhan and pastes a token; with
 * both brokers' instrument files imported (Angel's live), each one's live order reaches their own
 * broker's stub only, with their broker's own instrument mapping, and each one's books read back
 * in algodesk's symbols.
 */
import { readFileSync } from 'node:fs';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  ANGEL_CREDS,
  ANGEL_STUB_PATHS as P,
  startAngelStub,
  type AngelStub,
} from '../helpers/broker-order-stub-angel.js';
import { startDhanStub, type DhanStub } from '../helpers/broker-order-stub-dhan.js';
import { BrokerRouter } from '../helpers/broker-router.js';
import { importContract } from '../helpers/contracts.js';
import { DHAN } from '../helpers/dhan-fixtures.js';
import { marketFixture } from '../helpers/market-fixtures.js';
import { freshIp } from '../helpers/orders-app.js';
import {
  appWithAdmin,
  asBrowser,
  createUser,
  describeEachDb,
  login,
  type Browser,
  type TestApp,
} from '../helpers/test-app.js';

type Json = Record<string, unknown>;

describeEachDb('broker apps: added by the administrator, chosen by each user', (dialect) => {
  let angel: AngelStub;
  let dhan: DhanStub;
  let router: BrokerRouter;
  let t: TestApp;
  let admin: Browser;
  let bob: Browser;
  const keys: Record<'admin' | 'bob', string> = { admin: '', bob: '' };
  const ids = { angel: 0, dhan: 0 };

  const web = (who: Browser, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: Json) =>
    t.app.inject({ method, url, headers: asBrowser(who), ...(payload ? { payload } : {}) });
  const api = (who: 'admin' | 'bob', path: string, body: Json): Promise<LightMyRequestResponse> =>
    t.app.inject({
      method: 'POST',
      url: `/api/v1/${path}`,
      remoteAddress: freshIp(),
      payload: { apikey: keys[who], ...body },
    });

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
    ({ t, admin } = await appWithAdmin(dialect, {
      env: {
        BROKER_API_BASE_URL: `${router.url}/v2`,
        API_RATE_LIMIT: '100000 per second',
        ORDER_RATE_LIMIT: '100000 per second',
      },
    }));
    await createUser(t, 'bob', 'bob horse battery staple');
    bob = await login(t, 'bob', 'bob horse battery staple');
    keys.admin = (await t.services.auth.apiKeys.regenerate(1)).apikey;
    keys.bob = (await t.services.auth.apiKeys.regenerate(2)).apikey;
    await importContract(t, 'dhan', readFileSync(marketFixture('dhan', 'api-scrip-master_2026-02-10.csv')));
    await importContract(
      t,
      'angel',
      readFileSync(marketFixture('angel', 'OpenAPIScripMaster_documented_rows.json')),
    );
    await web(admin, 'POST', '/settings/analyze-mode/0');
  });
  afterAll(async () => {
    await t?.close();
    await router?.close();
    await angel?.close();
    await dhan?.close();
  });

  it('the administrator adds an Angel app and a Dhan app; what a broker needs is checked, no secret is answered', async () => {
    expect((await web(admin, 'GET', '/admin/api/brokers')).json()).toEqual({ status: 'success', data: [] });
    const refusals: [Json, number, string][] = [
      [{ label: 'Angel', broker: 'angel' }, 400, 'A angel app needs api_key'],
      [{ label: 'Nuvama', broker: 'nuvama', api_key: 'k' }, 400, 'broker must be one of'],
      [{ label: '<script>', broker: 'dhan' }, 400, 'label:'],
      [
        { label: 'Kite', broker: 'zerodha', api_key: 'k', api_secret: 's', redirect_url: 'javascript:x' },
        400,
        'redirect_url',
      ],
    ];
    for (const [body, status, message] of refusals) {
      const res = await web(admin, 'POST', '/admin/api/brokers', body);
      expect(res.statusCode, res.body).toBe(status);
      expect((res.json() as { message: string }).message).toContain(message);
    }
    expect((await web(bob, 'POST', '/admin/api/brokers', { label: 'B', broker: 'dhan' })).statusCode).toBe(
      403,
    );

    const a = await web(admin, 'POST', '/admin/api/brokers', {
      label: 'Angel One (family)',
      broker: 'angel',
      api_key: 'angelWRONGkey00',
    });
    expect(a.statusCode, a.body).toBe(201);
    const d = await web(admin, 'POST', '/admin/api/brokers', { label: 'Dhan', broker: 'dhan' });
    expect(d.statusCode, d.body).toBe(201);
    ids.angel = (a.json() as { data: { id: number } }).data.id;
    ids.dhan = (d.json() as { data: { id: number } }).data.id;
    expect(
      (await web(admin, 'POST', '/admin/api/brokers', { label: 'Dhan', broker: 'dhan' })).statusCode,
    ).toBe(409);
    // Replace only: the key is replaced, the broker cannot change.
    const replaced = await web(admin, 'PUT', `/admin/api/brokers/${ids.angel}`, {
      api_key: ANGEL_CREDS.apiKey,
    });
    expect(replaced.json()).toMatchObject({ data: { broker: 'angel', api_key_set: true, complete: true } });
    expect((await web(admin, 'PUT', `/admin/api/brokers/${ids.angel}`, { broker: 'dhan' })).statusCode).toBe(
      400,
    );
    expect((await web(admin, 'PUT', '/admin/api/brokers/999', { label: 'x' })).statusCode).toBe(404);

    const list = await web(admin, 'GET', '/admin/api/brokers');
    expect(list.json()).toMatchObject({
      data: [
        { id: ids.angel, label: 'Angel One (family)', broker: 'angel', source: 'console', api_key_set: true },
        {
          id: ids.dhan,
          label: 'Dhan',
          broker: 'dhan',
          source: 'console',
          api_key_set: false,
          complete: true,
        },
      ],
    });
    const rows = await t.db.database.db.selectFrom('broker_apps').selectAll().execute();
    const everywhere = [a.body, replaced.body, list.body, JSON.stringify(rows), t.logs.join('\n')].join('\n');
    for (const secret of [ANGEL_CREDS.apiKey, 'angelWRONGkey00']) expect(everywhere).not.toContain(secret);
  });

  it('each user chooses their app and logs in to it: A at Angel (PIN + TOTP), B at Dhan (pasted token)', async () => {
    const none = (await web(bob, 'GET', '/broker/api/status')).json() as Json;
    expect(none).toMatchObject({ broker: null, app_id: null, state: 'none', login_available: false });
    expect((none.apps as Json[]).map((x) => x.label)).toEqual(['Angel One (family)', 'Dhan']);
    expect((await web(bob, 'PUT', '/broker/api/app', { app_id: 999 })).statusCode).toBe(404);

    expect((await web(admin, 'PUT', '/broker/api/app', { app_id: ids.angel })).statusCode).toBe(200);
    expect((await web(bob, 'PUT', '/broker/api/app', { app_id: ids.dhan })).statusCode).toBe(200);
    expect((await web(admin, 'GET', '/broker/api/status')).json()).toMatchObject({
      broker: 'angel',
      app_id: ids.angel,
      login_kind: 'form',
      login_available: true,
    });

    const a = await web(admin, 'POST', '/broker/login/form', {
      client_code: ANGEL_CREDS.clientCode,
      pin: ANGEL_CREDS.pin,
      totp: ANGEL_CREDS.totp,
    });
    expect(a.statusCode, a.body).toBe(200);
    const b = await web(bob, 'POST', '/broker/login/form', { access_token: DHAN.accessToken });
    expect(b.statusCode, b.body).toBe(200);
    expect((await web(admin, 'GET', '/broker/api/status')).json()).toMatchObject({ state: 'connected' });
    expect((await web(bob, 'GET', '/broker/api/status')).json()).toMatchObject({
      state: 'connected',
      broker: 'dhan',
      session: { broker_user_id: DHAN.clientId },
    });
    // No BROKER_NAME: the sandbox prices and the feed streams with the live contract's broker
    // (Angel's file went live last), under its newest session — A's, though B logged in later.
    expect(t.services.brokers.preferredBroker()).toBe('angel');
    expect(t.services.brokers.sessions.primarySession()?.broker).toBe('angel');
    expect(t.services.brokers.quoteClient()?.broker).toBe('angel');
  });

  it("each user's live order reaches their own broker only, mapped by their broker's file; books read back", async () => {
    const angelBefore = angel.bodies(P.place).length;
    const dhanBefore = dhan.bodies('/v2/orders', 'POST').length;
    const order = {
      strategy: 'apps',
      symbol: 'SBIN',
      exchange: 'NSE',
      action: 'BUY',
      pricetype: 'MARKET',
      product: 'MIS',
    };

    const ra = await api('admin', 'placeorder', { ...order, quantity: 2 });
    expect(ra.statusCode, ra.body).toBe(200);
    expect(angel.bodies(P.place).slice(angelBefore)).toEqual([
      expect.objectContaining({ tradingsymbol: 'SBIN-EQ', symboltoken: '3045', quantity: '2' }),
    ]);
    expect(dhan.bodies('/v2/orders', 'POST').length).toBe(dhanBefore);

    const rb = await api('bob', 'placeorder', { ...order, quantity: 7 });
    expect(rb.statusCode, rb.body).toBe(200);
    expect(dhan.bodies('/v2/orders', 'POST').slice(dhanBefore)).toEqual([
      expect.objectContaining({
        dhanClientId: DHAN.clientId,
        exchangeSegment: 'NSE_EQ',
        securityId: '3045',
        quantity: 7,
      }),
    ]);
    expect(angel.bodies(P.place).length).toBe(angelBefore + 1);

    const booksA = (await api('admin', 'orderbook', {})).json() as { data: { orders: Json[] } };
    const booksB = (await api('bob', 'orderbook', {})).json() as { data: { orders: Json[] } };
    expect(booksA.data.orders.map((o) => [o.symbol, o.exchange, o.quantity])).toEqual([['SBIN', 'NSE', 2]]);
    expect(booksB.data.orders.map((o) => [o.symbol, o.exchange, o.quantity])).toEqual([['SBIN', 'NSE', 7]]);
  });

  it('deleting an app sends its users back to choosing, their session gone', async () => {
    const res = await web(admin, 'DELETE', `/admin/api/brokers/${ids.dhan}`);
    expect(res.statusCode, res.body).toBe(200);
    expect((await web(bob, 'GET', '/broker/api/status')).json()).toMatchObject({
      broker: null,
      app_id: null,
      state: 'none',
    });
    const refused = await api('bob', 'placeorder', {
      strategy: 'apps',
      symbol: 'SBIN',
      exchange: 'NSE',
      action: 'BUY',
      pricetype: 'MARKET',
      product: 'MIS',
      quantity: 1,
    });
    expect(refused.statusCode).toBe(403);
    expect((await api('admin', 'orderbook', {})).statusCode).toBe(200);
  });
});

/**
 * The logins of Fyers, Flattrade and Shoonya through the app (docs/rules/brokers.md#broker-sessions,
 * #fyers-adapter, #noren-adapter), each against its loopback stub: Fyers' redirect with `state` and
 * the `auth_code` exchange (`appIdHash`); Flattrade's redirect, whose callback documents no
 * `state` — the login-state cookie set by `GET /broker/login` stands in for it, and a callback
 * without either is refused; Shoonya's QuickAuth form (user id, password, TOTP). Each stores the
 * session sealed with the broker's user id, and a live order then reaches the broker.
 */
import { readFileSync } from 'node:fs';
import { afterEach, expect, it } from 'vitest';
import { marketFixture } from '../helpers/market-fixtures.js';
import { startFyersStub } from '../helpers/broker-order-stub-fyers.js';
import { startNorenStub } from '../helpers/broker-order-stub-noren.js';
import { FYERS, FYERS_CLIENT_ID } from '../helpers/fyers-fixtures.js';
import { FLATTRADE_CREDS, SHOONYA_CREDS } from '../helpers/noren-fixtures.js';
import { startOrdersApp, type OrdersApp } from '../helpers/orders-app.js';
import { asBrowser, describeEachDb } from '../helpers/test-app.js';
import { FLATTRADE, SHOONYA } from '../../src/modules/brokers/noren/noren.mapping.js';
import { BROKER_STATE_COOKIE } from '../../src/modules/brokers/broker-login.routes.js';

const FYERS_NSE = readFileSync(marketFixture('fyers', 'NSE_CM.csv'));
const NOREN_NSE = readFileSync(marketFixture('shoonya', 'shoonya_NSE_symbols_2026-08-19_cut.txt'));

describeEachDb('logins of Fyers, Flattrade and Shoonya', (dialect) => {
  const closers: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });
  const get = (o: OrdersApp, url: string, cookie?: string) =>
    o.t.app.inject({
      method: 'GET',
      url,
      headers: {
        ...asBrowser(o.admin),
        ...(cookie ? { cookie: `${asBrowser(o.admin).cookie}; ${cookie}` } : {}),
      },
    });
  /** `GET /broker/login`: the broker's page it redirects to and the login-state cookie it set. */
  const startLogin = async (o: OrdersApp) => {
    const res = await get(o, '/broker/login');
    expect(res.statusCode, res.body).toBe(302);
    const cookie = res.cookies.find((c) => c.name === BROKER_STATE_COOKIE);
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
    return {
      location: new URL(res.headers.location as string),
      cookie: `${BROKER_STATE_COOKIE}=${cookie!.value}`,
    };
  };

  it('Fyers: the authcode page with client id, redirect and state; the callback exchanges the auth code', async () => {
    const stub = await startFyersStub(FYERS);
    closers.push(() => stub.close());
    const o = await startOrdersApp(dialect, {
      broker: 'fyers',
      stubUrl: stub.url,
      contract: FYERS_NSE,
    });
    closers.push(() => o.close());
    await o.t.services.brokers.sessions.clear(1);

    const { location } = await startLogin(o);
    expect(location.pathname).toBe('/api/v3/generate-authcode');
    expect(location.searchParams.get('client_id')).toBe(FYERS.appId);
    const state = location.searchParams.get('state')!;
    expect(state).toMatch(/^1\.\d+\.[0-9a-f]{32}$/);

    const cb = await get(o, `/fyers/callback?s=ok&code=200&auth_code=${FYERS.authCode}&state=${state}`);
    expect(cb.statusCode, cb.body).toBe(200);
    expect(cb.json()).toEqual({ status: 'success', message: 'Logged in to fyers', broker: 'fyers' });
    const s = await o.t.services.brokers.sessions.get(1);
    expect(s?.session).toMatchObject({ accessToken: FYERS.accessToken, brokerUserId: FYERS_CLIENT_ID });
    const rows = JSON.stringify(await o.t.db.database.db.selectFrom('broker_sessions').selectAll().execute());
    for (const secret of [FYERS.accessToken, FYERS.authCode, FYERS.appSecret])
      expect(rows + o.t.logs.join('\n') + cb.body).not.toContain(secret);
  });

  it('Flattrade: the callback without state is taken with the login-state cookie, refused without it', async () => {
    const stub = await startNorenStub(FLATTRADE_CREDS, new URL(FLATTRADE.baseUrl).pathname);
    closers.push(() => stub.close());
    const o = await startOrdersApp(dialect, {
      broker: 'flattrade',
      stubUrl: `${stub.url}${new URL(FLATTRADE.baseUrl).pathname}`,
      contract: NOREN_NSE,
    });
    closers.push(() => o.close());
    await o.t.services.brokers.sessions.clear(1);

    const { location, cookie } = await startLogin(o);
    expect(location.searchParams.get('app_key')).toBe(FLATTRADE_CREDS.apiKey);

    const bare = await get(
      o,
      `/flattrade/callback?code=${FLATTRADE_CREDS.requestCode}&client=${FLATTRADE_CREDS.userId}`,
    );
    expect(bare.statusCode, bare.body).toBe(400);
    expect(bare.json()).toMatchObject({ message: expect.stringContaining('login state is missing') });
    expect(await o.t.services.brokers.sessions.get(1)).toBeUndefined();

    const cb = await get(
      o,
      `/flattrade/callback?code=${FLATTRADE_CREDS.requestCode}&client=${FLATTRADE_CREDS.userId}`,
      cookie,
    );
    expect(cb.statusCode, cb.body).toBe(200);
    const s = await o.t.services.brokers.sessions.get(1);
    expect(s?.session).toMatchObject({
      accessToken: stub.currentToken,
      brokerUserId: FLATTRADE_CREDS.userId,
    });
  });

  it('Shoonya: the QuickAuth form logs in; a wrong TOTP is refused in Shoonya’s words', async () => {
    const base = new URL(SHOONYA.baseUrl).pathname;
    const stub = await startNorenStub(SHOONYA_CREDS, base);
    closers.push(() => stub.close());
    const o = await startOrdersApp(dialect, {
      broker: 'shoonya',
      stubUrl: `${stub.url}${base}`,
      contract: NOREN_NSE,
    });
    closers.push(() => o.close());
    await o.t.services.brokers.sessions.clear(1);

    const status = (await o.web('GET', '/broker/api/status')).json() as {
      login_kind: string;
      login_fields: { name: string }[];
    };
    expect(status.login_kind).toBe('form');
    const fields = status.login_fields.map((f) => f.name);
    const values = (totp: string): Record<string, string> =>
      Object.fromEntries(
        fields.map((f) => [
          f,
          f === 'totp' ? totp : f === 'password' ? SHOONYA_CREDS.password : SHOONYA_CREDS.userId,
        ]),
      );
    const wrong = await o.web('POST', '/broker/login/form', values('111111'));
    expect(wrong.statusCode).toBe(400);
    expect(wrong.body).not.toContain(SHOONYA_CREDS.password);
    const ok = await o.web('POST', '/broker/login/form', values(SHOONYA_CREDS.totp));
    expect(ok.statusCode, ok.body).toBe(200);
    const s = await o.t.services.brokers.sessions.get(1);
    expect(s?.session).toMatchObject({
      accessToken: stub.currentToken,
      brokerUserId: SHOONYA_CREDS.userId,
    });
    expect(o.t.logs.join('\n')).not.toContain(SHOONYA_CREDS.password);
  });
});

/**
 * Live mode through Angel One (SmartAPI; docs/rules/brokers.md#angel-adapter and #broker-sessions):
 * with `BROKER_NAME=angel` and the Angel master imported, the user logs in on `/broker` with client
 * code, PIN and TOTP (`POST /broker/login/form`): the JWT, refresh token and feed token are stored
 * sealed and never shown; OpenAlgo's order and book calls then reach the loopback Angel stub
 * (test/helpers/broker-order-stub-angel.ts, written from Angel's documentation) and answer in
 * OpenAlgo's shapes with algodesk's symbols.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  ANGEL_CREDS,
  ANGEL_STUB_PATHS as P,
  startAngelStub,
  type AngelStub,
} from '../helpers/broker-order-stub-angel.js';
import { marketFixture } from '../helpers/market-fixtures.js';
import { startOrdersApp, type OrdersApp } from '../helpers/orders-app.js';
import { describeEachDb } from '../helpers/test-app.js';

type Json = Record<string, unknown>;
const LOGIN = { client_code: ANGEL_CREDS.clientCode, pin: ANGEL_CREDS.pin, totp: ANGEL_CREDS.totp };

describeEachDb('live mode through Angel One', (dialect) => {
  let stub: AngelStub;
  let o: OrdersApp;
  beforeAll(async () => {
    stub = await startAngelStub(ANGEL_CREDS);
    stub.fillMarketOrders = true;
    o = await startOrdersApp(dialect, {
      broker: 'angel',
      stubUrl: stub.url,
      contract: readFileSync(marketFixture('angel', 'OpenAPIScripMaster_documented_rows.json')),
    });
    await o.setMode(false);
    await o.t.services.brokers.sessions.clear(1);
  });
  afterAll(async () => {
    await o?.close();
    await stub?.close();
  });

  /** Everything a secret could leak into: the answers given, the logs, the stored session row. */
  const everywhere = async (answers: string[]) => {
    const rows = await o.t.db.database.db.selectFrom('broker_sessions').selectAll().execute();
    return [...answers, o.t.logs.join('\n'), JSON.stringify(rows)].join('\n');
  };

  it('/broker/api/status offers the form login: client code, PIN (secret) and TOTP (secret)', async () => {
    const res = await o.web('GET', '/broker/api/status');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      broker: 'angel',
      login_available: true,
      login_kind: 'form',
      state: 'none',
      login_fields: [
        { name: 'client_code', secret: false },
        { name: 'pin', secret: true },
        { name: 'totp', secret: true },
      ],
    });
  });

  it('a field missing, out of form or unknown is a 400 naming it, and nothing reaches Angel', async () => {
    const before = stub.requests.length;
    const cases: [Json, string][] = [
      [{ client_code: ANGEL_CREDS.clientCode, pin: ANGEL_CREDS.pin }, 'TOTP code is required'],
      [{ ...LOGIN, totp: '12ab56' }, 'TOTP code is not in the expected form'],
      [{ ...LOGIN, pin: '' }, 'PIN is required'],
      [{ ...LOGIN, otp: '1' }, 'Unknown login field: otp'],
      [{ ...LOGIN, totp: 731945 }, 'totp: Must be string'],
    ];
    for (const [body, message] of cases) {
      const res = await o.web('POST', '/broker/login/form', body);
      expect(res.statusCode, res.body).toBe(400);
      expect((res.json() as { message: string }).message).toContain(message);
    }
    expect(stub.requests.length).toBe(before);
    expect((await o.web('GET', '/broker/api/status')).json()).toMatchObject({ state: 'none' });
  });

  it('a wrong PIN is Angel’s refusal in its words; the PIN and TOTP appear nowhere', async () => {
    const wrong = { ...LOGIN, pin: '9173' };
    const res = await o.web('POST', '/broker/login/form', wrong);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      status: 'error',
      message: 'Broker login failed: Angel One login failed: Invalid Email Or Password',
    });
    const all = await everywhere([res.body]);
    expect(all).not.toContain('9173');
    expect(all).not.toContain(ANGEL_CREDS.totp);
    expect((await o.web('GET', '/broker/api/status')).json()).toMatchObject({ state: 'none' });
  });

  it('the login stores the session sealed: connected until midnight IST, no token in any answer, row or log', async () => {
    const res = await o.web('POST', '/broker/login/form', LOGIN);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ status: 'success', message: 'Logged in to angel', broker: 'angel' });
    expect(stub.bodies(P.login).at(-1)).toEqual({
      clientcode: ANGEL_CREDS.clientCode,
      password: ANGEL_CREDS.pin,
      totp: ANGEL_CREDS.totp,
    });

    const status = await o.web('GET', '/broker/api/status');
    expect(status.json()).toMatchObject({
      state: 'connected',
      session: { broker: 'angel', broker_user_id: ANGEL_CREDS.clientCode },
    });
    const live = await o.t.services.brokers.sessions.get(1);
    const issued = stub.credentials;
    expect(live?.session).toEqual({
      accessToken: issued.jwt,
      brokerUserId: ANGEL_CREDS.clientCode,
      refreshToken: issued.refreshToken,
      feedToken: issued.feedToken,
    });
    const row = await o.t.db.database.db.selectFrom('broker_sessions').selectAll().executeTakeFirstOrThrow();
    expect(row.refresh_token_encrypted).toEqual(expect.any(String));
    expect(row.feed_token_encrypted).toEqual(expect.any(String));
    const all = await everywhere([res.body, status.body]);
    for (const secret of [
      issued.jwt,
      issued.refreshToken,
      issued.feedToken,
      ANGEL_CREDS.pin,
      ANGEL_CREDS.totp,
    ])
      expect(all).not.toContain(secret);
  });

  it('placeorder reaches Angel with the symbol token, mapped variety/product and the ordertag; books read back', async () => {
    const res = await o.api('placeorder', {
      strategy: 'angel live',
      symbol: 'SBIN',
      exchange: 'NSE',
      action: 'BUY',
      quantity: 3,
      pricetype: 'MARKET',
      product: 'MIS',
    });
    expect(res.statusCode, res.body).toBe(200);
    const { orderid } = res.json() as { orderid: string };
    expect(stub.bodies(P.place).at(-1)).toMatchObject({
      variety: 'NORMAL',
      tradingsymbol: 'SBIN-EQ',
      symboltoken: '3045',
      exchange: 'NSE',
      transactiontype: 'BUY',
      ordertype: 'MARKET',
      producttype: 'INTRADAY',
      quantity: '3',
      ordertag: expect.any(String),
    });

    const book = (await o.api('orderbook', {})).json() as { data: { orders: Json[] } };
    expect(book.data.orders).toContainEqual(
      expect.objectContaining({ orderid, symbol: 'SBIN', exchange: 'NSE', action: 'BUY', product: 'MIS' }),
    );
    const positions = (await o.api('positionbook', {})).json() as { data: Json[] };
    expect(positions.data).toContainEqual(
      expect.objectContaining({ symbol: 'SBIN', exchange: 'NSE', quantity: 3 }),
    );
    const funds = await o.api('funds', {});
    expect(funds.statusCode, funds.body).toBe(200);
  });

  it('a session in its last minutes is renewed with its refresh token before the call; a refused renewal lets it lapse', async () => {
    const now = o.t.clock.now();
    const issued = { ...stub.credentials };
    await o.t.services.brokers.sessions.set(
      1,
      'angel',
      {
        accessToken: issued.jwt,
        brokerUserId: ANGEL_CREDS.clientCode,
        refreshToken: issued.refreshToken,
        feedToken: issued.feedToken,
      },
      now + 120_000,
    );
    const refreshes = stub.bodies(P.refresh).length;

    const book = await o.api('orderbook', {});

    expect(book.statusCode, book.body).toBe(200);
    expect(stub.bodies(P.refresh).slice(refreshes)).toEqual([{ refreshToken: issued.refreshToken }]);
    const renewed = await o.t.services.brokers.sessions.get(1);
    expect(renewed?.session.accessToken).toBe(stub.credentials.jwt);
    expect(renewed?.session.accessToken).not.toBe(issued.jwt);
    expect(renewed?.expiresAt).toBeGreaterThan(now + 120_000);

    // A refresh token Angel no longer knows: the renewal is refused, the session runs out its time.
    await o.t.services.brokers.sessions.set(
      1,
      'angel',
      { ...renewed!.session, refreshToken: 'angelREFRESHstale0' },
      now + 120_000,
    );
    const again = stub.bodies(P.refresh).length;
    expect((await o.api('orderbook', {})).statusCode).toBe(200);
    expect(stub.bodies(P.refresh).length).toBe(again + 1);
    expect((await o.api('orderbook', {})).statusCode).toBe(200);
    expect(stub.bodies(P.refresh).length).toBe(again + 1); // not asked again within the minute
    o.t.clock.advance(121_000);
    expect((await o.web('GET', '/broker/api/status')).json()).toMatchObject({ state: 'expired' });
    expect(o.t.logs.join('\n')).not.toContain('angelREFRESHstale0');
  });
});

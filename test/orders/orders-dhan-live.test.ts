/**
 * Live mode through Dhan (DhanHQ v2; docs/rules/brokers.md#dhan-adapter): with `BROKER_NAME=dhan`,
 * the Dhan master contract imported and a pasted access token (the client id as the broker user
 * id), OpenAlgo's order and book calls reach the loopback Dhan stub (test/helpers/
 * broker-order-stub-dhan.ts, written from Dhan's documentation) and answer in OpenAlgo's shapes
 * with algodesk's symbols.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startDhanStub, type DhanStub } from '../helpers/broker-order-stub-dhan.js';
import { DHAN } from '../helpers/dhan-fixtures.js';
import { marketFixture } from '../helpers/market-fixtures.js';
import { startOrdersApp, type OrdersApp } from '../helpers/orders-app.js';
import { describeEachDb } from '../helpers/test-app.js';

type Json = Record<string, unknown>;

describeEachDb('live mode through Dhan', (dialect) => {
  let stub: DhanStub;
  let o: OrdersApp;
  beforeAll(async () => {
    stub = await startDhanStub(DHAN);
    stub.fillMarketOrders = true;
    o = await startOrdersApp(dialect, {
      broker: 'dhan',
      stubUrl: stub.baseUrl,
      contract: readFileSync(marketFixture('dhan', 'api-scrip-master_2026-02-10.csv')),
    });
    await o.setMode(false);
  });
  afterAll(async () => {
    await o?.close();
    await stub?.close();
  });

  it('placeorder reaches Dhan with the security id, segment, mapped product and the client id', async () => {
    const res = await o.api('placeorder', {
      strategy: 'dhan live',
      symbol: 'SBIN',
      exchange: 'NSE',
      action: 'BUY',
      quantity: 5,
      pricetype: 'MARKET',
      product: 'MIS',
    });
    expect(res.statusCode, res.body).toBe(200);
    const { orderid } = res.json() as { orderid: string };
    const sent = stub.requests.filter((r) => r.method === 'POST' && r.path === '/v2/orders').at(-1)!;
    expect(JSON.parse(sent.body)).toMatchObject({
      dhanClientId: DHAN.clientId,
      transactionType: 'BUY',
      exchangeSegment: 'NSE_EQ',
      productType: 'INTRADAY',
      orderType: 'MARKET',
      quantity: 5,
    });

    const book = (await o.api('orderbook', {})).json() as { data: { orders: Json[] } };
    expect(book.data.orders).toContainEqual(
      expect.objectContaining({ orderid, symbol: 'SBIN', exchange: 'NSE', action: 'BUY', product: 'MIS' }),
    );
    const positions = (await o.api('positionbook', {})).json() as { data: Json[] };
    expect(positions.data).toContainEqual(
      expect.objectContaining({ symbol: 'SBIN', exchange: 'NSE', quantity: 5 }),
    );
    const funds = await o.api('funds', {});
    expect(funds.statusCode, funds.body).toBe(200);
  });

  it('a wrong token is Dhan’s refusal passed through, and the token appears nowhere in the answer', async () => {
    await o.t.services.brokers.sessions.set(1, 'dhan', {
      accessToken: 'wrongDHANtoken123',
      brokerUserId: DHAN.clientId,
    });
    try {
      const res = await o.api('orderbook', {});
      expect(res.statusCode).toBe(401);
      expect(res.body).not.toContain('wrongDHANtoken123');
    } finally {
      await o.t.services.brokers.sessions.set(1, 'dhan', {
        accessToken: DHAN.accessToken,
        brokerUserId: DHAN.clientId,
      });
    }
  });

  it('the /broker form logs in with the pasted token: Dhan’s profile names the client id and the expiry', async () => {
    await o.t.services.brokers.sessions.clear(1);
    const status = await o.web('GET', '/broker/api/status');
    expect(status.json()).toMatchObject({
      broker: 'dhan',
      login_available: true, // no BROKER_API_KEY: Dhan's token is the user's own
      login_kind: 'form',
      state: 'none',
      login_fields: [{ name: 'access_token', secret: true }],
    });

    const wrong = await o.web('POST', '/broker/login/form', { access_token: 'wrongDHANtoken1234567' });
    expect(wrong.statusCode).toBe(400);
    expect((wrong.json() as { message: string }).message).toMatch(
      /^Broker login failed: Dhan login failed: .*invalid/i,
    );
    expect((await o.web('GET', '/broker/api/status')).json()).toMatchObject({ state: 'none' });

    stub.tokenValidity = '30/11/2026 08:45';
    const res = await o.web('POST', '/broker/login/form', { access_token: DHAN.accessToken });
    expect(res.statusCode, res.body).toBe(200);
    expect((await o.web('GET', '/broker/api/status')).json()).toMatchObject({
      state: 'connected',
      session: {
        broker: 'dhan',
        broker_user_id: DHAN.clientId,
        expires_at: '2026-11-30T03:15:00.000Z', // 08:45 IST
      },
    });
    const rows = await o.t.db.database.db.selectFrom('broker_sessions').selectAll().execute();
    const all = [wrong.body, res.body, o.t.logs.join('\n'), JSON.stringify(rows)].join('\n');
    expect(all).not.toContain(DHAN.accessToken);
    expect(all).not.toContain('wrongDHANtoken1234567');
    expect((await o.api('orderbook', {})).statusCode).toBe(200);
  });
});

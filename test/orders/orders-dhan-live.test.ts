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
});

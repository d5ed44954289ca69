/**
 * Dhan's login on `/broker` (docs/rules/brokers.md#dhan-adapter, #broker-sessions): with
 * `BROKER_NAME=dhan` the user pastes the access token generated on web.dhan.co; Dhan's profile
 * (the loopback stub, test/helpers/broker-order-stub-dhan.ts, written from Dhan's documentation)
 * names the client id and the token's validity. The order and book calls through Dhan are the
 * live contract suite's (test/orders/live-contract-dhan.test.ts).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startDhanStub, type DhanStub } from '../helpers/broker-order-stub-dhan.js';
import { DHAN } from '../helpers/dhan-fixtures.js';
import { marketFixture } from '../helpers/market-fixtures.js';
import { startOrdersApp, type OrdersApp } from '../helpers/orders-app.js';
import { describeEachDb } from '../helpers/test-app.js';

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

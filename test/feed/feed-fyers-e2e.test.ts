/**
 * Fyers' data socket v3 (HSM) end to end (docs/rules/market-data.md#feed-sources): a Fyers broker
 * session makes its data socket the feed's upstream — login with the `hsm_key` of the session's
 * access token, the handshake's `Authorization: <app id>:<token>`, then the SymbolUpdate topic of
 * the master contract's fytoken — and a loopback server speaking the SDK's binary protocol
 * (test/helpers/fyers-stream-stub.ts) drives a snapshot and an update to an OpenAlgo WebSocket
 * client of the app, under the master contract's symbol, prices scaled by the snapshot's precision.
 *
 * The session is set again here with a token carrying an `hsm_key` claim (the shared Fyers fixture's
 * token has none, and Fyers' real tokens do).
 */
import { afterEach, expect, it } from 'vitest';
import { FeedTestClient } from '../helpers/feed-client.js';
import { FYERS, FYERS_CLIENT_ID, FYERS_TOKEN_EXP_MS } from '../helpers/fyers-fixtures.js';
import { FyersStreamStub } from '../helpers/fyers-stream-stub.js';
import { marketFixture } from '../helpers/market-fixtures.js';
import { startOrdersApp } from '../helpers/orders-app.js';
import { describeEachDb } from '../helpers/test-app.js';
import { readFileSync } from 'node:fs';

const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
const HSM_KEY = 'e2eHSMkey7Rq4';
const TOKEN = `eyJ0eXAiOiJKV1QifyersHDR.${b64({
  fy_id: FYERS_CLIENT_ID,
  hsm_key: HSM_KEY,
  exp: FYERS_TOKEN_EXP_MS / 1000,
})}.fySIGstream5Tk`;

describeEachDb('the live feed from Fyers’ data socket (HSM)', (dialect) => {
  const closers: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  it('SBIN subscribed as sf|nse_cm|3045 with the session; its snapshot and an update reach the socket', async () => {
    const stub = await FyersStreamStub.start({ hsmKey: HSM_KEY, ackCount: 50 });
    closers.push(() => stub.close());
    stub.setMarket('sf|nse_cm|3045', {
      fields: {
        ...{ ltp: 81235, vol_traded_today: 123456, open_price: 80600, high_price: 81500 },
        ...{ low_price: 80450, prev_close_price: 80510, avg_trade_price: 81020 },
      },
      ...{ multiplier: 1, precision: 2, symbol: 'SBIN-EQ' },
    });
    const o = await startOrdersApp(dialect, {
      broker: 'fyers',
      stubUrl: 'http://127.0.0.1:9', // no REST call is made
      contract: readFileSync(marketFixture('fyers', 'NSE_CM.csv')),
      env: { BROKER_FEED_URL: stub.url },
    });
    closers.push(() => o.close());
    await o.t.services.brokers.sessions.set(1, 'fyers', {
      accessToken: TOKEN,
      brokerUserId: FYERS_CLIENT_ID,
      refreshToken: FYERS.refreshToken,
    });
    await o.t.services.brokers.sessions.refreshPrimary();
    o.t.app.feed.upstream.reselect();
    const at = await o.t.app.feed.server.listen('127.0.0.1', 0);
    const client = await FeedTestClient.open(`ws://127.0.0.1:${at.port}`);
    closers.push(() => client.close());
    expect(await client.ask({ action: 'authenticate', api_key: o.apikey }, 'auth')).toMatchObject({
      broker: 'fyers',
    });

    await client.ask(
      { action: 'subscribe', symbols: [{ symbol: 'SBIN', exchange: 'NSE' }], mode: 'Quote' },
      'subscribe',
    );
    await stub.until(() => stub.topics().includes('sf|nse_cm|3045'), 5000, 'the SymbolUpdate topic');
    expect(stub.authorizations.at(-1)).toBe(`${FYERS.appId}:${TOKEN}`);
    const first = await client.next((m) => m.type === 'market_data');
    expect(first).toMatchObject({ symbol: 'SBIN', exchange: 'NSE', mode: 2, broker: 'fyers' });
    expect(first.data).toMatchObject({ ltp: 812.35, open: 806, high: 815, low: 804.5, close: 805.1 });

    stub.update('sf|nse_cm|3045', { ltp: 81300, vol_traded_today: 124000 });
    const next = await client.next(
      (m) => m.type === 'market_data' && (m.data as { ltp?: number }).ltp === 813,
    );
    expect(next.data).toMatchObject({ ltp: 813, volume: 124_000, close: 805.1, average_price: 810.2 });
    const logs = o.t.logs.join('\n');
    expect(logs).not.toContain(TOKEN);
    expect(logs).not.toContain(HSM_KEY);
  });
});

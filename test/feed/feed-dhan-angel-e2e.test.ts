/**
 * Dhan's live market feed and Angel One's SmartStream end to end (docs/rules/market-data.md#feed-sources):
 * a broker session of either makes the broker's own stream the feed's upstream — Dhan's with the
 * session's access token and client id in the query, Angel's with the JWT, API key, client code
 * and the session's feed token as handshake headers — and a loopback server speaking each
 * documented binary protocol (test/helpers/dhan-feed-stub.ts, angel-stream-stub.ts) drives ticks
 * to an OpenAlgo WebSocket client of the app, under the master contract's symbol.
 */
import { readFileSync } from 'node:fs';
import { afterEach, expect, it } from 'vitest';
import { ANGEL_CREDS } from '../helpers/broker-order-stub-angel.js';
import { AngelStreamStub } from '../helpers/angel-stream-stub.js';
import { DhanFeedStub } from '../helpers/dhan-feed-stub.js';
import { DHAN } from '../helpers/dhan-fixtures.js';
import { FeedTestClient } from '../helpers/feed-client.js';
import { marketFixture } from '../helpers/market-fixtures.js';
import { startOrdersApp, type OrdersApp } from '../helpers/orders-app.js';
import { describeEachDb } from '../helpers/test-app.js';

describeEachDb('the live feed from Dhan and Angel One', (dialect) => {
  const closers: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  /** The app on `broker` with its stream at `feedUrl`, and an authenticated feed client. */
  async function start(broker: 'dhan' | 'angel', feedUrl: string, contract: Buffer) {
    const o: OrdersApp = await startOrdersApp(dialect, {
      broker,
      stubUrl: 'http://127.0.0.1:9', // no REST call is made
      contract,
      env: { BROKER_FEED_URL: feedUrl },
    });
    closers.push(() => o.close());
    await o.t.services.brokers.sessions.refreshPrimary();
    o.t.app.feed.upstream.reselect();
    const at = await o.t.app.feed.server.listen('127.0.0.1', 0);
    const client = await FeedTestClient.open(`ws://127.0.0.1:${at.port}`);
    closers.push(() => client.close());
    expect(await client.ask({ action: 'authenticate', api_key: o.apikey }, 'auth')).toMatchObject({ broker });
    return { o, client };
  }

  it('Dhan: SBIN subscribed as NSE_EQ 3045 in quote mode; its quote and previous close reach the socket', async () => {
    const stub = await DhanFeedStub.start({ clientId: DHAN.clientId, accessToken: DHAN.accessToken });
    closers.push(() => stub.close());
    const { o, client } = await start(
      'dhan',
      stub.url,
      readFileSync(marketFixture('dhan', 'api-scrip-master_2026-02-10.csv')),
    );

    await client.ask(
      { action: 'subscribe', symbols: [{ symbol: 'SBIN', exchange: 'NSE' }], mode: 'Quote' },
      'subscribe',
    );
    await stub.until(() => stub.subscriptions().get('NSE_EQ:3045')?.includes(17) ?? false, 5000, 'quote sub');
    const ltt = Date.parse('2026-02-10T10:00:00+05:30') / 1000;
    stub.send([
      { type: 'prevClose', segment: 'NSE_EQ', securityId: 3045, prevClose: 805.1, prevOi: 0 },
      {
        type: 'quote',
        segment: 'NSE_EQ',
        securityId: 3045,
        ltp: 812.35,
        ltq: 25,
        ltt,
        atp: 810.2,
        volume: 123_456,
        totalSellQty: 7000,
        totalBuyQty: 5000,
        open: 806,
        close: 812.35,
        high: 815,
        low: 804.5,
      },
    ]);
    const tick = await client.next((m) => m.type === 'market_data');
    expect(tick).toMatchObject({ symbol: 'SBIN', exchange: 'NSE', mode: 2, broker: 'dhan' });
    expect(tick.data).toMatchObject({
      ltp: 812.35,
      close: 805.1,
      open: 806,
      high: 815,
      low: 804.5,
      volume: 123_456,
      average_price: 810.2,
      total_buy_quantity: 5000,
      total_sell_quantity: 7000,
    });
    expect(o.t.logs.join('\n')).not.toContain(DHAN.accessToken);
  });

  it('Angel One: SBIN subscribed as exchange type 1, token 3045, with the feed token; an LTP tick reaches the socket', async () => {
    const stub = await AngelStreamStub.start({
      apiKey: ANGEL_CREDS.apiKey,
      clientCode: ANGEL_CREDS.clientCode,
      jwt: ANGEL_CREDS.jwt,
      feedToken: ANGEL_CREDS.feedToken,
    });
    closers.push(() => stub.close());
    const { o, client } = await start(
      'angel',
      stub.url,
      readFileSync(marketFixture('angel', 'OpenAPIScripMaster_documented_rows.json')),
    );

    await client.ask(
      { action: 'subscribe', symbols: [{ symbol: 'SBIN', exchange: 'NSE' }], mode: 'LTP' },
      'subscribe',
    );
    await stub.until(() => stub.subscriptions().includes('1:1|3045'), 5000, 'LTP sub');
    stub.send({
      mode: 'LTP',
      exchangeType: 1,
      token: '3045',
      sequenceNumber: 1,
      exchangeTimestamp: Date.parse('2026-02-10T10:00:00+05:30'),
      lastTradedPrice: 81_235, // paise
    });
    const tick = await client.next((m) => m.type === 'market_data');
    expect(tick).toMatchObject({ symbol: 'SBIN', exchange: 'NSE', mode: 1, broker: 'angel' });
    expect(tick.data).toMatchObject({ ltp: 812.35 });
    const logs = o.t.logs.join('\n');
    for (const secret of [ANGEL_CREDS.jwt, ANGEL_CREDS.feedToken]) expect(logs).not.toContain(secret);
  });
});

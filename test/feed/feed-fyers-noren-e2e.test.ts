/**
 * The Noren OMS stream (Shoonya, Flattrade) end to end (docs/rules/market-data.md#feed-sources): a
 * broker session of either makes its Noren WebSocket the feed's upstream — the connect request
 * with the session's user id and token, then touchline or depth by `EXCH|token` of the master
 * contract — and a loopback server speaking the documented JSON protocol
 * (test/helpers/noren-stream-stub.ts) drives the `tk` snapshot and a `tf` partial to an OpenAlgo
 * WebSocket client of the app, under the master contract's symbol. Fyers' data socket end to end
 * is test/feed/feed-fyers-e2e.test.ts.
 */
import { readFileSync } from 'node:fs';
import { afterEach, expect, it } from 'vitest';
import { FeedTestClient } from '../helpers/feed-client.js';
import { marketFixture } from '../helpers/market-fixtures.js';
import { NorenStreamStub } from '../helpers/noren-stream-stub.js';
import { FLATTRADE_CREDS, SHOONYA_CREDS } from '../helpers/noren-fixtures.js';
import { startOrdersApp } from '../helpers/orders-app.js';
import { describeEachDb } from '../helpers/test-app.js';

describeEachDb('the live feed from the Noren OMS (Shoonya, Flattrade)', (dialect) => {
  const closers: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  const contract = () => readFileSync(marketFixture('shoonya', 'shoonya_NSE_symbols_2026-08-19_cut.txt'));

  for (const [broker, creds] of [
    ['shoonya', SHOONYA_CREDS],
    ['flattrade', FLATTRADE_CREDS],
  ] as const) {
    it(`${broker}: SBIN subscribed as touchline NSE|3045 with the session; its snapshot and a partial reach the socket`, async () => {
      const stub = await NorenStreamStub.start({ userId: creds.userId, token: creds.token });
      closers.push(() => stub.close());
      stub.setMarket('NSE|3045', {
        ...{ ts: 'SBIN-EQ', lp: '812.35', o: '806.00', h: '815.00', l: '804.50', c: '805.10' },
        ...{ v: '123456', ap: '810.20' },
      });
      const o = await startOrdersApp(dialect, {
        broker,
        stubUrl: 'http://127.0.0.1:9', // no REST call is made
        contract: contract(),
        env: { BROKER_FEED_URL: stub.url },
      });
      closers.push(() => o.close());
      await o.t.services.brokers.sessions.refreshPrimary();
      o.t.app.feed.upstream.reselect();
      const at = await o.t.app.feed.server.listen('127.0.0.1', 0);
      const client = await FeedTestClient.open(`ws://127.0.0.1:${at.port}`);
      closers.push(() => client.close());
      expect(await client.ask({ action: 'authenticate', api_key: o.apikey }, 'auth')).toMatchObject({
        broker,
      });

      await client.ask(
        { action: 'subscribe', symbols: [{ symbol: 'SBIN', exchange: 'NSE' }], mode: 'Quote' },
        'subscribe',
      );
      await stub.until(() => stub.subscriptions().includes('t:NSE|3045'), 5000, 'touchline sub');
      expect(stub.messagesOf(stub.accepted)[0]).toMatchObject({
        t: 'c',
        uid: creds.userId,
        actid: creds.userId,
        susertoken: creds.token,
      });
      const first = await client.next((m) => m.type === 'market_data');
      expect(first).toMatchObject({ symbol: 'SBIN', exchange: 'NSE', mode: 2, broker });
      expect(first.data).toMatchObject({ ltp: 812.35, open: 806, high: 815, low: 804.5, close: 805.1 });

      stub.update('NSE|3045', { lp: '813.00', v: '124000' });
      const next = await client.next(
        (m) => m.type === 'market_data' && (m.data as { ltp?: number }).ltp === 813,
      );
      expect(next.data).toMatchObject({ ltp: 813, volume: 124_000, close: 805.1, average_price: 810.2 });
      expect(o.t.logs.join('\n')).not.toContain(creds.token);
    });
  }
});

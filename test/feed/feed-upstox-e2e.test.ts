/**
 * Upstox's stream end to end (docs/rules/market-data.md#feed-sources): an Upstox broker session
 * makes Market Data Feed V3 the feed's upstream; a loopback server speaking its documented
 * protocol (authorize on the REST origin, protobuf FeedResponse frames) drives ticks to a feed
 * client of the app, with the instrument key of the master contract; the Portfolio Stream Feed
 * (authorized on the same origin, JSON order updates) brings the user's live order updates.
 */
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BrokerPriceSource } from '../../src/modules/sandbox/prices/broker-price-source.js';
import { FeedTestClient } from '../helpers/feed-client.js';
import { startOrdersApp, upstoxContract, UPSTOX_CREDS, type OrdersApp } from '../helpers/orders-app.js';
import { marketFullFeed, startUpstoxFeedStub, type UpstoxFeedStub } from '../helpers/upstox-feed-stub.js';
import { describeEachDb } from '../helpers/test-app.js';
import {
  startUpstoxOrdersStub,
  upstoxOrderMessage,
  type UpstoxOrdersStub,
} from '../helpers/upstox-orders-stub.js';

const SBIN_KEY = 'NSE_EQ|INE062A01020';

describeEachDb('the live feed from Upstox Market Data Feed V3', (dialect) => {
  let stub: UpstoxFeedStub;
  let orders: UpstoxOrdersStub;
  let o: OrdersApp;
  let client: FeedTestClient;

  beforeAll(async () => {
    stub = await startUpstoxFeedStub(UPSTOX_CREDS.accessToken);
    orders = await startUpstoxOrdersStub(stub.http);
    o = await startOrdersApp(dialect, {
      broker: 'upstox',
      stubUrl: stub.url,
      contract: upstoxContract([SBIN_KEY]),
    });
    await o.t.services.brokers.sessions.refreshPrimary();
    o.t.app.feed.upstream.reselect();
    const at = await o.t.app.feed.server.listen('127.0.0.1', 0);
    client = await FeedTestClient.open(`ws://127.0.0.1:${at.port}`);
    expect(await client.ask({ action: 'authenticate', api_key: o.apikey }, 'auth')).toMatchObject({
      broker: 'upstox',
    });
  });
  afterAll(async () => {
    await client?.close();
    await o?.close();
    await orders?.close();
    await stub?.close();
  });

  it('authorizes with the session token, subscribes the instrument key in full mode, and ticks reach the socket', async () => {
    await client.ask(
      { action: 'subscribe', symbols: [{ symbol: 'SBIN', exchange: 'NSE' }], mode: 'Depth' },
      'subscribe',
    );
    await expect.poll(() => stub.sent({ method: 'sub', mode: 'full' }).length, { timeout: 5000 }).toBe(1);
    expect(stub.sent({ method: 'sub', mode: 'full' })[0]!.data?.instrumentKeys).toEqual([SBIN_KEY]);
    expect(stub.authorizeCalls).toBe(1);
    const at = Date.parse('2026-01-05T10:00:00+05:30');
    stub.send({
      type: 'live_feed',
      currentTs: at,
      feeds: {
        [SBIN_KEY]: marketFullFeed({
          ltpc: { ltp: 812.35, ltt: at, ltq: 25, cp: 805.1 },
          levels: [[100, 812.3, 200, 812.4]],
          ohlc: [{ interval: '1d', open: 806, high: 815, low: 804.5, close: 812.35, vol: 1000, ts: at }],
          atp: 810.2,
          vtt: 123_456,
          tbq: 5000,
          tsq: 7000,
        }),
      },
    });
    const tick = await client.next((m) => m.type === 'market_data');
    expect(tick).toMatchObject({ symbol: 'SBIN', exchange: 'NSE', mode: 3, broker: 'upstox' });
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
      depth: { buy: [{ price: 812.3, quantity: 100 }], sell: [{ price: 812.4, quantity: 200 }] },
    });
    expect(o.t.logs.join('\n')).not.toContain(UPSTOX_CREDS.accessToken);
  });

  it("Upstox's portfolio stream order updates reach the user's subscribe_orders sockets as live order updates", async () => {
    expect(await client.ask({ action: 'subscribe_orders' }, 'subscribe_orders')).toMatchObject({
      status: 'success',
    });
    await expect.poll(() => orders.openConnections, { timeout: 5000 }).toBe(1);
    expect(orders.updateTypes).toEqual(['order']);
    // Upstox's documented order update (the webhook page: the same payload on the socket).
    orders.send(
      upstoxOrderMessage({
        order_id: '260105000123456',
        status: 'rejected',
        status_message: 'Insufficient funds',
        status_message_raw: 'RMS:Margin Exceeds',
        instrument_key: SBIN_KEY,
        instrument_token: SBIN_KEY,
        trading_symbol: 'SBIN-EQ',
        exchange: 'NSE',
        product: 'D',
        order_type: 'LIMIT',
        transaction_type: 'BUY',
        quantity: 5,
        price: 790.5,
        trigger_price: 0,
        average_price: 0,
        filled_quantity: 0,
        pending_quantity: 0,
      }),
    );
    expect(await client.next((m) => m.type === 'order_update')).toEqual({
      type: 'order_update',
      user_id: 1,
      mode: 'live',
      broker: 'upstox',
      orderid: '260105000123456',
      symbol: 'SBIN',
      exchange: 'NSE',
      action: 'BUY',
      quantity: 5,
      price: 790.5,
      trigger_price: 0,
      pricetype: 'LIMIT',
      product: 'CNC',
      order_status: 'rejected',
      filled_quantity: 0,
      pending_quantity: 0,
      average_price: 0,
      rejection_reason: 'Insufficient funds',
    });
    // A fill after a drop: the stream authorizes again and carries on.
    orders.drop();
    await expect.poll(() => orders.accepted, { timeout: 10_000 }).toBe(2);
    await expect.poll(() => orders.openConnections, { timeout: 5000 }).toBe(1);
    orders.send(
      upstoxOrderMessage({
        order_id: '260105000123457',
        status: 'complete',
        instrument_key: SBIN_KEY,
        average_price: 790.4,
        filled_quantity: 5,
        pending_quantity: 0,
      }),
    );
    expect(await client.next((m) => m.type === 'order_update')).toMatchObject({
      broker: 'upstox',
      orderid: '260105000123457',
      symbol: 'SBIN',
      order_status: 'complete',
      average_price: 790.4,
      rejection_reason: '',
    });
    const log = o.t.logs.join('\n');
    expect(log).toContain('upstox order stream connected');
    expect(log).not.toContain(UPSTOX_CREDS.accessToken);
    for (const code of orders.issuedCodes) expect(log).not.toContain(code);
  });
});

describeEachDb('Upstox stream ticks inside algodesk', (dialect) => {
  it('a resting sandbox LIMIT fills on the tick that crosses it, and /api/v1/quotes answers from the stream, not the broker', async () => {
    const stub = await startUpstoxFeedStub(UPSTOX_CREDS.accessToken);
    const o = await startOrdersApp(dialect, {
      broker: 'upstox',
      stubUrl: stub.url,
      contract: upstoxContract([SBIN_KEY]),
    });
    try {
      await o.t.services.brokers.sessions.refreshPrimary();
      o.t.app.feed.upstream.reselect();
      await o.setMode(true);
      // The broker's quote source, its REST client gone: only the stream can price the sandbox.
      await o.t.services.sandbox.usePriceSource(
        new BrokerPriceSource({
          client: () => undefined,
          pollMs: 1000,
          freshMs: 5000,
          clock: o.t.clock,
          logger: pino({ level: 'silent' }),
        }),
      );
      const placed = await o.t.services.sandbox.service.placeOrder(1, {
        symbol: 'SBIN',
        exchange: 'NSE',
        side: 'BUY',
        priceType: 'LIMIT',
        product: 'MIS',
        quantity: 5,
        price: 800,
      });
      expect(placed.order.status).toBe('open');
      await expect.poll(() => stub.sent({ method: 'sub', mode: 'full' }).length, { timeout: 5000 }).toBe(1);
      const at = Date.parse('2026-01-05T10:00:00+05:30');
      const full = (ltp: number, ask: number) => ({
        type: 'live_feed' as const,
        currentTs: at,
        feeds: {
          [SBIN_KEY]: marketFullFeed({
            ltpc: { ltp, ltt: at, ltq: 5, cp: 804 },
            levels: [[100, ask - 0.1, 200, ask]],
            ohlc: [{ interval: '1d', open: 805, high: 810, low: 790, close: ltp, vol: 1000, ts: at }],
            atp: ltp,
            vtt: 1000,
            tbq: 10,
            tsq: 10,
          }),
        },
      });
      stub.send(full(801, 801)); // ask 801.00: above the limit
      stub.send(full(799.9, 799.9)); // ask 799.90: crosses it
      await expect
        .poll(
          async () => (await o.t.services.sandbox.service.order(1, Number(placed.order.orderId))).status,
          {
            timeout: 5000,
          },
        )
        .toBe('complete');
      expect((await o.t.services.sandbox.service.order(1, Number(placed.order.orderId))).averagePrice).toBe(
        799.9 * 10_000,
      );

      // Live mode: the quote API answers from the fresh tick; the broker's quote endpoint is never asked.
      await o.setMode(false);
      const before = stub.http.requests.length;
      const q = await o.api('quotes', { symbol: 'SBIN', exchange: 'NSE' });
      expect(q.statusCode).toBe(200);
      expect(q.json()).toMatchObject({
        status: 'success',
        data: { ltp: 799.9, open: 805, high: 810, low: 790, prev_close: 804, volume: 1000, ask: 799.9 },
      });
      expect(stub.http.requests.slice(before).filter((r) => r.path.includes('quote'))).toEqual([]);
    } finally {
      await o.close();
      await stub.close();
    }
  });
});

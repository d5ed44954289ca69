/**
 * Zerodha's stream end to end (docs/rules/market-data.md#feed-sources, #feed-watchdog): a broker
 * session makes the Kite Ticker the feed's upstream; a loopback server speaking Kite's documented
 * binary protocol drives ticks to a feed client; a silent upstream is detected, reconnected and
 * reported (feed_status stale, then live); a renewed token reconnects without a restart.
 */
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BrokerPriceSource } from '../../src/modules/sandbox/prices/broker-price-source.js';
import { importContract } from '../helpers/contracts.js';
import { FeedTestClient } from '../helpers/feed-client.js';
import { KiteTickerStub } from '../helpers/kite-ticker-stub.js';
import { ist, miniKiteContract } from '../helpers/sandbox.js';
import { appWithAdmin, asBrowser, describeEachDb, type TestApp } from '../helpers/test-app.js';

const KEY = 'kite-api-key-1234';
const T0 = ist('2026-01-05', '10:00'); // a Monday, NSE in session

describeEachDb('the live feed from Kite Ticker', (dialect) => {
  let stub: KiteTickerStub;
  let t: TestApp;
  let client: FeedTestClient;
  let token: number;

  beforeAll(async () => {
    stub = await KiteTickerStub.start({ apiKey: KEY, accessToken: 'kite-token-day-1' });
    ({ t } = await appWithAdmin(dialect, {
      env: {
        BROKER_NAME: 'zerodha',
        BROKER_API_KEY: KEY,
        BROKER_API_SECRET: 'kite-secret',
        BROKER_FEED_URL: stub.url,
        FEED_STALE_SECONDS: '5',
      },
    }));
    await importContract(t, 'zerodha', miniKiteContract());
    t.clock.set(T0);
    token = Number((await t.app.market.contracts.get('SBIN', 'NSE'))!.token);
    await t.services.brokers.sessions.set(1, 'zerodha', { accessToken: 'kite-token-day-1' });
    await t.services.brokers.sessions.refreshPrimary();
    t.app.feed.upstream.reselect();
    const apikey = (await t.services.auth.apiKeys.regenerate(1)).apikey;
    const at = await t.app.feed.server.listen('127.0.0.1', 0);
    client = await FeedTestClient.open(`ws://127.0.0.1:${at.port}`);
    expect(await client.ask({ action: 'authenticate', api_key: apikey }, 'auth')).toMatchObject({
      broker: 'zerodha',
    });
  });
  afterAll(async () => {
    await client.close();
    await t.close();
    await stub.close();
  });

  const full = (paise: number) => ({
    mode: 'full' as const,
    token,
    lastPrice: paise,
    lastQuantity: 10,
    averagePrice: paise - 50,
    volume: 123_456,
    buyQuantity: 5000,
    sellQuantity: 7000,
    open: 79_000,
    high: 81_000,
    low: 78_500,
    close: 79_500,
    lastTradeTime: T0 / 1000,
    oi: 0,
    oiDayHigh: 0,
    oiDayLow: 0,
    exchangeTimestamp: T0 / 1000,
    bids: [[100, paise - 5, 3] as const],
    asks: [[200, paise + 5, 4] as const],
  });

  it('subscribes upstream once and turns Kite packets into OpenAlgo ticks', async () => {
    const ack = await client.ask(
      { action: 'subscribe', symbols: [{ symbol: 'SBIN', exchange: 'NSE' }], mode: 'Depth' },
      'subscribe',
    );
    expect(ack).toMatchObject({ status: 'success', broker: 'zerodha' });
    await stub.until(() => stub.subscriptions().get(token) === 'full', 3000, 'SBIN in full mode');
    stub.send([full(80_125)]);
    const tick = await client.next((m) => m.type === 'market_data');
    expect(tick).toMatchObject({ symbol: 'SBIN', exchange: 'NSE', mode: 3, broker: 'zerodha' });
    expect(tick.data).toMatchObject({
      ltp: 801.25,
      open: 790,
      high: 810,
      low: 785,
      close: 795,
      volume: 123_456,
      average_price: 800.75,
      last_quantity: 10,
      total_buy_quantity: 5000,
      total_sell_quantity: 7000,
      change: 6.25,
      depth: {
        buy: [{ price: 801.2, quantity: 100, orders: 3 }],
        sell: [{ price: 801.3, quantity: 200, orders: 4 }],
      },
    });
  });

  it('a heartbeat-only upstream is a stall: subscribers are told, the stream reconnects and re-subscribes, ticks recover', async () => {
    const before = stub.accepted;
    // The connection stays up and only heartbeats: connected, yet silent for SBIN.
    for (let i = 0; i < 3; i++) stub.heartbeat();
    t.clock.set(T0 + 6000);
    t.app.feed.watchdog.check();
    expect(await client.next((m) => m.type === 'feed_status')).toMatchObject({
      status: 'stale',
      broker: 'zerodha',
      symbols: [{ symbol: 'SBIN', exchange: 'NSE' }],
    });
    await stub.until(
      () => stub.accepted > before && stub.subscriptions().get(token) === 'full',
      5000,
      'a new connection',
    );
    stub.send([full(80_200)]);
    expect(await client.next((m) => m.type === 'feed_status')).toMatchObject({ status: 'live' });
    expect(
      (await client.next((m) => m.type === 'market_data' && (m.data as { ltp: number }).ltp === 802)).data,
    ).toBeTruthy();
    const ready = (await t.app.inject({ method: 'GET', url: '/ready' })).json() as {
      checks: { market_feed: unknown };
    };
    expect(ready.checks.market_feed).toMatchObject({
      ok: true,
      state: 'live',
      upstream: 'zerodha',
      stalls: 1,
    });
  });

  it("Kite's order postbacks on the stream reach the user's subscribe_orders sockets as live order updates", async () => {
    expect(await client.ask({ action: 'subscribe_orders' }, 'subscribe_orders')).toMatchObject({
      status: 'success',
    });
    // Kite Connect's documented postback fields (the same payload on the WebSocket).
    stub.text({
      type: 'order',
      data: {
        user_id: 'AB1234',
        order_id: '220303000308932',
        status: 'REJECTED',
        status_message: 'Insufficient funds',
        exchange: 'NSE',
        tradingsymbol: 'SBIN',
        instrument_token: token,
        order_type: 'LIMIT',
        transaction_type: 'BUY',
        product: 'CNC',
        quantity: 5,
        price: 790.5,
        trigger_price: 0,
        average_price: 0,
        filled_quantity: 0,
        pending_quantity: 0,
      },
    });
    expect(await client.next((m) => m.type === 'order_update')).toEqual({
      type: 'order_update',
      user_id: 1,
      mode: 'live',
      broker: 'zerodha',
      orderid: '220303000308932',
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
  });

  it('a renewed broker token reconnects the stream with it, without a restart', async () => {
    const before = stub.accepted;
    stub.credentials = { apiKey: KEY, accessToken: 'kite-token-day-2' };
    await t.services.brokers.sessions.set(1, 'zerodha', { accessToken: 'kite-token-day-2' });
    await t.services.brokers.sessions.refreshPrimary();
    t.app.feed.upstream.reselect();
    await stub.until(
      () => stub.accepted > before && stub.subscriptions().get(token) === 'full',
      5000,
      'reconnect',
    );
    stub.send([full(80_300)]);
    await client.next((m) => m.type === 'market_data' && (m.data as { ltp: number }).ltp === 803);
    // Neither token nor the API key was ever written to the log.
    const log = t.logs.join('\n');
    expect(log).toContain('feed upstream replaced');
    expect(log).toContain('feed_stalled');
    for (const secret of ['kite-token-day-1', 'kite-token-day-2', KEY]) expect(log).not.toContain(secret);
  });
});

describeEachDb('Kite Ticker ticks inside algodesk', (dialect) => {
  it('a resting sandbox LIMIT fills on the tick that crosses it, and /api/v1/quotes answers from the stream, not the broker', async () => {
    const stub = await KiteTickerStub.start({ apiKey: KEY, accessToken: 'kite-token-day-1' });
    const { t, admin } = await appWithAdmin(dialect, {
      env: {
        BROKER_NAME: 'zerodha',
        BROKER_API_KEY: KEY,
        BROKER_API_SECRET: 'kite-secret',
        BROKER_FEED_URL: stub.url,
        // Nothing listens here: an answer that needed the broker's REST API would fail.
        BROKER_API_BASE_URL: 'http://127.0.0.1:9',
        BROKER_TIMEOUT_MS: '1000',
      },
    });
    try {
      await importContract(t, 'zerodha', miniKiteContract());
      t.clock.set(T0);
      const token = Number((await t.app.market.contracts.get('SBIN', 'NSE'))!.token);
      await t.services.brokers.sessions.set(1, 'zerodha', { accessToken: 'kite-token-day-1' });
      await t.services.brokers.sessions.refreshPrimary();
      t.app.feed.upstream.reselect();
      await t.app.inject({ method: 'POST', url: '/settings/analyze-mode/1', headers: asBrowser(admin) });
      // A price source put in after start (as an operator's switch would): the feed follows its
      // watched instruments too. Its REST client is gone: only the stream can price it.
      await t.services.sandbox.usePriceSource(
        new BrokerPriceSource({
          client: () => undefined,
          pollMs: 1000,
          freshMs: 5000,
          clock: t.clock,
          logger: pino({ level: 'silent' }),
        }),
      );
      const placed = await t.services.sandbox.service.placeOrder(1, {
        symbol: 'SBIN',
        exchange: 'NSE',
        side: 'BUY',
        priceType: 'LIMIT',
        product: 'MIS',
        quantity: 5,
        price: 800,
      });
      expect(placed.order.status).toBe('open');
      // The engine watches the order's instrument; the feed subscribes it upstream in full mode.
      await stub.until(
        () => stub.subscriptions().get(token) === 'full',
        5000,
        'the engine instrument subscribed',
      );
      const packet = (paise: number) => ({
        mode: 'full' as const,
        token,
        lastPrice: paise,
        lastQuantity: 1,
        averagePrice: paise,
        volume: 1000,
        buyQuantity: 10,
        sellQuantity: 10,
        open: 80_500,
        high: 81_000,
        low: 79_000,
        close: 80_400,
        lastTradeTime: T0 / 1000,
        oi: 0,
        oiDayHigh: 0,
        oiDayLow: 0,
        exchangeTimestamp: T0 / 1000,
        bids: [[50, paise - 10, 2] as const],
        asks: [[60, paise, 3] as const],
      });
      stub.send([packet(80_100)]); // ask 801.00: above the limit, no fill
      stub.send([packet(79_990)]); // ask 799.90: crosses it
      await expect
        .poll(async () => (await t.services.sandbox.service.order(1, Number(placed.order.orderId))).status, {
          timeout: 5000,
        })
        .toBe('complete');
      const filled = await t.services.sandbox.service.order(1, Number(placed.order.orderId));
      expect(filled.averagePrice).toBe(799.9 * 10_000);

      // Live mode: the quote API answers from the fresh tick (the broker's REST origin is dead).
      await t.app.inject({ method: 'POST', url: '/settings/analyze-mode/0', headers: asBrowser(admin) });
      const apikey = (await t.services.auth.apiKeys.regenerate(1)).apikey;
      const q = await t.app.inject({
        method: 'POST',
        url: '/api/v1/quotes',
        payload: { apikey, symbol: 'SBIN', exchange: 'NSE' },
      });
      expect(q.statusCode).toBe(200);
      expect(q.json()).toMatchObject({
        status: 'success',
        data: {
          ltp: 799.9,
          open: 805,
          high: 810,
          low: 790,
          prev_close: 804,
          volume: 1000,
          bid: 799.8,
          ask: 799.9,
        },
      });
    } finally {
      await t.close();
      await stub.close();
    }
  });
});

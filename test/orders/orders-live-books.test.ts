/**
 * The `/api/v1` books and position calls in live mode through both broker adapters, against the
 * loopback Kite Connect v3 and Upstox v2 stubs keeping a day's book: orderbook, tradebook,
 * positionbook, holdings, funds and openposition answer OpenAlgo's documented fields mapped back
 * to algodesk's symbols; cancelallorder and closeposition change the stub's book (closing orders
 * go through the placement pipeline); the broker's status and timeouts pass through; analyzer
 * mode answers from the sandbox without calling the broker.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kiteError, upstoxError } from '../helpers/broker-quote-stubs.js';
import { SLOWER_THAN_TIMEOUT_MS } from '../helpers/broker-stub.js';
import {
  startKiteOrderStub,
  startUpstoxOrderStub,
  type KiteOrderStub,
  type UpstoxOrderStub,
} from '../helpers/broker-order-stubs.js';
import {
  KITE_CREDS,
  UPSTOX_CREDS,
  kiteContract,
  startOrdersApp,
  upstoxContract,
  type OrdersApp,
} from '../helpers/orders-app.js';
import { describeEachDb } from '../helpers/test-app.js';
import type { Dialect } from '../../src/platform/db/database.js';

type Row = Record<string, unknown>;
const SBIN_KEY = 'NSE_EQ|INE062A01020';

interface Case {
  broker: 'zerodha' | 'upstox';
  start(dialect: Dialect): Promise<{ stub: KiteOrderStub | UpstoxOrderStub; o: OrdersApp }>;
  /** The stub's holding record of 5 SBIN bought at 700, priced at 810. */
  holding(token: string): Row;
  /** The stub's error body for a refusal. */
  error(message: string): unknown;
  /** Realised and unrealised M2M the broker's funds report with one open long (+100). */
  m2m: [number, number];
  /** Order ids the stub received with `side`. */
  sent(stub: KiteOrderStub | UpstoxOrderStub, side: 'BUY' | 'SELL'): Row[];
  /** The stub's current status of order `id`, lower-case. */
  statusOf(stub: KiteOrderStub | UpstoxOrderStub, id: string): string;
}

const last = (stub: KiteOrderStub | UpstoxOrderStub, id: string) => stub.orders.get(id)!.at(-1)!;

const CASES: Case[] = [
  {
    broker: 'zerodha',
    async start(dialect) {
      const stub = await startKiteOrderStub(KITE_CREDS);
      const o = await startOrdersApp(dialect, {
        broker: 'zerodha',
        stubUrl: stub.url,
        contract: kiteContract(['SBIN']),
        timeoutMs: 500,
      });
      const sbin = await o.t.services.market.contracts.get('SBIN', 'NSE');
      stub.tokens.set('SBIN', Number(sbin!.token));
      return { stub, o };
    },
    holding: (token) => ({
      tradingsymbol: 'SBIN',
      exchange: 'NSE',
      instrument_token: Number(token),
      isin: 'INE062A01020',
      product: 'CNC',
      price: 0,
      quantity: 4,
      t1_quantity: 1,
      average_price: 700,
      last_price: 810,
      close_price: 805,
      pnl: 550,
      day_change: 5,
      day_change_percentage: 0.62,
    }),
    error: (m) => kiteError(m, 'GeneralException'),
    m2m: [0, 0],
    sent: (stub, side) =>
      [...stub.orders.values()].filter((h) => h[0]!.transaction_type === side).map((h) => h.at(-1)!),
    statusOf: (stub, id) => String(last(stub, id).status).toLowerCase(),
  },
  {
    broker: 'upstox',
    async start(dialect) {
      const stub = await startUpstoxOrderStub(UPSTOX_CREDS);
      stub.symbols.set(SBIN_KEY, 'SBIN');
      const o = await startOrdersApp(dialect, {
        broker: 'upstox',
        stubUrl: stub.url,
        contract: upstoxContract([SBIN_KEY]),
        timeoutMs: 500,
      });
      return { stub, o };
    },
    holding: (token) => ({
      isin: 'INE062A01020',
      cnc_used_quantity: 0,
      collateral_type: 'WC',
      company_name: 'STATE BANK OF INDIA',
      haircut: 0.2,
      product: 'D',
      quantity: 4,
      trading_symbol: 'SBIN',
      tradingsymbol: 'SBIN',
      last_price: 810,
      close_price: 805,
      pnl: 550,
      day_change: 5,
      day_change_percentage: 0.62,
      instrument_token: token,
      average_price: 700,
      collateral_quantity: 0,
      collateral_update_quantity: 0,
      t1_quantity: 1,
      exchange: 'NSE',
    }),
    error: (m) => upstoxError('UDAPI100500', m),
    m2m: [0, 100],
    sent: (stub, side) =>
      [...stub.orders.values()].filter((h) => h[0]!.transaction_type === side).map((h) => h.at(-1)!),
    statusOf: (stub, id) => String(last(stub, id).status).toLowerCase(),
  },
];

describeEachDb('live books', (dialect) => {
  describe.each(CASES)('through the $broker adapter', (c) => {
    let stub: KiteOrderStub | UpstoxOrderStub;
    let o: OrdersApp;
    let token: string;
    let marketId: string;
    let limitId: string;
    const ok = async (path: string, body: Row = {}) => {
      const res = await o.api(path, body);
      expect(res.statusCode, `${path}: ${res.body}`).toBe(200);
      const json = res.json();
      expect(json.status).toBe('success');
      expect(json).not.toHaveProperty('mode');
      return json;
    };

    beforeAll(async () => {
      ({ stub, o } = await c.start(dialect));
      await o.setMode(false);
      stub.fillMarketOrders = true;
      token = (await o.t.services.market.contracts.get('SBIN', 'NSE'))!.token;
      stub.prices.set('SBIN', 800);
      const buy = { strategy: 'books', symbol: 'SBIN', exchange: 'NSE', action: 'BUY' };
      const m = await o.api('placeorder', { ...buy, quantity: 10, pricetype: 'MARKET', product: 'MIS' });
      const l = await o.api('placeorder', {
        ...buy,
        quantity: 1,
        pricetype: 'LIMIT',
        price: '700',
        product: 'CNC',
      });
      expect([m.statusCode, l.statusCode]).toEqual([200, 200]);
      marketId = m.json().orderid;
      limitId = l.json().orderid;
      stub.prices.set('SBIN', 810);
    });
    afterAll(async () => {
      await o?.close();
      await stub?.close();
    });

    it('orderbook: both orders with algodesk’s symbol, newest first, and the statistics', async () => {
      const { data } = await ok('orderbook');
      expect(data.statistics).toEqual({
        total_buy_orders: 2,
        total_sell_orders: 0,
        total_completed_orders: 1,
        total_open_orders: 1,
        total_rejected_orders: 0,
      });
      expect(data.orders.map((r: Row) => r.orderid)).toEqual([limitId, marketId]);
      expect(data.orders[0]).toEqual({
        orderid: limitId,
        symbol: 'SBIN',
        exchange: 'NSE',
        action: 'BUY',
        quantity: 1,
        price: 700,
        trigger_price: 0,
        pricetype: 'LIMIT',
        product: 'CNC',
        order_status: 'open',
        average_price: 0,
        filled_quantity: 0,
        pending_quantity: 1,
        rejection_reason: '',
        timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
        strategy: 'books',
      });
      expect(data.orders[1]).toMatchObject({
        orderid: marketId,
        price: 0,
        pricetype: 'MARKET',
        product: 'MIS',
        order_status: 'complete',
        average_price: 800,
        filled_quantity: 10,
        pending_quantity: 0,
      });
    });

    it('tradebook: the MARKET order’s fill', async () => {
      const { data } = await ok('tradebook');
      expect(data).toEqual([
        {
          tradeid: expect.any(String),
          orderid: marketId,
          symbol: 'SBIN',
          exchange: 'NSE',
          action: 'BUY',
          quantity: 10,
          average_price: 800,
          price: 800,
          trade_value: 8000,
          product: 'MIS',
          strategy: '',
          timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
        },
      ]);
    });

    it('positionbook and openposition: the net long, marked at the broker’s LTP', async () => {
      const { data } = await ok('positionbook');
      expect(data).toEqual([
        {
          symbol: 'SBIN',
          exchange: 'NSE',
          product: 'MIS',
          quantity: 10,
          average_price: 800,
          ltp: 810,
          pnl: 100,
          realized_pnl: 0,
          unrealized_pnl: 100,
        },
      ]);
      const q = { strategy: 'books', symbol: 'SBIN', exchange: 'NSE' };
      expect(await ok('openposition', { ...q, product: 'MIS' })).toEqual({
        status: 'success',
        quantity: '10',
      });
      expect(await ok('openposition', { ...q, product: 'CNC' })).toEqual({
        status: 'success',
        quantity: '0',
      });
    });

    it('holdings: rows (T1 shares included) and the statistics', async () => {
      stub.holdingRows = [c.holding(token)];
      const { data } = await ok('holdings');
      expect(data).toEqual({
        holdings: [
          {
            symbol: 'SBIN',
            exchange: 'NSE',
            product: 'CNC',
            quantity: 5,
            average_price: 700,
            ltp: 810,
            pnl: 550,
            pnlpercent: 15.71,
          },
        ],
        statistics: {
          totalholdingvalue: 4050,
          totalinvvalue: 3500,
          totalprofitandloss: 550,
          totalpnlpercentage: 15.71,
        },
      });
    });

    it('funds: the broker’s cash and margin in OpenAlgo’s five fields', async () => {
      const { data } = await ok('funds');
      expect(data).toEqual({
        availablecash: 242_000,
        collateral: 0,
        m2mrealized: c.m2m[0],
        m2munrealized: c.m2m[1],
        utiliseddebits: 8000,
      });
    });

    it('the broker’s refusal keeps its status; a broker timeout is 504 with a message', async () => {
      stub.failNext(503, c.error('Service unavailable'));
      const refused = await o.api('orderbook', {});
      expect(refused.statusCode).toBe(503);
      expect(refused.json()).toMatchObject({
        status: 'error',
        message: expect.stringContaining('unavailable'),
      });
      stub.delayNext(SLOWER_THAN_TIMEOUT_MS);
      const slow = await o.api('positionbook', {});
      expect(slow.statusCode).toBe(504);
      expect(slow.json()).toMatchObject({
        status: 'error',
        message: expect.stringMatching(/did not answer/),
      });
      expect(slow.body).not.toContain(
        c.broker === 'zerodha' ? KITE_CREDS.accessToken : UPSTOX_CREDS.accessToken,
      );
    });

    it('cancelallorder cancels the open LIMIT order at the broker', async () => {
      const res = await ok('cancelallorder', { strategy: 'books' });
      expect(res).toEqual({
        status: 'success',
        message: 'Canceled 1 orders. Failed to cancel 0 orders.',
        canceled_orders: [limitId],
        failed_cancellations: [],
      });
      expect(c.statusOf(stub, limitId)).toBe('cancelled');
      expect(c.statusOf(stub, marketId)).toBe('complete');
      expect((await ok('cancelallorder', {})).message).toBe('No open orders to cancel');
    });

    it('closeposition sells the long at MARKET through the pipeline; the position is flat', async () => {
      const events = o.events.length;
      const res = await ok('closeposition', { strategy: 'books' });
      expect(res).toMatchObject({ status: 'success', closed_positions: 1, failed_closures: 0 });
      expect(c.sent(stub, 'SELL')).toEqual([
        expect.objectContaining({ transaction_type: 'SELL', order_type: 'MARKET', quantity: 10 }),
      ]);
      const logs = await o.logs('order_logs');
      expect(logs.at(-1)).toMatchObject({
        event: 'order.placed',
        broker: c.broker,
        api_type: 'closeposition',
      });
      expect(o.events.length).toBeGreaterThan(events);
      const { data } = await ok('positionbook');
      expect(data).toEqual([expect.objectContaining({ symbol: 'SBIN', quantity: 0, realized_pnl: 100 })]);
      expect(await ok('openposition', { symbol: 'SBIN', exchange: 'NSE', product: 'MIS' })).toEqual({
        status: 'success',
        quantity: '0',
      });
      expect((await ok('closeposition', {})).message).toBe('No open positions to close');
    });

    it('analyzer mode answers every call from the sandbox and never calls the broker', async () => {
      await o.setMode(true);
      try {
        const before = stub.requests.length;
        for (const path of ['orderbook', 'tradebook', 'positionbook', 'holdings', 'funds']) {
          const res = await o.api(path, {});
          expect(res.statusCode, path).toBe(200);
          expect(res.json(), path).toMatchObject({ status: 'success', mode: 'analyze' });
        }
        const open = await o.api('openposition', { symbol: 'SBIN', exchange: 'NSE', product: 'MIS' });
        expect(open.json()).toEqual({ status: 'success', quantity: '0', mode: 'analyze' });
        expect((await o.api('cancelallorder', {})).json()).toMatchObject({ mode: 'analyze' });
        expect((await o.api('closeposition', {})).json()).toMatchObject({ mode: 'analyze' });
        expect(stub.requests.length).toBe(before);
      } finally {
        await o.setMode(false);
      }
    });
  });
});

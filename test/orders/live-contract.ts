/**
 * The live `/api/v1` contract, written once and run per broker ({@link liveBrokerContract}, one
 * test file per broker: live-contract-<broker>.test.ts) against the broker's loopback stub
 * (live-rigs.ts): in live mode, every order and book call the Zerodha adapter supports answers the
 * same OpenAlgo shapes with algodesk's symbols through every adapter. This file holds the order
 * cases (placement across price types and products with what reached the broker read back,
 * orderstatus, modify, cancel, the broker's refusals); the books and bulk orders are in
 * live-contract-books.ts, margin and market data in live-contract-data.ts, the strategy's
 * kill-and-reconcile in live-contract-kill.ts. GTT is not part of the contract (Dhan and Angel One
 * have none in algodesk).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasLimitPrice, hasTriggerPrice, type PriceType, type Product } from '../../src/domain/orders.js';
import type { Dialect } from '../../src/platform/db/database.js';
import { booksCases } from './live-contract-books.js';
import { dataCases } from './live-contract-data.js';
import { killCases } from './live-contract-kill.js';
import { startLiveWorld, type LiveInstrument, type LiveRig, type LiveWorld } from './live-rig-world.js';

/** Prices of an order of `type` on `i`: the equity's near 800, the derivative's near 120. */
function pricesFor(i: LiveInstrument, type: PriceType): { price: string; trigger_price: string } {
  const [limit, trigger] = i.exchange === 'NSE' ? ['801', '800'] : ['121', '120'];
  return {
    price: hasLimitPrice(type)
      ? type === 'LIMIT'
        ? i.exchange === 'NSE'
          ? '800.5'
          : '120.5'
        : limit
      : '0',
    trigger_price: hasTriggerPrice(type) ? trigger : '0',
  };
}

/** The placements the contract covers: every price type, every product, both instruments. */
const PLACEMENTS: [string, 'eq' | 'fno', PriceType, Product][] = [
  ['MARKET MIS on the equity', 'eq', 'MARKET', 'MIS'],
  ['LIMIT CNC on the equity', 'eq', 'LIMIT', 'CNC'],
  ['SL MIS on the equity', 'eq', 'SL', 'MIS'],
  ['SL-M CNC on the equity', 'eq', 'SL-M', 'CNC'],
  ['LIMIT NRML on the derivative', 'fno', 'LIMIT', 'NRML'],
  ['MARKET NRML on the derivative', 'fno', 'MARKET', 'NRML'],
  ['SL MIS on the derivative', 'fno', 'SL', 'MIS'],
  ['SL-M NRML on the derivative', 'fno', 'SL-M', 'NRML'],
];

function orderCases(rig: LiveRig, dialect: Dialect): void {
  let w: LiveWorld;
  beforeAll(async () => {
    w = await startLiveWorld(rig, dialect);
  });
  afterAll(async () => {
    await w?.close();
  });
  const limitOrder = () => ({
    strategy: 'contract',
    symbol: w.eq.symbol,
    exchange: 'NSE',
    action: 'BUY',
    quantity: 1,
    pricetype: 'LIMIT',
    product: 'CNC',
    price: '800.5',
  });

  it.each(PLACEMENTS)(
    'placeorder %s reaches the broker in its own words (mapped back: the same order); orderstatus reads it back',
    async (_name, which, pricetype, product) => {
      const i = w[which];
      const prices = pricesFor(i, pricetype);
      const order = { symbol: i.symbol, exchange: i.exchange, action: 'BUY', quantity: i.lot };
      const res = await w.o.api('placeorder', {
        strategy: 'contract',
        ...order,
        pricetype,
        product,
        ...prices,
      });
      expect(res.statusCode, res.body).toBe(200);
      const { orderid } = res.json() as { orderid: string };
      expect(res.json()).toEqual({ status: 'success', orderid: expect.any(String) });
      expect(w.s.sent().at(-1)).toEqual({
        instrument: w.s.nameOf(i),
        side: 'BUY',
        quantity: i.lot,
        priceType: pricetype,
        product,
        price: Number(prices.price),
        trigger: Number(prices.trigger_price),
      });
      expect(w.s.booked().at(-1)?.id).toBe(orderid);
      const st = await w.o.api('orderstatus', { strategy: 'contract', orderid });
      expect(st.statusCode, st.body).toBe(200);
      // As OpenAlgo answers it: algodesk's symbol and OpenAlgo's product words.
      expect(st.json()).toMatchObject({
        status: 'success',
        data: {
          orderid,
          ...order,
          pricetype,
          product,
          price: Number(prices.price),
          trigger_price: Number(prices.trigger_price),
          order_status: expect.stringMatching(/^(open|trigger pending)$/),
        },
      });
    },
  );

  it('modifyorder changes a resting LIMIT order at the broker; cancelorder cancels it; orderstatus follows', async () => {
    const placed = await w.o.api('placeorder', limitOrder());
    const { orderid } = placed.json() as { orderid: string };
    const mod = await w.o.api('modifyorder', {
      ...limitOrder(),
      orderid,
      price: '801',
      quantity: 2,
      trigger_price: '0',
      disclosed_quantity: '0',
    });
    expect(mod.statusCode, mod.body).toBe(200);
    expect(mod.json()).toEqual({ status: 'success', orderid });
    const after = await w.o.api('orderstatus', { strategy: 'contract', orderid });
    expect(after.json().data).toMatchObject({ orderid, price: 801, quantity: 2, order_status: 'open' });
    const cancel = await w.o.api('cancelorder', { strategy: 'contract', orderid });
    expect(cancel.statusCode, cancel.body).toBe(200);
    expect(cancel.json()).toEqual({ status: 'success', orderid });
    expect(w.s.booked().find((b) => b.id === orderid)?.status).toBe('cancelled');
    expect((await w.o.api('orderstatus', { strategy: 'contract', orderid })).json().data).toMatchObject({
      orderid,
      order_status: 'cancelled',
    });
  });

  it('a placement the broker refuses answers its status and message, logs order.failed, and shows no token', async () => {
    w.s.stub.refusePlacement(1, rig.refusal.status, rig.refusal.body);
    const res = await w.o.api('placeorder', limitOrder());
    expect(res.statusCode).toBe(rig.refusal.answered ?? rig.refusal.status);
    expect(res.json()).toMatchObject({
      status: 'error',
      message: expect.stringContaining(rig.refusal.message),
    });
    const logs = await w.o.logs('order_logs');
    expect(logs.at(-1)).toMatchObject({ event: 'order.failed', broker: rig.broker });
    const everything = [res.body, JSON.stringify(logs), w.o.t.logs.join('\n')].join('\n');
    expect(everything).not.toContain(rig.session().accessToken);
    expect(everything).not.toContain(w.o.apikey);
  });

  it('a session the broker refuses: its refusal passed through with its status, the token in no answer', async () => {
    const { session, status } = rig.wrongSession;
    await w.o.t.services.brokers.sessions.set(1, rig.broker, session);
    try {
      for (const path of ['orderbook', 'positionbook', 'funds']) {
        const res = await w.o.api(path, {});
        expect(res.statusCode, `${path}: ${res.body}`).toBe(status);
        expect(res.json()).toMatchObject({ status: 'error', message: expect.any(String) });
        expect(res.body).not.toContain(session.accessToken);
      }
      const placed = await w.o.api('placeorder', limitOrder());
      expect(placed.statusCode).toBe(status);
      expect(placed.body).not.toContain(session.accessToken);
      expect(w.o.t.logs.join('\n')).not.toContain(session.accessToken);
    } finally {
      await w.o.t.services.brokers.sessions.set(1, rig.broker, rig.session());
    }
  });
}

/**
 * Declares the whole live contract for the broker of `rig` on `dialect` (see the file comment).
 * Each broker's test file calls it inside `describeEachDb` itself: the PostgreSQL tier
 * (vitest.postgres.config.ts) picks the test files that call `describeEachDb(`.
 */
export function liveBrokerContract(rig: LiveRig, dialect: Dialect): void {
  describe('orders: placement, status, modify, cancel, refusals', () => orderCases(rig, dialect));
  describe('books and bulk orders', () => booksCases(rig, dialect));
  describe('margin and market data', () => dataCases(rig, dialect));
  describe('a strategy’s order whose answer was lost is reconciled by its tag', () =>
    killCases(rig, dialect));
}

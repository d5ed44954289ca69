/**
 * The middle tier of the order pipeline (spec "Order placement rules", steps 3-5): the real
 * pipeline, sandbox and order-event log writer on a real database, no HTTP. The answer the
 * pipeline returns is what placeorder sends (status and body); each case also asserts the rows
 * it leads to (sandbox orders, the analyzer and order logs). Steps 1-2 (schema, API key, rate
 * limit, the Action Center queue) and the response shapes are the app tier's:
 * orders-analyzer.test.ts, orders-bad-input.test.ts.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TOO_MANY_SPLITS } from '../../src/modules/orders/order-rules.js';
import { MINI } from '../helpers/sandbox.js';
import { describeEachDb } from '../helpers/test-app.js';
import { key, startTrading, type Trading } from '../helpers/trading-services.js';

type Row = Record<string, unknown>;
const CE = { ...MINI.NIFTY_CE, product: 'NRML' as const };

describeEachDb('order pipeline in analyzer mode (service tier)', (dialect) => {
  let t: Trading;
  beforeEach(async () => {
    t = await startTrading(dialect);
    t.s.clock.set(Date.parse('2026-01-05T10:00:00+05:30'));
    await t.tick({ [key(MINI.SBIN)]: t.quote(800), [key(MINI.NIFTY_CE)]: t.quote(120) });
  });
  afterEach(() => t?.close());

  /** The quantities of the sandbox orders, in placement order. */
  const sandboxQuantities = async () => (await t.rows('sandbox_orders')).map((o) => o.quantity);
  const requestOf = (row: Row) => JSON.parse(String(row.request)) as Row;

  describe('step 5: a valid order is simulated by the sandbox and answered with mode analyze', () => {
    it('200 {status, orderid, mode}; the sandbox order; one order.placed row in the analyzer log only', async () => {
      const a = await t.run({ strategy: 'tagged' });
      expect(a.status).toBe(200);
      expect(a.body).toEqual({ status: 'success', orderid: expect.any(String), mode: 'analyze' });
      const o = await t.order(String(a.body.orderid));
      expect([o.side, o.status, o.quantity, o.strategy]).toEqual(['BUY', 'complete', 10, 'tagged']);
      const rows = await t.rows('analyzer_logs');
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({
        event: 'order.placed',
        api_type: 'placeorder',
        broker: 'sandbox',
        order_id: a.body.orderid,
        status_code: 200,
      });
      expect(requestOf(rows[0]!)).toMatchObject({ symbol: 'SBIN', quantity: 10, action: 'BUY' });
      expect(await t.rows('order_logs')).toEqual([]);
    });
  });

  describe('an account rule of the sandbox (funds) is order.failed with the rejected order id', () => {
    it('400 with the reason and the order id; the rejected order is kept; the event names it', async () => {
      const a = await t.run({ quantity: 20_000, product: 'CNC' }); // 20,000 × 800.05 > ₹1 crore
      expect(a.status).toBe(400);
      expect(a.body).toMatchObject({
        message: expect.stringMatching(/^Insufficient funds/),
        mode: 'analyze',
      });
      const id = String(a.body.orderid);
      expect((await t.order(id)).status).toBe('rejected');
      const rows = await t.rows('analyzer_logs');
      expect(rows.map((r) => [r.event, r.order_id, r.status_code])).toEqual([['order.failed', id, 400]]);
    });
  });

  describe('freeze quantity: F&O orders above it are split into orders of at most that size', () => {
    it('325 of a lot-65 option with freeze 150 → 130 + 130 + 65 (whole lots), every id returned', async () => {
      await t.s.services.marketAdmin.freeze.add({ exchange: 'NFO', symbol: 'NIFTY', freeze_qty: 150 });
      const a = await t.run({ ...CE, quantity: 325 });
      expect(a.status).toBe(200);
      expect(a.body.orderids).toHaveLength(3);
      expect(a.body.orderid).toBe((a.body.orderids as string[])[0]);
      const sizes = await Promise.all(
        (a.body.orderids as string[]).map(async (id) => (await t.order(id)).quantity),
      );
      expect(sizes).toEqual([130, 130, 65]);
      expect(a.quantities).toEqual([130, 130, 65]);
      // One order.placed event per child, each with the child's quantity.
      const rows = await t.rows('analyzer_logs');
      expect(rows.map((r) => [r.event, r.order_id, requestOf(r).quantity])).toEqual(
        (a.body.orderids as string[]).map((id, i) => ['order.placed', id, sizes[i]]),
      );
    });

    it('an equity order is never split at a freeze quantity', async () => {
      await t.s.services.marketAdmin.freeze.add({ exchange: 'NFO', symbol: 'NIFTY', freeze_qty: 150 });
      const a = await t.run({ quantity: 500 });
      expect(a.body).not.toHaveProperty('orderids');
      expect(await sandboxQuantities()).toEqual([500]);
    });
  });

  describe('a requested split size (splitorder) is rounded down to whole lots', () => {
    it('195 of a lot-65 option in pieces of at most 100 → 65 + 65 + 65', async () => {
      const a = await t.run({ ...CE, quantity: 195 }, { apiType: 'splitorder', chunk: 100 });
      expect(a.status).toBe(200);
      expect(a.quantities).toEqual([65, 65, 65]);
      expect(await sandboxQuantities()).toEqual([65, 65, 65]);
      expect((await t.rows('analyzer_logs')).map((r) => r.api_type)).toEqual([
        'splitorder',
        'splitorder',
        'splitorder',
      ]);
    });
  });

  describe('a split of more than 100 orders is refused before anything is placed', () => {
    it('1,010 in pieces of 10 → 400 with the limit message, an analyzer-error event, no sandbox order', async () => {
      const a = await t.run({ quantity: 1_010 }, { apiType: 'splitorder', chunk: 10 });
      expect(a).toMatchObject({
        status: 400,
        body: { status: 'error', message: TOO_MANY_SPLITS, mode: 'analyze' },
      });
      expect((await t.rows('analyzer_logs')).map((r) => r.event)).toEqual(['analyzer.error']);
      expect(await t.rows('sandbox_orders')).toEqual([]);
    });
  });

  describe("a strategy run's own mode overrides the service's analyzer/live switch", () => {
    it('mode live while the service analyzes: the broker path (no session → 403), in the order log', async () => {
      const a = await t.run({}, { mode: 'live' });
      expect(a.status).toBe(403);
      expect(a.body).toEqual({
        status: 'error',
        message: 'No broker session: log in to your broker before placing live orders',
      });
      expect((await t.rows('order_logs')).map((r) => [r.event, r.status_code])).toEqual([
        ['order.failed', 403],
      ]);
      expect(await t.rows('analyzer_logs')).toEqual([]);
      expect(await t.rows('sandbox_orders')).toEqual([]);
    });

    it('mode analyze while the service is live: simulated by the sandbox, in the analyzer log', async () => {
      await t.s.services.sandbox.mode.set(false);
      const a = await t.run({}, { mode: 'analyze' });
      expect(a).toMatchObject({ status: 200, body: { status: 'success', mode: 'analyze' } });
      expect((await t.order(String(a.body.orderid))).status).toBe('complete');
      expect((await t.rows('analyzer_logs')).map((r) => r.event)).toEqual(['order.placed']);
      expect(await t.rows('order_logs')).toEqual([]);
    });
  });
});

// Validation failures place nothing, so these cases share one set of services: each still proves
// its own order wrote no sandbox order.
describeEachDb('order pipeline validation (service tier)', (dialect) => {
  let t: Trading;
  beforeAll(async () => {
    t = await startTrading(dialect);
    t.s.clock.set(Date.parse('2026-01-05T10:00:00+05:30'));
    await t.tick({ [key(MINI.SBIN)]: t.quote(800), [key(MINI.NIFTY_CE)]: t.quote(120) });
  });
  afterAll(() => t?.close());

  describe('step 3: order data validated again; failures publish the analyzer-error event', () => {
    it.each([
      ['LIMIT without a price', { pricetype: 'LIMIT' }, /price must be greater than 0/],
      ['SL without a trigger', { pricetype: 'SL', price: '800' }, /trigger_price must be greater than 0/],
      ['SL-M without a trigger', { pricetype: 'SL-M' }, /trigger_price/],
      ['F&O quantity off the lot size', { ...CE, quantity: 10 }, /lot size 65/],
      ['unknown symbol', { symbol: 'NOSUCH' }, /not found/],
    ] as const)('%s → 400 and an analyzer-error event', async (_name, change, msg) => {
      const before = (await t.rows('analyzer_logs')).length;
      const a = await t.run(change);
      expect(a.status).toBe(400);
      expect(a.body).toMatchObject({ status: 'error', mode: 'analyze', message: expect.stringMatching(msg) });
      const rows = (await t.rows('analyzer_logs')).slice(before);
      expect(rows).toEqual([expect.objectContaining({ event: 'analyzer.error', status_code: 400 })]);
      expect(await t.rows('sandbox_orders')).toEqual([]);
    });

    it('a price the sandbox refuses (off the tick grid) is an analyzer-error event too; nothing is written', async () => {
      const before = (await t.rows('analyzer_logs')).length;
      const a = await t.run({ pricetype: 'LIMIT', price: '800.03' });
      expect(a).toMatchObject({
        status: 400,
        body: { message: 'price must be a multiple of the tick size 0.05' },
      });
      expect((await t.rows('analyzer_logs')).slice(before).map((r) => [r.event, r.order_id])).toEqual([
        ['analyzer.error', null],
      ]);
      expect(await t.rows('sandbox_orders')).toEqual([]);
    });
  });
});

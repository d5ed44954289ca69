/**
 * The middle tier of sandbox placement, refused input (docs/rules/sandbox.md#order-validation):
 * lot size, tick size and price rules, an index, CNC on a future, an unknown symbol; each is a 400
 * from the real sandbox service on a real database, no HTTP, and writes nothing. The account rules
 * that reject an order instead: sandbox-placement-margin.service.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINI } from '../helpers/sandbox.js';
import { refusal } from '../helpers/sandbox-placement-world.js';
import { describeEachDb } from '../helpers/test-app.js';
import { START, startTrading, type Trading } from '../helpers/trading-services.js';

// Refusals write nothing, so these cases share one set of services: each still proves its own
// order left every table empty.
describeEachDb('sandbox placement refusals (service tier)', (dialect) => {
  let t: Trading;
  beforeAll(async () => {
    t = await startTrading(dialect);
    await t.marketOpen();
  });
  afterAll(() => t?.close());

  describe('lot size, tick size and price rules: the order is refused (400) and nothing is written', () => {
    it.each([
      [
        'F&O quantity off the lot size',
        { ...MINI.NIFTY_CE, side: 'BUY', quantity: 10, product: 'NRML' },
        'quantity must be a multiple of the lot size 65',
      ],
      [
        'a LIMIT price off the tick (0.05)',
        { ...MINI.SBIN, side: 'BUY', quantity: 10, priceType: 'LIMIT', price: 800.03 },
        'price must be a multiple of the tick size 0.05',
      ],
      [
        'a trigger off the tick (0.20)',
        { ...MINI.BANKNIFTY_FUT, side: 'BUY', quantity: 30, priceType: 'SL-M', triggerPrice: 52_100.1 },
        'trigger_price must be a multiple of the tick size 0.2',
      ],
      [
        'a LIMIT without a price',
        { ...MINI.SBIN, side: 'BUY', quantity: 10, priceType: 'LIMIT' },
        'price must be greater than 0',
      ],
      [
        'an SL BUY whose limit is below its trigger',
        { ...MINI.SBIN, side: 'BUY', quantity: 10, priceType: 'SL', price: 800, triggerPrice: 801 },
        'price of an SL BUY must be at or above its trigger_price',
      ],
      [
        'an index',
        { ...MINI.NIFTY_INDEX, side: 'BUY', quantity: 1 },
        'NIFTY is an index and cannot be traded',
      ],
      [
        'CNC on a future',
        { ...MINI.NIFTY_FUT, side: 'BUY', quantity: 65, product: 'CNC' },
        'CNC is for cash equity; use NRML or MIS for futures and options',
      ],
      [
        'a symbol not in the master contract',
        { symbol: 'NOSUCH', exchange: 'NSE', side: 'BUY', quantity: 1 },
        "Symbol 'NOSUCH' not found on exchange NSE in the master contract",
      ],
    ] as const)('%s', async (_name, req, message) => {
      const err = await refusal(t.place(req as Parameters<Trading['place']>[0]));
      expect([err.statusCode, err.message]).toEqual([400, message]);
      expect(await t.rows('sandbox_orders')).toEqual([]);
      expect(await t.rows('sandbox_order_events')).toEqual([]);
      expect(await t.funds()).toMatchObject({ available: START, usedMargin: 0 });
    });
  });
});

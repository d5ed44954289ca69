/**
 * `POST /api/v1/optionsorder` and `/api/v1/optionsmultiorder` (OpenAlgo's) in analyzer mode over
 * the real Kite NFO snapshot: the option is named as optionsymbol names it (the offset from the
 * at-the-money strike of the scripted NIFTY price) and placed in the sandbox through the
 * placeorder pipeline; `splitsize` splits it as splitorder does; a multi-order places its BUY
 * legs before its SELL legs and reports a bad leg without stopping the others.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importContract, kiteCombined } from '../helpers/contracts.js';
import { startSandbox, type SandboxHarness } from '../helpers/sandbox.js';
import { describeEachDb } from '../helpers/test-app.js';
import { MAX_OPTION_LEGS } from '../../src/modules/orders/options-orders.routes.js';

type Json = Record<string, unknown>;
const LTP = 25_966.4;
/** The documented index example, on the snapshot's 25-Aug-2026 expiry (NIFTY lot 65). */
const example = (extra: Json = {}) => ({
  strategy: 'nifty_weekly',
  underlying: 'NIFTY',
  exchange: 'NSE_INDEX',
  expiry_date: '25AUG26',
  offset: 'ATM',
  option_type: 'CE',
  action: 'BUY',
  quantity: 65,
  pricetype: 'MARKET',
  product: 'MIS',
  splitsize: 0,
  ...extra,
});
const optionLeg = (offset: string, option_type: string, action: string, extra: Json = {}) => ({
  offset,
  option_type,
  action,
  quantity: 65,
  expiry_date: '25AUG26',
  ...extra,
});

describeEachDb('optionsorder and optionsmultiorder in analyzer mode', (dialect) => {
  let h: SandboxHarness;
  beforeAll(async () => {
    h = await startSandbox(dialect);
    await importContract(h.t, 'zerodha', kiteCombined());
    await h.at('2026-08-20', '10:00');
    const quotes: Record<string, ReturnType<SandboxHarness['quote']>> = { 'NSE_INDEX:NIFTY': h.quote(LTP) };
    for (let strike = 25_000; strike <= 27_000; strike += 50)
      for (const t of ['CE', 'PE']) quotes[`NFO:NIFTY25AUG26${strike}${t}`] = h.quote(100);
    await h.tick(quotes);
  }, 120_000);
  afterAll(() => h?.close());

  const post = async (path: string, body: Json) => {
    const res = await h.api(path, body);
    return { status: res.statusCode, body: res.json() as Json };
  };
  const orderSymbol = async (orderid: string) => {
    const book = await h.ok<{ data: { orders: Json[] } }>('orderbook');
    return book.data.orders.find((o) => o.orderid === orderid);
  };

  describe('optionsorder', () => {
    it("places the documented ATM example and answers OpenAlgo's fields", async () => {
      const { status, body } = await post('optionsorder', example());
      expect(status).toBe(200);
      expect(body).toMatchObject({
        status: 'success',
        symbol: 'NIFTY25AUG2625950CE',
        exchange: 'NFO',
        underlying: 'NIFTY',
        underlying_ltp: LTP,
        offset: 'ATM',
        option_type: 'CE',
        mode: 'analyze',
      });
      expect(typeof body.orderid).toBe('string');
      expect(await orderSymbol(body.orderid as string)).toMatchObject({
        symbol: 'NIFTY25AUG2625950CE',
        exchange: 'NFO',
        action: 'BUY',
        quantity: 65,
        strategy: 'nifty_weekly',
      });
    });

    it('resolves ITM and OTM offsets as optionsymbol does', async () => {
      for (const [offset, type, symbol] of [
        ['ITM3', 'PE', 'NIFTY25AUG2626100PE'],
        ['OTM4', 'CE', 'NIFTY25AUG2626150CE'],
        ['ITM2', 'CE', 'NIFTY25AUG2625850CE'],
      ] as const) {
        const same = await post('optionsymbol', {
          underlying: 'NIFTY',
          exchange: 'NSE_INDEX',
          expiry_date: '25AUG26',
          offset,
          option_type: type,
        });
        const { status, body } = await post('optionsorder', example({ offset, option_type: type }));
        expect(status).toBe(200);
        expect(body.symbol).toBe(symbol);
        expect(body.symbol).toBe(same.body.symbol);
        expect((await orderSymbol(body.orderid as string))?.symbol).toBe(symbol);
      }
    });

    it('splits in chunks of splitsize as splitorder does', async () => {
      const { status, body } = await post('optionsorder', example({ quantity: 195, splitsize: 65 }));
      expect(status).toBe(200);
      const ids = body.orderids as string[];
      expect(ids).toHaveLength(3);
      expect(body.orderid).toBe(ids[0]);
      for (const id of ids) expect((await orderSymbol(id))?.quantity).toBe(65);
    });

    it('refuses bad input with 400 and an unknown expiry with 404, placing nothing', async () => {
      const before = (await h.ok<{ data: { orders: Json[] } }>('orderbook')).data.orders.length;
      const offset = await post('optionsorder', example({ offset: 'ITM51' }));
      expect(offset.status).toBe(400);
      expect(JSON.stringify(offset.body.message)).toMatch(/offset/);
      expect(offset.body.mode).toBe('analyze');
      const type = await post('optionsorder', example({ option_type: 'XX' }));
      expect(type.status).toBe(400);
      const action = await post('optionsorder', example({ action: 'HOLD' }));
      expect(action.status).toBe(400);
      const missing = await post('optionsorder', { ...example(), underlying: undefined });
      expect(missing.status).toBe(400);
      const date = await post('optionsorder', example({ expiry_date: '31FEB26' }));
      expect(date.status).toBe(400);
      const expiry = await post('optionsorder', example({ expiry_date: '01JAN30' }));
      expect(expiry.status).toBe(404);
      const tooMany = await post('optionsorder', example({ quantity: 65 * 101, splitsize: 65 }));
      expect(tooMany.status).toBe(400);
      expect(tooMany.body.message).toMatch(/maximum limit of 100/);
      expect((await post('optionsorder', { ...example(), apikey: 'wrong' })).status).toBe(403);
      expect((await h.ok<{ data: { orders: Json[] } }>('orderbook')).data.orders.length).toBe(before);
    });
  });

  describe('optionsmultiorder', () => {
    const condor = {
      strategy: 'Iron Condor',
      underlying: 'NIFTY',
      exchange: 'NSE_INDEX',
      legs: [
        optionLeg('OTM5', 'CE', 'SELL'),
        optionLeg('OTM10', 'CE', 'BUY'),
        optionLeg('OTM5', 'PE', 'SELL'),
        optionLeg('OTM10', 'PE', 'BUY'),
      ],
    };

    it('places the iron condor BUY legs first and reports each leg', async () => {
      const { status, body } = await post('optionsmultiorder', condor);
      expect(status).toBe(200);
      expect(body).toMatchObject({
        status: 'success',
        underlying: 'NIFTY',
        underlying_ltp: LTP,
        mode: 'analyze',
      });
      const results = body.results as Json[];
      expect(results.map((r) => [r.leg, r.action, r.symbol, r.status])).toEqual([
        [2, 'BUY', 'NIFTY25AUG2626450CE', 'success'],
        [4, 'BUY', 'NIFTY25AUG2625450PE', 'success'],
        [1, 'SELL', 'NIFTY25AUG2626200CE', 'success'],
        [3, 'SELL', 'NIFTY25AUG2625700PE', 'success'],
      ]);
      // Placed in that order: the sandbox's order ids follow placement.
      const placed = await Promise.all(results.map((r) => orderSymbol(r.orderid as string)));
      expect(placed.map((o) => o?.symbol)).toEqual(results.map((r) => r.symbol));
      const ids = results.map((r) => Number(r.orderid));
      expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    });

    it('reports a bad leg and places the others; splitsize per leg', async () => {
      const { status, body } = await post('optionsmultiorder', {
        ...condor,
        expiry_date: '25AUG26',
        legs: [
          optionLeg('ATM', 'CE', 'SELL', { expiry_date: undefined, quantity: 130, splitsize: 65 }),
          optionLeg('OTM50', 'CE', 'BUY'),
          { offset: 'ATM', option_type: 'PE', action: 'BUY' },
        ],
      });
      expect(status).toBe(200);
      const results = body.results as Json[];
      expect(results).toHaveLength(3);
      expect(results[0]).toMatchObject({
        leg: 1,
        action: 'SELL',
        symbol: 'NIFTY25AUG2625950CE',
        status: 'success',
      });
      expect(results[0]!.orderids).toHaveLength(2);
      const far = results.find((r) => r.leg === 2)!;
      expect(far).toMatchObject({ status: 'error', offset: 'OTM50' });
      expect(far.message).toMatch(/outside the chain/);
      const noQty = results.find((r) => r.leg === 3)!;
      expect(noQty).toMatchObject({ status: 'error' });
      expect(noQty.message).toMatch(/quantity/);
    });

    it(`refuses bad input with 400: no legs, more than ${MAX_OPTION_LEGS}, no exchange`, async () => {
      expect((await post('optionsmultiorder', { ...condor, legs: [] })).status).toBe(400);
      const many = Array.from({ length: MAX_OPTION_LEGS + 1 }, () => optionLeg('ATM', 'CE', 'BUY'));
      expect((await post('optionsmultiorder', { ...condor, legs: many })).status).toBe(400);
      expect((await post('optionsmultiorder', { ...condor, exchange: 'NASDAQ' })).status).toBe(400);
      const unpriced = await post('optionsmultiorder', { ...condor, underlying: 'BANKNIFTY' });
      expect(unpriced.status).toBe(404);
      expect(JSON.stringify(unpriced.body.message)).toMatch(/No price for BANKNIFTY/);
    });
  });
});

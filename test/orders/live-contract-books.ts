/**
 * The live contract's books and bulk orders (declared per broker by live-contract.ts): on a day
 * with a filled MARKET MIS buy of the equity, a filled MARKET NRML buy of one lot of the
 * derivative and a resting LIMIT CNC buy, the orderbook, tradebook, positionbook, openposition,
 * holdings and funds answer OpenAlgo's shapes with algodesk's symbols; cancelallorder cancels the
 * resting order at the broker; closeposition sends a MARKET order opposite to each open position;
 * placesmartorder sizes to the broker's position; basketorder sends BUY legs before SELL legs;
 * splitorder sends the chunks.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Dialect } from '../../src/platform/db/database.js';
import { startLiveWorld, type LiveRig, type LiveWorld } from './live-rig-world.js';

type Row = Record<string, unknown>;
const CASH = 250_000;

export function booksCases(rig: LiveRig, dialect: Dialect): void {
  let w: LiveWorld;
  let marketId: string;
  let fnoId: string;
  let limitId: string;
  /** Rupees the two fills used: 10 × 800 and a lot at 120. */
  let used: number;
  const ok = async (path: string, body: Row = {}) => {
    const res = await w.o.api(path, body);
    expect(res.statusCode, `${path}: ${res.body}`).toBe(200);
    const json = res.json();
    expect(json).toMatchObject({ status: 'success' });
    expect(json).not.toHaveProperty('mode');
    return json;
  };
  const buy = (extra: Row) => ({ strategy: 'books', action: 'BUY', ...extra });

  beforeAll(async () => {
    w = await startLiveWorld(rig, dialect);
    const { stub } = w.s;
    stub.fillMarketOrders = true;
    stub.prices.set(w.eq.brsymbol, 800);
    stub.prices.set(w.fno.brsymbol, 120);
    const eq = { symbol: w.eq.symbol, exchange: 'NSE' };
    const m = await w.o.api('placeorder', buy({ ...eq, quantity: 10, pricetype: 'MARKET', product: 'MIS' }));
    const f = await w.o.api(
      'placeorder',
      buy({
        symbol: w.fno.symbol,
        exchange: w.fno.exchange,
        quantity: w.fno.lot,
        pricetype: 'MARKET',
        product: 'NRML',
      }),
    );
    const l = await w.o.api(
      'placeorder',
      buy({ ...eq, quantity: 1, pricetype: 'LIMIT', price: '700', product: 'CNC' }),
    );
    expect([m.statusCode, f.statusCode, l.statusCode], `${m.body} ${f.body} ${l.body}`).toEqual([
      200, 200, 200,
    ]);
    [marketId, fnoId, limitId] = [m, f, l].map((r) => String(r.json().orderid)) as [string, string, string];
    used = 10 * 800 + w.fno.lot * 120;
    stub.prices.set(w.eq.brsymbol, 810);
  });
  afterAll(async () => {
    await w?.close();
  });

  it('orderbook: every order with algodesk’s symbol, product and status, and the statistics', async () => {
    const { data } = await ok('orderbook');
    expect(data.statistics).toEqual({
      total_buy_orders: 3,
      total_sell_orders: 0,
      total_completed_orders: 2,
      total_open_orders: 1,
      total_rejected_orders: 0,
    });
    const byId = new Map((data.orders as Row[]).map((r) => [String(r.orderid), r]));
    expect(byId.get(limitId)).toMatchObject({
      symbol: w.eq.symbol,
      exchange: 'NSE',
      action: 'BUY',
      quantity: 1,
      price: 700,
      pricetype: 'LIMIT',
      product: 'CNC',
      order_status: 'open',
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
    });
    expect(byId.get(marketId)).toMatchObject({
      symbol: w.eq.symbol,
      pricetype: 'MARKET',
      product: 'MIS',
      order_status: 'complete',
      quantity: 10,
      average_price: 800,
    });
    expect(byId.get(fnoId)).toMatchObject({
      symbol: w.fno.symbol,
      exchange: w.fno.exchange,
      product: 'NRML',
      order_status: 'complete',
      quantity: w.fno.lot,
    });
  });

  it('tradebook: the two fills with algodesk’s symbols, products and prices', async () => {
    const { data } = await ok('tradebook');
    // A trade book without tokens (Angel One's) is mapped by the broker's symbol and exchange.
    const rows = (data as Row[]).map((r) => [
      r.orderid,
      r.symbol,
      r.exchange,
      r.action,
      r.quantity,
      r.average_price,
    ]);
    expect(rows).toEqual(
      expect.arrayContaining([
        [marketId, w.eq.symbol, 'NSE', 'BUY', 10, 800],
        [fnoId, w.fno.symbol, w.fno.exchange, 'BUY', w.fno.lot, 120],
      ]),
    );
    expect(data).toHaveLength(2);
    expect((data as Row[]).map((r) => r.product).sort()).toEqual(['MIS', 'NRML']);
  });

  it('positionbook and openposition: each net long by product, marked at the broker’s price where it reports one', async () => {
    const { data } = await ok('positionbook');
    const eq = (data as Row[]).find((p) => p.symbol === w.eq.symbol);
    expect(eq).toMatchObject({ exchange: 'NSE', product: 'MIS', quantity: 10, average_price: 800 });
    if (rig.positionLtp) expect(eq).toMatchObject({ ltp: 810, pnl: 100, unrealized_pnl: 100 });
    else expect(eq).toMatchObject({ ltp: 0, unrealized_pnl: 100 });
    expect((data as Row[]).find((p) => p.symbol === w.fno.symbol)).toMatchObject({
      exchange: w.fno.exchange,
      product: 'NRML',
      quantity: w.fno.lot,
    });
    const q = { strategy: 'books', symbol: w.eq.symbol, exchange: 'NSE' };
    expect(await ok('openposition', { ...q, product: 'MIS' })).toEqual({ status: 'success', quantity: '10' });
    expect(await ok('openposition', { ...q, product: 'CNC' })).toEqual({ status: 'success', quantity: '0' });
    expect(
      await ok('openposition', {
        strategy: 'books',
        symbol: w.fno.symbol,
        exchange: w.fno.exchange,
        product: 'NRML',
      }),
    ).toEqual({ status: 'success', quantity: String(w.fno.lot) });
  });

  it('holdings: the demat’s rows with algodesk’s symbol, and the statistics', async () => {
    w.s.holding(w.eq, { quantity: 5, average: 700, ltp: 810 });
    const { data } = await ok('holdings');
    // A broker whose holdings carry no last price (Noren's): the holding is valued at cost.
    const priced = rig.holdingLtp ?? true;
    expect(data.holdings).toEqual([
      expect.objectContaining({
        symbol: w.eq.symbol,
        exchange: 'NSE',
        product: 'CNC',
        quantity: 5,
        average_price: 700,
        ltp: priced ? 810 : 0,
        pnl: priced ? 550 : 0,
      }),
    ]);
    expect(data.statistics).toEqual(
      priced
        ? { totalholdingvalue: 4050, totalinvvalue: 3500, totalprofitandloss: 550, totalpnlpercentage: 15.71 }
        : { totalholdingvalue: 3500, totalinvvalue: 3500, totalprofitandloss: 0, totalpnlpercentage: 0 },
    );
  });

  it('funds: the broker’s available cash and what the day used, in OpenAlgo’s five fields', async () => {
    const { data } = await ok('funds');
    expect(Object.keys(data).sort()).toEqual([
      'availablecash',
      'collateral',
      'm2mrealized',
      'm2munrealized',
      'utiliseddebits',
    ]);
    expect(data).toMatchObject({ availablecash: CASH - used, collateral: 0, utiliseddebits: used });
  });

  it('cancelallorder cancels every open order at the broker and lists them', async () => {
    const res = await ok('cancelallorder', { strategy: 'books' });
    expect(res).toEqual({
      status: 'success',
      message: 'Canceled 1 orders. Failed to cancel 0 orders.',
      canceled_orders: [limitId],
      failed_cancellations: [],
    });
    expect(w.s.booked().find((b) => b.id === limitId)?.status).toBe('cancelled');
    expect((await ok('cancelallorder', {})).message).toBe('No open orders to cancel');
  });

  it('closeposition sends a MARKET order opposite to each open position; the book is flat after', async () => {
    const before = w.s.sent().length;
    const res = await ok('closeposition', { strategy: 'books' });
    expect(res).toMatchObject({ closed_positions: 2, failed_closures: 0 });
    const sent = w.s.sent().slice(before);
    expect(sent).toHaveLength(2);
    expect(sent).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          instrument: w.s.nameOf(w.eq),
          side: 'SELL',
          quantity: 10,
          priceType: 'MARKET',
        }),
        expect.objectContaining({ instrument: w.s.nameOf(w.fno), side: 'SELL', quantity: w.fno.lot }),
      ]),
    );
    expect(sent.map((s) => s.product).sort()).toEqual(['MIS', 'NRML']);
    const q = { symbol: w.eq.symbol, exchange: 'NSE', product: 'MIS' };
    expect(await ok('openposition', q)).toEqual({ status: 'success', quantity: '0' });
    expect((await ok('closeposition', {})).message).toBe('No open positions to close');
  });

  it('placesmartorder sizes to the broker’s position: flat → +10 (BUY 10), +10 → -5 (SELL 15), then no change', async () => {
    const smart = (action: string, quantity: number, position_size: number) => ({
      strategy: 'smart',
      symbol: w.eq.symbol,
      exchange: 'NSE',
      action,
      quantity,
      position_size,
      pricetype: 'MARKET',
      product: 'MIS',
    });
    const first = await ok('placesmartorder', smart('BUY', 10, 10));
    expect(first).toEqual({ status: 'success', orderid: expect.any(String) });
    expect(w.s.sent().at(-1)).toMatchObject({ side: 'BUY', quantity: 10, product: 'MIS' });
    await ok('placesmartorder', smart('SELL', 5, -5));
    expect(w.s.sent().at(-1)).toMatchObject({ side: 'SELL', quantity: 15, product: 'MIS' });
    const placed = w.s.sent().length;
    expect(await ok('placesmartorder', smart('SELL', 5, -5))).toEqual({
      status: 'success',
      message: 'No action needed. Position size matches current position',
    });
    expect(w.s.sent()).toHaveLength(placed);
  });

  it('basketorder sends the BUY legs before the SELL legs and reports each leg', async () => {
    const leg = (action: string, quantity: number) => ({
      symbol: w.eq.symbol,
      exchange: 'NSE',
      action,
      quantity,
      pricetype: 'MARKET',
      product: 'MIS',
    });
    const before = w.s.sent().length;
    const res = await ok('basketorder', { strategy: 'basket', orders: [leg('SELL', 1), leg('BUY', 2)] });
    expect(res.results).toEqual([
      { symbol: w.eq.symbol, status: 'success', orderid: expect.any(String) },
      { symbol: w.eq.symbol, status: 'success', orderid: expect.any(String) },
    ]);
    expect(
      w.s
        .sent()
        .slice(before)
        .map((s) => [s.side, s.quantity]),
    ).toEqual([
      ['BUY', 2],
      ['SELL', 1],
    ]);
  });

  it('splitorder sends the order in chunks of splitsize and answers each chunk’s order id', async () => {
    const before = w.s.sent().length;
    const res = await ok('splitorder', {
      strategy: 'split',
      symbol: w.eq.symbol,
      exchange: 'NSE',
      action: 'BUY',
      quantity: 25,
      splitsize: 10,
      pricetype: 'LIMIT',
      price: '700',
      product: 'CNC',
    });
    expect(res).toMatchObject({ split_size: 10, total_quantity: 25 });
    expect(res.results.map((r: Row) => r.quantity)).toEqual([10, 10, 5]);
    const sent = w.s.sent().slice(before);
    expect(sent.map((s) => s.quantity).sort((a, b) => b - a)).toEqual([10, 10, 5]);
    expect(sent.every((s) => s.priceType === 'LIMIT' && s.product === 'CNC' && s.price === 700)).toBe(true);
    const booked = new Set(w.s.booked().map((b) => b.id));
    expect(res.results.every((r: Row) => booked.has(String(r.orderid)))).toBe(true);
  });
}

/**
 * The live contract's margin and market data (declared per broker by live-contract.ts): the
 * margin calculator's figures for OpenAlgo's documented example (the stubs all follow
 * broker-margin-stubs.ts's rule) with nothing placed; quotes, multiquotes and depth from the
 * broker's full quote seeded on its stub; daily history from its candles; the broker's intervals
 * in OpenAlgo's groups, and an interval it does not serve refused naming those it does.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Dialect } from '../../src/platform/db/database.js';
import {
  istMidnight,
  startLiveWorld,
  type CandleSeed,
  type LiveRig,
  type LiveWorld,
  type QuoteSeed,
} from './live-rig-world.js';

/** OpenAlgo's documented depth example (its depth page) as the equity's quote. */
const EQ_QUOTE: QuoteSeed = {
  ltp: 769.6,
  open: 760,
  high: 774,
  low: 758.15,
  prevClose: 746.9,
  bids: [
    [769.4, 886],
    [769.35, 212],
  ],
  asks: [
    [769.6, 767],
    [769.65, 115],
  ],
};
const FNO_QUOTE: QuoteSeed = {
  ltp: 121.5,
  open: 118,
  high: 125,
  low: 117,
  prevClose: 119,
  bids: [[121.45, 650]],
  asks: [[121.55, 325]],
};
const DAILY: CandleSeed[] = [
  { date: '2026-01-05', open: 760, high: 774, low: 758.15, close: 769.6, volume: 9_362_799 },
  { date: '2026-01-06', open: 770, high: 781.5, low: 765, close: 779.25, volume: 7_125_004 },
];

export function dataCases(rig: LiveRig, dialect: Dialect): void {
  let w: LiveWorld;
  beforeAll(async () => {
    w = await startLiveWorld(rig, dialect);
    w.s.seedQuote(w.eq, EQ_QUOTE);
    w.s.seedQuote(w.fno, FNO_QUOTE);
    w.s.seedDaily(w.eq, DAILY);
  });
  afterAll(async () => {
    await w?.close();
  });

  it('margin: OpenAlgo’s documented example is margined by the broker’s calculator; nothing is placed', async () => {
    const res = await w.o.api('margin', {
      positions: [
        {
          symbol: w.eq.symbol,
          exchange: 'NSE',
          action: 'BUY',
          product: 'MIS',
          pricetype: 'LIMIT',
          quantity: '10',
          price: '750.50',
          trigger_price: '0',
        },
      ],
    });
    expect(res.statusCode, res.body).toBe(200);
    // 10 × 750.50 = 7,505 intraday: a fifth, 1,501.
    expect(res.json()).toEqual({
      status: 'success',
      data: {
        total_margin_required: 1501,
        span_margin: expect.any(Number),
        exposure_margin: expect.any(Number),
        initial_total_margin: expect.any(Number),
      },
    });
    expect(w.s.sent()).toEqual([]);
    expect(w.s.booked()).toEqual([]);
  });

  it('quotes: the broker’s quote in OpenAlgo’s fields (previous close, best bid and ask)', async () => {
    const res = await w.o.api('quotes', { symbol: w.eq.symbol, exchange: 'NSE' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      status: 'success',
      data: { ltp: 769.6, open: 760, high: 774, low: 758.15, prev_close: 746.9, bid: 769.4, ask: 769.6 },
    });
  });

  it('multiquotes: each instrument with algodesk’s symbol and its quote', async () => {
    const res = await w.o.api('multiquotes', {
      symbols: [
        { symbol: w.eq.symbol, exchange: 'NSE' },
        { symbol: w.fno.symbol, exchange: w.fno.exchange },
      ],
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().results).toEqual([
      {
        symbol: w.eq.symbol,
        exchange: 'NSE',
        data: expect.objectContaining({ ltp: 769.6, prev_close: 746.9 }),
      },
      {
        symbol: w.fno.symbol,
        exchange: w.fno.exchange,
        data: expect.objectContaining({ ltp: 121.5, prev_close: 119 }),
      },
    ]);
  });

  it('depth: five levels a side, the broker’s levels first and zero rows after', async () => {
    const res = await w.o.api('depth', { symbol: w.eq.symbol, exchange: 'NSE' });
    expect(res.statusCode, res.body).toBe(200);
    const pad = Array(3).fill({ price: 0, quantity: 0 });
    expect(res.json().data).toMatchObject({
      ltp: 769.6,
      prev_close: 746.9,
      bids: [{ price: 769.4, quantity: 886 }, { price: 769.35, quantity: 212 }, ...pad],
      asks: [{ price: 769.6, quantity: 767 }, { price: 769.65, quantity: 115 }, ...pad],
    });
  });

  it('history: the broker’s daily candles, oldest first, stamped at the day’s start (IST)', async () => {
    const res = await w.o.api('history', {
      symbol: w.eq.symbol,
      exchange: 'NSE',
      interval: 'D',
      start_date: '2026-01-05',
      end_date: '2026-01-06',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      status: 'success',
      data: DAILY.map((c) => ({
        timestamp: istMidnight(c.date),
        open: c.open,
        high: c.high,
        low: c.low,
        close: c.close,
        volume: c.volume,
        oi: 0,
      })),
    });
  });

  it('intervals: the ones the broker serves, in OpenAlgo’s groups', async () => {
    const res = await w.o.api('intervals', {});
    expect(res.statusCode, res.body).toBe(200);
    const none = { months: [], weeks: [], days: [], hours: [], minutes: [], seconds: [] };
    expect(res.json()).toEqual({ status: 'success', data: { ...none, ...rig.intervals } });
  });

  it('history in an interval the broker does not serve is a 400 naming the ones it does', async () => {
    const res = await w.o.api('history', {
      symbol: w.eq.symbol,
      exchange: 'NSE',
      interval: rig.unservedInterval,
      start_date: '2026-01-05',
      end_date: '2026-01-06',
    });
    expect(res.statusCode).toBe(400);
    const served = Object.values(rig.intervals).flat();
    expect(res.json().message).toContain(`interval ${rig.unservedInterval} is not served by ${rig.broker}`);
    for (const i of served) expect(res.json().message).toContain(i);
  });
}

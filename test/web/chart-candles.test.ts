/**
 * The chart page's candles and overlays (web/src/features/market/candles.ts, web/src/pages/trade/chart/overlays.ts): the
 * intervals offered and their ranges, the candle a tick falls in (anchored on the exchange's own
 * candles, in IST), how ticks move the live candle, and the books drawn on the chart.
 */
import { describe, expect, it } from 'vitest';
import {
  bookInstant,
  bucketStart,
  defaultInterval,
  fromChartTime,
  historyRange,
  mergeTick,
  offeredIntervals,
  toChartTime,
  volumeDelta,
  type Candle,
} from '../../web/src/features/market/candles.js';
import { priceMarks, tradeMarks } from '../../web/src/pages/trade/chart/overlays.js';

/** Epoch seconds of an IST wall-clock time. */
const ist = (day: string, time: string) => Date.parse(`${day}T${time}+05:30`) / 1000;

describe('the intervals a chart offers', () => {
  it("offers Kite's intervals smallest first and opens at 5m", () => {
    const kite = {
      months: [],
      weeks: [],
      days: ['D'],
      hours: ['1h'],
      minutes: ['1m', '3m', '5m', '10m', '15m', '30m'],
      seconds: [],
    };
    const offered = offeredIntervals(kite);
    expect(offered).toEqual(['1m', '3m', '5m', '10m', '15m', '30m', '1h', 'D']);
    expect(defaultInterval(offered)).toBe('5m');
  });

  it("without 5m, the first minute interval (Upstox's 1m); without minutes, D", () => {
    const upstox = offeredIntervals({
      months: ['M'],
      weeks: ['W'],
      days: ['D'],
      hours: [],
      minutes: ['1m', '30m'],
      seconds: [],
    });
    expect(upstox).toEqual(['1m', '30m', 'D', 'W', 'M']);
    expect(defaultInterval(upstox)).toBe('1m');
    expect(defaultInterval(offeredIntervals({ days: ['D'], weeks: ['W'] }))).toBe('D');
    // A seconds interval history has no name for is not offered.
    expect(offeredIntervals({ seconds: ['5s'], minutes: ['1m'] })).toEqual(['1m']);
  });

  it('asks a range per interval ending today in IST (the IST date, not the UTC one)', () => {
    // 2026-01-05 20:00 UTC is 6 Jan, 01:30 IST.
    const now = Date.parse('2026-01-05T20:00:00Z');
    expect(historyRange('5m', now)).toEqual({ start_date: '2025-12-07', end_date: '2026-01-06' });
    expect(historyRange('1m', now)).toEqual({ start_date: '2026-01-01', end_date: '2026-01-06' });
    expect(historyRange('D', now)).toEqual({ start_date: '2025-01-06', end_date: '2026-01-06' });
  });
});

describe('the candle a tick falls in', () => {
  it('counts intraday candles from the exchange’s own candle: hourly ones at 09:15, 10:15… on every day', () => {
    const anchor = ist('2026-01-05', '09:15:00');
    expect(bucketStart(ist('2026-01-05', '10:40:12'), '1h', anchor)).toBe(ist('2026-01-05', '10:15:00'));
    expect(bucketStart(ist('2026-01-06', '09:15:00'), '1h', anchor)).toBe(ist('2026-01-06', '09:15:00'));
    expect(bucketStart(ist('2026-01-06', '09:14:59'), '1h', anchor)).toBe(ist('2026-01-06', '08:15:00'));
    expect(bucketStart(ist('2026-01-05', '09:24:59'), '10m', anchor)).toBe(ist('2026-01-05', '09:15:00'));
    expect(bucketStart(ist('2026-01-05', '09:25:00'), '10m', anchor)).toBe(ist('2026-01-05', '09:25:00'));
    // An anchor after the tick counts backwards the same way.
    expect(bucketStart(ist('2026-01-05', '09:16:00'), '5m', ist('2026-01-05', '15:25:00'))).toBe(
      ist('2026-01-05', '09:15:00'),
    );
  });

  it('without a candle to count from, from IST midnight', () => {
    expect(bucketStart(ist('2026-01-05', '09:17:30'), '5m')).toBe(ist('2026-01-05', '09:15:00'));
    expect(bucketStart(ist('2026-01-05', '09:17:30'), '1h')).toBe(ist('2026-01-05', '09:00:00'));
  });

  it('a day starts at IST midnight, a week on Monday, a month on its first day', () => {
    // 01:00 IST on the 6th is still the 5th in UTC: the IST day counts.
    expect(bucketStart(ist('2026-01-06', '01:00:00'), 'D')).toBe(ist('2026-01-06', '00:00:00'));
    // 2026-01-08 is a Thursday; its week began on Monday the 5th.
    expect(bucketStart(ist('2026-01-08', '11:00:00'), 'W')).toBe(ist('2026-01-05', '00:00:00'));
    expect(bucketStart(ist('2026-01-05', '00:10:00'), 'W')).toBe(ist('2026-01-05', '00:00:00'));
    expect(bucketStart(ist('2026-03-01', '00:30:00'), 'M')).toBe(ist('2026-03-01', '00:00:00'));
    expect(bucketStart(ist('2026-02-28', '23:59:00'), 'M')).toBe(ist('2026-02-01', '00:00:00'));
  });

  it('shifts chart times by IST’s offset and back', () => {
    const t = ist('2026-01-05', '09:15:00');
    // The chart's UTC axis then reads 09:15.
    expect(new Date(toChartTime(t) * 1000).toISOString()).toBe('2026-01-05T09:15:00.000Z');
    expect(fromChartTime(toChartTime(t))).toBe(t);
  });
});

describe('ticks moving the live candle', () => {
  const last: Candle = {
    time: ist('2026-01-05', '10:00:00'),
    open: 800,
    high: 805,
    low: 798,
    close: 803,
    volume: 1000,
  };

  it('a tick in the last candle moves its high, low and close and adds its volume; the open stays', () => {
    const up = mergeTick(last, { price: 807.5, at: ist('2026-01-05', '10:03:10'), volume: 40 }, '5m');
    expect(up).toEqual({ ...last, high: 807.5, close: 807.5, volume: 1040 });
    const down = mergeTick(up!, { price: 797, at: ist('2026-01-05', '10:04:59'), volume: 0 }, '5m');
    expect(down).toEqual({ ...last, high: 807.5, low: 797, close: 797, volume: 1040 });
  });

  it('a tick in a later candle opens a new one at the tick', () => {
    expect(mergeTick(last, { price: 806, at: ist('2026-01-05', '10:05:00'), volume: 25 }, '5m')).toEqual({
      time: ist('2026-01-05', '10:05:00'),
      open: 806,
      high: 806,
      low: 806,
      close: 806,
      volume: 25,
    });
  });

  it('a tick older than the last candle is not drawn; with no candle at all, the first opens one', () => {
    expect(mergeTick(last, { price: 790, at: ist('2026-01-05', '09:59:59'), volume: 0 }, '5m')).toBeNull();
    expect(
      mergeTick(undefined, { price: 790, at: ist('2026-01-05', '09:17:00'), volume: 0 }, '5m'),
    ).toMatchObject({
      time: ist('2026-01-05', '09:15:00'),
      open: 790,
      close: 790,
    });
  });

  it("a daily candle takes the day's own open, high, low and volume from the quote", () => {
    const day: Candle = {
      time: ist('2026-01-05', '00:00:00'),
      open: 800,
      high: 805,
      low: 798,
      close: 803,
      volume: 5000,
    };
    const merged = mergeTick(
      day,
      {
        price: 804,
        at: ist('2026-01-05', '11:00:00'),
        volume: 10,
        day: { open: 800, high: 812, low: 795, volume: 9000 },
      },
      'D',
    );
    expect(merged).toEqual({ ...day, high: 812, low: 795, close: 804, volume: 9000 });
    // A new day opens at the day's open, not at the first tick seen.
    const next = mergeTick(
      day,
      {
        price: 810,
        at: ist('2026-01-06', '09:20:00'),
        volume: 0,
        day: { open: 806, high: 811, low: 805, volume: 700 },
      },
      'D',
    );
    expect(next).toEqual({
      time: ist('2026-01-06', '00:00:00'),
      open: 806,
      high: 811,
      low: 805,
      close: 810,
      volume: 700,
    });
  });

  it("the volume between ticks is the day's cumulative difference, never negative, nothing for the first", () => {
    expect(volumeDelta(undefined, 1000)).toBe(0);
    expect(volumeDelta(1000, 1250)).toBe(250);
    expect(volumeDelta(1250, 100)).toBe(0);
    expect(volumeDelta(1250, null)).toBe(0);
  });
});

describe('the books drawn on the chart', () => {
  const now = Date.parse('2026-01-05T06:00:00Z');

  it('reads the books’ IST timestamps, and a time-only one as today’s', () => {
    expect(bookInstant('2026-01-05 10:02:07', now)).toBe(ist('2026-01-05', '10:02:07'));
    expect(bookInstant('10:02:07', now)).toBe(ist('2026-01-05', '10:02:07'));
    expect(bookInstant('soon', now)).toBeUndefined();
  });

  it("marks the instrument's fills on their candles, oldest first, with quantity@price", () => {
    const trade = (over: Record<string, unknown>) => ({
      tradeid: 't',
      orderid: 'o',
      symbol: 'SBIN',
      exchange: 'NSE',
      action: 'BUY' as const,
      quantity: 10,
      average_price: 812.35,
      price: 812.35,
      trade_value: 8123.5,
      product: 'MIS' as const,
      strategy: '',
      timestamp: '2026-01-05 10:07:30',
      ...over,
    });
    const marks = tradeMarks(
      [
        trade({ action: 'SELL', quantity: 1500, average_price: 815, timestamp: '2026-01-05 10:12:00' }),
        trade({}),
        trade({ symbol: 'INFY' }),
        trade({ exchange: 'BSE' }),
        trade({ timestamp: '2026-01-02 10:00:00' }),
      ],
      {
        symbol: 'SBIN',
        exchange: 'NSE',
        interval: '5m',
        anchor: ist('2026-01-05', '10:00:00'),
        from: ist('2026-01-05', '09:15:00'),
        nowMs: now,
      },
    );
    expect(marks).toEqual([
      {
        time: ist('2026-01-05', '10:05:00'),
        side: 'BUY',
        text: '10@812.35',
        description: 'Bought 10 at 812.35, 5 Jan, 10:07:30 IST',
      },
      {
        time: ist('2026-01-05', '10:10:00'),
        side: 'SELL',
        text: '1,500@815.00',
        description: 'Sold 1,500 at 815.00, 5 Jan, 10:12:00 IST',
      },
    ]);
  });

  it('draws working orders at their price (a stop at its trigger) and the open position’s average', () => {
    const order = (over: Record<string, unknown>) => ({
      orderid: '1',
      symbol: 'SBIN',
      exchange: 'NSE',
      action: 'BUY' as const,
      quantity: 10,
      price: 790,
      trigger_price: 0,
      pricetype: 'LIMIT' as const,
      product: 'MIS' as const,
      order_status: 'open' as const,
      average_price: 0,
      filled_quantity: 0,
      pending_quantity: 10,
      rejection_reason: '',
      timestamp: '2026-01-05 10:00:00',
      strategy: '',
      ...over,
    });
    const position = (over: Record<string, unknown>) => ({
      symbol: 'SBIN',
      exchange: 'NSE',
      product: 'MIS' as const,
      quantity: 10,
      average_price: 812.35,
      ltp: 815,
      pnl: 26.5,
      realized_pnl: 0,
      unrealized_pnl: 26.5,
      ...over,
    });
    const marks = priceMarks(
      [
        order({}),
        order({
          orderid: '2',
          action: 'SELL',
          pricetype: 'SL-M',
          price: 0,
          trigger_price: 780,
          order_status: 'trigger pending',
          quantity: 5,
          pending_quantity: 5,
        }),
        order({ orderid: '3', order_status: 'complete' }),
        order({ orderid: '4', symbol: 'INFY' }),
      ],
      [position({}), position({ product: 'CNC', quantity: 0 })],
      { symbol: 'SBIN', exchange: 'NSE' },
    );
    expect(marks.map(({ key, kind, price, title }) => ({ key, kind, price, title }))).toEqual([
      { key: 'order:1', kind: 'BUY', price: 790, title: 'BUY 10 LMT' },
      { key: 'order:2', kind: 'SELL', price: 780, title: 'SELL 5 SL-M' },
      { key: 'position:MIS', kind: 'avg', price: 812.35, title: 'Avg 812.35 (+10)' },
    ]);
    expect(marks[1]!.description).toBe('Working order 2: SELL 5 SL-M at trigger 780.00');
    // Short in two products: each line says which.
    const two = priceMarks(
      [],
      [position({ quantity: -5 }), position({ product: 'NRML', quantity: 3, average_price: 800 })],
      {
        symbol: 'SBIN',
        exchange: 'NSE',
      },
    );
    expect(two.map((m) => m.title)).toEqual(['Avg 812.35 (-5 MIS)', 'Avg 800.00 (+3 NRML)']);
  });
});

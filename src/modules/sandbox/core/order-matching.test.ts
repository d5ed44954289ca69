import { describe, expect, it } from 'vitest';
import { BANKNIFTY_FUT, NIFTY_CE } from '../../../../test/helpers/sandbox-instruments.js';
import { rupeesToMoney as r } from './money.js';
import {
  checkQuote,
  executionPrice,
  isTriggered,
  matchOrder,
  matchPass,
  matchPrices,
  placementPrice,
  type MarketPrices,
} from './rules.js';
import { quoteKey, type Quote, type RestingOrder } from './types.js';

const NOW = Date.UTC(2026, 7, 18, 5, 0, 0); // 10:30 IST
const quote = (over: Partial<Quote> = {}): Quote => ({
  ltp: 131.25,
  bid: 131.2,
  ask: 131.3,
  high: 140,
  low: 110,
  timestamp: NOW - 1_000,
  ...over,
});
const prices = (ltp: string, bid = '0', ask = '0'): MarketPrices => ({
  ltp: r(ltp),
  bid: r(bid),
  ask: r(ask),
});

describe('quote sanity: stale or out-of-range quotes fill nothing', () => {
  it('a fresh quote in range becomes exact prices', () => {
    expect(checkQuote(quote(), NOW, 5_000)).toEqual({
      ok: true,
      prices: prices('131.25', '131.20', '131.30'),
    });
  });
  it('older than the max age is stale; exactly the max age is not', () => {
    expect(checkQuote(quote({ timestamp: NOW - 5_001 }), NOW, 5_000)).toEqual({
      ok: false,
      reason: 'stale quote',
    });
    expect(checkQuote(quote({ timestamp: NOW - 5_000 }), NOW, 5_000).ok).toBe(true);
    expect(checkQuote(quote({ timestamp: Number.NaN }), NOW, 5_000)).toEqual({
      ok: false,
      reason: 'stale quote',
    });
  });
  it('an LTP outside the day’s [low, high] is refused; the bounds themselves are fine', () => {
    const out = { ok: false, reason: 'quote outside day range' };
    expect(checkQuote(quote({ ltp: 140.05 }), NOW, 5_000)).toEqual(out);
    expect(checkQuote(quote({ ltp: 109.95 }), NOW, 5_000)).toEqual(out);
    expect(checkQuote(quote({ high: 0, low: 0 }), NOW, 5_000)).toEqual(out);
    expect(checkQuote(quote({ ltp: 140 }), NOW, 5_000).ok).toBe(true);
    expect(checkQuote(quote({ ltp: 110 }), NOW, 5_000).ok).toBe(true);
  });
  it('no quote, or no positive LTP, cannot fill', () => {
    expect(checkQuote(undefined, NOW, 5_000)).toEqual({ ok: false, reason: 'no quote' });
    expect(checkQuote(quote({ ltp: 0 }), NOW, 5_000)).toEqual({ ok: false, reason: 'no price' });
    expect(checkQuote(quote({ ltp: Number.NaN }), NOW, 5_000)).toEqual({ ok: false, reason: 'no price' });
  });
  it('missing or non-positive depth reads as absent; feed float noise is absorbed', () => {
    expect(checkQuote(quote({ bid: undefined, ask: 0 }), NOW, 5_000)).toEqual({
      ok: true,
      prices: prices('131.25'),
    });
    expect(checkQuote(quote({ bid: -1, ltp: 131.25000000000003 }), NOW, 5_000)).toEqual({
      ok: true,
      prices: prices('131.25', '0', '131.30'),
    });
  });
  it('matchOrder refuses even a MARKET order on a stale quote', () => {
    const o: RestingOrder = {
      id: 'm',
      symbol: 'X',
      exchange: 'NSE',
      side: 'BUY',
      priceType: 'MARKET',
      quantity: 1,
      price: 0,
      triggerPrice: 0,
      status: 'open',
    };
    expect(matchOrder(o, quote({ timestamp: NOW - 60_000 }), { now: NOW, maxQuoteAgeMs: 5_000 })).toEqual({
      fill: false,
      triggered: false,
      reason: 'stale quote',
    });
    expect(matchOrder(o, quote(), { now: NOW, maxQuoteAgeMs: 5_000 })).toEqual({
      fill: true,
      price: r('131.30'),
      triggered: false,
    });
  });
});

// ---- fills ----

let seq = 0;
const order = (over: Partial<RestingOrder>): RestingOrder => ({
  id: `o${++seq}`,
  symbol: NIFTY_CE.symbol,
  exchange: 'NFO',
  side: 'BUY',
  priceType: 'MARKET',
  quantity: 65,
  price: 0,
  triggerPrice: 0,
  status: 'open',
  ...over,
});

describe('MARKET fills at once: ask for BUY, bid for SELL, else LTP', () => {
  const p = prices('131.25', '131.20', '131.30');
  it('uses the touch price of the side', () => {
    expect(executionPrice('BUY', p)).toBe(r('131.30'));
    expect(executionPrice('SELL', p)).toBe(r('131.20'));
    expect(matchPrices(order({ side: 'SELL' }), p)).toEqual({
      fill: true,
      price: r('131.20'),
      triggered: false,
    });
  });
  it('falls back to the LTP without depth', () => {
    expect(matchPrices(order({}), prices('131.25'))).toEqual({
      fill: true,
      price: r('131.25'),
      triggered: false,
    });
    expect(executionPrice('SELL', prices('131.25', '0', '131.30'))).toBe(r('131.25'));
  });
});

describe('LIMIT fills when marketable, at the better quote price, else rests', () => {
  const p = prices('131.25', '131.20', '131.30');
  it('BUY limit 131.50 against ask 131.30 fills at 131.30 (better for the buyer)', () => {
    expect(matchPrices(order({ priceType: 'LIMIT', price: r('131.50') }), p)).toEqual({
      fill: true,
      price: r('131.30'),
      triggered: false,
    });
  });
  it('BUY limit equal to the ask fills at the limit; below it rests', () => {
    expect(matchPrices(order({ priceType: 'LIMIT', price: r('131.30') }), p)).toMatchObject({
      fill: true,
      price: r('131.30'),
    });
    expect(matchPrices(order({ priceType: 'LIMIT', price: r('131.00') }), p)).toEqual({
      fill: false,
      triggered: false,
      reason: 'not marketable',
    });
  });
  it('SELL limit 131.00 against bid 131.20 fills at 131.20 (better for the seller); 131.25 rests', () => {
    expect(matchPrices(order({ side: 'SELL', priceType: 'LIMIT', price: r('131.00') }), p)).toMatchObject({
      fill: true,
      price: r('131.20'),
    });
    expect(matchPrices(order({ side: 'SELL', priceType: 'LIMIT', price: r('131.25') }), p)).toMatchObject({
      fill: false,
      reason: 'not marketable',
    });
  });
  it('a resting BUY limit fills once the price crosses it, at the crossed price', () => {
    const o = order({ priceType: 'LIMIT', price: r('131.00') });
    expect(matchPrices(o, prices('130.85', '130.80', '130.90'))).toMatchObject({
      fill: true,
      price: r('130.90'),
    });
  });
  it('without depth the LTP decides', () => {
    expect(matchPrices(order({ priceType: 'LIMIT', price: r('131.25') }), prices('131.25'))).toMatchObject({
      fill: true,
    });
  });
});

describe('SL / SL-M: trigger pending until the LTP reaches the trigger', () => {
  it('a BUY stop triggers at LTP ≥ trigger, a SELL stop at LTP ≤ trigger', () => {
    expect(isTriggered('BUY', r('132.00'), r('131.95'))).toBe(false);
    expect(isTriggered('BUY', r('132.00'), r('132.00'))).toBe(true);
    expect(isTriggered('SELL', r('118.00'), r('118.05'))).toBe(false);
    expect(isTriggered('SELL', r('118.00'), r('118.00'))).toBe(true);
  });
  it('SL-M BUY trigger 132.00: waits at 131.25, fills at the ask 132.10 once LTP is 132.00', () => {
    const o = order({ priceType: 'SL-M', triggerPrice: r('132.00'), status: 'trigger pending' });
    expect(matchPrices(o, prices('131.25', '131.20', '131.30'))).toEqual({
      fill: false,
      triggered: false,
      reason: 'trigger not reached',
    });
    expect(matchPrices(o, prices('132.00', '131.95', '132.10'))).toEqual({
      fill: true,
      price: r('132.10'),
      triggered: true,
    });
  });
  it('SL-M SELL trigger 118.00 fills at the bid once LTP ≤ 118.00', () => {
    const o = order({
      side: 'SELL',
      priceType: 'SL-M',
      triggerPrice: r('118.00'),
      status: 'trigger pending',
    });
    expect(matchPrices(o, prices('118.05', '118.00', '118.10')).fill).toBe(false);
    expect(matchPrices(o, prices('117.95', '117.90', '118.00'))).toEqual({
      fill: true,
      price: r('117.90'),
      triggered: true,
    });
  });
  it('SL BUY trigger 132.00 limit 132.50: triggered and marketable fills at the ask', () => {
    const o = order({
      priceType: 'SL',
      price: r('132.50'),
      triggerPrice: r('132.00'),
      status: 'trigger pending',
    });
    expect(matchPrices(o, prices('132.00', '131.95', '132.40'))).toEqual({
      fill: true,
      price: r('132.40'),
      triggered: true,
    });
  });
  it('SL triggered but not marketable rests as a LIMIT, then fills when the price comes back', () => {
    const o = order({
      priceType: 'SL',
      price: r('132.50'),
      triggerPrice: r('132.00'),
      status: 'trigger pending',
    });
    expect(matchPrices(o, prices('132.55', '132.50', '132.60'))).toEqual({
      fill: false,
      triggered: true,
      reason: 'not marketable',
    });
    const resting = { ...o, status: 'open' as const };
    expect(matchPrices(resting, prices('132.40', '132.35', '132.45'))).toEqual({
      fill: true,
      price: r('132.45'),
      triggered: false,
    });
  });
  it('SL SELL trigger 118.00 limit 117.50 fills at the bid 117.85', () => {
    const o = order({
      side: 'SELL',
      priceType: 'SL',
      price: r('117.50'),
      triggerPrice: r('118.00'),
      status: 'trigger pending',
    });
    expect(matchPrices(o, prices('117.90', '117.85', '117.95'))).toMatchObject({
      fill: true,
      price: r('117.85'),
    });
  });
  it('final orders never fill', () => {
    for (const status of ['complete', 'cancelled', 'rejected'] as const)
      expect(matchPrices(order({ status }), prices('131.25'))).toEqual({
        fill: false,
        triggered: false,
        reason: 'not resting',
      });
  });
});

describe('placement price for margin', () => {
  const p = prices('131.25', '131.20', '131.30');
  it('MARKET at the execution price, LIMIT/SL at the limit, SL-M at the trigger', () => {
    expect(placementPrice({ side: 'BUY', priceType: 'MARKET', price: 0, triggerPrice: 0 }, p)).toBe(
      r('131.30'),
    );
    expect(placementPrice({ side: 'SELL', priceType: 'MARKET', price: 0, triggerPrice: 0 }, p)).toBe(
      r('131.20'),
    );
    expect(
      placementPrice({ side: 'BUY', priceType: 'MARKET', price: 0, triggerPrice: 0 }, undefined),
    ).toBeUndefined();
    expect(placementPrice({ side: 'BUY', priceType: 'LIMIT', price: r('130'), triggerPrice: 0 }, p)).toBe(
      r('130'),
    );
    expect(
      placementPrice({ side: 'BUY', priceType: 'SL', price: r('132.5'), triggerPrice: r('132') }, p),
    ).toBe(r('132.5'));
    expect(placementPrice({ side: 'BUY', priceType: 'SL-M', price: 0, triggerPrice: r('132') }, p)).toBe(
      r('132'),
    );
  });
});

describe('matching pass: one price update, all resting orders, one loop', () => {
  const opts = { now: NOW, maxQuoteAgeMs: 5_000 };

  it('fills, triggers, holds and skips in one result', () => {
    const fut = (over: Partial<RestingOrder>) =>
      order({ symbol: BANKNIFTY_FUT.symbol, quantity: 30, ...over });
    const orders = [
      order({ id: 'buy-limit', priceType: 'LIMIT', price: r('131.50') }),
      order({ id: 'buy-limit-low', priceType: 'LIMIT', price: r('131.00') }),
      order({
        id: 'sl-rests',
        priceType: 'SL',
        price: r('131.25'),
        triggerPrice: r('131.00'),
        status: 'trigger pending',
      }),
      order({
        id: 'slm-sell',
        side: 'SELL',
        priceType: 'SL-M',
        triggerPrice: r('131.50'),
        status: 'trigger pending',
      }),
      fut({ id: 'fut-stale', priceType: 'MARKET' }),
      order({ id: 'no-update', symbol: 'SBIN', exchange: 'NSE', quantity: 1 }),
    ];
    const quotes = new Map<string, Quote>([
      [quoteKey('NFO', NIFTY_CE.symbol), quote()],
      [
        quoteKey('NFO', BANKNIFTY_FUT.symbol),
        quote({ ltp: 56120.4, high: 56500, low: 55800, timestamp: NOW - 10_000 }),
      ],
    ]);
    expect(matchPass(orders, quotes, opts)).toEqual({
      fills: [
        { orderId: 'buy-limit', price: r('131.30'), quantity: 65, triggered: false },
        { orderId: 'slm-sell', price: r('131.20'), quantity: 65, triggered: true },
      ],
      triggered: ['sl-rests'],
      held: [{ orderId: 'fut-stale', reason: 'stale quote' }],
    });
  });

  it('checks each instrument’s quote once, however many orders rest on it', () => {
    let gets = 0;
    class CountingMap extends Map<string, Quote> {
      override get(k: string) {
        gets++;
        return super.get(k);
      }
    }
    const quotes = new CountingMap([[quoteKey('NFO', NIFTY_CE.symbol), quote()]]);
    const orders = Array.from({ length: 100 }, () => order({ priceType: 'LIMIT', price: r('131.30') }));
    expect(matchPass(orders, quotes, opts).fills).toHaveLength(100);
    expect(gets).toBe(1);
  });

  it('5,000 orders across 500 instruments: exact fills, timing printed not asserted', () => {
    const quotes = new Map<string, Quote>();
    const orders: RestingOrder[] = [];
    for (let i = 0; i < 500; i++) {
      const symbol = `SYM${i}`;
      const ltp = 100 + i * 0.05; // ask one tick above
      quotes.set(quoteKey('NSE', symbol), {
        ltp,
        bid: ltp - 0.05,
        ask: ltp + 0.05,
        high: ltp + 5,
        low: ltp - 5,
        timestamp: NOW,
      });
      for (let j = 0; j < 10; j++)
        orders.push(
          order({
            id: `${symbol}-${j}`,
            symbol,
            exchange: 'NSE',
            quantity: 1,
            priceType: 'LIMIT',
            price: r((ltp + 0.05 * (j - 5)).toFixed(2)),
          }),
        );
    }
    const t0 = performance.now();
    const res = matchPass(orders, quotes, opts);
    const ms = performance.now() - t0;
    console.log(`matchPass: 5,000 orders / 500 instruments in ${ms.toFixed(2)} ms`);
    // j − 5 ≥ 1 ⇔ limit ≥ ask: j = 6..9 fill, 4 per instrument, each at its ask.
    expect(res.fills).toHaveLength(2_000);
    expect(res.fills[0]).toEqual({ orderId: 'SYM0-6', price: r('100.05'), quantity: 1, triggered: false });
    expect(res.held).toEqual([]);
  });
});

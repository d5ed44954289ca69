import { describe, expect, it } from 'vitest';
import { rupeesToMoney as r } from './money.js';
import {
  checkQuote,
  executionPrice,
  isTriggered,
  matchOrder,
  matchPass,
  matchPrices,
  placementPrice,
  validateOrder,
  type MarketPrices,
  type OrderRequest,
  type PlacementContext,
} from './order-rules.js';
import { quoteKey, type Quote, type RestingOrder, type SandboxInstrument } from './types.js';

// Real contracts: Kite NFO/BFO 2026-08-18 (NIFTY lot 65 tick 0.05, BANKNIFTY FUT lot 30 tick 0.20),
// Kite NSE 2025-10-06 (SBIN lot 1 tick 0.05), Fyers NSE_CD 2025-11-10 (USDINR tick 0.0025).
const NIFTY_CE: SandboxInstrument = {
  symbol: 'NIFTY18AUG2626000CE',
  exchange: 'NFO',
  lotsize: 65,
  instrumenttype: 'CE',
  tickSize: 0.05,
};
const BANKNIFTY_FUT: SandboxInstrument = {
  symbol: 'BANKNIFTY25AUG26FUT',
  exchange: 'NFO',
  lotsize: 30,
  instrumenttype: 'FUT',
  tickSize: 0.2,
};
const SBIN: SandboxInstrument = {
  symbol: 'SBIN',
  exchange: 'NSE',
  lotsize: 1,
  instrumenttype: 'EQ',
  tickSize: 0.05,
};
const USDINR_FUT: SandboxInstrument = {
  symbol: 'USDINR28NOV25FUT',
  exchange: 'CDS',
  lotsize: 1,
  instrumenttype: 'FUT',
  tickSize: 0.0025,
};
const NIFTY_INDEX: SandboxInstrument = {
  symbol: 'NIFTY',
  exchange: 'NSE_INDEX',
  lotsize: 0,
  instrumenttype: 'INDEX',
  tickSize: 0,
};

const ctx = (instrument: SandboxInstrument, over: Partial<PlacementContext> = {}): PlacementContext => ({
  instrument,
  positionQuantity: 0,
  session: 'regular',
  ...over,
});
const req = (over: Partial<OrderRequest> = {}): OrderRequest => ({
  side: 'BUY',
  priceType: 'MARKET',
  product: 'MIS',
  quantity: 65,
  ...over,
});
const rejected = (v: ReturnType<typeof validateOrder>) => (v.ok ? undefined : v.code);

describe('validation: tradable instrument and product', () => {
  it('an index cannot be traded', () => {
    const v = validateOrder(req({ quantity: 1 }), ctx(NIFTY_INDEX));
    expect(v).toEqual({ ok: false, code: 'instrument', reason: 'NIFTY is an index and cannot be traded' });
  });
  it('CNC is for cash equity only', () => {
    expect(rejected(validateOrder(req({ product: 'CNC' }), ctx(NIFTY_CE)))).toBe('product');
    expect(rejected(validateOrder(req({ product: 'NRML' }), ctx(NIFTY_CE)))).toBeUndefined();
    expect(rejected(validateOrder(req({ product: 'CNC', quantity: 1 }), ctx(SBIN)))).toBeUndefined();
  });
});

describe('validation: quantity a positive integer, F&O in whole lots', () => {
  it.each([0, -65, 1.5, Number.NaN, Infinity])('quantity %s is rejected', (quantity) => {
    expect(rejected(validateOrder(req({ quantity }), ctx(SBIN)))).toBe('quantity');
  });
  it('NIFTY option: 64 is not a multiple of the lot 65, 130 is', () => {
    expect(validateOrder(req({ quantity: 64 }), ctx(NIFTY_CE))).toEqual({
      ok: false,
      code: 'lot',
      reason: 'quantity must be a multiple of the lot size 65',
    });
    expect(validateOrder(req({ quantity: 130 }), ctx(NIFTY_CE)).ok).toBe(true);
  });
  it('BANKNIFTY future: 45 rejected, 60 accepted (lot 30)', () => {
    expect(rejected(validateOrder(req({ quantity: 45 }), ctx(BANKNIFTY_FUT)))).toBe('lot');
    expect(validateOrder(req({ quantity: 60 }), ctx(BANKNIFTY_FUT)).ok).toBe(true);
  });
  it('equity takes any whole number of shares', () => {
    expect(validateOrder(req({ quantity: 7 }), ctx(SBIN)).ok).toBe(true);
  });
});

describe('validation: prices on the tick grid', () => {
  const limit = (price: number | string, instrument = SBIN, quantity = 1) =>
    validateOrder(req({ priceType: 'LIMIT', price, quantity }), ctx(instrument));
  it('SBIN (tick 0.05): 800.05 accepted as exact units, 800.03 rejected', () => {
    expect(limit('800.05')).toMatchObject({
      ok: true,
      order: { price: r('800.05'), triggerPrice: 0, status: 'open' },
    });
    expect(limit(800.03)).toEqual({
      ok: false,
      code: 'price',
      reason: 'price must be a multiple of the tick size 0.05',
    });
  });
  it('BANKNIFTY FUT (tick 0.20): 56,120.40 accepted, 56,120.50 rejected', () => {
    expect(limit('56120.40', BANKNIFTY_FUT, 30).ok).toBe(true);
    expect(rejected(limit('56120.50', BANKNIFTY_FUT, 30))).toBe('price');
  });
  it('USDINR (tick 0.0025): 88.3775 accepted, 88.378 rejected', () => {
    expect(limit(88.3775, USDINR_FUT).ok).toBe(true);
    expect(rejected(limit('88.378', USDINR_FUT))).toBe('price');
  });
  it('a LIMIT needs a positive price in rupees', () => {
    expect(rejected(validateOrder(req({ priceType: 'LIMIT', quantity: 1 }), ctx(SBIN)))).toBe('price');
    expect(rejected(limit('0'))).toBe('price');
    expect(rejected(limit('-800.05'))).toBe('price');
    expect(limit('12.3.4')).toEqual({
      ok: false,
      code: 'price',
      reason: 'price must be an amount in rupees',
    });
  });
  it('a MARKET order ignores price and trigger (OpenAlgo sends "0")', () => {
    const v = validateOrder(req({ price: 'junk', triggerPrice: '5' }), ctx(NIFTY_CE));
    expect(v).toMatchObject({ ok: true, order: { price: 0, triggerPrice: 0, status: 'open' } });
  });
});

describe('validation: stop orders', () => {
  it('SL needs a trigger and a price', () => {
    expect(rejected(validateOrder(req({ priceType: 'SL', price: '120.50' }), ctx(NIFTY_CE)))).toBe('trigger');
    expect(rejected(validateOrder(req({ priceType: 'SL', triggerPrice: '120.00' }), ctx(NIFTY_CE)))).toBe(
      'price',
    );
  });
  it('SL BUY: limit at or above the trigger; SL SELL: at or below', () => {
    const sl = (side: 'BUY' | 'SELL', price: string, triggerPrice: string) =>
      validateOrder(req({ side, priceType: 'SL', price, triggerPrice }), ctx(NIFTY_CE));
    expect(sl('BUY', '132.50', '132.00')).toMatchObject({
      ok: true,
      order: { price: r('132.50'), triggerPrice: r('132.00'), status: 'trigger pending' },
    });
    expect(rejected(sl('BUY', '131.50', '132.00'))).toBe('price');
    expect(sl('SELL', '117.50', '118.00').ok).toBe(true);
    expect(rejected(sl('SELL', '118.50', '118.00'))).toBe('price');
    expect(sl('SELL', '118.00', '118.00').ok).toBe(true);
  });
  it('SL-M needs only a trigger on the grid and ignores price', () => {
    expect(
      validateOrder(req({ priceType: 'SL-M', triggerPrice: '118.00', price: '1' }), ctx(NIFTY_CE)),
    ).toMatchObject({
      ok: true,
      order: { price: 0, triggerPrice: r('118.00'), status: 'trigger pending' },
    });
    expect(rejected(validateOrder(req({ priceType: 'SL-M' }), ctx(NIFTY_CE)))).toBe('trigger');
    expect(rejected(validateOrder(req({ priceType: 'SL-M', triggerPrice: '118.01' }), ctx(NIFTY_CE)))).toBe(
      'trigger',
    );
  });
});

describe('validation: a CNC SELL needs shares to sell', () => {
  const sell = (quantity: number, sellableQuantity?: number) =>
    validateOrder(req({ side: 'SELL', product: 'CNC', quantity }), ctx(SBIN, { sellableQuantity }));
  it('selling 10 with 5 sellable is rejected with the numbers', () => {
    expect(sell(10, 5)).toEqual({
      ok: false,
      code: 'holdings',
      reason: 'CNC SELL of 10 exceeds the 5 shares held',
    });
  });
  it('selling up to the sellable quantity is accepted; none known means none held', () => {
    expect(sell(5, 5).ok).toBe(true);
    expect(rejected(sell(1))).toBe('holdings');
  });
  it('a CNC BUY and an MIS SELL (short) need no holdings', () => {
    expect(validateOrder(req({ product: 'CNC', quantity: 10 }), ctx(SBIN)).ok).toBe(true);
    expect(validateOrder(req({ side: 'SELL', quantity: 10 }), ctx(SBIN)).ok).toBe(true);
  });
});

describe('validation: after the MIS square-off time only reducing MIS orders', () => {
  const late = (
    side: 'BUY' | 'SELL',
    quantity: number,
    positionQuantity: number,
    product: OrderRequest['product'] = 'MIS',
  ) =>
    validateOrder(
      req({ side, quantity, product }),
      ctx(NIFTY_CE, { positionQuantity, session: 'after-square-off' }),
    );
  it('reducing or closing a long or short is accepted', () => {
    expect(late('SELL', 65, 130).ok).toBe(true);
    expect(late('SELL', 130, 130).ok).toBe(true);
    expect(late('BUY', 65, -65).ok).toBe(true);
  });
  it('opening, adding and reversing are rejected', () => {
    expect(late('BUY', 65, 0)).toEqual({
      ok: false,
      code: 'square-off',
      reason: 'after the MIS square-off time only orders reducing a position are accepted',
    });
    expect(rejected(late('BUY', 65, 65))).toBe('square-off');
    expect(rejected(late('SELL', 130, 65))).toBe('square-off');
  });
  it('NRML is not affected; before square-off MIS may open', () => {
    expect(late('BUY', 65, 0, 'NRML').ok).toBe(true);
    expect(validateOrder(req(), ctx(NIFTY_CE)).ok).toBe(true);
  });
});

// ---- quotes ----

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
